package purl

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/druid"
)

// rightsRecord is a record of two files, a.png and b.txt, with the given
// rightsMetadata content.
func rightsRecord(id, rights string) string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<publicObject objectId="druid:%[1]s" published="2026-01-01T00:00:00Z">
  <identityMetadata><objectType>item</objectType><objectLabel>Rights</objectLabel></identityMetadata>
  <contentMetadata objectId="druid:%[1]s" type="image">
    <resource id="r1" sequence="1" type="image"><file id="a.png" mimetype="image/png" size="3"><imageData width="1" height="1"/></file></resource>
    <resource id="r2" sequence="2" type="file"><file id="b.txt" mimetype="text/plain" size="3"/></resource>
  </contentMetadata>
  <rightsMetadata>%[2]s</rightsMetadata>
  <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Rights</dc:title></oai_dc:dc>
</publicObject>`, id, rights)
}

func read(machine string) string {
	return `<access type="read"><machine>` + machine + `</machine></access>`
}

// pageSummaries is what the page says of who may read the files, for some
// of TestRightsCombinations's cases.
var pageSummaries = map[string]string{
	"group or location":           "Available to sitelib or at reading-room",
	"two read accesses":           "Available to sitelib or at reading-room",
	"file world, object none":     "Citation only: the files are not available online; some files have access of their own",
	"controlled lending":          "Citation only",
	"group under embargo":         "Embargoed until January 1, 2099; then available to sitelib",
	"file group, object location": "Available at reading-room; some files have access of their own",
}

const discoverWorld = `<access type="discover"><machine><world/></machine></access>`

// TestRightsCombinations publishes every combination of rights the real
// records of ../shared/data/purl-records carry (the first group), and those
// other repositories publish (several grants, per-file rights), and checks
// who reads each file: anonymous, a member of the login group "sitelib",
// a reader at the location "reading-room". The service's clock is
// 2026-06-01. docs/purl.md, "Rights".
func TestRightsCombinations(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	type who struct{ anon, member, reader int }
	const (
		ok   = http.StatusOK
		no   = http.StatusUnauthorized
		deny = http.StatusForbidden
		gone = http.StatusNotFound
	)
	all := func(s int) who { return who{s, s, s} }
	cases := []struct {
		name   string
		rights string
		a, b   who // a.png, b.txt
	}{
		// In the corpus.
		{"world", discoverWorld + read(`<world/>`), all(ok), all(ok)},
		{"world no-download", discoverWorld + read(`<world rule="no-download"/>`), all(ok), all(ok)},
		{"group", discoverWorld + read(`<group>sitelib</group>`), who{no, ok, deny}, who{no, ok, deny}},
		{"group no-download", discoverWorld + read(`<group rule="no-download">sitelib</group>`), who{no, ok, deny}, who{no, ok, deny}},
		{"location", discoverWorld + read(`<location>reading-room</location>`), who{no, deny, ok}, who{no, deny, ok}},
		{"location no-download", discoverWorld + read(`<location rule="no-download">reading-room</location>`), who{no, deny, ok}, who{no, deny, ok}},
		{"citation only", discoverWorld + read(`<none/>`), all(deny), all(deny)},
		{"none with embargo", discoverWorld + read(`<none/><embargoReleaseDate>2026-05-01</embargoReleaseDate>`), all(deny), all(deny)},
		{"group under embargo", discoverWorld + read(`<group>sitelib</group><embargoReleaseDate>2099-01-01</embargoReleaseDate>`), all(deny), all(deny)},
		{"group after embargo", discoverWorld + read(`<group>sitelib</group><embargoReleaseDate>2026-05-01</embargoReleaseDate>`), who{no, ok, deny}, who{no, ok, deny}},
		{"controlled lending", discoverWorld + read(`<cdl><group rule="no-download">sitelib</group></cdl>`), all(deny), all(deny)},
		{"group and agent", discoverWorld + `<access type="read"><human>x</human><machine><group>sitelib</group><agent>app</agent></machine></access>`, who{no, ok, deny}, who{no, ok, deny}},
		{"no rights", ``, all(deny), all(deny)},
		{"dark", `<access type="discover"><machine><none/></machine></access>` + read(`<none/>`), all(gone), all(gone)},
		// Other repositories' forms.
		{"group or location", discoverWorld + read(`<group>sitelib</group><location>reading-room</location>`), who{no, ok, ok}, who{no, ok, ok}},
		{"two read accesses", discoverWorld + read(`<group>sitelib</group>`) + read(`<location>reading-room</location>`), who{no, ok, ok}, who{no, ok, ok}},
		{"file world, object none", discoverWorld + read(`<none/>`) + `<access type="read"><file>a.png</file><machine><world/></machine></access>`, all(ok), all(deny)},
		{"file none, object world", discoverWorld + read(`<world/>`) + `<access type="read"><file>b.txt</file><machine><none/></machine></access>`, all(ok), all(deny)},
		{"file group, object location", discoverWorld + read(`<location>reading-room</location>`) + `<access type="read"><file>b.txt</file><machine><group>sitelib</group></machine></access>`, who{no, deny, ok}, who{no, ok, deny}},
		{"file embargoed", discoverWorld + read(`<world/>`) + `<access type="read"><file>b.txt</file><machine><world/><embargoReleaseDate>2099-01-01</embargoReleaseDate></machine></access>`, all(ok), all(deny)},
		{"none and world (unclear)", discoverWorld + read(`<none/><world/>`), all(deny), all(deny)},
		{"unknown grant", discoverWorld + read(`<everyone/>`), all(deny), all(deny)},
		{"dark but readable (unclear)", `<access type="discover"><machine><none/></machine></access>` + read(`<world/>`), all(gone), all(gone)},
	}
	ids := []string{"bb100cd1000", "bb101cd1001", "bb102cd1002", "bb103cd1003", "bb104cd1004", "bb105cd1005", "bb106cd1006", "bb107cd1007",
		"bb108cd1008", "bb109cd1009", "bb110cd1010", "bb111cd1011", "bb112cd1012", "bb113cd1013", "bb114cd1014", "bb115cd1015",
		"bb116cd1016", "bb117cd1017", "bb118cd1018", "bb119cd1019", "bb120cd1020", "bb121cd1021", "bb122cd1022"}
	if len(ids) < len(cases) {
		t.Fatal("more cases than druids")
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := druid.Druid(ids[i])
			for _, name := range []string{"a.png", "b.txt"} {
				if _, err := f.svc.store.Write(ctx, id, name, bytes.NewReader([]byte("abc"))); err != nil {
					t.Fatal(err)
				}
			}
			resp, body := f.do(t, http.MethodPut, "/"+string(id)+".xml", []byte(rightsRecord(string(id), c.rights)), xmlType, bearer("pub"))
			if resp.StatusCode != http.StatusCreated {
				t.Fatalf("PUT: %d %s", resp.StatusCode, body)
			}
			for _, file := range []struct {
				name string
				want who
			}{{"a.png", c.a}, {"b.txt", c.b}} {
				for _, reader := range []struct {
					token string
					want  int
				}{{"", file.want.anon}, {"member", file.want.member}, {"reader", file.want.reader}} {
					var headers []string
					if reader.token != "" {
						headers = append(headers, bearer(reader.token))
					}
					resp, body := f.get(t, "/"+string(id)+"/file/"+file.name, headers...)
					if resp.StatusCode != reader.want {
						t.Errorf("%s as %q: %d, want %d: %s", file.name, reader.token, resp.StatusCode, reader.want, strings.TrimSpace(string(body)))
					}
					// What anyone may not read is never cached publicly.
					if resp.StatusCode == http.StatusOK && file.want.anon != ok && !strings.HasPrefix(resp.Header.Get("Cache-Control"), "private") {
						t.Errorf("%s as %q: Cache-Control %q for a restricted file", file.name, reader.token, resp.Header.Get("Cache-Control"))
					}
				}
			}
			// The page says who may read the files: every grant.
			if want, ok := pageSummaries[c.name]; ok {
				_, page := f.get(t, "/"+string(id))
				if !strings.Contains(string(page), want) {
					t.Errorf("the page does not say %q", want)
				}
			}
			// The zip of all files needs access to every one of them.
			wantZip := http.StatusOK
			for _, s := range []int{c.a.anon, c.b.anon} {
				if s != ok {
					wantZip = s
				}
			}
			if wantZip == ok || c.a.anon == gone {
				if resp, _ := f.get(t, "/"+string(id)+".zip"); resp.StatusCode != wantZip {
					t.Errorf("zip anonymously: %d, want %d", resp.StatusCode, wantZip)
				}
			} else if resp, _ := f.get(t, "/"+string(id)+".zip"); resp.StatusCode == http.StatusOK {
				t.Error("zip of files not all readable anonymously was served anonymously")
			}
		})
	}
}
