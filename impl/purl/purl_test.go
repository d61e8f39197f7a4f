package purl

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/testkit"
)

const (
	base  = "http://purl.test/purl"
	embed = "http://embed.test/embed"
)

// tokens is an Authenticator with fixed tokens.
type tokens map[string]auth.Principal

func (t tokens) Authenticate(token string) (auth.Principal, bool) {
	p, ok := t[token]
	return p, ok
}

var testTokens = tokens{
	"pub":    {Name: "publisher", Roles: []string{auth.RolePublisher}},
	"admin":  {Name: "admin", Roles: []string{auth.RoleAdmin}},
	"editor": {Name: "editor", Roles: []string{"editor:main"}},
	"member": {Name: "member", Roles: []string{"group:sitelib"}},
	"other":  {Name: "other", Roles: []string{"group:elsewhere"}},
	"reader": {Name: "reader", Roles: []string{"location:reading-room"}},
}

type fixture struct {
	svc     *Service
	srv     *httptest.Server
	client  *http.Client
	samples string
	now     time.Time
}

func newFixture(t testing.TB, mutate ...func(*Config)) *fixture {
	t.Helper()
	f := &fixture{samples: filepath.Join(testkit.RepoRoot(t), "samples", "purl"), now: time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)}
	cfg := Config{
		BaseURL:      base,
		EmbedBaseURL: embed,
		DataDir:      t.TempDir(),
		SamplesDir:   f.samples,
		Tokens:       testTokens,
		Now:          func() time.Time { return f.now },
	}
	for _, m := range mutate {
		m(&cfg)
	}
	svc, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	f.srv = httptest.NewServer(svc.Handler())
	t.Cleanup(f.srv.Close)
	spec, err := purlapi.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	f.client = testkit.NewValidator(t, spec).Client(t)
	return f
}

// do sends a request with optional headers ("Name: value") and returns the
// response and its body; every response is validated against the contract.
func (f *fixture) do(t testing.TB, method, path string, body []byte, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body == nil {
		req.Body = nil
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// raw sends a request without contract validation, for paths and methods
// the contract does not describe (unknown paths, OPTIONS, the contract
// documents themselves).
func (f *fixture) raw(t testing.TB, method, path string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, f.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Set(k, v)
	}
	resp, data := testkit.Do(t, nil, req)
	return resp, data
}

func (f *fixture) get(t testing.TB, path string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	return f.do(t, http.MethodGet, path, nil, headers...)
}

func expect(t testing.TB, resp *http.Response, body []byte, status int, ctype string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d: %s", resp.Request.Method, resp.Request.URL.Path, resp.StatusCode, status, body)
	}
	if ctype != "" && resp.Header.Get("Content-Type") != ctype {
		t.Fatalf("%s: Content-Type %q, want %q", resp.Request.URL.Path, resp.Header.Get("Content-Type"), ctype)
	}
}

type sampleObject struct {
	id  string
	dir string
	rec *record.Record
}

func loadSamples(t testing.TB, dir string) []sampleObject {
	t.Helper()
	files := testkit.Files(t, filepath.Join(dir, "*", "public.xml"))
	if len(files) < 11 {
		t.Fatalf("want at least 11 samples in %s, found %d", dir, len(files))
	}
	var out []sampleObject
	for _, f := range files {
		rec, err := record.Parse(f.Data)
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		out = append(out, sampleObject{id: string(rec.Druid), dir: filepath.Dir(f.Path), rec: rec})
	}
	return out
}

