// Package iiifimage makes and reads IIIF Image API 3.0 level 0 image
// pyramids: for one source image (JPEG, PNG, TIFF, JPEG 2000) a directory
// of JPEG tiles at every scale factor (vips dzsave --layout iiif3) plus a
// few whole-image sizes (vips thumbnail), and the info.json describing
// them. It knows nothing about HTTP: the PURL service checks access rights
// and serves the files Lookup names. See docs/purl.md, "IIIF Image API".
package iiifimage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // sizes of the generated JPEG sizes
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Limits and parameters of the pyramids (documented in docs/purl.md).
const (
	// TileSize is the edge of a tile in pixels of its scaled level.
	TileSize = 512
	// Quality is the JPEG quality of tiles and sizes.
	Quality = 85
	// MaxSizeEdge is the longest edge of the largest whole-image size
	// offered; smaller ones halve it down to MinSizeEdge.
	MaxSizeEdge = 2048
	MinSizeEdge = 128
	// BuildTimeout bounds one pyramid build (a 75 MB JPEG 2000 of 400 MP
	// takes about a minute on one core).
	BuildTimeout = 10 * time.Minute
	// MaxPixels refuses sources larger than this (width × height).
	MaxPixels = 1 << 31
	// maxCached bounds the pyramids described in memory (each a few kB).
	maxCached = 4096
	// layoutVersion changes the cache key when the way pyramids are made
	// changes, so old pyramids are not served for new requests.
	layoutVersion = "3"
)

// Errors of Lookup: a request that is not IIIF syntax, and one that is but
// names nothing this level 0 pyramid has.
var (
	ErrBadRequest = errors.New("bad IIIF image request")
	ErrNotFound   = errors.New("not in the image pyramid")
	// ErrUnavailable: libvips is not installed, no pyramid can be made.
	ErrUnavailable = errors.New("IIIF image service unavailable: libvips (the vips command) is not installed")
)

// Tileable reports whether files of this media type get an image service.
func Tileable(mimetype string) bool {
	t, _, _ := strings.Cut(mimetype, ";")
	switch strings.ToLower(strings.TrimSpace(t)) {
	case "image/jpeg", "image/png", "image/tiff", "image/jp2", "image/jpx", "image/jpm":
		return true
	}
	return false
}

// Source identifies one version of one source image: a change of size or
// modification time makes a new pyramid.
type Source struct {
	Object  string // the object's identifier (a druid), a directory name
	Name    string // the file name within the object
	Path    string // where the source file is
	Size    int64
	ModTime time.Time
}

func (s Source) key() (dir, leaf string) {
	n := sha256.Sum256([]byte(s.Name))
	k := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%d\x00%d\x00%s", s.Object, s.Name, s.Size, s.ModTime.UnixNano(), layoutVersion))
	return filepath.Join(s.Object, hex.EncodeToString(n[:8])), hex.EncodeToString(k[:8])
}

// Tiler makes pyramids under a cache directory, each once (concurrent
// requests for the same source wait for one build), and remembers them.
type Tiler struct {
	root string
	vips string

	mu       sync.Mutex
	cached   map[string]*Pyramid
	building map[string]*build
}

type build struct {
	done chan struct{}
	p    *Pyramid
	err  error
}

// New returns a Tiler keeping pyramids under root. When the vips command
// is not on PATH it still returns a Tiler, whose Available is false and
// whose Pyramid answers ErrUnavailable.
func New(root string) (*Tiler, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("iiifimage: creating %s: %w", root, err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("iiifimage: %w", err)
	}
	t := &Tiler{root: abs, cached: map[string]*Pyramid{}, building: map[string]*build{}}
	if p, err := exec.LookPath("vips"); err == nil {
		t.vips = p
	}
	return t, nil
}

// Available reports whether pyramids can be made (libvips is installed).
func (t *Tiler) Available() bool { return t != nil && t.vips != "" }

