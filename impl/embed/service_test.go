package embed

import (
	"compress/gzip"
	"encoding/json"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/impl/testkit"
)

const testEmbedBase = "http://embed.test/embed"

type testEnv struct {
	stub  *purlStub
	svc   *Service
	srv   *httptest.Server
	v     *testkit.Validator
	clock *fakeClock
}

type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newEnv(t testing.TB, edit ...func(*Config)) *testEnv {
	t.Helper()
	stub := newPurlStub(t)
	clock := &fakeClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	cfg := Config{
		BaseURL:      testEmbedBase,
		PurlBaseURL:  stub.base(),
		ProviderName: "Test Library",
		ViewerDir:    t.TempDir(),
		FetchTimeout: 2 * time.Second,
		CacheTTL:     time.Minute,
		CacheSize:    4,
		Now:          clock.Now,
	}
	for _, e := range edit {
		e(&cfg)
	}
	svc, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { svc.Close() })
	srv := httptest.NewServer(svc.Handler())
	t.Cleanup(srv.Close)
	return &testEnv{stub: stub, svc: svc, srv: srv, v: testkit.NewValidator(t, testkit.Spec(t, embedapi.GetSpec)), clock: clock}
}

// get requests path (relative to the service) and validates the response
// against the contract.
func (e *testEnv) get(t testing.TB, path string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, body := testkit.Do(t, nil, req)
	e.v.Check(t, req, resp, body)
	return resp, string(body)
}

func (e *testEnv) purl(druid string) string { return e.stub.base() + "/" + druid }

func q(params ...string) string {
	v := url.Values{}
	for i := 0; i+1 < len(params); i += 2 {
		v.Set(params[i], params[i+1])
	}
	return v.Encode()
}

// decodeJSON decodes a JSON answer's body (an oEmbed document, an error)
// into a T.
func decodeJSON[T any](t testing.TB, body string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("the body is not JSON of a %T: %v\n%s", v, err, body)
	}
	return v
}

// decodeOEmbed is an oEmbed JSON document; errorBody an error's.
func decodeOEmbed(t testing.TB, body string) map[string]any {
	t.Helper()
	return decodeJSON[map[string]any](t, body)
}

func TestOEmbedJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	resp, body := e.get(t, "/embed?"+q("url", e.purl(imageDruid)))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("Access-Control-Allow-Origin %q", got)
	}
	if got := resp.Header.Get("X-Content-Type-Options"); got != "nosniff" {
		t.Errorf("X-Content-Type-Options %q", got)
	}
	m := decodeOEmbed(t, body)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	if len(m) != 7 {
		t.Errorf("fields %v, want exactly the seed's seven", keys)
	}
	want := map[string]any{
		"type": "rich", "version": "1.0", "provider_name": "Test Library",
		"title": "Two views of the reading room", "height": "31.25rem", "width": nil,
	}
	for k, v := range want {
		if m[k] != v {
			t.Errorf("%s = %#v, want %#v", k, m[k], v)
		}
	}
	html, _ := m["html"].(string)
	wantSrc := `src="` + testEmbedBase + `/iframe?url=` + url.QueryEscape(e.purl(imageDruid)) + `"`
	for _, part := range []string{"<iframe ", wantSrc, `style="height: 100%; width: 100%; min-height: 31.25rem;"`, `frameborder="0"`,
		`marginwidth="0"`, `marginheight="0"`, `scrolling="no"`, " allowfullscreen", `title="Viewer: Two views of the reading room"`, "></iframe>"} {
		if !strings.Contains(html, part) {
			t.Errorf("html lacks %q:\n%s", part, html)
		}
	}
}

func TestOEmbedSizes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		params        []string
		height, width any
		style         string // of the html's iframe
	}{
		{nil, "31.25rem", nil, "height: 100%; width: 100%; min-height: 31.25rem;"},
		{[]string{"maxheight", "300"}, "18.75rem", nil, "height: 100%; width: 100%; min-height: 18.75rem; max-height: 18.75rem;"},
		{[]string{"maxheight", "500"}, "31.25rem", nil, "height: 100%; width: 100%; min-height: 31.25rem; max-height: 31.25rem;"},
		{[]string{"maxheight", "2000"}, "31.25rem", nil, "height: 100%; width: 100%; min-height: 31.25rem; max-height: 125rem;"},
		{[]string{"maxwidth", "640"}, "31.25rem", "40rem", "height: 100%; width: 100%; min-height: 31.25rem; max-width: 40rem;"},
		{[]string{"maxheight", "8", "maxwidth", "1"}, "0.5rem", "0.0625rem", "height: 100%; width: 100%; min-height: 0.5rem; max-height: 0.5rem; max-width: 0.0625rem;"},
	} {
		params := append([]string{"url", e.purl(imageDruid)}, tc.params...)
		resp, body := e.get(t, "/embed?"+q(params...))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%v: status %d: %s", tc.params, resp.StatusCode, body)
		}
		m := decodeOEmbed(t, body)
		if m["height"] != tc.height || m["width"] != tc.width {
			t.Errorf("%v: height %v width %v, want %v %v", tc.params, m["height"], m["width"], tc.height, tc.width)
		}
		if html, _ := m["html"].(string); !strings.Contains(html, ` style="`+tc.style+`" `) {
			t.Errorf("%v: html %s, want style %q", tc.params, html, tc.style)
		}
	}
}

