package purl

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// BenchmarkImageTile compares a IIIF tile request (the whole service:
// route, request validation, rights, pyramid lookup, ServeContent) with
// http.FileServer serving the same tile file, side by side. The "ratio"
// sub-benchmark alternates the two and reports fileserver-time ÷
// tile-time, the tile's throughput as a fraction of plain file serving
// (goal of issue 13: ≥ 0.5).
func BenchmarkImageTile(b *testing.B) {
	testkit.RequireTool(b, "vips")
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
		serveEach(b, h, tileReq, 200)
		b.SetBytes(int64(size))
	})
	b.Run("fileserver", func(b *testing.B) {
		serveEach(b, fileH, fileReq, 200)
		b.SetBytes(int64(size))
	})
	b.Run("ratio", func(b *testing.B) {
		reportRatio(b, h, tileReq, fileH, fileReq, 200, "tile-throughput/fileserver")
	})
}

// BenchmarkImageDerived measures the level 2 requests beyond the tiles on
// the 24-megapixel sample photograph (make samples-large): a 1000 × 1000
// region scaled to 500 px and the whole image near full size (full/max
// is 6000 × 4000), each made by vips the first time ("-made": a new
// request every iteration) and served from disk after ("-kept").
func BenchmarkImageDerived(b *testing.B) {
	testkit.RequireTool(b, "vips")
	large := filepath.Join(testkit.RepoRoot(b), "samples", "large")
	if _, err := os.Stat(filepath.Join(large, "bs100xy1000")); err != nil {
		testkit.Missing(b, "the large samples (make samples-large): %v", err)
	}
	f := newFixture(b, func(c *Config) { c.LargeSamplesDir = large })
	h := f.svc.Handler()
	const svc = "/bs100xy1000/iiif/image/ceiling.jpg/"
	w := &discardWriter{h: http.Header{}}
	get := func(b *testing.B, path string) {
		req, _ := http.NewRequest(http.MethodGet, svc+path, nil)
		serveOnce(b, h, req, w, 200)
	}
	get(b, "info.json") // makes the pyramid
	n := 0
	b.Run("region-made", func(b *testing.B) {
		for b.Loop() {
			n++
			get(b, fmt.Sprintf("%d,%d,1000,1000/500,/0/default.jpg", n%5000, (n/5000)%3000))
		}
	})
	b.Run("region-kept", func(b *testing.B) {
		get(b, "2500,1500,1000,1000/500,/0/default.jpg")
		for b.Loop() {
			get(b, "2500,1500,1000,1000/500,/0/default.jpg")
		}
		b.SetBytes(int64(w.n))
	})
	b.Run("full-max-made", func(b *testing.B) {
		// The same request each time, its kept answer removed in between
		// (outside the timer; the cache's byte count is not told, which
		// only this benchmark does).
		derived := filepath.Join(f.svc.tiler.Root(), "bs100xy1000", "*", "*", "derived")
		for b.Loop() {
			b.StopTimer()
			dirs, _ := filepath.Glob(derived)
			for _, d := range dirs {
				os.RemoveAll(d)
			}
			b.StartTimer()
			get(b, "full/max/0/default.jpg")
		}
		b.SetBytes(int64(w.n))
	})
	b.Run("full-scaled-made", func(b *testing.B) {
		for b.Loop() {
			n++
			get(b, fmt.Sprintf("full/%d,/0/default.jpg", 6000-n%2000))
		}
		b.SetBytes(int64(w.n))
	})
	b.Run("full-max-kept", func(b *testing.B) {
		get(b, "full/max/0/default.jpg")
		for b.Loop() {
			get(b, "full/max/0/default.jpg")
		}
		b.SetBytes(int64(w.n))
	})
}