// Root is the cache directory.
func (t *Tiler) Root() string { return t.root }

// Pyramid returns the pyramid of src, making it first when there is none.
func (t *Tiler) Pyramid(ctx context.Context, src Source) (*Pyramid, error) {
	if !t.Available() {
		return nil, ErrUnavailable
	}
	parent, leaf := src.key()
	dir := filepath.Join(t.root, parent, leaf)
	t.mu.Lock()
	if p, ok := t.cached[dir]; ok {
		t.mu.Unlock()
		return p, nil
	}
	if b, ok := t.building[dir]; ok {
		t.mu.Unlock()
		select {
		case <-b.done:
			return b.p, b.err
		case <-ctx.Done():
			return nil, fmt.Errorf("iiifimage: waiting for the pyramid of %s: %w", src.Name, ctx.Err())
		}
	}
	b := &build{done: make(chan struct{})}
	t.building[dir] = b
	t.mu.Unlock()

	// The build runs on its own clock: a client giving up must not waste
	// the work others (and the next request) wait for.
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), BuildTimeout)
	b.p, b.err = t.load(dir)
	if errors.Is(b.err, fs.ErrNotExist) {
		b.p, b.err = t.make(bctx, src, filepath.Join(t.root, parent), leaf)
	}
	cancel()
	t.mu.Lock()
	delete(t.building, dir)
	if b.err == nil {
		if len(t.cached) >= maxCached {
			clear(t.cached)
		}
		t.cached[dir] = b.p
	}
	t.mu.Unlock()
	close(b.done)
	return b.p, b.err
}

// Drop removes every pyramid of an object (when it is deleted). A build
// running for it at that moment may still leave its pyramid, which the
// next Drop or a new version of the file removes.
func (t *Tiler) Drop(object string) error {
	if object == "" || strings.ContainsAny(object, `/\.`) {
		return fmt.Errorf("iiifimage: %q is not an object name", object)
	}
	dir := filepath.Join(t.root, object)
	t.mu.Lock()
	for k := range t.cached {
		if strings.HasPrefix(k, dir+string(filepath.Separator)) {
			delete(t.cached, k)
		}
	}
	t.mu.Unlock()
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("iiifimage: removing the pyramids of %s: %w", object, err)
	}
	return nil
}

// meta is what a pyramid directory records about itself (pyramid.json).
type meta struct {
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	TileSize     int    `json:"tileSize"`
	ScaleFactors []int  `json:"scaleFactors"`
	Sizes        []Size `json:"sizes"`
}

// Size is a whole-image size offered in info.json.
type Size struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Pyramid is a made pyramid: its dimensions and the files it has.
type Pyramid struct {
	dir   string
	meta  meta
	files map[string]int64 // "region/size" → bytes
	bytes int64
	// direct maps the request forms viewers send ("x,y,w,h/w,", "full/w,h",
	// "full/max" …) to the file answering them, so that nearly every
	// request is one map lookup.
	direct map[string]string
}

// Width and Height are the source image's pixel size.
func (p *Pyramid) Width() int  { return p.meta.Width }
func (p *Pyramid) Height() int { return p.meta.Height }

// Sizes are the whole-image sizes, smallest first.
func (p *Pyramid) Sizes() []Size { return slices.Clone(p.meta.Sizes) }

// Bytes is the disk space the pyramid's images take.
func (p *Pyramid) Bytes() int64 { return p.bytes }

// Files is the number of images (tiles and sizes) in the pyramid.
func (p *Pyramid) Files() int { return len(p.files) }

// Thumbnail is the size closest to edge pixels on its longer side, not
// smaller when a larger one exists.
func (p *Pyramid) Thumbnail(edge int) Size {
	for _, s := range p.meta.Sizes {
		if max(s.Width, s.Height) >= edge {
			return s
		}
	}
	return p.meta.Sizes[len(p.meta.Sizes)-1]
}

const metaName = "pyramid.json"