func TestOEmbedHideTitleReachesIframe(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, v := range []string{"true", "false"} {
		_, body := e.get(t, "/embed?"+q("url", e.purl(imageDruid), "hide_title", v))
		html := decodeOEmbed(t, body)["html"].(string)
		// false is the default: only true needs to travel.
		if (v == "true") != strings.Contains(html, "&amp;hide_title=true\"") || strings.Contains(html, "hide_title=false") {
			t.Errorf("hide_title=%s not carried in the iframe src: %s", v, html)
		}
		// Follow the iframe src the way a browser would.
		src := regexp.MustCompile(`src="([^"]*)"`).FindStringSubmatch(html)[1]
		src = strings.ReplaceAll(src, "&amp;", "&")
		path := strings.TrimPrefix(src, testEmbedBase)
		resp, doc := e.get(t, path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("iframe %s: %d", path, resp.StatusCode)
		}
		if !strings.Contains(doc, `data-hide-title="`+v+`"`) {
			t.Errorf("iframe for hide_title=%s lacks data-hide-title=%q", v, v)
		}
	}
}

func TestOEmbedXML(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	resp, body := e.get(t, "/embed?"+q("url", e.purl(imageDruid), "format", "xml", "maxwidth", "320"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/xml; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	dec := xml.NewDecoder(strings.NewReader(body))
	var root string
	var children []string
	values := map[string]string{}
	depth := 0
	var cur string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("XML: %v\n%s", err, body)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 {
				root = tok.Name.Local
			} else if depth == 2 {
				cur = tok.Name.Local
				children = append(children, cur)
			}
		case xml.CharData:
			if depth == 2 {
				values[cur] += string(tok)
			}
		case xml.EndElement:
			depth--
		}
	}
	if root != "oembed" {
		t.Errorf("root %q, want oembed", root)
	}
	if got := strings.Join(children, ","); got != "type,version,provider_name,title,height,width,html" {
		t.Errorf("children %s", got)
	}
	if values["type"] != "rich" || values["version"] != "1.0" || values["width"] != "20rem" || values["height"] != "31.25rem" {
		t.Errorf("values %v", values)
	}
	// The html child holds the same markup as the JSON form.
	_, js := e.get(t, "/embed?"+q("url", e.purl(imageDruid), "format", "json", "maxwidth", "320"))
	if want := decodeOEmbed(t, js)["html"]; values["html"] != want {
		t.Errorf("XML html %q\nJSON html %q", values["html"], want)
	}
}

func errorBody(t testing.TB, body string) embedapi.Error {
	t.Helper()
	return decodeJSON[embedapi.Error](t, body)
}

func TestErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the service fetched a URL outside the PURL base: %s", r.URL)
	}))
	defer other.Close()
	for _, tc := range []struct {
		name   string
		path   string
		status int
		param  string
	}{
		{"missing url", "/embed", 400, "url"},
		{"missing url iframe", "/iframe", 400, "url"},
		{"empty url", "/embed?url=", 400, "url"},
		{"unknown format", "/embed?" + q("url", e.purl(imageDruid), "format", "yaml"), 501, "format"},
		{"unknown format, bad url", "/embed?" + q("url", "http://evil.example/", "format", "json+xml"), 0, ""},
		{"maxheight not a number", "/embed?" + q("url", e.purl(imageDruid), "maxheight", "tall"), 400, "maxheight"},
		{"maxheight zero", "/embed?" + q("url", e.purl(imageDruid), "maxheight", "0"), 400, "maxheight"},
		{"maxwidth negative", "/embed?" + q("url", e.purl(imageDruid), "maxwidth", "-5"), 400, "maxwidth"},
		{"maxwidth float", "/iframe?" + q("url", e.purl(imageDruid), "maxwidth", "1.5"), 400, "maxwidth"},
		{"hide_title not boolean", "/embed?" + q("url", e.purl(imageDruid), "hide_title", "yes"), 400, "hide_title"},
		{"other host", "/embed?" + q("url", other.URL+"/purl/"+imageDruid), 404, "url"},
		{"other path", "/embed?" + q("url", e.srv.URL+"/elsewhere/"+imageDruid), 404, "url"},
		{"bad druid", "/embed?" + q("url", e.purl("aa000kk0000")), 404, "url"},
		{"druid with path", "/embed?" + q("url", e.purl(imageDruid)+"/../x"), 404, "url"},
		{"javascript url", "/iframe?" + q("url", "javascript:alert(1)"), 404, "url"},
		{"unknown object", "/embed?" + q("url", e.purl("zz999zz9999")), 404, "url"},
		{"dark object", "/iframe?" + q("url", e.purl(darkDruid)), 404, "url"},
		{"dark object oEmbed", "/embed?" + q("url", e.purl(darkDruid)), 404, "url"},
		{"unknown object iframe", "/iframe?" + q("url", e.purl("zz999zz9999")), 404, "url"},
		{"mistyped url iframe", "/iframe?" + q("url", e.purl(imageDruid)+"x"), 404, "url"},
		{"bad maxheight iframe", "/iframe?" + q("url", e.purl(imageDruid), "maxheight", "tall"), 400, "maxheight"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := e.get(t, tc.path)
			if tc.status == 0 {
				// Either failure is right; it must be one of them, as JSON.
				if resp.StatusCode != 501 && resp.StatusCode != 404 {
					t.Errorf("status %d", resp.StatusCode)
				}
				errorBody(t, body)
				return
			}
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("no X-Content-Type-Options: nosniff")
			}
			if strings.HasPrefix(tc.path, "/iframe") {
				checkNotice(t, resp, body, tc.status)
				return
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type %q", ct)
			}
			eb := errorBody(t, body)
			if eb.Status != tc.status || eb.Message == "" || eb.Error != http.StatusText(tc.status) {
				t.Errorf("error body %+v", eb)
			}
			if tc.param != "" && (eb.Parameter == nil || *eb.Parameter != tc.param) {
				t.Errorf("parameter %v, want %q", eb.Parameter, tc.param)
			}
		})
	}
	for _, r := range e.stub.log() {
		if !regexp.MustCompile(`^GET /purl/[b-df-hjkmnp-tv-z]{2}[0-9]{3}[b-df-hjkmnp-tv-z]{2}[0-9]{4}\.xml `).MatchString(r) {
			t.Errorf("PURL stand-in got an unexpected request %q", r)
		}
	}
}

