package auth

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestSessionPages: every answer of the wrapped handler, a success or an
// error of its own, is marked not to be stored or sniffed.
func TestSessionPages(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /page", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<p>hi</p>")) })
	h := SessionPages(mux)
	for _, c := range []struct {
		method, path string
		status       int
	}{{http.MethodGet, "/page", http.StatusOK}, {http.MethodGet, "/other", http.StatusNotFound}, {http.MethodPost, "/page", http.StatusMethodNotAllowed}} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
		if rec.Code != c.status || rec.Header().Get("Cache-Control") != "no-store" || rec.Header().Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s %s: %d, Cache-Control %q, X-Content-Type-Options %q", c.method, c.path, rec.Code, rec.Header().Get("Cache-Control"), rec.Header().Get("X-Content-Type-Options"))
		}
	}
}
