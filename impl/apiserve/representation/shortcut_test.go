package representation

import (
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestShortcutsAnswerAsServeContent: every request Content answers
// itself (shortcut.go: 304 for its own tag, 206 for one plain range) gets
// the answer http.ServeContent gives, status, header fields and body, on
// representations with and without a tag, a weak tag, a date, a type, an
// encoding, WholeOnly, and empty; and the requests meant to take a
// shortcut do take it.
func TestShortcutsAnswerAsServeContent(t *testing.T) {
	t.Parallel()
	mod := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	at, before := mod.Format(http.TimeFormat), mod.Add(-time.Hour).Format(http.TimeFormat)
	body := []byte(strings.Repeat("0123456789", 100)) // 1000 bytes
	typed := func(c *Content) *Content { return c.WithHeader("Content-Type", "application/octet-stream") }
	contents := map[string]*Content{
		"tagged":       typed(NewContent(body, `"v1"`, mod)),
		"weak tag":     typed(NewContent(body, `W/"v1"`, mod)),
		"no tag":       typed(NewContent(body, "", mod)),
		"undated":      typed(NewContent(body, `"v1"`, time.Time{})),
		"untyped":      NewContent(body, `"v1"`, mod),
		"encoded":      typed(NewContent(body, `"v1"`, mod)).WithHeader("Content-Encoding", "gzip"),
		"whole only":   typed(NewContent(body, `"v1"`, mod)).WholeOnly(),
		"empty":        typed(NewContent(nil, `"v1"`, mod)),
		"one byte":     typed(NewContent([]byte("x"), `"v1"`, mod)),
		"cache fields": typed(NewContent(body, `"v1"`, mod)).WithHeader("Cache-Control", "public, max-age=60"),
	}
	requests := [][]string{
		{"Range", "bytes=0-1023"}, {"Range", "bytes=0-0"}, {"Range", "bytes=10-19"}, {"Range", "bytes=999-999"},
		{"Range", "bytes=990-"}, {"Range", "bytes=0-"}, {"Range", "bytes=-10"}, {"Range", "bytes=-5000"},
		{"Range", "bytes=-0"}, {"Range", "bytes=1000-"}, {"Range", "bytes=5000-6000"}, {"Range", "bytes=20-10"},
		{"Range", "bytes=x-y"}, {"Range", "bytes= 0-9"}, {"Range", "bytes=0-9,20-29"}, {"Range", "bytes=0-9,500-509"},
		{"Range", "bytes=-"}, {"Range", "bytes=--1"}, {"Range", "bytes=0-99999999999999999999"}, {"Range", "lines=1-2"},
		{"Range", "Bytes=0-9"}, {"Range", ""},
		{"Range", "bytes=0-9", "If-Range", `"v1"`}, {"Range", "bytes=0-9", "If-Range", `"x"`},
		{"Range", "bytes=0-9", "If-Range", `W/"v1"`}, {"Range", "bytes=0-9", "If-Range", at},
		{"Range", "bytes=0-9", "If-Range", before}, {"Range", "bytes=0-9", "If-Range", ""},
		{"If-None-Match", `"v1"`}, {"If-None-Match", `W/"v1"`}, {"If-None-Match", `"x"`}, {"If-None-Match", "*"},
		{"If-None-Match", `"x", "v1"`}, {"If-None-Match", ""}, {"If-None-Match", `"v1"`, "Range", "bytes=0-9"},
		{"If-None-Match", `"v1"`, "If-Modified-Since", before}, {"If-None-Match", `"x"`, "Range", "bytes=0-9"},
		{"If-None-Match", `"v1"`, "If-Match", `"x"`}, {"If-None-Match", `"v1"`, "If-Unmodified-Since", before},
		{"If-Modified-Since", at}, {"If-Modified-Since", before}, {"If-Modified-Since", at, "Range", "bytes=0-9"},
		{"If-Match", `"v1"`, "Range", "bytes=0-9"}, {"If-Match", `"x"`}, {"If-Unmodified-Since", before, "Range", "bytes=0-9"},
	}
	shortcuts := 0
	for _, name := range slices.Sorted(maps.Keys(contents)) {
		c := contents[name]
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			for _, fields := range requests {
				request := func() *http.Request {
					r := httptest.NewRequest(method, "/x", nil)
					for i := 0; i+1 < len(fields); i += 2 {
						r.Header.Add(fields[i], fields[i+1])
					}
					return r
				}
				what := fmt.Sprintf("%s: %s %q", name, method, fields)
				got := httptest.NewRecorder()
				c.Serve(got, request())
				want := httptest.NewRecorder()
				c.setFields(want)
				r := request()
				if c.whole {
					r = withoutRanges(r)
				}
				c.serveGeneral(want, r)
				sameAnswer(t, what, got, want)
				probe := httptest.NewRecorder()
				c.setFields(probe)
				if c.serveShortcut(probe, r) {
					shortcuts++
				}
			}
		}
	}
	// Each tagged, typed, non-empty representation answers its own tag
	// (If-None-Match alone or with other fields) and the plain ranges
	// itself: the test would pass with no shortcut at all otherwise.
	if shortcuts < 100 {
		t.Errorf("only %d requests took a shortcut", shortcuts)
	}
	// The ones that must.
	c := contents["tagged"]
	for _, fields := range [][]string{{"Range", "bytes=0-1023"}, {"Range", "bytes=-10"}, {"Range", "bytes=990-"}, {"If-None-Match", `"v1"`}, {"Range", "bytes=0-9", "If-Range", `"v1"`}} {
		r := httptest.NewRequest(http.MethodGet, "/x", nil)
		for i := 0; i+1 < len(fields); i += 2 {
			r.Header.Add(fields[i], fields[i+1])
		}
		w := httptest.NewRecorder()
		c.setFields(w)
		w.Header().Set("Content-Type", "text/plain")
		if !c.serveShortcut(w, r) {
			t.Errorf("%q took the general way", fields)
		}
	}
}