// load reads a pyramid made earlier.
func (t *Tiler) load(dir string) (*Pyramid, error) {
	raw, err := os.ReadFile(filepath.Join(dir, metaName))
	if err != nil {
		return nil, err
	}
	p := &Pyramid{dir: dir, files: map[string]int64{}}
	if err := json.Unmarshal(raw, &p.meta); err != nil || p.meta.Width <= 0 || len(p.meta.Sizes) == 0 {
		return nil, fmt.Errorf("iiifimage: %s: unreadable %s", dir, metaName)
	}
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.Type().IsRegular() || d.Name() != "default.jpg" {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if len(parts) != 4 || parts[2] != "0" {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		p.files[parts[0]+"/"+parts[1]] = info.Size()
		p.bytes += info.Size()
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("iiifimage: reading %s: %w", dir, err)
	}
	p.direct = make(map[string]string, 3*len(p.files))
	full := fmt.Sprintf("%d,%d,%d,%d", 0, 0, p.meta.Width, p.meta.Height)
	for key := range p.files {
		region, size, _ := strings.Cut(key, "/")
		w, _, _ := strings.Cut(size, ",")
		file := dir + string(filepath.Separator) + filepath.FromSlash(key) + string(filepath.Separator) + "0" + string(filepath.Separator) + "default.jpg"
		regions := []string{region}
		if region == full {
			regions = append(regions, "full")
		}
		for _, r := range regions {
			p.direct[r+"/"+size] = file
			p.direct[r+"/"+w+","] = file
			if region == full && size == fmt.Sprintf("%d,%d", p.meta.Width, p.meta.Height) {
				p.direct[r+"/max"] = file
			}
		}
	}
	return p, nil
}

// make builds the pyramid of src in a temporary directory beside its final
// place and renames it there, so a half-made pyramid is never served;
// pyramids of earlier versions of the same file are removed.
func (t *Tiler) make(ctx context.Context, src Source, parent, leaf string) (*Pyramid, error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("iiifimage: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".build-")
	if err != nil {
		return nil, fmt.Errorf("iiifimage: %w", err)
	}
	defer os.RemoveAll(tmp)
	m, err := t.tile(ctx, src.Path, tmp)
	if err != nil {
		return nil, fmt.Errorf("iiifimage: tiling %s of %s: %w", src.Name, src.Object, err)
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("iiifimage: %w", err)
	}
	if err := os.WriteFile(filepath.Join(tmp, metaName), raw, 0o644); err != nil {
		return nil, fmt.Errorf("iiifimage: %w", err)
	}
	dir := filepath.Join(parent, leaf)
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("iiifimage: placing the pyramid of %s: %w", src.Name, err)
	}
	if old, err := os.ReadDir(parent); err == nil {
		for _, e := range old {
			if e.Name() != leaf && !strings.HasPrefix(e.Name(), ".build-") {
				os.RemoveAll(filepath.Join(parent, e.Name()))
			}
		}
	}
	return t.load(dir)
}

// tile runs vips: dzsave for the tiles, thumbnail for the sizes.
func (t *Tiler) tile(ctx context.Context, srcPath, out string) (meta, error) {
	var m meta
	suffix := fmt.Sprintf(".jpg[Q=%d,strip]", Quality)
	if err := t.run(ctx, "dzsave", srcPath, filepath.Join(out, "t"), "--layout", "iiif3", "--tile-size", strconv.Itoa(TileSize),
		"--overlap", "0", "--suffix", suffix, "--id", "x"); err != nil {
		return m, err
	}
	var info struct {
		Width, Height int
		Tiles         []struct {
			ScaleFactors []int `json:"scaleFactors"`
			Width        int   `json:"width"`
		}
	}
	raw, err := os.ReadFile(filepath.Join(out, "t", "info.json"))
	if err != nil {
		return m, fmt.Errorf("dzsave wrote no info.json: %w", err)
	}
	if err := json.Unmarshal(raw, &info); err != nil || info.Width <= 0 || info.Height <= 0 || len(info.Tiles) != 1 {
		return m, fmt.Errorf("dzsave wrote an unexpected info.json: %.200s", raw)
	}
	if int64(info.Width)*int64(info.Height) > MaxPixels {
		return m, fmt.Errorf("%d×%d pixels is more than the limit of %d", info.Width, info.Height, int64(MaxPixels))
	}
	m.Width, m.Height, m.TileSize, m.ScaleFactors = info.Width, info.Height, info.Tiles[0].Width, info.Tiles[0].ScaleFactors
	if len(m.ScaleFactors) == 0 {
		// An image within one tile: dzsave lists no scale factor, but its
		// one tile (the whole image) is scale factor 1.
		m.ScaleFactors = []int{1}
	}
	// The tiles move up one level so the pyramid directory is the image
	// service's root: <region>/<size>/0/default.jpg.
	entries, err := os.ReadDir(filepath.Join(out, "t"))
	if err != nil {
		return m, err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := os.Rename(filepath.Join(out, "t", e.Name()), filepath.Join(out, e.Name())); err != nil {
				return m, err
			}
		}
	}
	if err := os.RemoveAll(filepath.Join(out, "t")); err != nil {
		return m, err
	}
	// Whole-image sizes: the image itself when it is small enough, and
	// every power of two from MaxSizeEdge down to MinSizeEdge below its
	// longer edge (so ThumbnailRequest knows them without reading the
	// pyramid). The largest is scaled from the source, each smaller one
	// from the one before (a JPEG, which vips shrinks on load).
	full := fmt.Sprintf("0,0,%d,%d", info.Width, info.Height)
	longer := max(info.Width, info.Height)
	var edges []int
	if longer <= MaxSizeEdge {
		edges = append(edges, longer)
	}
	for edge := MaxSizeEdge; edge >= MinSizeEdge; edge /= 2 {
		if edge < longer {
			edges = append(edges, edge)
		}
	}
	prev := srcPath // the image the next size is shrunk from
	for _, edge := range edges {
		if edge == longer {
			m.Sizes = append(m.Sizes, Size{info.Width, info.Height})
			if _, err := os.Stat(filepath.Join(out, full, fmt.Sprintf("%d,%d", info.Width, info.Height), "0", "default.jpg")); err == nil {
				continue // a small image's only tile is the whole image
			}
		}
		tmp := filepath.Join(out, fmt.Sprintf("size-%d.jpg", edge))
		target := tmp + fmt.Sprintf("[Q=%d,strip]", Quality)
		if prev == srcPath {
			// The largest size is scaled from the source by resize, which
			// decodes it whole: thumbnail's shrink-on-load picks a wrong
			// resolution level of some JPEG 2000 files (vips 8.14).
			if err := t.run(ctx, "resize", srcPath, target, strconv.FormatFloat(float64(edge)/float64(longer), 'f', -1, 64)); err != nil {
				return m, err
			}
		} else if err := t.run(ctx, "thumbnail", prev, target, strconv.Itoa(edge), "--height", strconv.Itoa(edge), "--size", "down"); err != nil {
			return m, err
		}
		w, h, err := jpegSize(tmp)
		if err != nil {
			return m, err
		}
		dir := filepath.Join(out, full, fmt.Sprintf("%d,%d", w, h), "0")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return m, err
		}
		if err := os.Rename(tmp, filepath.Join(dir, "default.jpg")); err != nil {
			return m, err
		}
		prev = filepath.Join(dir, "default.jpg")
		if edge != longer {
			m.Sizes = append(m.Sizes, Size{w, h})
		}
	}
	slices.Reverse(m.Sizes)
	return m, nil
}

