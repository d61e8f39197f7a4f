package representation

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestWholeOnly: a Content made WholeOnly ignores Range and If-Range (200
// with every byte, Accept-Ranges: none) and still answers the other
// preconditions (304, 412).
func TestWholeOnly(t *testing.T) {
	t.Parallel()
	body := []byte("0123456789abcdef")
	c := NewContent(body, `"v1"`, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)).WholeOnly()
	for _, tc := range []struct {
		name    string
		headers map[string]string
		status  int
		body    string
	}{
		{"plain", nil, 200, string(body)},
		{"range", map[string]string{"Range": "bytes=0-3"}, 200, string(body)},
		{"range and if-range", map[string]string{"Range": "bytes=0-3", "If-Range": `"v1"`}, 200, string(body)},
		{"unsatisfiable range", map[string]string{"Range": "bytes=999-"}, 200, string(body)},
		{"if-none-match", map[string]string{"If-None-Match": `"v1"`, "Range": "bytes=0-3"}, 304, ""},
		{"if-match another", map[string]string{"If-Match": `"v0"`}, 412, ""},
	} {
		r := httptest.NewRequest(http.MethodGet, "/x", nil)
		for k, v := range tc.headers {
			r.Header.Set(k, v)
		}
		w := httptest.NewRecorder()
		c.Serve(w, r)
		if w.Code != tc.status || w.Body.String() != tc.body || w.Header().Get("Content-Range") != "" {
			t.Errorf("%s: %d %q (Content-Range %q), want %d %q", tc.name, w.Code, w.Body.String(), w.Header().Get("Content-Range"), tc.status, tc.body)
		}
		if tc.status == 200 && w.Header().Get("Accept-Ranges") != "none" {
			t.Errorf("%s: Accept-Ranges %q, want none", tc.name, w.Header().Get("Accept-Ranges"))
		}
		if r.Header.Get("Range") != tc.headers["Range"] {
			t.Errorf("%s: the request's own Range was changed", tc.name)
		}
	}
}
