package purl

import (
	"net/http"
	"testing"
)

// BenchmarkFileRange is BenchmarkEdge's file GET through the PURL handler
// (the edge, the generated wrapper, the service): the first KiB of a file
// anyone may read, by Range. Its allocations per request are what the
// edge's verdict memo and the generated binding cost such a request.
func BenchmarkFileRange(b *testing.B) {
	f := newFixture(b)
	h := f.svc.Handler()
	req, _ := http.NewRequest(http.MethodGet, "/bb000kk0000/file/reading-room-north.png", nil)
	req.Header.Set("Range", "bytes=0-1023")
	w := &discardWriter{h: http.Header{}}
	serveOnce(b, h, req, w, http.StatusPartialContent)
	if w.n != 1024 {
		b.Fatalf("the range answer has %d bytes, want 1024", w.n)
	}
	b.ReportAllocs()
	serveEach(b, h, req, http.StatusPartialContent)
}