func (t *Tiler) run(ctx context.Context, args ...string) error {
	cmd := exec.CommandContext(ctx, t.vips, args...)
	cmd.Env = append(os.Environ(), "VIPS_WARNING=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("vips %s: %w: %s", args[0], err, strings.TrimSpace(string(out)))
	}
	return nil
}

func jpegSize(path string) (int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	c, _, err := image.DecodeConfig(f)
	if err != nil {
		return 0, 0, fmt.Errorf("reading %s: %w", path, err)
	}
	return c.Width, c.Height, nil
}

// ThumbnailEdge is the longer edge of the thumbnails manifests name.
const ThumbnailEdge = 256

// ThumbnailRequest is the image request (relative to the image service)
// of the thumbnail of a width × height image, and the thumbnail's size:
// the ThumbnailEdge size every pyramid of an image larger than that has,
// else the whole image. Known without the pyramid, so a manifest can name
// it before the tiles are made.
func ThumbnailRequest(width, height int) (path string, w, h int) {
	longer := max(width, height)
	if longer <= ThumbnailEdge {
		return "full/max/0/default.jpg", width, height
	}
	if width >= height {
		return fmt.Sprintf("full/%d,/0/default.jpg", ThumbnailEdge), ThumbnailEdge, max(1, int(float64(height)*ThumbnailEdge/float64(width)+0.5))
	}
	return fmt.Sprintf("full/,%d/0/default.jpg", ThumbnailEdge), max(1, int(float64(width)*ThumbnailEdge/float64(height)+0.5)), ThumbnailEdge
}

