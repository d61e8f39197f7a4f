package purl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/sitelib/sitesvc/impl/purl/druid"
)

// voidElements have no end tag in HTML5.
var voidElements = map[string]bool{"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "link": true, "meta": true, "source": true, "track": true, "wbr": true}

// checkHTML5 checks what the HTML5 syntax requires of the page's markup: the
// doctype first, every non-void element closed in order, no end tag for a
// void element, unique ids, html/head/body once each, a lang, a charset and
// a title in the head.
func checkHTML5(page string) error {
	if !strings.HasPrefix(page, "<!DOCTYPE html>\n") {
		return fmt.Errorf("no <!DOCTYPE html> at the start")
	}
	z := html.NewTokenizer(strings.NewReader(page))
	var stack []string
	ids := map[string]bool{}
	counts := map[string]int{}
	inRaw := ""
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			if z.Err() == io.EOF {
				if len(stack) != 0 {
					return fmt.Errorf("unclosed elements %v", stack)
				}
				for _, el := range []string{"html", "head", "body", "title"} {
					if counts[el] != 1 {
						return fmt.Errorf("%d <%s> elements, want 1", counts[el], el)
					}
				}
				return nil
			}
			return z.Err()
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			name := tok.Data
			counts[name]++
			for _, a := range tok.Attr {
				if a.Key == "id" {
					if ids[a.Val] {
						return fmt.Errorf("duplicate id %q", a.Val)
					}
					ids[a.Val] = true
				}
				if name == "html" && a.Key == "lang" && a.Val != "" {
					counts["lang"]++
				}
				if name == "meta" && a.Key == "charset" && strings.EqualFold(a.Val, "utf-8") {
					counts["charset"]++
				}
			}
			if name == "title" && (len(stack) < 2 || stack[len(stack)-1] != "head") {
				return fmt.Errorf("<title> outside <head>")
			}
			if !voidElements[name] && tt == html.StartTagToken {
				stack = append(stack, name)
				if name == "script" || name == "style" || name == "noscript" {
					inRaw = name
				}
			}
		case html.EndTagToken:
			tok := z.Token()
			if voidElements[tok.Data] {
				return fmt.Errorf("end tag for the void element <%s>", tok.Data)
			}
			if len(stack) == 0 || stack[len(stack)-1] != tok.Data {
				return fmt.Errorf("</%s> does not close the open element (open: %v)", tok.Data, stack)
			}
			stack = stack[:len(stack)-1]
			if tok.Data == inRaw {
				inRaw = ""
			}
		}
	}
}

func TestPagesAreHTML5(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, s := range loadSamples(t, f.samples) {
		if s.rec.Rights.Dark() {
			continue
		}
		_, body := f.get(t, "/"+s.id)
		if err := checkHTML5(string(body)); err != nil {
			t.Errorf("page of %s: %v", s.id, err)
		}
		if !strings.Contains(string(body), `<html lang="en">`) || !strings.Contains(string(body), `<meta charset="utf-8">`) {
			t.Errorf("page of %s lacks lang or charset", s.id)
		}
	}
	_, body := f.get(t, "/bc999df9999", "Accept: text/html")
	if err := checkHTML5(string(body)); err != nil {
		t.Errorf("404 page: %v", err)
	}
	if err := checkHTML5("<!DOCTYPE html>\n<html><head><title>x</title></head><body><p><b>x</p></b></body></html>"); err == nil {
		t.Error("checkHTML5 accepts misnested tags")
	}
}

