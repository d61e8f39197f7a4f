package iiifimage

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// quadrants writes a PNG whose four quadrants are red, green, blue and
// yellow, so tiles can be checked by their pixels.
func quadrants(t *testing.T, path string, w, h int) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, quadrantColour(x*2/w, y*2/h))
		}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

func quadrantColour(qx, qy int) color.RGBA {
	return [2][2]color.RGBA{{{200, 30, 30, 255}, {30, 160, 30, 255}}, {{30, 30, 200, 255}, {220, 200, 30, 255}}}[qy][qx]
}

// vipsDir is a test's working directory for pyramids made with vips: the sources are
// written in it, a Tiler's cache is its cache/. Without vips the test is ended as
// testkit.RequireTool says.
type vipsDir struct {
	t   *testing.T
	dir string
}

func newVipsDir(t *testing.T) vipsDir {
	t.Helper()
	testkit.RequireTool(t, "vips")
	return vipsDir{t, t.TempDir()}
}

// path is name in the directory.
func (d vipsDir) path(name string) string { return filepath.Join(d.dir, name) }

// quadrants writes a w×h quadrants PNG named name and returns it as a Source.
func (d vipsDir) quadrants(name string, w, h int) Source {
	d.t.Helper()
	quadrants(d.t, d.path(name), w, h)
	return sourceOf(d.t, d.path(name))
}

// tiler is a Tiler with opts caching in cache/.
func (d vipsDir) tiler(opts Options) *Tiler {
	d.t.Helper()
	return newTiler(d.t, d.path("cache"), opts)
}

// pyramidBytes is the size of src's pyramid, made by a Tiler of its own (in probe/), for
// setting cache bounds in pyramids.
func (d vipsDir) pyramidBytes(src Source) int64 {
	d.t.Helper()
	return pyramidOf(d.t, newTiler(d.t, d.path("probe"), Options{}), src).Bytes()
}

// sameFromAll calls f from 8 goroutines at once and returns what they all got; a
// difference (more than one what) or an error fails the test.
func sameFromAll[T comparable](t *testing.T, what string, f func() (T, error)) T {
	t.Helper()
	const n = 8
	got := make(chan T, n)
	for range n {
		go func() {
			v, err := f()
			if err != nil {
				t.Error(err)
			}
			got <- v
		}()
	}
	first := <-got
	for range n - 1 {
		if v := <-got; v != first {
			t.Fatalf("two %s: %v, %v", what, first, v)
		}
	}
	return first
}

