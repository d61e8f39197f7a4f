package purl

import (
	"net/http"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
)

// BenchmarkImageTile compares a IIIF tile request (the whole service:
// route, request validation, rights, pyramid lookup, ServeContent) with
// http.FileServer serving the same tile file, side by side. The "ratio"
// sub-benchmark alternates the two and reports fileserver-time ÷
// tile-time, the tile's throughput as a fraction of plain file serving
// (goal of issue 13: ≥ 0.5).
func BenchmarkImageTile(b *testing.B) {
	if _, err := exec.LookPath("vips"); err != nil {
		b.Skip("vips not installed")
	}
	f := newFixture(b)
	h := f.svc.Handler()
	const tile = "/bb000kk0000/iiif/image/reading-room-north.png/0,0,512,480/512,/0/default.jpg"
	tileReq, _ := http.NewRequest(http.MethodGet, tile, nil)
	w := &discardWriter{h: http.Header{}}
	serveOnce(b, h, tileReq, w, 200) // makes the pyramid
	size := w.n
	obj, err := f.svc.object(b.Context(), "bb000kk0000")
	if err != nil {
		b.Fatal(err)
	}
	f2, _ := obj.rec.File("reading-room-north.png")
	blob, err := f.svc.store.Open(b.Context(), obj.rec.Druid, f2.Name)
	if err != nil {
		b.Fatal(err)
	}
	blob.File.Close()
	p, err := f.svc.tiler.Pyramid(b.Context(), iiifimage.Source{Object: "bb000kk0000", Name: f2.Name, Path: blob.File.Name(), Size: blob.Info.Size(), ModTime: blob.Info.ModTime()})
	if err != nil {
		b.Fatal(err)
	}
	path, err := p.Lookup("0,0,512,480", "512,", "0", "default.jpg")
	if err != nil {
		b.Fatal(err)
	}
	fileH := http.FileServer(http.Dir(filepath.Dir(path)))
	fileReq, _ := http.NewRequest(http.MethodGet, "/default.jpg", nil)
	serveOnce(b, fileH, fileReq, w, 200)
	if w.n != size {
		b.Fatalf("the file server sent %d bytes, the tile request %d", w.n, size)
	}
	b.Run("tile", func(b *testing.B) {
		w := &discardWriter{h: http.Header{}}
		for b.Loop() {
			serveOnce(b, h, tileReq, w, 200)
		}
		b.SetBytes(int64(size))
	})
	b.Run("fileserver", func(b *testing.B) {
		w := &discardWriter{h: http.Header{}}
		for b.Loop() {
			serveOnce(b, fileH, fileReq, w, 200)
		}
		b.SetBytes(int64(size))
	})
	b.Run("ratio", func(b *testing.B) {
		w := &discardWriter{h: http.Header{}}
		var tileT, fileT time.Duration
		for b.Loop() {
			t0 := time.Now()
			serveOnce(b, h, tileReq, w, 200)
			t1 := time.Now()
			serveOnce(b, fileH, fileReq, w, 200)
			tileT += t1.Sub(t0)
			fileT += time.Since(t1)
		}
		b.ReportMetric(float64(fileT)/float64(tileT), "tile-throughput/fileserver")
	})
}
