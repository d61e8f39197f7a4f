package iiifimage

import (
	"context"
	"errors"
	_ "image/png" // decoding derived images
	"os"
	"path/filepath"
	"testing"
)

// TestParseLimits: max is the whole region when it fits the declared
// limits and is scaled down to them (aspect kept) when it does not; ^max
// scales up to them; nothing beyond them is accepted.
func TestParseLimits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		w, h          int
		size          string
		wantW, wantH  int
		wantErr       error
		checkInLimits bool
	}{
		{6000, 4000, "max", 6000, 4000, nil, true},                // the 24 MP photograph whole
		{24580, 16174, "max", 0, 0, nil, true},                    // the 400 MP JPEG 2000, scaled down
		{20000, 500, "max", MaxWidth, 250, nil, true},             // a panorama: maxWidth
		{500, 20000, "max", 250, MaxHeight, nil, true},            // a scroll: maxHeight
		{100, 100, "^max", 5000, 5000, nil, true},                 // up to maxArea
		{6000, 4000, "^max", 0, 0, nil, true},                     // ^max of a large image: the limits too
		{6000, 4000, "6000,4000", 6000, 4000, nil, true},          // exactly the limit's area is fine
		{24580, 16174, "24580,", 0, 0, ErrBadRequest, false},      // beyond maxWidth
		{24580, 16174, "pct:50", 0, 0, ErrBadRequest, false},      // beyond maxArea
		{24580, 16174, "!5000,5000", 5000, 3290, nil, true},       // a confined size within them
		{1500, 1000, "!3000,3000", 1500, 1000, nil, true},         // not upscaled without ^
		{1500, 1000, "^!3000,3000", 3000, 2000, nil, true},        // upscaled with it
		{1500, 1000, "^1501,", 1501, 1001, nil, true},             // upscaled
		{1500, 1000, "1501,", 0, 0, ErrBadRequest, false},         // not without ^
		{1500, 1000, "pct:0.1", 2, 1, nil, true},                  // a tiny percentage still has pixels
		{1500, 1000, "pct:0.01", 0, 0, ErrBadRequest, false},      // none left
		{1500, 1000, "^pct:100.5", 1508, 1005, nil, true},         // decimal percentages
		{1500, 1000, "max", 1500, 1000, nil, true},                // a small image's max
		{1500, 1000, "^,2000", 3000, 2000, nil, true},             // ,h upscaled
		{1500, 1000, "^,10001", 0, 0, ErrBadRequest, false},       // beyond maxHeight
		{1500, 1000, "^^max", 0, 0, ErrBadRequest, false},         // syntax
		{1500, 1000, "!300,", 0, 0, ErrBadRequest, false},         // syntax
		{1500, 1000, "pct:", 0, 0, ErrBadRequest, false},          // syntax
		{1500, 1000, "1234567890,", 0, 0, ErrBadRequest, false},   // too many digits
		{1500, 1000, "pct:1e3", 0, 0, ErrBadRequest, false},       // not a plain decimal
		{1500, 1000, "300,300", 300, 300, nil, true},              // w,h need not keep the aspect
		{1500, 1000, "full", 0, 0, ErrBadRequest, false},          // IIIF 2's name for max
		{1500, 1000, "max,", 0, 0, ErrBadRequest, false},          // syntax
		{1500, 1000, "0,0", 0, 0, ErrBadRequest, false},           // no pixels
		{1500, 1000, "^0,", 0, 0, ErrBadRequest, false},           // no pixels
		{1500, 1000, "!0,10", 0, 0, ErrBadRequest, false},         // no pixels
		{1500, 1000, ",1", 2, 1, nil, true},                       // a one-pixel-high image
		{1500, 1000, "-1,", 0, 0, ErrBadRequest, false},           // syntax
		{1500, 1000, " 10,", 0, 0, ErrBadRequest, false},          // syntax
		{1500, 1000, "10 ,", 0, 0, ErrBadRequest, false},          // syntax
		{1500, 1000, "pct:50.", 0, 0, ErrBadRequest, false},       // syntax
		{1500, 1000, "^pct:1000", 0, 0, ErrBadRequest, false},     // 15000 px wide: beyond maxWidth
		{1500, 1000, "^!20000,100", 150, 100, nil, true},          // confined by the height
		{1500, 1000, "!20000,100", 150, 100, nil, true},           // the same without ^
		{1500, 1000, "^max", 6123, 4082, nil, true},               // maxArea bounds ^max
		{1500, 1000, "pct:100", 1500, 1000, nil, true},            // all of it
		{1500, 1000, "1500,1000", 1500, 1000, nil, true},          // the same
		{1500, 1000, "^1500,1000", 1500, 1000, nil, true},         // ^ allows, not requires, upscaling
		{1500, 1000, "750,", 750, 500, nil, true},                 // w,
		{1500, 1000, ",500", 750, 500, nil, true},                 // ,h
		{1500, 1000, "!750,750", 750, 500, nil, true},             // !w,h
		{1500, 1000, "pct:50", 750, 500, nil, true},               // pct:n
		{1500, 1000, "^pct:50", 750, 500, nil, true},              // ^pct:n below 100
		{1500, 1000, "^750,", 750, 500, nil, true},                // ^w, below the region
		{1500, 1000, "^!750,750", 750, 500, nil, true},            // ^!w,h below
		{1500, 1000, "^,500", 750, 500, nil, true},                // ^,h below
		{1500, 1000, "^pct:200", 3000, 2000, nil, true},           // ^pct:n above
		{1500, 1000, "^3000,2000", 3000, 2000, nil, true},         // ^w,h above
		{1500, 1000, "^3000,1000", 3000, 1000, nil, true},         // ^w,h distorted
		{1500, 1000, "3000,1000", 0, 0, ErrBadRequest, false},     // not without ^
		{1500, 1000, "1500,1001", 0, 0, ErrBadRequest, false},     // not without ^
		{1500, 1000, "^10000,10000", 0, 0, ErrBadRequest, false},  // beyond maxArea
		{1500, 1000, "^10000,2500", 10000, 2500, nil, true},       // exactly maxWidth and maxArea
		{1500, 1000, "^10001,1", 0, 0, ErrBadRequest, false},      // beyond maxWidth
		{1500, 1000, "^1,10001", 0, 0, ErrBadRequest, false},      // beyond maxHeight
		{1500, 1000, "^!10001,10001", 10000, 6667, nil, false},    // confined, yet beyond maxArea
		{1500, 1000, "^!10000,6000", 9000, 6000, nil, false},      // beyond maxArea
		{1500, 1000, "^!5000,5000", 5000, 3333, nil, true},        // within
		{1500, 1000, "!5000,5000", 1500, 1000, nil, true},         // not upscaled
		{1500, 1000, "^!1,1", 1, 1, nil, true},                    // a pixel
		{1500, 1000, "!1,1", 1, 1, nil, true},                     // a pixel
		{1500, 1000, "1,1", 1, 1, nil, true},                      // a pixel
		{1500, 1000, "pct:0.04", 0, 0, ErrBadRequest, false},      // less than half a pixel high
		{1500, 1000, "pct:0.067", 1, 1, nil, true},                // a pixel
		{1500, 1000, "pct:0.0000001", 0, 0, ErrBadRequest, false}, // nothing
	} {
		d, err := Parse(c.w, c.h, "full", c.size, "0", "default.jpg")
		if c.wantErr != nil || (!c.checkInLimits && c.wantW*c.wantH > MaxArea) {
			want := c.wantErr
			if want == nil {
				want = ErrBadRequest
			}
			if !errors.Is(err, want) {
				t.Errorf("%d×%d %s: %+v %v, want %v", c.w, c.h, c.size, d, err, want)
			}
			continue
		}
		if err != nil {
			t.Errorf("%d×%d %s: %v", c.w, c.h, c.size, err)
			continue
		}
		if c.wantW != 0 && (d.Width != c.wantW || d.Height != c.wantH) {
			t.Errorf("%d×%d %s: %d×%d, want %d×%d", c.w, c.h, c.size, d.Width, d.Height, c.wantW, c.wantH)
		}
		if d.Width > MaxWidth || d.Height > MaxHeight || d.Width*d.Height > MaxArea {
			t.Errorf("%d×%d %s: %d×%d is beyond the limits", c.w, c.h, c.size, d.Width, d.Height)
		}
		// max keeps the aspect ratio (within rounding).
		if c.size == "max" || c.size == "^max" {
			if r1, r2 := float64(d.Width)/float64(d.Height), float64(c.w)/float64(c.h); r1/r2 > 1.01 || r2/r1 > 1.01 {
				t.Errorf("%d×%d %s: %d×%d changes the aspect", c.w, c.h, c.size, d.Width, d.Height)
			}
		}
	}
}