// TestSampleObjects fetches every representation of every sample and
// checks it against the sample's files, the contract, the MODS schema and
// the IIIF schema.
func TestSampleObjects(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	iiif := iiifPresentation(t)
	var modsFiles []string
	modsDir := t.TempDir()
	for _, s := range loadSamples(t, f.samples) {
		if s.rec.Rights.Dark() {
			for _, p := range []string{"", ".html", ".xml", ".mods", "/iiif/manifest", "/file/hidden.png"} {
				resp, body := f.get(t, "/"+s.id+p)
				expect(t, resp, body, http.StatusNotFound, "text/plain; charset=utf-8")
			}
			continue
		}
		t.Run(s.id, func(t *testing.T) {
			page, pageBody := f.get(t, "/"+s.id)
			expect(t, page, pageBody, http.StatusOK, "text/html; charset=utf-8")
			htmlResp, htmlBody := f.get(t, "/"+s.id+".html")
			expect(t, htmlResp, htmlBody, http.StatusOK, "text/html; charset=utf-8")
			if !bytes.Equal(pageBody, htmlBody) || page.Header.Get("ETag") != htmlResp.Header.Get("ETag") {
				t.Error("/{id} and /{id}.html differ")
			}
			checkPage(t, s, string(pageBody))

			x, xb := f.get(t, "/"+s.id+".xml")
			expect(t, x, xb, http.StatusOK, "application/xml; charset=utf-8")
			// The samples cite themselves at the deployment's PURL base.
			want, _ := os.ReadFile(filepath.Join(s.dir, "public.xml"))
			want = bytes.ReplaceAll(want, []byte(SamplesPURLBase+"/"), []byte(base+"/"))
			if !bytes.Equal(xb, want) {
				t.Error(".xml is not the published bytes, rebased")
			}
			if !bytes.Contains(xb, []byte("<dc:identifier>"+base+"/"+s.id+"</dc:identifier>")) {
				t.Error(".xml does not cite the object at the PURL base")
			}
			checkPublicXMLShape(t, s.id, xb)

			m, mb := f.get(t, "/"+s.id+".mods")
			expect(t, m, mb, http.StatusOK, "application/mods+xml; charset=utf-8")
			if bytes.Contains(mb, []byte(SamplesPURLBase)) || !bytes.Contains(mb, []byte(base+"/"+s.id+"</url>")) {
				t.Error(".mods does not cite the object at the PURL base")
			}
			p := filepath.Join(modsDir, s.id+".mods.xml")
			if err := os.WriteFile(p, mb, 0o644); err != nil {
				t.Fatal(err)
			}
			modsFiles = append(modsFiles, p)

			for _, r := range []*http.Response{x, m} {
				if r.Header.Get("Access-Control-Allow-Origin") != "*" || r.Header.Get("ETag") == "" || r.Header.Get("Last-Modified") == "" || r.Header.Get("Cache-Control") == "" {
					t.Errorf("%s: missing CORS/caching headers: %v", r.Request.URL.Path, r.Header)
				}
			}

			man, manBody := f.get(t, "/"+s.id+"/iiif/manifest")
			if !s.rec.HasManifest() {
				// A PDF or data set: nothing to paint on a canvas.
				expect(t, man, manBody, http.StatusNotFound, typeText)
				if strings.Contains(string(pageBody), "/iiif/manifest") {
					t.Error("the page names a manifest the object does not have")
				}
			} else {
				expect(t, man, manBody, http.StatusOK, typeManifest)
				checkManifest(t, iiif, s, manBody)
			}

			for _, file := range s.rec.Files() {
				resp, body := f.get(t, "/"+s.id+"/file/"+file.Name)
				if !s.rec.Rights.WorldReadable(f.now) {
					if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusUnauthorized {
						t.Errorf("restricted file %s: status %d", file.Name, resp.StatusCode)
					}
					continue
				}
				expect(t, resp, body, http.StatusOK, file.MimeType)
				want, _ := os.ReadFile(filepath.Join(s.dir, file.Name))
				if !bytes.Equal(body, want) {
					t.Errorf("file %s: served bytes differ", file.Name)
				}
				if cd := resp.Header.Get("Content-Disposition"); !strings.Contains(cd, file.Name) {
					t.Errorf("file %s: Content-Disposition %q", file.Name, cd)
				}
			}
		})
	}
	// Every .mods response validates against the MODS 3.6 schema.
	if err := testkit.ValidateXML(t, testkit.MODSXSD(t), modsFiles...); err != nil {
		t.Fatalf("the %d MODS responses: %v", len(modsFiles), err)
	}
}