// noticeHeadings are what a reader reads in the frame, by status.
var noticeHeadings = map[int][]string{
	400: {"This viewer cannot open the item"},
	404: {"This item is not available", "This link does not lead to an item"},
	502: {"This item cannot be shown right now"},
}

// checkNotice checks a refused /iframe request: an HTML notice in words
// (not JSON), framable by any site, with the status in it.
func checkNotice(t *testing.T, resp *http.Response, body string, status int) {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q, want text/html", ct)
	}
	if got := resp.Header.Get("Content-Security-Policy"); got != "frame-ancestors *" {
		t.Errorf("Content-Security-Policy %q", got)
	}
	if strings.HasPrefix(strings.TrimSpace(body), "{") {
		t.Errorf("a JSON body in the frame: %s", body)
	}
	found := false
	for _, h := range noticeHeadings[status] {
		found = found || strings.Contains(body, "<h1>"+h+"</h1>")
	}
	if !found || !strings.Contains(body, `data-status="`+strconv.Itoa(status)+`"`) {
		t.Errorf("notice for %d lacks its heading %q: %s", status, noticeHeadings[status], body)
	}
}

func TestUnknownPath(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Not in the contract, so not validated against it; still a JSON 404.
	resp, body := testkit.Get(t, e.srv.URL+"/nothing")
	if resp.StatusCode != 404 || errorBody(t, string(body)).Status != 404 {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
}

func TestUpstreamFailures(t *testing.T) {
	t.Parallel()
	for _, status := range []int{500, 503, 403} {
		e := newEnv(t)
		e.stub.setStatus(status)
		resp, body := e.get(t, "/embed?"+q("url", e.purl(imageDruid)))
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("PURL %d: status %d: %s", status, resp.StatusCode, body)
		}
		errorBody(t, body)
	}

	t.Run("unreachable", func(t *testing.T) {
		e := newEnv(t, func(c *Config) { c.PurlBaseURL = "http://127.0.0.1:1/purl" })
		resp, body := e.get(t, "/iframe?"+q("url", "http://127.0.0.1:1/purl/"+imageDruid))
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("status %d: %s", resp.StatusCode, body)
		}
	})

	t.Run("unreadable record", func(t *testing.T) {
		e := newEnv(t)
		e.stub.setBody(imageDruid, "<publicObject><unclosed></publicObject>")
		resp, _ := e.get(t, "/embed?"+q("url", e.purl(imageDruid)))
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("status %d", resp.StatusCode)
		}
	})

	t.Run("redirect to another host", func(t *testing.T) {
		evilHits := 0
		evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			evilHits++
			io.WriteString(w, fixtures[imageDruid].xml(imageDruid))
		}))
		defer evil.Close()
		redirector := httptest.NewServer(http.RedirectHandler(evil.URL+"/purl/"+imageDruid+".xml", http.StatusFound))
		defer redirector.Close()
		e := newEnv(t, func(c *Config) { c.PurlBaseURL = redirector.URL + "/purl" })
		resp, body := e.get(t, "/embed?"+q("url", redirector.URL+"/purl/"+imageDruid))
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("status %d: %s", resp.StatusCode, body)
		}
		if evilHits != 0 {
			t.Errorf("the redirect to another host was followed")
		}
	})

	t.Run("redirect on the same host", func(t *testing.T) {
		var outside []string
		mux := http.NewServeMux()
		mux.HandleFunc("/purl/old/{file}", func(w http.ResponseWriter, r *http.Request) {
			// Within the base: followed.
			http.Redirect(w, r, "/purl/"+imageDruid+".xml", http.StatusMovedPermanently)
		})
		mux.HandleFunc("/purl/{file}", func(w http.ResponseWriter, r *http.Request) {
			switch r.PathValue("file") {
			case imageDruid + ".xml":
				io.WriteString(w, fixtures[imageDruid].xml(imageDruid))
			case mediaDruid + ".xml":
				http.Redirect(w, r, "/old/"+imageDruid+".xml", http.StatusFound)
			case fileDruid + ".xml":
				http.Redirect(w, r, "/purl/%2e%2e/admin/"+fileDruid+".xml", http.StatusFound)
			case pdfDruid + ".xml":
				http.Redirect(w, r, "/purl/old/"+imageDruid+".xml", http.StatusFound)
			default:
				http.NotFound(w, r)
			}
		})
		mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
			outside = append(outside, r.URL.Path)
			io.WriteString(w, fixtures[imageDruid].xml(imageDruid))
		})
		purl := httptest.NewServer(mux)
		defer purl.Close()
		e := newEnv(t, func(c *Config) { c.PurlBaseURL = purl.URL + "/purl" })
		for druid, want := range map[string]int{mediaDruid: http.StatusBadGateway, fileDruid: http.StatusBadGateway, pdfDruid: http.StatusOK} {
			resp, body := e.get(t, "/embed?"+q("url", purl.URL+"/purl/"+druid))
			if resp.StatusCode != want {
				t.Errorf("%s: %d, want %d: %s", druid, resp.StatusCode, want, body)
			}
		}
		if len(outside) != 0 {
			t.Errorf("redirects outside the PURL base were followed: %v", outside)
		}
	})

	t.Run("timeout", func(t *testing.T) {
		release := make(chan struct{})
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		defer slow.Close()
		defer close(release)
		e := newEnv(t, func(c *Config) {
			c.PurlBaseURL = slow.URL + "/purl"
			c.FetchTimeout = 200 * time.Millisecond
		})
		start := time.Now()
		resp, _ := e.get(t, "/embed?"+q("url", slow.URL+"/purl/"+imageDruid))
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("status %d", resp.StatusCode)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("a hanging PURL service held the request for %v", d)
		}
	})
}

func TestCacheTTLAndRevalidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	u := "/embed?" + q("url", e.purl(imageDruid))
	for i := 0; i < 3; i++ {
		if resp, _ := e.get(t, u); resp.StatusCode != 200 {
			t.Fatal(resp.Status)
		}
	}
	// Different spellings of the same PURL share the entry.
	e.get(t, "/iframe?"+q("url", strings.Replace(e.purl(imageDruid), imageDruid, "druid:"+strings.ToUpper(imageDruid), 1)))
	if n := len(e.stub.log()); n != 1 {
		t.Fatalf("%d upstream requests within the TTL, want 1: %v", n, e.stub.log())
	}
	e.clock.advance(2 * time.Minute)
	if resp, _ := e.get(t, u); resp.StatusCode != 200 {
		t.Fatal(resp.Status)
	}
	log := e.stub.log()
	if len(log) != 2 || strings.HasSuffix(log[1], " ") {
		t.Fatalf("after the TTL, want one conditional request: %v", log)
	}
	// Revalidated: fresh again.
	e.get(t, u)
	if n := len(e.stub.log()); n != 2 {
		t.Errorf("after a 304 the entry is not fresh: %v", e.stub.log())
	}

	// A changed record replaces the cached one after the TTL.
	e.stub.retitle(imageDruid, "A new title")
	e.clock.advance(2 * time.Minute)
	_, body := e.get(t, u)
	if got := decodeOEmbed(t, body)["title"]; got != "A new title" {
		t.Errorf("title after change %v", got)
	}

	// PURL down after the TTL: the stale copy is served.
	e.clock.advance(2 * time.Minute)
	e.stub.setStatus(500)
	resp, body := e.get(t, u)
	if resp.StatusCode != 200 || decodeOEmbed(t, body)["title"] != "A new title" {
		t.Errorf("stale copy not served while PURL fails: %d %s", resp.StatusCode, body)
	}
	// The failing service is not asked on every request, only again after
	// staleRetry (the TTL here is longer).
	failures := len(e.stub.log())
	e.clock.advance(staleRetry - time.Second)
	e.get(t, u)
	if n := len(e.stub.log()); n != failures {
		t.Errorf("PURL asked again %d times within %v of a failure", n-failures, staleRetry)
	}
	e.clock.advance(2 * time.Second)
	if resp, _ := e.get(t, u); resp.StatusCode != 200 || len(e.stub.log()) != failures+1 {
		t.Errorf("after %v: %d, %d more upstream requests, want 1", staleRetry, resp.StatusCode, len(e.stub.log())-failures)
	}
	// A copy the PURL service has not confirmed for maxStale is no longer
	// served: 502.
	e.clock.advance(maxStale)
	if resp, body := e.get(t, u); resp.StatusCode != http.StatusBadGateway {
		t.Errorf("copy unconfirmed for %v still served: %d %s", maxStale, resp.StatusCode, body)
	}
}

func TestCacheBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t) // CacheSize 4
	for _, d := range []string{imageDruid, mediaDruid, pdfDruid, fileDruid, groupDruid, citationDruid} {
		if resp, body := e.get(t, "/embed?"+q("url", e.purl(d))); resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", d, resp.StatusCode, body)
		}
	}
	if n := e.svc.cache.len(); n != 4 {
		t.Errorf("cache holds %d entries, bound is 4", n)
	}
	// The least recently used (imageDruid) was evicted: it is fetched again.
	before := len(e.stub.log())
	e.get(t, "/embed?"+q("url", e.purl(imageDruid)))
	if len(e.stub.log()) != before+1 {
		t.Errorf("evicted entry was not refetched")
	}
	// Many maxheight values do not grow an entry without bound.
	for h := 1; h <= 100; h++ {
		e.get(t, "/embed?"+q("url", e.purl(imageDruid), "maxheight", strconv.Itoa(h)))
	}
	ent, _ := e.svc.cache.get(imageDruid, e.clock.Now())
	if n := len(ent.rendered); n > maxRenderings {
		t.Errorf("%d renderings cached, bound %d", n, maxRenderings)
	}
}

func TestConcurrentLoadsCollapse(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.Get(e.srv.URL + "/embed?" + q("url", e.purl(mediaDruid)))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("status %d", resp.StatusCode)
			}
		}()
	}
	wg.Wait()
	if n := len(e.stub.log()); n > 2 {
		t.Errorf("%d upstream requests for 20 concurrent embeds of one object", n)
	}
}

func TestIframeDocument(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	resp, doc := e.get(t, "/iframe?"+q("url", e.purl(imageDruid)))
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, doc)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); csp != "frame-ancestors *" {
		t.Errorf("CSP %q: any site must be able to frame the viewer", csp)
	}
	if resp.Header.Get("X-Frame-Options") != "" {
		t.Errorf("X-Frame-Options set")
	}
	for _, want := range []string{
		`<link rel="up" href="` + e.purl(collectionDruid) + `">`,
		`<div id="sitesvc-embed" class="sitesvc-embed" hidden>`,
		`data-viewer-uri="` + e.purl(imageDruid) + `/iiif/manifest"`,
		`data-viewer-config=""`, `data-canvas-id=""`, `data-canvas-index=""`,
		`data-hide-title="false"`, `data-show-attribution="true"`, `data-cdl="false"`,
		`data-search=""`, `data-suggested-search=""`,
		`<link rel="stylesheet" href="` + testEmbedBase + `/viewer/viewer.css?v=`,
		`<script src="` + testEmbedBase + `/viewer/viewer.js?v=`,
		`<title>Two views of the reading room</title>`,
	} {
		if !strings.Contains(doc, want) {
			t.Errorf("iframe document lacks %q", want)
		}
	}
	// The viewer element is inside the hidden container.
	c := strings.Index(doc, `id="sitesvc-embed"`)
	v := strings.Index(doc, `id="sitesvc-viewer"`)
	end := strings.Index(doc, "</body>")
	if !(c >= 0 && c < v && v < end) {
		t.Errorf("viewer element is not inside the container")
	}
	// data-object carries what the viewer needs.
	obj := dataObject(t, doc)
	if obj.Viewer != "mirador" || obj.Access.Restricted || len(obj.Files) != 1 || obj.Files[0].URL != e.purl(imageDruid)+"/file/image1.png" {
		t.Errorf("viewer object %+v", obj)
	}

	// Without a collection there is no rel=up link.
	_, doc = e.get(t, "/iframe?"+q("url", e.purl(mediaDruid), "hide_title", "true", "maxheight", "200"))
	if strings.Contains(doc, `rel="up"`) {
		t.Errorf("rel=up without a collection")
	}
	if !strings.Contains(doc, `data-hide-title="true"`) || strings.Contains(doc, "sitesvc-embed-header") {
		t.Errorf("hide_title=true not reflected")
	}
	if !strings.Contains(doc, "max-height: 200px") {
		t.Errorf("maxheight not applied")
	}
}

// dataObject decodes the data-object attribute of an iframe document: what
// the viewer script is given.
func dataObject(t testing.TB, doc string) viewerObject {
	t.Helper()
	m := regexp.MustCompile(`data-object="([^"]*)"`).FindStringSubmatch(doc)
	if m == nil {
		t.Fatalf("no data-object: %.300s", doc)
	}
	var obj viewerObject
	if err := json.Unmarshal([]byte(htmlUnescape(m[1])), &obj); err != nil {
		t.Fatalf("data-object: %v", err)
	}
	return obj
}

