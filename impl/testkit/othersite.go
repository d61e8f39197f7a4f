package testkit

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// OtherSite serves the HTML document page returns (called at each request,
// so a test may change what it returns between navigations) from a
// loopback server the browser counts as another site than the servers under
// test: its URL names localhost where theirs name 127.0.0.1, so frames of
// theirs in it are cross-origin and their postMessage origins differ. The
// server is closed when the test ends.
func OtherSite(t testing.TB, page func() string) string {
	t.Helper()
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, page())
	}))
	t.Cleanup(host.Close)
	return strings.Replace(host.URL, "127.0.0.1", "localhost", 1)
}