// Version names the pyramid's source version (an ETag can carry it).
func (p *Pyramid) Version() string { return filepath.Base(p.dir) }

// Info is the info.json of the pyramid for the image service id.
func (p *Pyramid) Info(id string) ([]byte, error) {
	type tiles struct {
		Width        int   `json:"width"`
		Height       int   `json:"height"`
		ScaleFactors []int `json:"scaleFactors"`
	}
	return json.MarshalIndent(struct {
		Context  string  `json:"@context"`
		ID       string  `json:"id"`
		Type     string  `json:"type"`
		Protocol string  `json:"protocol"`
		Profile  string  `json:"profile"`
		Width    int     `json:"width"`
		Height   int     `json:"height"`
		Sizes    []Size  `json:"sizes"`
		Tiles    []tiles `json:"tiles"`
	}{
		"http://iiif.io/api/image/3/context.json", id, "ImageService3", "http://iiif.io/api/image", "level0",
		p.meta.Width, p.meta.Height, p.meta.Sizes,
		[]tiles{{p.meta.TileSize, p.meta.TileSize, p.meta.ScaleFactors}},
	}, "", "  ")
}

var (
	regionRE = regexp.MustCompile(`^(full|square|(\d{1,9}),(\d{1,9}),(\d{1,9}),(\d{1,9}))$`)
	sizeRE   = regexp.MustCompile(`^(max|\^?max|(\d{1,9}),(\d{1,9})?|,(\d{1,9})|\^?!?(\d{1,9}),(\d{1,9})|\^?pct:[0-9.]+|\^(\d{1,9}),(\d{1,9})?|\^,(\d{1,9}))$`)
)

// fastRegion splits "x,y,w,h" (at most 9 digits each) into the submatch
// shape regionRE gives; ok is false for anything else.
func fastRegion(region string) ([]string, bool) {
	parts := strings.Split(region, ",")
	if len(parts) != 4 {
		return nil, false
	}
	for _, p := range parts {
		if !digits(p) {
			return nil, false
		}
	}
	return []string{region, region, parts[0], parts[1], parts[2], parts[3]}, true
}

// fastSize reports whether size is "max", "w," or "w,h".
func fastSize(size string) bool {
	if size == "max" {
		return true
	}
	w, h, ok := strings.Cut(size, ",")
	return ok && digits(w) && (h == "" || digits(h))
}