func htmlUnescape(s string) string {
	r := strings.NewReplacer("&#34;", `"`, "&quot;", `"`, "&#39;", "'", "&lt;", "<", "&gt;", ">", "&amp;", "&", "&#43;", "+")
	return r.Replace(s)
}

func TestIframeAccessAndKinds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct {
		druid, viewer, level string
		restricted, cdl      bool
	}{
		{mediaDruid, "media", "world", false, false},
		{pdfDruid, "pdf", "world", false, false},
		{fileDruid, "files", "world", false, false},
		{groupDruid, "mirador", "group", true, false},
		{citationDruid, "pdf", "citation-only", true, false},
	} {
		_, doc := e.get(t, "/iframe?"+q("url", e.purl(tc.druid)))
		obj := dataObject(t, doc)
		if obj.Viewer != tc.viewer || obj.Access.Level != tc.level || obj.Access.Restricted != tc.restricted {
			t.Errorf("%s: %+v", tc.druid, obj)
		}
		if tc.restricted && (obj.Access.Message == "" || !strings.Contains(doc, obj.Access.Message)) {
			t.Errorf("%s: no access message in the document (noscript)", tc.druid)
		}
	}
}

func TestHostileValuesAreEscaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// Hostile url values never reach a document: they are 404 JSON, and
	// what is echoed there is JSON-encoded.
	for _, u := range []string{
		`"><script>alert(1)</script>`,
		`javascript:alert(document.cookie)`,
		e.purl(imageDruid) + `"><script>alert(1)</script>`,
		e.purl(imageDruid) + `?x="><script>`,
		`data:text/html,<script>alert(1)</script>`,
		e.purl(imageDruid) + "#\"><script>alert(1)</script>",
	} {
		for _, path := range []string{"/embed", "/iframe"} {
			resp, body := e.get(t, path+"?"+q("url", u))
			if strings.Contains(body, "<script>") {
				t.Errorf("%s?url=%q: body contains raw <script>: %s", path, u, body)
			}
			if resp.StatusCode != 404 && resp.StatusCode != 200 {
				t.Errorf("%s?url=%q: status %d", path, u, resp.StatusCode)
			}
			if resp.StatusCode == 200 && !strings.Contains(u, "#") {
				t.Errorf("%s?url=%q accepted", path, u)
			}
		}
	}
	// Hostile metadata (title, file names) from the PURL record is escaped.
	_, doc := e.get(t, "/iframe?"+q("url", e.purl(hostileDruid)))
	if strings.Contains(doc, "<script>alert") || strings.Contains(doc, `href="javascript:`) || strings.Contains(doc, "<img src=x") {
		t.Errorf("hostile metadata reached the document unescaped:\n%s", doc)
	}
	if !strings.Contains(doc, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("title not shown escaped:\n%s", doc)
	}
	_, body := e.get(t, "/embed?"+q("url", e.purl(hostileDruid)))
	html := decodeOEmbed(t, body)["html"].(string)
	if strings.Contains(html, "<script>") || strings.Count(html, `"`) != 14 {
		t.Errorf("oEmbed html attribute values not escaped: %s", html)
	}
	_, xmlBody := e.get(t, "/embed?"+q("url", e.purl(hostileDruid), "format", "xml"))
	if strings.Contains(xmlBody, "<script>") {
		t.Errorf("XML not escaped: %s", xmlBody)
	}
}

