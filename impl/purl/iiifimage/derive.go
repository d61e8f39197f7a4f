package iiifimage

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DeriveTimeout bounds the making of one derived image (its output is at
// most MaxArea pixels, made from the pyramid level just above its scale).
const DeriveTimeout = 2 * time.Minute

// ErrEvicted: the pyramid was removed while a derived image was being
// made from it (the cache bound, a new version); asking again rebuilds.
var ErrEvicted = errors.New("the image pyramid was removed meanwhile")

// Derive returns the file of the derived image d of p, making it with
// vips from the pyramid's tiles or sizes on the first request (in a build
// slot; ErrBusy past the queue) and keeping it with the pyramid, within
// the cache's byte bound.
func (t *Tiler) Derive(ctx context.Context, p *Pyramid, d Derivation) (string, error) {
	dir := filepath.Join(p.dir, derivedDir)
	file := filepath.Join(dir, d.fileName())
	if _, err := os.Stat(file); err == nil {
		t.Touch(p)
		return file, nil
	}
	t.mu.Lock()
	if b, ok := t.building[file]; ok {
		t.mu.Unlock()
		select {
		case <-b.done:
			return b.path, b.err
		case <-ctx.Done():
			return "", fmt.Errorf("iiifimage: waiting for %s: %w", d.key(), ctx.Err())
		}
	}
	b := &build{done: make(chan struct{})}
	t.building[file] = b
	t.mu.Unlock()

	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), DeriveTimeout)
	size, err := t.derive(bctx, p, d, dir, file)
	cancel()
	b.path, b.err = file, err
	if err != nil {
		b.path = ""
	}
	var remove []string
	t.mu.Lock()
	delete(t.building, file)
	if err == nil {
		if e, ok := t.cache.get(p.dir); ok {
			t.cache.grow(e, size)
			remove = t.cache.trim(e, file)
		}
	}
	t.mu.Unlock()
	close(b.done)
	t.removeAll(remove)
	return b.path, b.err
}

// derive makes the derived image into file and returns its size.
func (t *Tiler) derive(ctx context.Context, p *Pyramid, d Derivation, dir, file string) (int64, error) {
	if p.Evicted() {
		return 0, ErrEvicted
	}
	release, err := t.queue.acquire(ctx)
	if err != nil {
		return 0, fmt.Errorf("iiifimage: %s: %w", d.key(), err)
	}
	defer release()
	t.derivations.Add(1)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, fmt.Errorf("iiifimage: %w", err)
	}
	work, err := os.MkdirTemp(dir, ".derive-")
	if err != nil {
		if p.Evicted() {
			return 0, ErrEvicted
		}
		return 0, fmt.Errorf("iiifimage: %w", err)
	}
	defer os.RemoveAll(work)
	out := "out." + d.Format
	r := p.plan(d, true)
	err = t.runSteps(ctx, work, r, out+saveOptions(d.Format))
	if err != nil && r.fromSource {
		// The source moved (a newer version of the object replaced it):
		// the pyramid has what is needed.
		os.RemoveAll(work)
		if err = os.Mkdir(work, 0o755); err == nil {
			err = t.runSteps(ctx, work, p.plan(d, false), out+saveOptions(d.Format))
		}
	}
	if err != nil {
		return 0, fmt.Errorf("iiifimage: making %s: %w", d.key(), err)
	}
	info, err := os.Stat(filepath.Join(work, out))
	if err != nil {
		return 0, fmt.Errorf("iiifimage: making %s: %w", d.key(), err)
	}
	if err := os.Rename(filepath.Join(work, out), file); err != nil {
		if p.Evicted() {
			return 0, ErrEvicted
		}
		return 0, fmt.Errorf("iiifimage: placing %s: %w", d.key(), err)
	}
	return info.Size(), nil
}

func saveOptions(format string) string {
	switch format {
	case "png":
		return "[compression=6,strip]"
	case "webp":
		return fmt.Sprintf("[Q=%d,strip]", Quality)
	}
	return fmt.Sprintf("[Q=%d,strip]", Quality)
}

// recipe is how a derived image is made: the source files (one, or a
// grid of tiles joined `across` wide) linked into the work directory, and
// the vips operations after them, each reading the one before.
type recipe struct {
	sources    []string
	across     int
	steps      [][]string // operation and its arguments after "in out"
	fromSource bool       // the source image itself is read
	ext        string     // of the sources' links ("" for .jpg, the pyramid's)
}

