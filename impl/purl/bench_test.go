package purl

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"
)

// discardWriter is a ResponseWriter that keeps the status and drops the body,
// so benchmarks measure the handlers, not a recorder.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header { return w.h }
func (w *discardWriter) WriteHeader(s int)   { w.status = s }
func (w *discardWriter) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = 200
	}
	w.n += len(p)
	return len(p), nil
}

func serveOnce(b *testing.B, h http.Handler, req *http.Request, w *discardWriter, want int) {
	clear(w.h)
	w.status, w.n = 0, 0
	h.ServeHTTP(w, req)
	if w.status != want {
		b.Fatalf("%s: status %d, want %d", req.URL.Path, w.status, want)
	}
}

// serveEach serves req with h every iteration of b, wanting status.
func serveEach(b *testing.B, h http.Handler, req *http.Request, status int) {
	w := &discardWriter{h: http.Header{}}
	for b.Loop() {
		serveOnce(b, h, req, w, status)
	}
}

// reportRatio serves req with h and baseReq with base alternately every
// iteration of b, each wanting status, and reports base's time over h's
// as metric: at least 1 when h is as fast as the baseline.
func reportRatio(b *testing.B, h http.Handler, req *http.Request, base http.Handler, baseReq *http.Request, status int, metric string) {
	w := &discardWriter{h: http.Header{}}
	var hT, baseT time.Duration
	for b.Loop() {
		t0 := time.Now()
		serveOnce(b, h, req, w, status)
		t1 := time.Now()
		serveOnce(b, base, baseReq, w, status)
		hT += t1.Sub(t0)
		baseT += time.Since(t1)
	}
	b.ReportMetric(float64(baseT)/float64(hT), metric)
}

// BenchmarkPublicXML compares GET /{id}.xml with http.FileServer serving the
// same bytes from the store, and the 304 paths of both.
// The "ratio" and "ratio-304" sub-benchmarks alternate the two in one loop
// and report fileserver-time / purl-time (≥ 1 means the PURL service is
// faster). The PURL handler is the whole service: route middleware,
// request validation against api/purl.yaml, the generated wrapper and
// strict handler.
func BenchmarkPublicXML(b *testing.B) {
	f := newFixture(b)
	purlH := f.svc.Handler()
	// The object's current version (the store switches "current" to a
	// whole version directory on every write).
	dir := filepath.Join(f.svc.fsStore.Root(), "bb", "000", "kk", "0000", "current")
	fileH := http.FileServer(http.Dir(dir))
	purlReq, _ := http.NewRequest(http.MethodGet, "/bb000kk0000.xml", nil)
	fileReq, _ := http.NewRequest(http.MethodGet, "/public.xml", nil)
	w := &discardWriter{h: http.Header{}}
	serveOnce(b, purlH, purlReq, w, 200)
	purlETag := w.h.Get("ETag")
	fileLM := func() string { serveOnce(b, fileH, fileReq, w, 200); return w.h.Get("Last-Modified") }()
	purl304, _ := http.NewRequest(http.MethodGet, "/bb000kk0000.xml", nil)
	purl304.Header.Set("If-None-Match", purlETag)
	file304, _ := http.NewRequest(http.MethodGet, "/public.xml", nil)
	file304.Header.Set("If-Modified-Since", fileLM)

	b.Run("purl", func(b *testing.B) {
		serveEach(b, purlH, purlReq, 200)
	})
	b.Run("fileserver", func(b *testing.B) {
		serveEach(b, fileH, fileReq, 200)
	})
	b.Run("purl-304", func(b *testing.B) {
		serveEach(b, purlH, purl304, 304)
	})
	b.Run("fileserver-304", func(b *testing.B) {
		serveEach(b, fileH, file304, 304)
	})
	b.Run("ratio", func(b *testing.B) {
		reportRatio(b, purlH, purlReq, fileH, fileReq, 200, "purl-throughput/fileserver")
	})
	b.Run("ratio-304", func(b *testing.B) {
		reportRatio(b, purlH, purl304, fileH, file304, 304, "purl-304-throughput/fileserver-304")
	})
}

// BenchmarkPage is the HTML page and the manifest (both built once per
// published version and then served from memory).
func BenchmarkPage(b *testing.B) {
	f := newFixture(b)
	h := f.svc.Handler()
	for _, p := range []string{"/bb000kk0000", "/bb000kk0000/iiif/manifest"} {
		req, _ := http.NewRequest(http.MethodGet, p, nil)
		b.Run(p, func(b *testing.B) {
			serveEach(b, h, req, 200)
		})
	}
}
