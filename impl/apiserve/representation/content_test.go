package representation

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Content.Serve answers every request as http.ServeContent does on the
// same bytes: status, every header field and body, the fast way or not
// (but for the Content-Type of a 412).
func TestContentServesAsServeContent(t *testing.T) {
	t.Parallel()
	body := []byte(strings.Repeat("<record/>\n", 100))
	mod := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	const etag = `"abc123"`
	cases := []struct {
		method string
		header []string
	}{
		{"GET", nil},
		{"HEAD", nil},
		{"GET", []string{"If-None-Match", etag}},
		{"GET", []string{"If-None-Match", `"other"`}},
		{"HEAD", []string{"If-None-Match", etag}},
		{"GET", []string{"If-Modified-Since", mod.Format(http.TimeFormat)}},
		{"GET", []string{"If-Modified-Since", mod.Add(-time.Hour).Format(http.TimeFormat)}},
		{"GET", []string{"If-Match", `"other"`}},
		{"GET", []string{"If-Unmodified-Since", mod.Add(-time.Hour).Format(http.TimeFormat)}},
		{"GET", []string{"Range", "bytes=0-9"}},
		{"GET", []string{"Range", "bytes=5000-"}},
		{"GET", []string{"Range", "bytes=0-9", "If-Range", `"other"`}},
		{"GET", []string{"Accept", "text/html", "X-Other", "1"}},
	}
	for _, zeroTime := range []bool{false, true} {
		m := mod
		if zeroTime {
			m = time.Time{}
		}
		c := NewContent(body, etag, m)
		for _, tc := range cases {
			newReq := func() *http.Request {
				r := httptest.NewRequest(tc.method, "/x", nil)
				for i := 0; i+1 < len(tc.header); i += 2 {
					r.Header.Set(tc.header[i], tc.header[i+1])
				}
				return r
			}
			want := httptest.NewRecorder()
			want.Header().Set("Content-Type", "application/xml")
			want.Header().Set("ETag", etag)
			http.ServeContent(want, newReq(), "", m, bytes.NewReader(body))
			if want.Code == http.StatusPreconditionFailed {
				// Content's one difference: a 412 has no content, so no
				// Content-Type (preconditionWriter).
				want.Header().Del("Content-Type")
			}
			got := httptest.NewRecorder()
			got.Header().Set("Content-Type", "application/xml")
			c.Serve(got, newReq())
			if got.Code != want.Code || !reflect.DeepEqual(got.Header(), want.Header()) || !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
				t.Errorf("%s %v (zero time %v):\n got %d %v %d bytes\nwant %d %v %d bytes", tc.method, tc.header, zeroTime,
					got.Code, got.Header(), got.Body.Len(), want.Code, want.Header(), want.Body.Len())
			}
		}
	}
	if c := NewContent(body, etag, mod); c.ETag() != etag || !bytes.Equal(c.Body(), body) {
		t.Error("accessors")
	}
}
