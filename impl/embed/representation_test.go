package embed

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// The viewer's assets are apiserve.Content (issue 25.3): If-Match (412)
// and byte ranges besides If-None-Match, and the bundle's gzip form chosen
// by the one Accept-Encoding parser (a named coding, x-gzip or *; q=0
// refuses). 412 and 206 are not declared in api/embed.yaml, so those
// answers are not checked against it.
func TestAssetsAreOneRepresentation(t *testing.T) {
	bundle := []byte(strings.Repeat("/* mirador */\n", 500))
	e := newEnv(t, func(c *Config) { c.MiradorBundle, c.ViewerDir = bundle, "" })
	raw := func(path string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept-Encoding", "identity") // the client must not decompress
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return testkit.Do(t, nil, req)
	}
	resp, _ := raw("/viewer/viewer.js")
	etag := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || etag == "" || resp.Header.Get("Accept-Ranges") != "bytes" || resp.Header.Get("Cache-Control") != assetCacheControl {
		t.Fatalf("viewer.js: %d %v", resp.StatusCode, resp.Header)
	}
	if r, _ := raw("/viewer/viewer.js", "If-None-Match", `"x", `+etag); r.StatusCode != http.StatusNotModified || r.Header.Get("ETag") != etag || r.Header.Get("Cache-Control") != assetCacheControl {
		t.Errorf("If-None-Match: %d %v", r.StatusCode, r.Header)
	}
	if r, _ := raw("/viewer/viewer.js", "If-Match", `"x"`); r.StatusCode != http.StatusPreconditionFailed {
		t.Errorf("If-Match another tag: %d, want 412", r.StatusCode)
	}
	if r, b := raw("/viewer/viewer.css", "Range", "bytes=0-4"); r.StatusCode != http.StatusPartialContent || len(b) != 5 {
		t.Errorf("Range: %d, %d bytes", r.StatusCode, len(b))
	}
	for _, tc := range []struct {
		acceptEncoding string
		gzipped        bool
	}{{"gzip, br", true}, {"x-gzip", true}, {"*", true}, {"*, gzip;q=0", false}, {"br", false}, {"identity", false}} {
		r, b := raw("/viewer/mirador.min.js", "Accept-Encoding", tc.acceptEncoding)
		if r.StatusCode != 200 || r.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("%q: %d %v", tc.acceptEncoding, r.StatusCode, r.Header)
		}
		if got := r.Header.Get("Content-Encoding") == "gzip"; got != tc.gzipped {
			t.Errorf("Accept-Encoding %q: gzip %v, want %v", tc.acceptEncoding, got, tc.gzipped)
			continue
		}
		if tc.gzipped {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if b, err = io.ReadAll(zr); err != nil {
				t.Fatal(err)
			}
		}
		if !bytes.Equal(b, bundle) {
			t.Errorf("Accept-Encoding %q: not the bundle", tc.acceptEncoding)
		}
	}
}
