package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// FuzzMountedPaths: whatever path arrives, the service mounted at /purl
// gets it only when the path as sent (unreserved escapes decoded) lies under
// /purl, and then sees exactly the rest of it.
func FuzzMountedPaths(f *testing.F) {
	for _, seed := range []string{"/purl/x", "/purl%2Fx", "/%70url/a%2Fb", "/purl", "/purl/%zz", "/purl/%2e%2e/x", "/x"} {
		f.Add(seed)
	}
	s, err := New(Config{Mounts: []Mount{{Path: "/purl", Service: funcService{name: "purl", h: echoRaw}}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, path string) {
		u, err := url.ParseRequestURI(path)
		if err != nil || u.RawQuery != "" || u.Host != "" || !strings.HasPrefix(path, "/") {
			return
		}
		req := httptest.NewRequest("GET", "/", nil)
		req.URL = u
		req.RequestURI = path
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		sent := decodeUnreserved(u.EscapedPath())
		under := sent == "/purl" || strings.HasPrefix(sent, "/purl/")
		body, _ := io.ReadAll(rec.Body)
		if !under {
			if rec.Code == http.StatusOK && rec.Header().Get("Content-Type") != "text/html; charset=utf-8" && sent != "/healthz" && sent != "/readyz" && sent != "/metrics" {
				t.Fatalf("%q (sent %q) reached the /purl service: %q", path, sent, body)
			}
			return
		}
		want := strings.TrimPrefix(sent, "/purl")
		if want == "" {
			want = "/"
		}
		if rec.Code != http.StatusOK || decodeUnreserved(string(body)) != want {
			t.Fatalf("%q: service saw %q (%d), want %q", path, body, rec.Code, want)
		}
	})
}
