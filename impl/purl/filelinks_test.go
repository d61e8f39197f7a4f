package purl

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/druid"
)

// TestPageLinksFollowFileRights: the page links a file exactly when anyone
// may fetch it, by the file's own rights when it has some (no link that
// would fail, no readable file without one); the zip only when anyone may
// read every file; a file restricted inside an open object says who may;
// when a file's embargo ends, the page links it.
func TestPageLinksFollowFileRights(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	cases := []struct {
		name, id, rights string
		linked           []string // files the page links, in order
		zip              bool
		notes            []string // what the page says of restricted files
	}{
		{"all open", "bb200cd2000", discoverWorld + read(`<world/>`), []string{"a.png", "b.txt"}, true, nil},
		{"file none, object world", "bb201cd2001", discoverWorld + read(`<world/>`) + `<access type="read"><file>b.txt</file><machine><none/></machine></access>`,
			[]string{"a.png"}, false, []string{`<tr><td>b.txt <span class="file-access">(not available online)</span></td>`}},
		{"file group, object world", "bb202cd2002", discoverWorld + read(`<world/>`) + `<access type="read"><file>b.txt</file><machine><group>sitelib</group></machine></access>`,
			[]string{"a.png"}, false, []string{"(available to sitelib only)"}},
		{"file world, object none", "bb203cd2003", discoverWorld + read(`<none/>`) + `<access type="read"><file>a.png</file><machine><world/></machine></access>`,
			[]string{"a.png"}, false, nil},
		{"file embargoed", "bb204cd2004", discoverWorld + read(`<world/>`) + `<access type="read"><file>b.txt</file><machine><world/><embargoReleaseDate>2026-07-01</embargoReleaseDate></machine></access>`,
			[]string{"a.png"}, false, []string{"(embargoed until July 1, 2026)"}},
		{"object group", "bb205cd2005", discoverWorld + read(`<group>sitelib</group>`), nil, false, nil},
	}
	fileLink := regexp.MustCompile(`href="[^"]*/file/([^"?]+)\?download=true"`)
	linksOf := func(t *testing.T, id druid.Druid) ([]string, string) {
		t.Helper()
		resp, page := f.get(t, "/"+string(id))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("page: %d", resp.StatusCode)
		}
		var linked []string
		seen := map[string]bool{} // an image is linked twice: its sizes' original and its row
		for _, m := range fileLink.FindAllStringSubmatch(string(page), -1) {
			if !seen[m[1]] {
				seen[m[1]] = true
				linked = append(linked, m[1])
			}
		}
		return linked, string(page)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := druid.Druid(c.id)
			for _, name := range []string{"a.png", "b.txt"} {
				if _, err := f.svc.store.Write(ctx, id, name, bytes.NewReader([]byte("abc"))); err != nil {
					t.Fatal(err)
				}
			}
			if resp, body := f.do(t, http.MethodPut, "/"+string(id)+".xml", []byte(rightsRecord(string(id), c.rights)), xmlType, bearer("pub")); resp.StatusCode != http.StatusCreated {
				t.Fatalf("PUT: %d %s", resp.StatusCode, body)
			}
			linked, page := linksOf(t, id)
			if strings.Join(linked, " ") != strings.Join(c.linked, " ") {
				t.Errorf("links to %q, want %q", linked, c.linked)
			}
			for _, name := range linked { // every link works for anyone
				if resp, _ := f.get(t, "/"+string(id)+"/file/"+name+"?download=true"); resp.StatusCode != http.StatusOK {
					t.Errorf("the page links %s, which answers %d anonymously", name, resp.StatusCode)
				}
			}
			for _, name := range []string{"a.png", "b.txt"} { // every file anyone may fetch is linked
				resp, _ := f.get(t, "/"+string(id)+"/file/"+name)
				if resp.StatusCode == http.StatusOK && !strings.Contains(" "+strings.Join(linked, " ")+" ", " "+name+" ") {
					t.Errorf("%s is readable by anyone but not linked", name)
				}
			}
			if got := strings.Contains(page, `id="download-all"`); got != c.zip {
				t.Errorf("zip link %v, want %v", got, c.zip)
			}
			for _, want := range c.notes {
				if !strings.Contains(page, want) {
					t.Errorf("the page does not say %q:\n%s", want, page[strings.Index(page, "<table>"):])
				}
			}
		})
	}
	// The embargo of b.txt ends: the page is rebuilt and links it.
	f.now = time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)
	if linked, page := linksOf(t, "bb204cd2004"); strings.Join(linked, " ") != "a.png b.txt" || !strings.Contains(page, `id="download-all"`) {
		t.Errorf("after the file's embargo: links %q, zip %v", linked, strings.Contains(page, `id="download-all"`))
	}
}