// loaderExt names a link to the source by its format (vips finds the
// loader from the content; the name keeps logs readable).
var loaderExt = map[string]string{"jpegload": ".jpg", "pngload": ".png", "tiffload": ".tif", "webpload": ".webp"}

// Reading the source itself (better than the quality-85 tiles, and one
// process instead of joining many tiles) is chosen for output at full
// resolution of a large region, when the source is a format vips reads
// as a stream (JPEG, PNG, TIFF, WebP; not JPEG 2000) and small enough to
// decode whole in about a second.
const (
	sourceMinRegion = 4 << 20   // pixels of region: below it a few tiles are cheaper
	sourceMaxPixels = 100 << 20 // pixels of source
)

var streamLoaders = map[string]bool{"jpegload": true, "pngload": true, "tiffload": true, "webpload": true}

// plan chooses the smallest of the pyramid's images with at least the
// output's resolution (a whole-image size, or the tiles of one scale
// factor, joined; or the source, when useSource allows and it is worth
// it) and the operations from there: crop, scale, quality, mirror,
// rotation.
func (p *Pyramid) plan(d Derivation, useSource bool) recipe {
	needX, needY := float64(d.Width)/float64(d.W), float64(d.Height)/float64(d.H)
	const eps = 1e-9
	// The tile level: the largest scale factor still at the output's
	// resolution (1 when upscaling).
	sf := 1
	for _, f := range p.meta.ScaleFactors {
		if 1/float64(f) >= needX-eps && 1/float64(f) >= needY-eps && f > sf {
			sf = f
		}
	}
	// A whole-image size instead, when one is at the output's resolution
	// and no larger than that level.
	var size *Size
	for i, s := range p.meta.Sizes { // smallest first
		sx, sy := float64(s.Width)/float64(p.meta.Width), float64(s.Height)/float64(p.meta.Height)
		if sx >= needX-eps && sy >= needY-eps && sx <= 1/float64(sf)+eps {
			size = &p.meta.Sizes[i]
			break
		}
	}
	var r recipe
	var x0, y0, x1, y1, inW, inH int // the region in the joined source, and its size
	joined := false
	switch {
	case useSource && size == nil && sf == 1 && p.source != "" && streamLoaders[p.meta.Loader] &&
		d.W*d.H >= sourceMinRegion && int64(p.meta.Width)*int64(p.meta.Height) <= sourceMaxPixels:
		r.sources, r.across, r.fromSource, r.ext = []string{p.source}, 1, true, loaderExt[p.meta.Loader]
		x0, y0, x1, y1 = d.X, d.Y, d.X+d.W, d.Y+d.H
		inW, inH = p.meta.Width, p.meta.Height
	case size != nil:
		sx, sy := float64(size.Width)/float64(p.meta.Width), float64(size.Height)/float64(p.meta.Height)
		r.sources = []string{p.sizeFile(*size)}
		r.across = 1
		x0, y0 = int(math.Floor(float64(d.X)*sx)), int(math.Floor(float64(d.Y)*sy))
		x1, y1 = int(math.Ceil(float64(d.X+d.W)*sx)), int(math.Ceil(float64(d.Y+d.H)*sy))
		inW, inH = size.Width, size.Height
	default:
		edge := TileSize * sf // a tile's edge in source pixels
		c0, c1 := d.X/edge, (d.X+d.W-1)/edge
		r0, r1 := d.Y/edge, (d.Y+d.H-1)/edge
		r.across = c1 - c0 + 1
		for row := r0; row <= r1; row++ {
			for col := c0; col <= c1; col++ {
				tx, ty := col*edge, row*edge
				tw, th := min(edge, p.meta.Width-tx), min(edge, p.meta.Height-ty)
				f, w, h := p.tileFile(tx, ty, tw, th, sf)
				r.sources = append(r.sources, f)
				if row == r0 && col == c1 {
					inW = (c1-c0)*TileSize + w
				}
				if col == c0 && row == r1 {
					inH = (r1-r0)*TileSize + h
				}
			}
		}
		// arrayjoin sets every tile in a cell of the largest tile's size:
		// the joined image is wider than inW when its last column is
		// narrower, so the region is always extracted.
		joined = len(r.sources) > 1
		x0 = int(math.Floor(float64(d.X)/float64(sf))) - c0*TileSize
		y0 = int(math.Floor(float64(d.Y)/float64(sf))) - r0*TileSize
		x1 = int(math.Ceil(float64(d.X+d.W)/float64(sf))) - c0*TileSize
		y1 = int(math.Ceil(float64(d.Y+d.H)/float64(sf))) - r0*TileSize
	}
	x1, y1 = min(x1, inW), min(y1, inH)
	x0, y0 = min(x0, x1-1), min(y0, y1-1)
	ew, eh := x1-x0, y1-y0
	if joined || x0 != 0 || y0 != 0 || ew != inW || eh != inH {
		r.steps = append(r.steps, []string{"extract_area", "", "", itoa(x0), itoa(y0), itoa(ew), itoa(eh)})
	}
	if ew != d.Width || eh != d.Height {
		r.steps = append(r.steps, []string{"resize", "", "", ftoa(float64(d.Width) / float64(ew)), "--vscale", ftoa(float64(d.Height) / float64(eh))})
	}
	switch d.Quality {
	case "gray":
		r.steps = append(r.steps, []string{"colourspace", "", "", "b-w"})
	case "bitonal":
		r.steps = append(r.steps, []string{"colourspace", "", "", "b-w"}, []string{"relational_const", "", "", "more", "127"})
	}
	if d.Mirror {
		r.steps = append(r.steps, []string{"flip", "", "", "horizontal"})
	}
	switch d.Rotation {
	case 0:
	case 90, 180, 270:
		r.steps = append(r.steps, []string{"rot", "", "", "d" + strconv.Itoa(int(d.Rotation))})
	default:
		// Arbitrary angles: the corners are white in JPEG, transparent in
		// PNG and WebP (IIIF Image API 3.0, 4.3). vips's angle turns the
		// image clockwise as seen (y downwards), as IIIF's does.
		background := "255"
		if d.Format != "jpg" {
			r.steps = append(r.steps, []string{"bandjoin_const", "", "", "255"})
			background = "0"
		}
		r.steps = append(r.steps, []string{"rotate", "", "", ftoa(d.Rotation), "--background", background})
	}
	return r
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// sizeFile is the file of a whole-image size.
func (p *Pyramid) sizeFile(s Size) string {
	return filepath.Join(p.dir, fmt.Sprintf("0,0,%d,%d", p.meta.Width, p.meta.Height), fmt.Sprintf("%d,%d", s.Width, s.Height), "0", "default.jpg")
}

// tileFile is the tile of region x,y,w,h at scale factor sf, and its
// pixel size: of the images the pyramid has of that region, the one
// nearest w/sf wide.
func (p *Pyramid) tileFile(x, y, w, h, sf int) (string, int, int) {
	region := fmt.Sprintf("%d,%d,%d,%d", x, y, w, h)
	want := (w + sf - 1) / sf
	best := image.Point{want, (h + sf - 1) / sf}
	bestD := math.MaxInt
	for _, pt := range p.byRegion[region] {
		if dd := abs(pt.X - want); dd < bestD {
			best, bestD = pt, dd
		}
	}
	return filepath.Join(p.dir, region, fmt.Sprintf("%d,%d", best.X, best.Y), "0", "default.jpg"), best.X, best.Y
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// runSteps links the sources into work, joins them when there are
// several, and runs the steps, the last writing target.
func (t *Tiler) runSteps(ctx context.Context, work string, r recipe, target string) error {
	var names []string
	for i, src := range r.sources {
		ext := r.ext
		if ext == "" {
			ext = ".jpg"
		}
		name := fmt.Sprintf("s%d%s", i, ext)
		// A link, not a copy (a symbolic one where hard links fail): the
		// work directory's own names keep vips's argument syntax simple.
		// (The store's path may be relative to the working directory.)
		if abs, err := filepath.Abs(src); err == nil {
			src = abs
		}
		if err := os.Link(src, filepath.Join(work, name)); err != nil {
			if err := os.Symlink(src, filepath.Join(work, name)); err != nil {
				return fmt.Errorf("the pyramid's image %s: %w", src, err)
			}
		}
		names = append(names, name)
	}
	in := names[0]
	steps := r.steps
	if len(names) > 1 {
		steps = append([][]string{{"arrayjoin", strings.Join(names, " "), "", "--across", itoa(r.across)}}, steps...)
		in = ""
	}
	if len(steps) == 0 {
		steps = [][]string{{"copy", "", ""}}
	}
	for i, step := range steps {
		args := append([]string(nil), step...)
		if args[1] == "" {
			args[1] = in
		}
		out := fmt.Sprintf("step%d.v", i)
		if i == len(steps)-1 {
			out = target
		}
		args[2] = out
		if err := t.runIn(ctx, work, args...); err != nil {
			return err
		}
		if i > 0 {
			os.Remove(filepath.Join(work, in)) // the step before's, no longer needed
		}
		in = out
	}
	return nil
}