// sameAnswer compares two recorded answers: status, every header field
// but multipart boundaries, and body.
func sameAnswer(t *testing.T, what string, got, want *httptest.ResponseRecorder) {
	t.Helper()
	if got.Code != want.Code {
		t.Errorf("%s: status %d, http.ServeContent %d", what, got.Code, want.Code)
		return
	}
	if strings.HasPrefix(want.Header().Get("Content-Type"), "multipart/") {
		return // a random boundary: TestContentFollowsRFC9110 covers several ranges
	}
	for _, k := range slices.Sorted(maps.Keys(want.Header())) {
		if g, w := got.Header().Values(k), want.Header().Values(k); !slices.Equal(g, w) {
			t.Errorf("%s: %s %q, http.ServeContent %q", what, k, g, w)
		}
	}
	for k := range got.Header() {
		if _, ok := want.Header()[k]; !ok {
			t.Errorf("%s: %s %q, which http.ServeContent does not send", what, k, got.Header().Values(k))
		}
	}
	if got.Body.String() != want.Body.String() {
		t.Errorf("%s: body of %d bytes, http.ServeContent %d", what, got.Body.Len(), want.Body.Len())
	}
}

// TestRangeAskedAgainIsPrepared: a range asked for again is answered with
// the header values prepared the first time; another range gets its own;
// concurrent requests of different ranges each get theirs (-race).
func TestRangeAskedAgainIsPrepared(t *testing.T) {
	t.Parallel()
	c := NewContent([]byte(strings.Repeat("a", 4096)), `"t"`, time.Time{}).WithHeader("Content-Type", "text/plain")
	get := func(rng string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/x", nil)
		r.Header.Set("Range", rng)
		w := httptest.NewRecorder()
		c.Serve(w, r)
		return w
	}
	first := get("bytes=0-1023")
	p := c.lastRange.Load()
	if again := get("bytes=0-1023"); c.lastRange.Load() != p || again.Header().Get("Content-Range") != first.Header().Get("Content-Range") {
		t.Errorf("the same range was prepared again")
	}
	if other := get("bytes=1024-2047"); other.Header().Get("Content-Range") != "bytes 1024-2047/4096" || other.Body.Len() != 1024 {
		t.Errorf("another range: %q, %d bytes", other.Header().Get("Content-Range"), other.Body.Len())
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 200 {
				start := i * 100
				w := get(fmt.Sprintf("bytes=%d-%d", start, start+9))
				if want := fmt.Sprintf("bytes %d-%d/4096", start, start+9); w.Header().Get("Content-Range") != want || w.Header().Get("Content-Length") != "10" {
					t.Errorf("range %d: %q, length %q", i, w.Header().Get("Content-Range"), w.Header().Get("Content-Length"))
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkContentRange: one plain range of a held representation, the
// way a file's first KiB is asked for (allocations per answer).
func BenchmarkContentRange(b *testing.B) {
	c := NewContent([]byte(strings.Repeat("a", 64<<10)), `"t"`, time.Now()).WithHeader("Content-Type", "image/png")
	r := httptest.NewRequest(http.MethodGet, "/x", nil)
	r.Header.Set("Range", "bytes=0-1023")
	w := discardWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		clear(w.h)
		c.Serve(w, r)
	}
}

type discardWriter struct{ h http.Header }

func (w discardWriter) Header() http.Header         { return w.h }
func (w discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w discardWriter) WriteHeader(int)             {}