func TestViewerAssets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, tc := range []struct{ path, ct string }{
		{"/viewer/viewer.js", "text/javascript; charset=utf-8"},
		{"/viewer/viewer.css", "text/css; charset=utf-8"},
	} {
		resp, body := e.get(t, tc.path)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != tc.ct || len(body) < 100 {
			t.Fatalf("%s: %d %q %d bytes", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
		etag := resp.Header.Get("ETag")
		if etag == "" {
			t.Fatalf("%s: no ETag", tc.path)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no X-Content-Type-Options: nosniff", tc.path)
		}
		resp, body = e.get(t, tc.path, "If-None-Match", `"other", `+etag)
		if resp.StatusCode != http.StatusNotModified || body != "" {
			t.Errorf("%s conditional: %d", tc.path, resp.StatusCode)
		}
		resp, _ = e.get(t, tc.path, "If-None-Match", `"other"`)
		if resp.StatusCode != 200 {
			t.Errorf("%s non-matching conditional: %d", tc.path, resp.StatusCode)
		}
	}
}

// TestIframeNamesCurrentAssets: the script and stylesheet URLs in the
// viewer document answer, and their version token is the asset's ETag.
func TestIframeNamesCurrentAssets(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, doc := e.get(t, "/iframe?"+q("url", e.purl(imageDruid)))
	for _, re := range []string{`<script src="([^"]+)"`, `<link rel="stylesheet" href="([^"]+)"`} {
		m := regexp.MustCompile(re).FindStringSubmatch(doc)
		if m == nil {
			t.Fatalf("no %s in the document", re)
		}
		u, err := url.Parse(htmlUnescape(m[1]))
		if err != nil || !strings.HasPrefix(u.String(), testEmbedBase+"/viewer/") {
			t.Fatalf("asset URL %q: %v", m[1], err)
		}
		resp, body := e.get(t, strings.TrimPrefix(u.String(), testEmbedBase))
		if resp.StatusCode != 200 || len(body) == 0 || resp.Header.Get("ETag") != `"`+u.Query().Get("v")+`"` {
			t.Errorf("%s: %d, ETag %s", u, resp.StatusCode, resp.Header.Get("ETag"))
		}
	}
}

func TestMiradorBundle(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	e := newEnv(t, func(c *Config) { c.ViewerDir = dir })
	resp, body := e.get(t, "/viewer/mirador.min.js")
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("missing bundle: status %d", resp.StatusCode)
	}
	if eb := errorBody(t, body); !strings.Contains(eb.Message, "build-viewer.sh") {
		t.Errorf("message %q does not say how to install it", eb.Message)
	}
	// Installed while the server runs: served from then on.
	const bundle = "window.Mirador = {viewer: function () {}};"
	if err := os.WriteFile(filepath.Join(dir, miradorFile), []byte(bundle), 0o644); err != nil {
		t.Fatal(err)
	}
	// (An explicit Accept-Encoding stops Go's client from asking for gzip
	// and decompressing behind the test's back.)
	resp, body = e.get(t, "/viewer/mirador.min.js", "Accept-Encoding", "identity")
	if resp.StatusCode != 200 || body != bundle {
		t.Fatalf("installed bundle: %d %q", resp.StatusCode, body)
	}
	if resp.Header.Get("Content-Encoding") != "" || resp.Header.Get("Vary") != "Accept-Encoding" {
		t.Errorf("identity response headers %v", resp.Header)
	}
	identityETag := resp.Header.Get("ETag")
	resp, _ = e.get(t, "/viewer/mirador.min.js", "Accept-Encoding", "identity", "If-None-Match", identityETag)
	if resp.StatusCode != http.StatusNotModified {
		t.Errorf("conditional: %d", resp.StatusCode)
	}

	// Compressed when the client accepts gzip, with its own ETag.
	for _, ae := range []string{"gzip", "br;q=1, gzip;q=0.5", "*"} {
		resp, body = e.get(t, "/viewer/mirador.min.js", "Accept-Encoding", ae)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("ETag") == identityETag {
			t.Fatalf("Accept-Encoding %q: %d %v", ae, resp.StatusCode, resp.Header)
		}
		zr, err := gzip.NewReader(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		plain, err := io.ReadAll(zr)
		if err != nil || string(plain) != bundle {
			t.Errorf("gzip body decodes to %q, %v", plain, err)
		}
		resp, _ = e.get(t, "/viewer/mirador.min.js", "Accept-Encoding", ae, "If-None-Match", resp.Header.Get("ETag"))
		if resp.StatusCode != http.StatusNotModified {
			t.Errorf("gzip conditional: %d", resp.StatusCode)
		}
	}
	for _, ae := range []string{"gzip;q=0", "br", "identity"} {
		resp, body = e.get(t, "/viewer/mirador.min.js", "Accept-Encoding", ae)
		if resp.Header.Get("Content-Encoding") != "" || body != bundle {
			t.Errorf("Accept-Encoding %q: compressed anyway", ae)
		}
	}
}

func TestPublishedContract(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, body := testkit.Get(t, e.srv.URL+"/openapi.json")
	var doc struct {
		Servers []struct{ URL string } `json:"servers"`
		Paths   map[string]any         `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != testEmbedBase {
		t.Errorf("servers %+v", doc.Servers)
	}
	for _, p := range []string{"/embed", "/iframe", "/viewer/viewer.js", "/viewer/viewer.css", "/viewer/mirador.min.js"} {
		if doc.Paths[p] == nil {
			t.Errorf("path %s not published", p)
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	t.Parallel()
	for _, cfg := range []Config{
		{BaseURL: "not a url", PurlBaseURL: "http://x/purl", ProviderName: "p"},
		{BaseURL: "http://x/embed", PurlBaseURL: "ftp://x/purl", ProviderName: "p"},
		{BaseURL: "http://x/embed", PurlBaseURL: "http://x/purl?q=1", ProviderName: "p"},
		{BaseURL: "http://x/embed", PurlBaseURL: "http://x/purl", ProviderName: ""},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestIndexLinks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.Examples = []string{"http://x/purl/bb000kk0000"} })
	links := e.svc.IndexLinks()
	if len(links) != 2 || links[0].URL != testEmbedBase+"/embed?url=http%3A%2F%2Fx%2Fpurl%2Fbb000kk0000" || links[1].URL != testEmbedBase+"/iframe?url=http%3A%2F%2Fx%2Fpurl%2Fbb000kk0000" {
		t.Errorf("%+v", links)
	}
}

func TestHead(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/embed?" + q("url", e.purl(imageDruid)), "/iframe?" + q("url", e.purl(imageDruid)), "/viewer/viewer.js"} {
		_, getBody := e.get(t, path)
		resp, err := http.Head(e.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(body) != 0 || resp.ContentLength != int64(len(getBody)) {
			t.Errorf("HEAD %s: %d, %d body bytes, Content-Length %d (GET has %d)", path, resp.StatusCode, len(body), resp.ContentLength, len(getBody))
		}
	}
	resp, err := http.Head(e.srv.URL + "/embed?" + q("url", "http://elsewhere/x"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("HEAD of a bad url: %d", resp.StatusCode)
	}
}

// TestEmbargoReleasedWhileCached: an embargo ending while the object is
// cached ends in the viewer too, although the record itself does not change
// (the PURL service would answer a conditional request with 304).
func TestEmbargoReleasedWhileCached(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	embargo := fixtures[imageDruid]
	embargo.read = "<embargoReleaseDate>2026-03-02</embargoReleaseDate><world/>" // the day after the clock's
	e.stub.setBody(imageDruid, embargo.xml(imageDruid))
	path := "/iframe?" + q("url", e.purl(imageDruid))
	viewerAccess := func() viewerAccess {
		t.Helper()
		_, doc := e.get(t, path)
		return dataObject(t, doc).Access
	}
	if a := viewerAccess(); a.Level != "embargoed" || !a.Restricted {
		t.Fatalf("before the release day: %+v", a)
	}
	// Revalidated before the release day: 304, still embargoed.
	e.clock.advance(2 * time.Minute)
	if a := viewerAccess(); a.Level != "embargoed" {
		t.Fatalf("before the release day, after a revalidation: %+v", a)
	}
	e.clock.advance(12 * time.Hour)
	if a := viewerAccess(); a.Level != "world" || a.Restricted {
		t.Errorf("after the release day: %+v (upstream requests %v)", a, e.stub.log())
	}
	log := e.stub.log()
	if last := log[len(log)-1]; !strings.HasSuffix(last, " ") {
		t.Errorf("the record was asked for conditionally after the release: %q", last)
	}
}

// TestCacheBoundedInBytes: records and kept renderings count against the
// byte bound; past it the least recently used objects go, never the one in
// use.
func TestCacheBoundedInBytes(t *testing.T) {
	t.Parallel()
	record := len(fixtures[imageDruid].xml(imageDruid))
	e := newEnv(t, func(c *Config) {
		c.CacheSize = 100
		c.CacheBytes = int64(3*record + 2000) // about three records and their oEmbed answers
	})
	druids := []string{imageDruid, mediaDruid, pdfDruid, fileDruid, groupDruid, citationDruid}
	for _, d := range druids {
		if resp, body := e.get(t, "/embed?"+q("url", e.purl(d))); resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", d, resp.StatusCode, body)
		}
		e.svc.cache.mu.Lock()
		total, n := e.svc.cache.bytes, e.svc.cache.lru.Len()
		var sum int64
		for _, ent := range e.svc.cache.lru.Values() {
			sum += ent.size
		}
		e.svc.cache.mu.Unlock()
		if total > e.svc.cfg.CacheBytes || total != sum || n == 0 {
			t.Fatalf("after %s: %d bytes counted (entries sum to %d) in %d entries, bound %d", d, total, sum, n, e.svc.cfg.CacheBytes)
		}
	}
	if n := e.svc.cache.len(); n >= len(druids) || n < 2 {
		t.Errorf("%d entries kept under the byte bound", n)
	}
	// The most recent object is cached; the first was evicted.
	if ent, _ := e.svc.cache.get(citationDruid, e.clock.Now()); ent == nil || len(ent.rendered) != 1 {
		t.Errorf("the object in use is not cached with its rendering")
	}
	if ent, _ := e.svc.cache.get(imageDruid, e.clock.Now()); ent != nil {
		t.Errorf("the least recently used object is still cached")
	}
	// Renderings grow an entry: many sizes of one object push the others out.
	for h := 1; h <= maxRenderings; h++ {
		e.get(t, "/iframe?"+q("url", e.purl(citationDruid), "maxheight", strconv.Itoa(h)))
	}
	e.svc.cache.mu.Lock()
	total := e.svc.cache.bytes
	e.svc.cache.mu.Unlock()
	if total > e.svc.cfg.CacheBytes && e.svc.cache.len() > 1 {
		t.Errorf("%d bytes cached, bound %d", total, e.svc.cfg.CacheBytes)
	}
	if resp, _ := e.get(t, "/embed?"+q("url", e.purl(citationDruid))); resp.StatusCode != 200 {
		t.Errorf("object in use: %d", resp.StatusCode)
	}
}

// TestDocumentsHaveAnIcon: the viewer document and the notice carry the
// icon inline (a data: URL), so a browser asks for no /favicon.ico.
func TestDocumentsHaveAnIcon(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/iframe?" + q("url", e.purl(imageDruid)), "/iframe?" + q("url", e.purl("zz999zz9999"))} {
		_, body := e.get(t, path)
		if !strings.Contains(body, `<link rel="icon" href="data:image/svg&#43;xml,%3Csvg`) {
			t.Errorf("%s has no inline icon", path)
		}
	}
}