// TestPageContent: the page shows what DESIGN.md lists for the HTML view,
// each in its place: title, creators, dates, abstract, subjects, use and
// license statements, preferred citation, collection link, download links,
// the viewer and the records.
func TestPageContent(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, body := f.get(t, "/bb000kk0000")
	page := string(body)
	for _, want := range []string{
		`<h1 id="title">Two views of the reading room</h1>`,
		`<dd>Okafor, Adaeze (creator)</dd>`,
		`<dt>Dates</dt><dd>November 3, 2025</dd>`,
		`"dateCreated":"2025-11-03"`,
		`<dt>Abstract</dt><dd>Two drawings of the main reading room`,
		`<dt>Subjects</dt><dd>Reading rooms</dd><dd>Library architecture</dd>`,
		`<dt>Use and reproduction</dt><dd>Made by the sitesvc project as sample content; free to use with attribution.</dd>`,
		`<dt>License</dt><dd><a href="https://creativecommons.org/licenses/by/4.0/" rel="license">`,
		`<strong>Preferred citation:</strong> <span id="citation">Okafor, Adaeze. Two views of the reading room.`,
		`<meta property="og:title" content="Two views of the reading room">`,
		`<meta property="og:image" content="` + base + `/bb000kk0000/iiif/image/reading-room-north.png/full/max/0/default.jpg">`,
		`<meta property="og:image:type" content="image/jpeg">`,
		`<link rel="icon" href="data:image/svg&#43;xml,`,
		`<meta property="og:description" content="Two drawings of the main reading room`,
		`<textarea id="embed-code" readonly>&lt;iframe src=&#34;` + embed + `/iframe?url=http%3A%2F%2Fpurl.test%2Fpurl%2Fbb000kk0000&#34; style=&#34;height: 100%; width: 100%; min-height: 31.25rem;&#34;`,
		`<input type="text" id="oembed-url" readonly value="` + embed + `/embed?url=http%3A%2F%2Fpurl.test%2Fpurl%2Fbb000kk0000&amp;format=json">`,
		`<button type="button" data-copy="citation" hidden>Copy citation</button>`,
		`<dt>Collection</dt><dd><a href="` + base + `/bc000df0001">sitesvc sample collection</a></dd>`,
		`<a href="` + base + `/bb000kk0000/file/reading-room-north.png?download=true" download>reading-room-north.png</a>`,
		`<a href="` + base + `/bb000kk0000/file/reading-room-south.png?download=true" download>reading-room-south.png</a>`,
		`<section id="viewer" aria-label="Viewer" data-oembed="` + embed + `/embed?url=`,
		// Downloads by size: JPEGs of the sizes the image service lists, then the original.
		`<li><a href="` + base + `/bb000kk0000/iiif/image/reading-room-north.png/full/512,/0/default.jpg" download="reading-room-north-512x384.jpg">Small</a>: JPEG, 512 × 384 px</li>`,
		`<li><a href="` + base + `/bb000kk0000/file/reading-room-north.png?download=true" download>Original</a>: PNG, 640 × 480 px, `,
		`<a id="download-all" href="` + base + `/bb000kk0000.zip" download>Download all files (zip)</a>`,
		`<a href="` + base + `/bb000kk0000/iiif/manifest">IIIF manifest</a>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	// A restricted object's page says why its files cannot be had.
	_, body = f.get(t, "/bm777wx7777")
	if !strings.Contains(string(body), "mbargo") || !strings.Contains(string(body), "January 1, 2099") {
		t.Error("embargoed object's page does not give the release date")
	}
	checkJSONLD(t, page, "ImageObject", base+"/bb000kk0000")
	// A collection's page has no viewer (it lists its members itself) but
	// hands out its embed code: the embedded viewer lists the members.
	_, body = f.get(t, "/bc000df0001")
	if coll := string(body); strings.Contains(coll, `id="viewer"`) || !strings.Contains(coll, `<textarea id="embed-code" readonly>&lt;iframe src=&#34;`+embed+`/iframe?url=http%3A%2F%2Fpurl.test%2Fpurl%2Fbc000df0001&#34;`) {
		t.Error("the collection page shows a viewer or lacks its embed code")
	}
	// The image is shown once, by the viewer: no thumbnail above it.
	if strings.Contains(page, `id="thumbnail"`) {
		t.Error("the item page shows a thumbnail above its viewer")
	}
	if !strings.Contains(page, `"thumbnailUrl":"`+base+`/bb000kk0000/iiif/image/reading-room-north.png/full/256,/0/default.jpg"`) {
		t.Error("JSON-LD thumbnailUrl is not the image service's 256 px JPEG")
	}
}

// checkJSONLD parses the page's schema.org JSON-LD.
func checkJSONLD(t *testing.T, page, typ, id string) {
	t.Helper()
	_, rest, ok := strings.Cut(page, `<script type="application/ld+json">`)
	raw, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 {
		t.Fatal("page has no JSON-LD")
	}
	var ld map[string]any
	if err := json.Unmarshal([]byte(raw), &ld); err != nil {
		t.Fatalf("JSON-LD: %v\n%s", err, raw)
	}
	if ld["@context"] != "https://schema.org" || ld["@type"] != typ || ld["@id"] != id || ld["name"] == nil {
		t.Errorf("JSON-LD %v", ld)
	}
}