// decodeImage decodes the image file at path.
func decodeImage(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// sourceOf is the Source of the image file at path, of object "x".
func sourceOf(t testing.TB, path string) Source {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return Source{Object: "x", Name: filepath.Base(path), Path: path, Size: info.Size(), ModTime: info.ModTime()}
}

// newTiler is a Tiler with opts caching in root.
func newTiler(t testing.TB, root string, opts Options) *Tiler {
	t.Helper()
	tl, err := New(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

// pyramidOf is the pyramid tl builds (or has) of s; an error ends the test.
func pyramidOf(t testing.TB, tl *Tiler, s Source) *Pyramid {
	t.Helper()
	p, err := tl.Pyramid(context.Background(), s)
	if err != nil {
		t.Fatalf("pyramid of %s: %v", s.Name, err)
	}
	return p
}

func near(a, b color.Color) bool {
	r1, g1, b1, _ := a.RGBA()
	r2, g2, b2, _ := b.RGBA()
	d := func(x, y uint32) bool { return int(x>>8)-int(y>>8) < 24 && int(y>>8)-int(x>>8) < 24 }
	return d(r1, r2) && d(g1, g2) && d(b1, b2)
}

func TestPyramid(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	s := dir.quadrants("q.png", 1500, 1000)
	s.Object = "bb000kk0000"
	tl := dir.tiler(Options{})
	p := pyramidOf(t, tl, s)
	if p.Width() != 1500 || p.Height() != 1000 {
		t.Fatalf("size %dx%d", p.Width(), p.Height())
	}
	raw, err := p.Info("http://h/purl/bb000kk0000/iiif/image/q.png")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Context           string `json:"@context"`
		ID, Type, Profile string
		Width, Height     int
		Sizes             []Size
		Tiles             []struct {
			Width        int
			ScaleFactors []int
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Type != "ImageService3" || doc.Profile != "level2" || doc.Context != "http://iiif.io/api/image/3/context.json" || doc.Width != 1500 {
		t.Fatalf("info.json: %s", raw)
	}
	if len(doc.Tiles) != 1 || doc.Tiles[0].Width != TileSize || len(doc.Tiles[0].ScaleFactors) < 2 {
		t.Fatalf("tiles: %s", raw)
	}
	if len(doc.Sizes) != 5 || doc.Sizes[len(doc.Sizes)-1].Width != 1500 || doc.Sizes[0].Width != 128 {
		t.Fatalf("sizes: %+v", doc.Sizes)
	}
	// Every size and every tile of every scale factor can be looked up.
	for _, sz := range doc.Sizes {
		if _, err := p.Lookup("full", itoa(sz.Width)+",", "0", "default.jpg"); err != nil {
			t.Errorf("size %v: %v", sz, err)
		}
		if _, err := p.Lookup("full", itoa(sz.Width)+","+itoa(sz.Height), "0", "default.jpg"); err != nil {
			t.Errorf("size %v: %v", sz, err)
		}
	}
	for _, sf := range doc.Tiles[0].ScaleFactors {
		step := TileSize * sf
		for y := 0; y < 1000; y += step {
			for x := 0; x < 1500; x += step {
				rw, rh := min(step, 1500-x), min(step, 1000-y)
				sw := (rw + sf - 1) / sf
				region := itoa(x) + "," + itoa(y) + "," + itoa(rw) + "," + itoa(rh)
				if _, err := p.Lookup(region, itoa(sw)+",", "0", "default.jpg"); err != nil {
					t.Errorf("sf %d tile %s: %v", sf, region, err)
				}
			}
		}
	}
	// A tile of the bottom-right quadrant is yellow in its middle.
	path, err := p.Lookup("1024,512,476,488", "476,", "0", "default.jpg")
	if err != nil {
		t.Fatal(err)
	}
	if c := decodeImage(t, path).At(300, 300); !near(c, quadrantColour(1, 1)) {
		t.Errorf("tile pixel %v, want yellow", c)
	}
	// The thumbnail a manifest names exists.
	thumb, tw, th := ThumbnailRequest(1500, 1000)
	if thumb != "full/256,/0/default.jpg" || tw != 256 || th != 171 {
		t.Errorf("thumbnail %s %dx%d", thumb, tw, th)
	}
	if _, err := p.Lookup("full", "256,", "0", "default.jpg"); err != nil {
		t.Error(err)
	}
	// The smallest size keeps the quadrants.
	if _, err := p.Lookup("full", "max", "0", "default.jpg"); err != nil {
		t.Errorf("max of a 1500 px image: %v", err)
	}
	// Bad syntax and what level 0 lacks.
	for _, c := range []struct {
		region, size, rot, qf string
		want                  error
	}{
		{"../../etc", "max", "0", "default.jpg", ErrBadRequest},
		{"full", "big", "0", "default.jpg", ErrBadRequest},
		{"full", "max", "x", "default.jpg", ErrBadRequest},
		{"full", "max", "0", "default", ErrBadRequest},
		{"0,0,0,10", "10,", "0", "default.jpg", ErrBadRequest},
		{"full", "max", "90", "default.jpg", ErrNotFound},
		{"full", "max", "0", "gray.jpg", ErrNotFound},
		{"0,0,100,100", "100,", "0", "default.jpg", ErrNotFound},
		{"square", "max", "0", "default.jpg", ErrNotFound},
	} {
		if _, err := p.Lookup(c.region, c.size, c.rot, c.qf); !errors.Is(err, c.want) {
			t.Errorf("%s/%s/%s/%s: %v, want %v", c.region, c.size, c.rot, c.qf, err, c.want)
		}
	}
	// A second Tiler over the same directory finds the pyramid on disk; a
	// changed file gets a new one and the old one goes.
	tl2, _ := New(dir.path("cache"), Options{})
	p2, err := tl2.Pyramid(context.Background(), s)
	if err != nil || p2.dir != p.dir || p2.Files() != p.Files() {
		t.Fatalf("reload: %v %v", err, p2)
	}
	s.ModTime = s.ModTime.Add(time.Second)
	p3, err := tl2.Pyramid(context.Background(), s)
	if err != nil || p3.dir == p.dir {
		t.Fatalf("new version: %v", err)
	}
	if _, err := os.Stat(p.dir); !os.IsNotExist(err) {
		t.Errorf("old pyramid still there: %v", err)
	}
}

// TestSmallImage: an image within one tile has scale factor 1 and is its
// own largest size.
func TestSmallImage(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	p := pyramidOf(t, dir.tiler(Options{}), dir.quadrants("s.png", 300, 420))
	if len(p.meta.ScaleFactors) != 1 || p.meta.ScaleFactors[0] != 1 {
		t.Errorf("scale factors %v", p.meta.ScaleFactors)
	}
	if s := p.Sizes(); len(s) != 3 || s[2] != (Size{300, 420}) || s[0].Height != 128 {
		t.Errorf("sizes %v", s)
	}
	for _, size := range []string{"max", "300,", ",420", "300,420"} {
		if _, err := p.Lookup("full", size, "0", "default.jpg"); err != nil {
			t.Errorf("full/%s: %v", size, err)
		}
	}
	if _, err := p.Lookup("0,0,300,420", "300,", "0", "default.jpg"); err != nil {
		t.Error(err)
	}
	if path, w, h := ThumbnailRequest(300, 420); path != "full/,256/0/default.jpg" || w != 183 || h != 256 {
		t.Errorf("thumbnail %s %dx%d", path, w, h)
	}
	if _, err := p.Lookup("full", ",256", "0", "default.jpg"); err != nil {
		t.Error(err)
	}
}

// TestJPEG2000: a JPEG 2000 source gets every size at its true size.
func TestJPEG2000(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	png := dir.quadrants("q.png", 1500, 1000)
	src := dir.path("q.jp2")
	if out, err := exec.Command("vips", "resize", png.Path, src+"[Q=40]", "2").CombinedOutput(); err != nil {
		t.Fatalf("vips: %v %s", err, out)
	}
	p := pyramidOf(t, dir.tiler(Options{}), sourceOf(t, src))
	want := []Size{{128, 85}, {256, 171}, {512, 341}, {1024, 683}, {2048, 1365}}
	if got := p.Sizes(); len(got) != len(want) {
		t.Fatalf("sizes %v, want %v", got, want)
	}
	for i, s := range p.Sizes() {
		if s.Width != want[i].Width || s.Height < want[i].Height-1 || s.Height > want[i].Height+1 {
			t.Errorf("size %d: %v, want %v", i, s, want[i])
		}
	}
	if len(p.meta.ScaleFactors) < 3 {
		t.Errorf("scale factors %v", p.meta.ScaleFactors)
	}
	path, err := p.Lookup("full", "256,", "0", "default.jpg")
	if err != nil {
		t.Fatal(err)
	}
	if c := decodeImage(t, path).At(200, 130); !near(c, quadrantColour(1, 1)) {
		t.Errorf("thumbnail pixel %v, want yellow", c)
	}
}

func TestUnavailable(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	tl, err := New(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tl.Available() {
		t.Fatal("available without vips")
	}
	if _, err := tl.Pyramid(context.Background(), Source{Name: "x"}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("got %v", err)
	}
}

func TestTileable(t *testing.T) {
	t.Parallel()
	for mt, want := range map[string]bool{"image/jpeg": true, "image/png": true, "image/tiff": true, "image/jp2": true, "IMAGE/PNG; x=y": true, "image/gif": false, "application/pdf": false, "image/svg+xml": false} {
		if Tileable(mt) != want {
			t.Errorf("%s: %v", mt, !want)
		}
	}
}

// TestBrokenSource: an unreadable image is an error, not a pyramid, and
// leaves nothing behind; the failure is remembered for that version of
// the file, so the next request is answered without reading it again.
func TestBrokenSource(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	src := dir.path("broken.jpg")
	if err := os.WriteFile(src, []byte("\xff\xd8\xff not a JPEG"), 0o644); err != nil {
		t.Fatal(err)
	}
	tl := dir.tiler(Options{})
	s := sourceOf(t, src)
	for i := 0; i < 2; i++ {
		if _, err := tl.Pyramid(context.Background(), s); err == nil {
			t.Fatal("a pyramid of a broken JPEG")
		}
	}
	if st := tl.Stats(); st.HeaderRefusals != 1 || st.Builds != 0 {
		t.Errorf("header refusals %d, builds %d: want the header read once and no build", st.HeaderRefusals, st.Builds)
	}
	left := 0
	_ = filepath.WalkDir(dir.path("cache"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left++
		}
		return nil
	})
	if left != 0 {
		t.Errorf("%d files left behind", left)
	}
}

// TestConcurrentBuilds: requests for one source at once share one build.
func TestConcurrentBuilds(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	s := dir.quadrants("q.png", 1200, 800)
	tl := dir.tiler(Options{})
	first := sameFromAll(t, "pyramids for one source", func() (*Pyramid, error) { return tl.Pyramid(context.Background(), s) })
	entries, _ := os.ReadDir(filepath.Dir(first.dir))
	if len(entries) != 1 {
		t.Errorf("%d directories for one source", len(entries))
	}
}

// FuzzLookup: whatever the request, Lookup does not panic, and a path it
// returns is a file of the pyramid.
func FuzzLookup(f *testing.F) {
	testkit.RequireTool(f, "vips")
	dir := f.TempDir()
	src := filepath.Join(dir, "q.png")
	img := image.NewRGBA(image.Rect(0, 0, 700, 500))
	out, _ := os.Create(src)
	_ = png.Encode(out, img)
	out.Close()
	tl := newTiler(f, filepath.Join(dir, "cache"), Options{})
	p := pyramidOf(f, tl, sourceOf(f, src))
	for _, seed := range [][4]string{
		{"full", "max", "0", "default.jpg"}, {"0,0,512,500", "512,", "0", "default.jpg"}, {"../..", "max", "0", "default.jpg"},
		{"full", "!100,100", "90", "gray.png"}, {"512,0,188,500", ",500", "0", "default.jpg"}, {"full", "pct:50", "!0", "default.jpg"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	f.Fuzz(func(t *testing.T, region, size, rotation, qf string) {
		path, err := p.Lookup(region, size, rotation, qf)
		if err != nil {
			if !errors.Is(err, ErrBadRequest) && !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrNotImplemented) {
				t.Fatalf("%v is neither bad request, not found nor not implemented", err)
			}
			return
		}
		rel, rerr := filepath.Rel(p.dir, path)
		if rerr != nil || strings.HasPrefix(rel, "..") {
			t.Fatalf("%q outside the pyramid", path)
		}
		if _, serr := os.Stat(path); serr != nil {
			t.Fatalf("%s/%s/%s/%s gave %s: %v", region, size, rotation, qf, path, serr)
		}
	})
}

// bigJPEGHeader writes a small JPEG whose frame header says it is w×h
// pixels, so a header read is all it allows.
func bigJPEGHeader(t *testing.T, path string, w, h uint16) {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	sof := bytes.Index(b, []byte{0xff, 0xc0})
	if sof < 0 {
		t.Fatal("no SOF0 in the encoded JPEG")
	}
	// SOF0: marker, length (2), precision (1), height (2), width (2).
	binary.BigEndian.PutUint16(b[sof+5:], h)
	binary.BigEndian.PutUint16(b[sof+7:], w)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestImageSize: the size of an image is read from its header; an
// unreadable file and one over MaxPixels are errors.
func TestImageSize(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	tl := dir.tiler(Options{})
	src := dir.quadrants("q.png", 321, 123)
	if w, h, err := tl.ImageSize(context.Background(), src.Path); err != nil || w != 321 || h != 123 {
		t.Errorf("PNG: %d×%d, %v; want 321×123", w, h, err)
	}
	broken := dir.path("broken.jpg")
	if err := os.WriteFile(broken, []byte("\xff\xd8\xff not a JPEG"), 0o644); err != nil {
		t.Fatal(err)
	}
	if w, h, err := tl.ImageSize(context.Background(), broken); err == nil {
		t.Errorf("broken JPEG: %d×%d, no error", w, h)
	}
	big := dir.path("big.jpg")
	bigJPEGHeader(t, big, 60000, 60000)
	if w, h, err := tl.ImageSize(context.Background(), big); !errors.Is(err, ErrTooLarge) {
		t.Errorf("60000×60000 JPEG: %d×%d, %v; want ErrTooLarge", w, h, err)
	}
	if st := tl.Stats(); st.Builds != 0 {
		t.Errorf("%d builds: a size read builds nothing", st.Builds)
	}
}