func checkPage(t *testing.T, s sampleObject, page string) {
	t.Helper()
	q := "url=http%3A%2F%2Fpurl.test%2Fpurl%2F" + s.id
	for _, want := range []string{
		"<!DOCTYPE html>",
		`<html lang="en">`,
		"<title>" + htmlEscaped(s.rec.Title()) + "</title>",
		`<link rel="alternate" type="application/json+oembed" href="` + embed + `/embed?` + q + `&amp;format=json"`,
		`<link rel="alternate" type="text/xml+oembed" href="` + embed + `/embed?` + q + `&amp;format=xml"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if s.rec.ObjectType == "item" {
		if !strings.Contains(page, `<noscript><iframe src="`+embed+`/iframe?`+q+`"`) {
			t.Error("page lacks the noscript iframe to the embed service")
		}
		if !strings.Contains(page, `rel="up" href="`+base+`/bc000df0001"`) {
			t.Error("page lacks the collection link")
		}
	}
	if !strings.Contains(page, "Preferred citation") {
		t.Error("page lacks the preferred citation")
	}
}

// htmlEscaped is s as html/template writes it in text.
func htmlEscaped(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// checkPublicXMLShape checks a sample's served record: seedShape, and
// the seed's six children only.
func checkPublicXMLShape(t *testing.T, id string, data []byte) {
	t.Helper()
	if err := seedShape(data, id); err != nil {
		t.Error(err)
	}
	if _, _, kids, _ := publicXMLShape(data); !slices.Equal(kids, seedChildren) {
		t.Errorf("children %v, want %v", kids, seedChildren)
	}
}

func checkManifest(t *testing.T, sch *testkit.JSONSchema, s sampleObject, body []byte) {
	t.Helper()
	if err := sch.Validate(body); err != nil {
		t.Fatalf("manifest of %s is not valid IIIF 3.0: %v", s.id, err)
	}
	if s.rec.ObjectType == "collection" {
		var c purlapi.Collection
		if err := json.Unmarshal(body, &c); err != nil {
			t.Fatal(err)
		}
		if c.Type != "Collection" || len(c.Items) == 0 || c.Label == nil || c.Metadata == nil {
			t.Errorf("collection %s: type %s, %d items", s.id, c.Type, len(c.Items))
		}
		return
	}
	var m purlapi.Manifest
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	var want []record.File
	for _, r := range s.rec.Resources {
		for _, f := range r.Files {
			if f.Width > 0 || f.Duration > 0 {
				want = append(want, f)
			}
		}
	}
	if len(m.Items) != len(want) {
		t.Fatalf("manifest of %s has %d canvases, want %d", s.id, len(m.Items), len(want))
	}
	for i, c := range m.Items {
		w := want[i]
		if deref(c.Width) != w.Width || deref(c.Height) != w.Height || float64(derefF(c.Duration)) != w.Duration {
			t.Errorf("canvas %d: %dx%d %gs, want %dx%d %gs", i, deref(c.Width), deref(c.Height), derefF(c.Duration), w.Width, w.Height, w.Duration)
		}
		if got := c.Items[0].Items[0].Body.Id; got != base+"/"+s.id+"/file/"+w.Name {
			t.Errorf("canvas %d body %s", i, got)
		}
	}
	if m.Label == nil || m.RequiredStatement == nil || m.Summary == nil || m.Metadata == nil || m.Rights == nil {
		t.Errorf("manifest of %s lacks label, summary, metadata, rights or requiredStatement", s.id)
	}
	if s.rec.ObjectType == "item" && (m.PartOf == nil || (*m.PartOf)[0].Id != base+"/bc000df0001/iiif/manifest") {
		t.Errorf("manifest of %s: partOf %v", s.id, m.PartOf)
	}
	world := s.rec.Rights.WorldReadable(time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)) // the fixture's clock
	switch {
	case s.rec.Thumb != "" && world && m.Thumbnail == nil:
		t.Errorf("manifest of %s has no thumbnail", s.id)
	case !world && m.Thumbnail != nil:
		t.Errorf("manifest of %s offers a thumbnail its readers cannot fetch", s.id)
	}
}

func deref(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func derefF(p *float32) float32 {
	if p == nil {
		return 0
	}
	return *p
}

func TestNotFoundAndMethods(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, p := range []string{
		"/", "/bb000kk000", "/aa000kk0000", "/bb000kk0000.json", "/bb000kk0000.xml.bak",
		"/bc999df9999", "/bc999df9999.xml", "/bc999df9999/iiif/manifest",
		"/..%2F..%2Fetc%2Fpasswd", "/bb%2F000%2Fkk%2F0000", "/bb000kk0000%00", "/bb000kk0000%00.xml",
		"/bb000kk0000/file/..%2Fpublic.xml", "/bb000kk0000/file/%2E%2E", "/bb000kk0000/file/public.xml",
		"/bb000kk0000/file/mods.xml", "/bb000kk0000/file/nothing.png", "/bb000kk0000/file/reading-room-north.png%00",
		"/bb000kk0000/iiif", "/bb000kk0000/iiif/manifest/x", "/bb000kk0000/file", "/druid:../../x",
	} {
		resp, body := f.raw(t, http.MethodGet, p)
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("GET %s: %d %s: %s", p, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	// The prefix and upper case are accepted.
	resp, body := f.get(t, "/druid:BB000KK0000.xml")
	expect(t, resp, body, http.StatusOK, typeXML)

	// Browsers get an HTML page.
	resp, body = f.get(t, "/bc999df9999", "Accept: text/html,application/xhtml+xml,*/*;q=0.8")
	expect(t, resp, body, http.StatusNotFound, typeHTML)
	if !strings.Contains(string(body), "<!DOCTYPE html>") || !strings.Contains(string(body), "no object druid:bc999df9999") {
		t.Errorf("HTML 404: %s", body)
	}

	for _, c := range []struct{ method, path, allow string }{
		{http.MethodPost, "/bb000kk0000", "GET, HEAD, DELETE, OPTIONS"},
		{http.MethodPatch, "/bb000kk0000.xml", "GET, HEAD, PUT, OPTIONS"},
		{http.MethodPut, "/bb000kk0000.html", "GET, HEAD, OPTIONS"},
		{http.MethodDelete, "/bb000kk0000/iiif/manifest", "GET, HEAD, OPTIONS"},
		{http.MethodPost, "/bb000kk0000/file/reading-room-north.png", "GET, HEAD, OPTIONS"},
	} {
		req, _ := http.NewRequest(c.method, f.srv.URL+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow %q", c.method, c.path, resp.StatusCode, resp.Header.Get("Allow"))
		}
	}
}

func TestFileRights(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) {
		c.LocationNetworks = map[string][]netip.Prefix{"reading-room": {netip.MustParsePrefix("10.1.0.0/16")}}
	})
	cases := []struct {
		path   string
		token  string
		status int
		says   string
	}{
		{"/bn888yz8888/file/floor-plan.png", "", 401, `login group "sitelib"`},
		{"/bn888yz8888/file/floor-plan.png", "nonsense", 401, "unknown bearer token"},
		{"/bn888yz8888/file/floor-plan.png", "other", 403, "lacks the role group:sitelib"},
		{"/bn888yz8888/file/floor-plan.png", "member", 200, ""},
		{"/bn888yz8888/file/floor-plan.png", "admin", 200, ""},
		{"/bq121cd1212/file/leaf.png", "", 401, `location "reading-room"`},
		{"/bq121cd1212/file/leaf.png", "member", 403, "location:reading-room"},
		{"/bq121cd1212/file/leaf.png", "reader", 200, ""},
		{"/bk666tv6666/file/photograph.png", "", 403, "citation only"},
		{"/bk666tv6666/file/photograph.png", "admin", 403, "citation only"},
		{"/bm777wx7777/file/thesis.pdf", "", 403, "embargoed until 2099-01-01"},
	}
	for _, c := range cases {
		var headers []string
		if c.token != "" {
			headers = append(headers, "Authorization: Bearer "+c.token)
		}
		resp, body := f.get(t, c.path, headers...)
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.says) {
			t.Errorf("GET %s with %q: %d %q, want %d containing %q", c.path, c.token, resp.StatusCode, body, c.status, c.says)
		}
		if c.status == 401 && resp.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("GET %s: 401 without WWW-Authenticate", c.path)
		}
		if c.status == 200 && !strings.HasPrefix(resp.Header.Get("Cache-Control"), "private") {
			t.Errorf("restricted file cached publicly: %q", resp.Header.Get("Cache-Control"))
		}
	}
	// The record of a restricted object is public.
	resp, body := f.get(t, "/bn888yz8888.xml")
	expect(t, resp, body, http.StatusOK, typeXML)

	// A request from the location's network needs no token.
	req := httptest.NewRequest(http.MethodGet, "/bq121cd1212/file/leaf.png", nil)
	req.RemoteAddr = "10.1.2.3:5555"
	rec := httptest.NewRecorder()
	f.svc.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Errorf("from the reading room network: %d %s", rec.Code, rec.Body)
	}

	// After the release date the embargoed file is served.
	f.now = time.Date(2099, 1, 1, 0, 0, 1, 0, time.UTC)
	resp, body = f.get(t, "/bm777wx7777/file/thesis.pdf")
	expect(t, resp, body, http.StatusOK, "application/pdf")
	if !bytes.HasPrefix(body, []byte("%PDF-1.4")) {
		t.Error("released file is not the PDF")
	}
	_, page := f.get(t, "/bm777wx7777")
	if strings.Contains(string(page), "Embargoed") {
		t.Error("page still says embargoed after the release date")
	}
}

func TestCaching(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, p := range []string{"/bb000kk0000", "/bb000kk0000.xml", "/bb000kk0000.mods", "/bb000kk0000/iiif/manifest", "/bb000kk0000/file/reading-room-north.png"} {
		resp, body := f.get(t, p)
		expect(t, resp, body, http.StatusOK, "")
		etag, lm := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
		if etag == "" || lm == "" || !strings.HasPrefix(resp.Header.Get("Cache-Control"), "public, max-age=") {
			t.Fatalf("%s: ETag %q Last-Modified %q Cache-Control %q", p, etag, lm, resp.Header.Get("Cache-Control"))
		}
		if p != "/bb000kk0000" && resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: no CORS", p)
		}
		// The page is for people (PURL's policy): not readable by other
		// origins' scripts.
		if p == "/bb000kk0000" && resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("%s: CORS on the HTML page", p)
		}
		r304, b := f.get(t, p, "If-None-Match: "+etag)
		expect(t, r304, b, http.StatusNotModified, "")
		if len(b) != 0 || r304.Header.Get("ETag") != etag {
			t.Errorf("%s: 304 with body %q, ETag %q", p, b, r304.Header.Get("ETag"))
		}
		r304, b = f.get(t, p, "If-Modified-Since: "+lm)
		expect(t, r304, b, http.StatusNotModified, "")
		r200, b := f.get(t, p, `If-None-Match: "other"`)
		expect(t, r200, b, http.StatusOK, "")
	}
	resp, body := f.get(t, "/bb000kk0000/file/reading-room-north.png", "Range: bytes=0-7")
	expect(t, resp, body, http.StatusPartialContent, "image/png")
	if !bytes.Equal(body, []byte("\x89PNG\r\n\x1a\n")) || !strings.HasPrefix(resp.Header.Get("Content-Range"), "bytes 0-7/") {
		t.Errorf("range: %q %q", body, resp.Header.Get("Content-Range"))
	}
	resp, body = f.get(t, "/bb000kk0000/file/reading-room-north.png", "Range: bytes=999999-")
	expect(t, resp, body, http.StatusRequestedRangeNotSatisfiable, "")
	resp, _ = f.get(t, "/bb000kk0000/file/reading-room-north.png?download=true")
	if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename=reading-room-north.png` {
		t.Errorf("download disposition %q", cd)
	}
	// HEAD: the headers of GET, no body.
	head, hb := f.raw(t, http.MethodHead, "/bb000kk0000.xml")
	if head.StatusCode != 200 || len(hb) != 0 || head.Header.Get("ETag") == "" || head.Header.Get("Content-Length") == "" {
		t.Errorf("HEAD: %d, %d body bytes, %v", head.StatusCode, len(hb), head.Header)
	}
	// CORS preflight.
	resp, _ = f.raw(t, http.MethodOptions, "/bb000kk0000.xml", "Origin: http://elsewhere.test", "Access-Control-Request-Method: GET")
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" ||
		resp.Header.Get("Access-Control-Allow-Methods") != "GET, HEAD" || resp.Header.Get("Allow") != "GET, HEAD, PUT, OPTIONS" {
		t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
	}
}

func TestContract(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, p := range []string{"/openapi.yaml", "/openapi.json"} {
		resp, body := f.raw(t, http.MethodGet, p)
		if resp.StatusCode != 200 || !strings.Contains(string(body), base) || !strings.Contains(string(body), "/{id}/iiif/manifest") {
			t.Errorf("%s: %d %.300s", p, resp.StatusCode, body)
		}
	}
}

func TestIndexLinks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	links := f.svc.IndexLinks()
	var urls []string
	for _, l := range links {
		urls = append(urls, l.URL)
	}
	if len(links) != 11 || !slices.Contains(urls, base+"/bb000kk0000") || slices.Contains(urls, base+"/bp999bc9999") {
		t.Errorf("index links: %v", urls)
	}
}