// TestRestrictedFilesOnThePage: files nobody can download from the page
// are listed without links, with why and what the patron can do, in the
// configured names (the slug when none is configured).
func TestRestrictedFilesOnThePage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) {
		c.AccessNames = map[string]string{"location:reading-room": "the Special Collections reading room, Green Library"}
		c.AccessContact = "speccoll@library.test"
	})
	for _, c := range []struct {
		id   string
		want []string
	}{
		{"bq121cd1212", []string{"Available at the Special Collections reading room, Green Library",
			"The files can be read at the Special Collections reading room, Green Library: visit it to use them.",
			`Questions about access: <a href="mailto:speccoll@library.test">speccoll@library.test</a>`}},
		{"bn888yz8888", []string{"Available to sitelib", "The files can be read by sitelib"}},
		{"bm777wx7777", []string{"Embargoed until January 1, 2099; then available to anyone", "The files are under embargo until January 1, 2099"}},
		{"bk666tv6666", []string{"Citation only: the files are not available online", "not available online; the description and citation are"}},
	} {
		_, body := f.get(t, "/"+c.id)
		page := string(body)
		for _, w := range c.want {
			if !strings.Contains(page, w) {
				t.Errorf("%s: page lacks %q", c.id, w)
			}
		}
		if strings.Contains(page, "/file/") || strings.Contains(page, "og:image") {
			t.Errorf("%s: page links a file the reader cannot download", c.id)
		}
		if strings.Contains(page, `login group "`) || strings.Contains(page, `location "`) {
			t.Errorf("%s: page uses the internal wording", c.id)
		}
		if err := checkHTML5(page); err != nil {
			t.Errorf("%s: %v", c.id, err)
		}
	}
	// A world-readable object has no such box.
	if _, body := f.get(t, "/bb000kk0000"); strings.Contains(string(body), `id="restricted"`) {
		t.Error("world-readable object's page has a restriction box")
	}
}

// TestPageSignInLink: the page of a group-restricted object links the
// site's sign-in, returning to the page, when the site has one; without a
// sign-in, and for a location-only object, there is no link to follow.
func TestPageSignInLink(t *testing.T) {
	signedIn := newFixture(t, func(c *Config) {
		c.Sessions = testSessions
		c.SignInURL = "http://purl.test/auth/login"
	})
	resp, page := signedIn.get(t, "/bn888yz8888")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	want := `<a id="sign-in" class="sign-in" href="http://purl.test/auth/login?return=http%3a%2f%2fpurl.test%2fpurl%2fbn888yz8888">Sign in</a>`
	if !strings.Contains(strings.ToLower(string(page)), strings.ToLower(want)) {
		t.Errorf("no sign-in link %s on the restricted page", want)
	}
	if resp, page := signedIn.get(t, "/bb000kk0000"); resp.StatusCode != http.StatusOK || strings.Contains(string(page), `id="sign-in"`) {
		t.Errorf("an open object's page: %d, with a sign-in link %v", resp.StatusCode, strings.Contains(string(page), `id="sign-in"`))
	}
	plain := newFixture(t)
	if _, page := plain.get(t, "/bn888yz8888"); strings.Contains(string(page), `id="sign-in"`) {
		t.Error("a sign-in link without a site sign-in")
	}
}

// TestPageLeavesOutEmptySections: a record that says nothing but its
// title (Dublin Core only) gets no empty "Description" or "Access and use"
// heading; a described one keeps both.
func TestPageLeavesOutEmptySections(t *testing.T) {
	f := newFixture(t)
	const id = "bb301cd3001"
	for _, name := range []string{"a.png", "b.txt"} {
		if _, err := f.svc.store.Write(context.Background(), id, name, bytes.NewReader([]byte("abc"))); err != nil {
			t.Fatal(err)
		}
	}
	if resp, body := f.do(t, http.MethodPut, "/"+id+".xml", []byte(rightsRecord(id, discoverWorld+read(`<world/>`))), xmlType, bearer("pub")); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	_, bare := f.get(t, "/"+id)
	for _, heading := range []string{`id="description-heading"`, `id="access-heading"`} {
		if strings.Contains(string(bare), heading) {
			t.Errorf("an empty section %s on the page of a record with only a title", heading)
		}
	}
	_, described := f.get(t, "/bb000kk0000")
	for _, heading := range []string{`id="description-heading"`, `id="access-heading"`} {
		if !strings.Contains(string(described), heading) {
			t.Errorf("no %s on a described record's page", heading)
		}
	}
}

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