func digits(s string) bool {
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Lookup resolves an image request (region, size, rotation and
// quality.format path segments) to the file holding the answer. Full
// IIIF syntax is accepted (ErrBadRequest otherwise); what this level 0
// pyramid lacks is ErrNotFound. "full" equals the whole-image region, and
// "max" or "w," / ",h" are answered when they name a size the pyramid has.
func (p *Pyramid) Lookup(region, size, rotation, qualityFormat string) (string, error) {
	if rotation == "0" && qualityFormat == "default.jpg" {
		if file, ok := p.direct[region+"/"+size]; ok {
			return file, nil
		}
	}
	// The tiles' own form (x,y,w,h / w, / 0 / default.jpg) is parsed
	// without regular expressions: it is nearly every request.
	rm, fast := fastRegion(region)
	if !fast {
		if rm = regionRE.FindStringSubmatch(region); rm == nil {
			return "", fmt.Errorf("%w: region %q is not full, square or x,y,w,h", ErrBadRequest, region)
		}
	}
	if !fastSize(size) && !sizeRE.MatchString(size) {
		return "", fmt.Errorf("%w: size %q is not a IIIF size", ErrBadRequest, size)
	}
	if rotation != "0" {
		if _, err := strconv.ParseFloat(strings.TrimPrefix(rotation, "!"), 64); err != nil {
			return "", fmt.Errorf("%w: rotation %q is not a number", ErrBadRequest, rotation)
		}
	}
	quality, format, ok := strings.Cut(qualityFormat, ".")
	if !ok || !slices.Contains([]string{"default", "color", "gray", "bitonal"}, quality) || format == "" {
		return "", fmt.Errorf("%w: %q is not quality.format", ErrBadRequest, qualityFormat)
	}
	if rotation != "0" || quality != "default" || format != "jpg" {
		return "", fmt.Errorf("%w: this level 0 service has rotation 0, quality default and format jpg only", ErrNotFound)
	}
	var x, y, w, h int
	switch {
	case region == "full":
		w, h = p.meta.Width, p.meta.Height
	case region == "square":
		return "", fmt.Errorf("%w: region square is not offered (level 0)", ErrNotFound)
	default:
		x, _ = strconv.Atoi(rm[2])
		y, _ = strconv.Atoi(rm[3])
		w, _ = strconv.Atoi(rm[4])
		h, _ = strconv.Atoi(rm[5])
	}
	if w == 0 || h == 0 {
		return "", fmt.Errorf("%w: region %q has no area", ErrBadRequest, region)
	}
	reg := fmt.Sprintf("%d,%d,%d,%d", x, y, w, h)
	var sw, sh int
	switch {
	case size == "max":
		sw, sh = w, h
	default:
		ws, hs, _ := strings.Cut(size, ",")
		sw, _ = strconv.Atoi(ws)
		sh, _ = strconv.Atoi(hs)
		switch {
		case sw > 0 && sh == 0 && hs == "":
			sh = int(float64(h)*float64(sw)/float64(w) + 0.5)
		case sw == 0 && sh > 0 && ws == "":
			sw = int(float64(w)*float64(sh)/float64(h) + 0.5)
		}
	}
	name := fmt.Sprintf("%s/%d,%d", reg, sw, sh)
	if _, ok := p.files[name]; !ok {
		// "w," may round the other way than the pyramid did.
		found := false
		if size != "max" && !strings.Contains(size, "!") {
			for _, d := range []int{-1, 1} {
				alt := fmt.Sprintf("%s/%d,%d", reg, sw, sh+d)
				if strings.HasPrefix(size, ",") {
					alt = fmt.Sprintf("%s/%d,%d", reg, sw+d, sh)
				}
				if _, ok := p.files[alt]; ok && !strings.Contains(strings.TrimSuffix(size, ","), ",") {
					name, found = alt, true
					break
				}
			}
		}
		if !found {
			return "", fmt.Errorf("%w: %s/%s is neither a tile nor a size of this level 0 service (see info.json)", ErrNotFound, region, size)
		}
	}
	return filepath.Join(p.dir, filepath.FromSlash(name), "0", "default.jpg"), nil
}