func TestCollectionPage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	resp, body := f.get(t, "/bc000df0001")
	expect(t, resp, body, http.StatusOK, typeHTML)
	page := string(body)
	_, members, _ := strings.Cut(page, `<ul id="members">`)
	members, _, _ = strings.Cut(members, "</ul>")
	if n := strings.Count(members, `<li><a href="`+base+`/b`); n != 10 {
		t.Errorf("collection page lists %d members, want the 10 discoverable ones", n)
	}
	if strings.Contains(page, "bp999bc9999") {
		t.Error("collection page lists the dark object")
	}
	// Its IIIF document is a Collection referencing every member's manifest.
	resp, body = f.get(t, "/bc000df0001/iiif/manifest")
	expect(t, resp, body, http.StatusOK, typeManifest)
	var c purlapi.Collection
	if err := json.Unmarshal(body, &c); err != nil {
		t.Fatal(err)
	}
	// The PDFs and the data set (bh444pq4444, bj555rs5555, bm777wx7777)
	// have no manifest: nothing to paint on a canvas.
	if c.Type != "Collection" || len(c.Items) != 7 {
		t.Fatalf("collection manifest: type %s with %d items, want Collection with 7", c.Type, len(c.Items))
	}
	for _, item := range c.Items {
		if item.Type != "Manifest" || !strings.HasPrefix(item.Id, base+"/") || item.Label == nil {
			t.Errorf("collection item %+v", item)
			continue
		}
		resp, body := f.get(t, strings.TrimPrefix(item.Id, base))
		expect(t, resp, body, http.StatusOK, typeManifest)
		if !bytes.Contains(body, []byte(`"id": "`+base+`/bc000df0001/iiif/manifest"`)) {
			t.Errorf("%s is not partOf the collection", item.Id)
		}
	}
	// A member published later appears at once (writes drop cached collections).
	resp, body = f.do(t, http.MethodPut, "/bz321xy4321.xml", []byte(citationRecord("bz321xy4321")), xmlType, bearer("pub"))
	expect(t, resp, body, http.StatusCreated, "")
	_, body = f.get(t, "/bc000df0001")
	if !strings.Contains(string(body), "Published over HTTP") {
		t.Error("new member missing from the collection page")
	}
	// It has no file, hence no manifest: the IIIF Collection does not
	// reference one that would be 404.
	_, body = f.get(t, "/bc000df0001/iiif/manifest")
	if strings.Contains(string(body), base+"/bz321xy4321") {
		t.Error("the IIIF collection references a member without a manifest")
	}
}