// TestDerivedWithinCacheBound: derived images count in the cache's
// bytes; a pyramid alone over the bound loses its derived images, never
// its tiles.
func TestDerivedWithinCacheBound(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	src := dir.sources(1)[0]
	limit := dir.pyramidBytes(src) + 6000
	tl := dir.tiler(Options{MaxCacheBytes: limit})
	p := pyramidOf(t, tl, src)
	for i := range 12 {
		d, err := Parse(p.Width(), p.Height(), "full", itoa(300+i)+",", "0", "default.png")
		if err != nil {
			t.Fatal(err)
		}
		file, err := tl.Derive(context.Background(), p, d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(file); err != nil {
			t.Fatalf("derived image %d: %v", i, err)
		}
		st := tl.Stats()
		if st.CacheBytes > limit {
			t.Fatalf("after %d derived images %d bytes, limit %d", i+1, st.CacheBytes, limit)
		}
		meta, _ := os.Stat(filepath.Join(p.dir, metaName)) // the description is not counted
		if got := treeBytes(dir.path("cache")) - meta.Size(); got != st.CacheBytes {
			t.Fatalf("after %d derived images %d bytes on disk, %d counted", i+1, got, st.CacheBytes)
		}
	}
	if files, _ := os.ReadDir(filepath.Join(p.dir, derivedDir)); len(files) >= 12 {
		t.Errorf("%d derived images kept: the bound removed none", len(files))
	}
	if st := tl.Stats(); st.Derivations != 12 || p.Evicted() {
		t.Errorf("stats %+v, evicted %v", st, p.Evicted())
	}
	if _, err := p.Lookup("full", "max", "0", "default.jpg"); err != nil {
		t.Errorf("the tiles went: %v", err)
	}
}

// TestDeriveFromSource: output at full resolution of a large region is
// read from the source (one process, no second JPEG generation); when the
// source has gone (a newer version replaced it) the tiles answer.
func TestDeriveFromSource(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	src := dir.quadrants("big.png", 2600, 2000)
	tl := dir.tiler(Options{})
	p := pyramidOf(t, tl, src)
	if p.meta.Loader != "pngload" {
		t.Fatalf("loader %q", p.meta.Loader)
	}
	for _, c := range []struct {
		region, size string
		source       bool
	}{
		{"full", "2500,", true},            // full resolution, 5 MP: the source
		{"full", "max", true},              // the same
		{"0,0,1300,1000", "max", false},    // 1.3 MP: a few tiles are cheaper
		{"full", "1300,", false},           // half resolution: the tiles of scale factor 2
		{"full", "1000,", false},           // a listed size is smaller still
		{"full", "^3000,", true},           // upscaled from the source
		{"100,100,2400,1800", "max", true}, // a large region at full resolution
	} {
		d, err := Parse(p.Width(), p.Height(), c.region, c.size, "0", "default.png")
		if err != nil {
			t.Fatal(err)
		}
		if r := p.plan(d, true); r.fromSource != c.source {
			t.Errorf("%s/%s: from the source %v, want %v (%+v)", c.region, c.size, r.fromSource, c.source, r)
		}
	}
	check := func(file string, w, h int) {
		t.Helper()
		img := decodeImage(t, file)
		if b := img.Bounds(); b.Dx() != w || b.Dy() != h {
			t.Fatalf("%d×%d, want %d×%d", b.Dx(), b.Dy(), w, h)
		}
		if !near(img.At(10, 10), quadrantColour(0, 0)) || !near(img.At(w-10, h-10), quadrantColour(1, 1)) {
			t.Errorf("corners %v %v", img.At(10, 10), img.At(w-10, h-10))
		}
	}
	d, _ := Parse(p.Width(), p.Height(), "full", "max", "0", "default.png")
	file, err := tl.Derive(context.Background(), p, d)
	if err != nil {
		t.Fatal(err)
	}
	check(file, 2600, 2000)
	// The source is gone: the same kind of request is made from the tiles.
	if err := os.Remove(src.Path); err != nil {
		t.Fatal(err)
	}
	d, _ = Parse(p.Width(), p.Height(), "full", "2500,", "0", "default.png")
	file, err = tl.Derive(context.Background(), p, d)
	if err != nil {
		t.Fatalf("without the source: %v", err)
	}
	check(file, 2500, 1923)
}

// FuzzParse: whatever the request, Parse does not panic, and what it
// accepts is a region inside the image and an output within the limits.
func FuzzParse(f *testing.F) {
	for _, seed := range [][4]string{
		{"full", "max", "0", "default.jpg"}, {"square", "^max", "!90", "gray.png"}, {"pct:10.5,20,30,40", "!300,200", "22.5", "bitonal.webp"},
		{"0,0,1,1", "^pct:1000", "360", "color.jpg"}, {"999,999,5,5", ",7", "!0", "default.tif"}, {"pct:100,0,1,1", "w,", "x", "y.z"},
	} {
		f.Add(1500, 1000, seed[0], seed[1], seed[2], seed[3])
	}
	f.Fuzz(func(t *testing.T, width, height int, region, size, rotation, qf string) {
		if width <= 0 || height <= 0 || width > 1<<20 || height > 1<<20 {
			return
		}
		d, err := Parse(width, height, region, size, rotation, qf)
		if err != nil {
			if !errors.Is(err, ErrBadRequest) && !errors.Is(err, ErrNotImplemented) {
				t.Fatalf("%v is neither bad request nor not implemented", err)
			}
			return
		}
		if d.X < 0 || d.Y < 0 || d.W <= 0 || d.H <= 0 || d.X+d.W > width || d.Y+d.H > height {
			t.Fatalf("region %+v outside %d×%d", d, width, height)
		}
		if d.Width <= 0 || d.Height <= 0 || d.Width > MaxWidth || d.Height > MaxHeight || d.Width*d.Height > MaxArea {
			t.Fatalf("size %+v beyond the limits", d)
		}
		if d.Rotation < 0 || d.Rotation >= 360 || !servedFormats[d.Format] {
			t.Fatalf("%+v", d)
		}
	})
}

// TestConcurrentDerive: requests for one derived image at once share one
// vips run.
func TestConcurrentDerive(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	tl := dir.tiler(Options{})
	p := pyramidOf(t, tl, dir.sources(1)[0])
	d, err := Parse(p.Width(), p.Height(), "pct:10,10,50,50", "!200,200", "!90", "gray.webp")
	if err != nil {
		t.Fatal(err)
	}
	sameFromAll(t, "files for one request", func() (string, error) { return tl.Derive(context.Background(), p, d) })
	if st := tl.Stats(); st.Derivations != 1 {
		t.Errorf("%d vips runs for one derived image", st.Derivations)
	}
}
