package apidocs_test

import (
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/apidocs"
)

func get(t *testing.T, h http.Handler, method, path string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func TestDocsHandler(t *testing.T) {
	d, err := apidocs.New(`Title <with> "markup"`)
	if err != nil {
		t.Fatal(err)
	}
	page := get(t, d, http.MethodGet, apidocs.PagePath, nil)
	if page.Code != http.StatusOK || !strings.HasPrefix(page.Header().Get("Content-Type"), "text/html") {
		t.Fatalf("page: %d %s", page.Code, page.Header().Get("Content-Type"))
	}
	body := page.Body.String()
	if !strings.Contains(body, "Title &lt;with&gt; &#34;markup&#34;") {
		t.Errorf("title not escaped: %s", body)
	}
	if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
		t.Errorf("the page refers to an absolute URL: %s", body)
	}
	if etag := page.Header().Get("ETag"); etag == "" || get(t, d, http.MethodGet, apidocs.PagePath, map[string]string{"If-None-Match": etag}).Code != http.StatusNotModified {
		t.Errorf("page: no 304 for its ETag %q", etag)
	}
	if rec := get(t, d, http.MethodPost, apidocs.PagePath, nil); rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d Allow %q", rec.Code, rec.Header().Get("Allow"))
	}
	if rec := get(t, d, http.MethodGet, "/docs/other.js", nil); rec.Code != http.StatusNotFound {
		t.Errorf("unknown file: %d", rec.Code)
	}

	if !d.Bundled() {
		// A binary built without scripts/build-apidocs.sh says so.
		if !strings.Contains(body, "not built into this binary") {
			t.Errorf("unbundled page does not say the viewer is missing: %s", body)
		}
		if rec := get(t, d, http.MethodGet, apidocs.BundlePath, nil); rec.Code != http.StatusServiceUnavailable {
			t.Errorf("bundle without build: %d", rec.Code)
		}
		t.Skip("the Redoc bundle is not built in (scripts/build-apidocs.sh); bundle checks skipped")
	}
	if !strings.Contains(body, `<redoc spec-url="openapi.json">`) || !strings.Contains(body, `src="docs/redoc.standalone.js"`) {
		t.Errorf("page does not load the bundle and the document relatively: %s", body)
	}
	plain := get(t, d, http.MethodGet, apidocs.BundlePath, nil)
	if plain.Code != http.StatusOK || plain.Header().Get("Content-Encoding") != "" || plain.Body.Len() < 500_000 {
		t.Fatalf("bundle: %d, %d bytes, encoding %q", plain.Code, plain.Body.Len(), plain.Header().Get("Content-Encoding"))
	}
	if strings.Contains(plain.Body.String(), "cdn.redoc.ly") {
		t.Error("the bundle still loads its logo from Redocly's CDN")
	}
	zipped := get(t, d, http.MethodGet, apidocs.BundlePath, map[string]string{"Accept-Encoding": "br, gzip"})
	if zipped.Header().Get("Content-Encoding") != "gzip" || zipped.Header().Get("ETag") == plain.Header().Get("ETag") || zipped.Body.Len() >= plain.Body.Len()/2 {
		t.Fatalf("gzip: encoding %q, ETag %q (plain %q), %d bytes", zipped.Header().Get("Content-Encoding"), zipped.Header().Get("ETag"), plain.Header().Get("ETag"), zipped.Body.Len())
	}
	zr, err := gzip.NewReader(zipped.Body)
	if err != nil {
		t.Fatal(err)
	}
	unzipped, err := io.ReadAll(zr)
	if err != nil || string(unzipped) != plain.Body.String() {
		t.Fatalf("the gzip representation is not the bundle (%v)", err)
	}
	if rec := get(t, d, http.MethodGet, apidocs.BundlePath, map[string]string{"Accept-Encoding": "gzip;q=0"}); rec.Header().Get("Content-Encoding") != "" {
		t.Error("gzip;q=0 was answered with gzip")
	}
	if rec := get(t, d, http.MethodGet, apidocs.BundlePath, map[string]string{"If-None-Match": plain.Header().Get("ETag")}); rec.Code != http.StatusNotModified {
		t.Errorf("bundle: %d for its ETag", rec.Code)
	}
	if rec := get(t, d, http.MethodHead, apidocs.BundlePath, nil); rec.Code != http.StatusOK || rec.Body.Len() != 0 || rec.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD: %d, %d body bytes", rec.Code, rec.Body.Len())
	}
	if rec := get(t, d, http.MethodGet, apidocs.LicensePath, nil); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "MIT") {
		t.Errorf("license: %d %.80s", rec.Code, rec.Body.String())
	}
}