// TestManifestOfAVideo: the samples hold audio but no video (the issue asks
// for one or the other); a video resource becomes a canvas with its
// duration and a Video painting body, valid IIIF 3.0.
func TestManifestOfAVideo(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	doc := strings.Replace(citationRecord("bz321xy4321"), `<contentMetadata objectId="druid:bz321xy4321" type="file"/>`,
		`<contentMetadata objectId="druid:bz321xy4321" type="media"><resource id="v1" sequence="1" type="video"><label>Clip</label>`+
			`<file id="clip.webm" mimetype="video/webm" size="1234"><mediaData duration="12.5"/></file></resource></contentMetadata>`, 1)
	doc = strings.Replace(doc, "<none/></machine></access>\n    <use>", "<world/></machine></access>\n    <use>", 1)
	rec, err := record.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	body, err := f.svc.buildManifest(&object{rec: rec})
	if err != nil {
		t.Fatal(err)
	}
	iiif := iiifPresentation(t)
	if err := iiif.Validate(body); err != nil {
		t.Fatalf("video manifest is not valid IIIF 3.0: %v", err)
	}
	var m purlapi.Manifest
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Items) != 1 || derefF(m.Items[0].Duration) != 12.5 || m.Items[0].Width != nil {
		t.Fatalf("video canvas: %s", body)
	}
	b := m.Items[0].Items[0].Items[0].Body
	if b.Type != "Video" || derefS(b.Format) != "video/webm" || b.Id != base+"/bz321xy4321/file/clip.webm" {
		t.Errorf("video body %+v", b)
	}
}

func derefS(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// publishCmd is `purl publish --data dataDir args...` of the sitesvc binary bin.
func publishCmd(bin, dataDir string, args ...string) *exec.Cmd {
	return exec.Command(bin, append([]string{"purl", "publish", "--data", dataDir}, args...)...)
}
