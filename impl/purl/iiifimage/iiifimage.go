// Package iiifimage is the IIIF Image API 3.0 (level 2) image service's
// work: for one source image (JPEG, PNG, TIFF, JPEG 2000) a pyramid
// directory of JPEG tiles at every scale factor (vips dzsave --layout
// iiif3) plus a few whole-image sizes, the info.json describing them, and
// any other region, size, rotation, quality and format made from the
// pyramid with vips on request and kept beside it. Sources are checked by
// their header before anything decodes them; builds run in a bounded
// queue and the cache on disk is bounded by bytes. It knows nothing about
// HTTP: the PURL service checks access rights and serves the files
// Resolve and Derive name. See docs/purl.md, "IIIF Image API".
package iiifimage

import (
	"bytes"
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
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/sitelib/sitesvc/impl/heldbytes"
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
	// derivedDir holds a pyramid's derived images (any other request).
	derivedDir = "derived"
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

// Options bound the work and the disk of a Tiler (zero values take the
// defaults; see docs/security.md).
type Options struct {
	// MaxBuilds is the most vips processes running at once (pyramid
	// builds and derived images); default DefaultMaxBuilds.
	MaxBuilds int
	// MaxQueue is the most builds waiting for a slot; past it requests
	// fail with ErrBusy. Default DefaultMaxQueue.
	MaxQueue int
	// MaxCacheBytes bounds the pyramids and derived images on disk; least
	// recently used pyramids are removed past it. Default DefaultMaxCacheBytes.
	MaxCacheBytes int64
}

// Defaults of Options.
const (
	// DefaultMaxQueue lets a viewer's first look at a book (a thumbnail
	// of every page in its strip, each page's first build) wait rather
	// than fail.
	DefaultMaxQueue      = 64
	DefaultMaxCacheBytes = 8 << 30
	// maxFailures bounds the failed builds remembered.
	maxFailures = 4096
)

// DefaultMaxBuilds is one build per two cores (vips uses several threads
// per build), at least two, so that one long build (a minute for a
// 400-megapixel JPEG 2000) does not hold every other first view.
func DefaultMaxBuilds() int { return max(2, runtime.NumCPU()/2) }

// Tiler makes pyramids under a cache directory, each once (concurrent
// requests for the same source wait for one build), and remembers them.
type Tiler struct {
	root       string
	vips       string
	vipsheader string
	opts       Options
	queue      *workQueue

	mu       sync.Mutex
	cache    *diskCache
	building map[string]*build
	// failed remembers, per source version (pyramid directory), why its
	// build failed, so that a repeat is answered without new work.
	failed *simplelru.LRU[string, error]

	builds, buildFailures, headerRefusals, derivations atomic.Int64

	// held is the pyramid files kept in memory (held.go).
	held *heldbytes.Store[string, *heldFile]
}

type build struct {
	done chan struct{}
	p    *Pyramid
	path string // a derived image
	err  error
}

// New returns a Tiler keeping pyramids under root, after removing what a
// killed server left there and counting what it holds. When the vips
// command is not on PATH it still returns a Tiler, whose Available is
// false and whose Pyramid answers ErrUnavailable.
func New(root string, opts Options) (*Tiler, error) {
	if opts.MaxBuilds <= 0 {
		opts.MaxBuilds = DefaultMaxBuilds()
	}
	if opts.MaxQueue <= 0 {
		opts.MaxQueue = DefaultMaxQueue
	}
	if opts.MaxCacheBytes <= 0 {
		opts.MaxCacheBytes = DefaultMaxCacheBytes
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("iiifimage: creating %s: %w", root, err)
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("iiifimage: %w", err)
	}
	failed, _ := simplelru.NewLRU[string, error](maxFailures, nil)
	t := &Tiler{root: abs, opts: opts, queue: newWorkQueue(opts.MaxBuilds, opts.MaxQueue),
		cache: newDiskCache(opts.MaxCacheBytes), building: map[string]*build{}, failed: failed}
	if t.held, err = newHeld(HeldLimits); err != nil {
		return nil, err
	}
	if p, err := exec.LookPath("vips"); err == nil {
		t.vips = p
	}
	if p, err := exec.LookPath("vipsheader"); err == nil {
		t.vipsheader = p
	}
	found, _, err := scan(abs)
	if err != nil {
		return nil, fmt.Errorf("iiifimage: reading %s: %w", abs, err)
	}
	for _, e := range found {
		t.cache.add(e)
	}
	if len(found) > 0 {
		t.removeAll(t.cache.trim(nil, ""))
	}
	return t, nil
}

// Available reports whether pyramids can be made (libvips is installed).
func (t *Tiler) Available() bool { return t != nil && t.vips != "" && t.vipsheader != "" }

// Root is the cache directory.
func (t *Tiler) Root() string { return t.root }

// Stats is what the Tiler has done and holds, for metrics.
type Stats struct {
	Builds, BuildFailures, HeaderRefusals, Derivations int64
	Running, Waiting, Rejected                         int64
	MaxBuilds, MaxQueue                                int
	CacheBytes, MaxCacheBytes, Evictions               int64
	Pyramids                                           int
}

// Stats reports the counters and the cache's state.
func (t *Tiler) Stats() Stats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Stats{
		Builds: t.builds.Load(), BuildFailures: t.buildFailures.Load(), HeaderRefusals: t.headerRefusals.Load(), Derivations: t.derivations.Load(),
		Running: int64(t.queue.running()), Waiting: t.queue.waiting.Load(), Rejected: t.queue.rejected.Load(),
		MaxBuilds: t.opts.MaxBuilds, MaxQueue: t.opts.MaxQueue,
		CacheBytes: t.cache.bytes, MaxCacheBytes: t.cache.max, Evictions: t.cache.evicted, Pyramids: t.cache.lru.Len(),
	}
}

// Pyramid returns the pyramid of src, making it first when there is none.
// A source whose header says it is over MaxPixels is refused before any
// decoding (ErrTooLarge); a failed build is remembered for that version
// of the file and answered again at once; ErrBusy when the build queue is
// full.
func (t *Tiler) Pyramid(ctx context.Context, src Source) (*Pyramid, error) {
	if !t.Available() {
		return nil, ErrUnavailable
	}
	parent, leaf := src.key()
	dir := filepath.Join(t.root, parent, leaf)
	t.mu.Lock()
	if e, ok := t.cache.get(dir); ok && e.p != nil {
		t.mu.Unlock()
		return e.p, nil
	}
	if err, ok := t.failed.Get(dir); ok {
		t.mu.Unlock()
		return nil, err
	}
	if b, ok := t.building[dir]; ok {
		t.mu.Unlock()
		return b.wait(ctx, src.Name)
	}
	b := &build{done: make(chan struct{})}
	t.building[dir] = b
	t.mu.Unlock()

	// The build runs on its own clock: a client giving up must not waste
	// the work others (and the next request) wait for.
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), BuildTimeout)
	b.p, b.err = t.load(dir)
	if errors.Is(b.err, fs.ErrNotExist) {
		b.p, b.err = t.checkAndMake(bctx, src, filepath.Join(t.root, parent), leaf)
	}
	cancel()
	var remove []string
	t.mu.Lock()
	delete(t.building, dir)
	switch {
	case b.err == nil:
		e, ok := t.cache.get(dir)
		if !ok {
			e = &entry{dir: dir, bytes: b.p.bytes}
			t.cache.add(e)
		}
		t.cache.setLoaded(e, b.p)
		b.p.entry = e
		b.p.source = src.Path
		remove = t.cache.trim(e, "")
	case !errors.Is(b.err, ErrBusy):
		t.failed.Add(dir, b.err)
	}
	t.mu.Unlock()
	close(b.done)
	t.removeAll(remove)
	return b.p, b.err
}

func (b *build) wait(ctx context.Context, name string) (*Pyramid, error) {
	select {
	case <-b.done:
		return b.p, b.err
	case <-ctx.Done():
		return nil, fmt.Errorf("iiifimage: waiting for the pyramid of %s: %w", name, ctx.Err())
	}
}

// checkAndMake, in a build slot (the header read is a process too),
// reads the source's header, refuses it when it is too large or
// unreadable, and makes its pyramid.
func (t *Tiler) checkAndMake(ctx context.Context, src Source, parent, leaf string) (*Pyramid, error) {
	release, err := t.queue.acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("iiifimage: %s of %s: %w", src.Name, src.Object, err)
	}
	defer release()
	h, err := t.probe(ctx, src.Path)
	if err != nil {
		t.headerRefusals.Add(1)
		return nil, fmt.Errorf("iiifimage: %s of %s: %w", src.Name, src.Object, err)
	}
	t.builds.Add(1)
	p, err := t.make(ctx, src, h.loader, parent, leaf)
	if err != nil {
		t.buildFailures.Add(1)
	}
	return p, err
}

// Touch marks p used now (a request served from it), so it is evicted
// last.
func (t *Tiler) Touch(p *Pyramid) {
	if p.entry != nil && t.cache.front.Load() == p.entry {
		return // already the most recently used
	}
	t.mu.Lock()
	t.cache.get(p.dir)
	t.mu.Unlock()
}

// removeAll removes directories trim moved aside, outside the lock.
func (t *Tiler) removeAll(dirs []string) {
	for _, d := range dirs {
		os.RemoveAll(d)
	}
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
	t.forgetUnder(dir)
	t.mu.Unlock()
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("iiifimage: removing the pyramids of %s: %w", object, err)
	}
	return nil
}

// forgetUnder forgets the pyramids under dir (t.mu held).
func (t *Tiler) forgetUnder(dir string) {
	for _, k := range t.cache.lru.Keys() {
		if strings.HasPrefix(k, dir+string(filepath.Separator)) {
			if e, ok := t.cache.lru.Peek(k); ok {
				t.cache.forget(e)
			}
		}
	}
}

// meta is what a pyramid directory records about itself (pyramid.json).
type meta struct {
	Width        int    `json:"width"`
	Height       int    `json:"height"`
	TileSize     int    `json:"tileSize"`
	ScaleFactors []int  `json:"scaleFactors"`
	Sizes        []Size `json:"sizes"`
	// Bytes is the size of the tiles and sizes (not derived images).
	Bytes int64 `json:"bytes,omitempty"`
	// Loader is the vips loader of the source's format (from its header).
	Loader string `json:"loader,omitempty"`
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
	// byRegion lists, per region "x,y,w,h", the sizes the pyramid has of
	// it (a tile, or several whole-image sizes).
	byRegion map[string][]image.Point
	// source is where the source image was when the pyramid was found or
	// made (derived images at full resolution may read it directly).
	source string
	// entry is the pyramid's place in the disk cache; evicted is set when
	// its directory is removed (a holder of p must ask the Tiler again).
	entry   *entry
	evicted atomic.Bool
}

// Evicted reports whether the pyramid's files were removed (by the cache
// bound, a new version of the file or a deletion); ask Tiler.Pyramid again.
func (p *Pyramid) Evicted() bool { return p.evicted.Load() }

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
	p.byRegion = make(map[string][]image.Point, len(p.files))
	full := fmt.Sprintf("%d,%d,%d,%d", 0, 0, p.meta.Width, p.meta.Height)
	for key := range p.files {
		region, size, _ := strings.Cut(key, "/")
		w, _, _ := strings.Cut(size, ",")
		file := dir + string(filepath.Separator) + filepath.FromSlash(key) + string(filepath.Separator) + "0" + string(filepath.Separator) + "default.jpg"
		regions := []string{region}
		if region == full {
			regions = append(regions, "full")
		}
		sw, _ := strconv.Atoi(w)
		_, hs, _ := strings.Cut(size, ",")
		sh, _ := strconv.Atoi(hs)
		p.byRegion[region] = append(p.byRegion[region], image.Point{sw, sh})
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
func (t *Tiler) make(ctx context.Context, src Source, loader, parent, leaf string) (*Pyramid, error) {
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
	m.Bytes = treeBytes(tmp)
	m.Loader = loader
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
			if e.Name() != leaf && !leftover(e.Name()) {
				t.mu.Lock()
				if o, ok := t.cache.lru.Peek(filepath.Join(parent, e.Name())); ok {
					t.cache.forget(o)
				}
				t.mu.Unlock()
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
	return t.runIn(ctx, "", args...)
}

// runIn runs vips with args in directory dir ("" for the current one).
func (t *Tiler) runIn(ctx context.Context, dir string, args ...string) error {
	cmd := exec.CommandContext(ctx, t.vips, args...)
	cmd.Dir = dir
	cmd.Env = vipsEnv()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := runTied(cmd); err != nil {
		return fmt.Errorf("vips %s: %w: %s", args[0], err, bytes.TrimSpace(out.Bytes()))
	}
	return nil
}

func vipsEnv() []string { return append(os.Environ(), "VIPS_WARNING=0") }

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

// What info.json says the service offers: level 2 (regions full,
// square, x,y,w,h, pct:; sizes max, w,, ,h, pct:n, w,h, !w,h; rotation by
// 90s; qualities default, color, gray; formats jpg, png; base URI
// redirect, CORS, the JSON-LD media type) and, beyond it, exactly these.
const Profile = "level2"

var (
	ExtraQualities = []string{"bitonal"}
	ExtraFormats   = []string{"webp"}
	ExtraFeatures  = []string{"mirroring", "rotationArbitrary", "sizeUpscaling"}
)

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
		Context        string   `json:"@context"`
		ID             string   `json:"id"`
		Type           string   `json:"type"`
		Protocol       string   `json:"protocol"`
		Profile        string   `json:"profile"`
		Width          int      `json:"width"`
		Height         int      `json:"height"`
		MaxWidth       int      `json:"maxWidth"`
		MaxHeight      int      `json:"maxHeight"`
		MaxArea        int      `json:"maxArea"`
		Sizes          []Size   `json:"sizes"`
		Tiles          []tiles  `json:"tiles"`
		ExtraQualities []string `json:"extraQualities"`
		ExtraFormats   []string `json:"extraFormats"`
		ExtraFeatures  []string `json:"extraFeatures"`
	}{
		"http://iiif.io/api/image/3/context.json", id, "ImageService3", "http://iiif.io/api/image", Profile,
		p.meta.Width, p.meta.Height, MaxWidth, MaxHeight, MaxArea, p.meta.Sizes,
		[]tiles{{p.meta.TileSize, p.meta.TileSize, p.meta.ScaleFactors}},
		ExtraQualities, ExtraFormats, ExtraFeatures,
	}, "", "  ")
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
// quality.format path segments) to the file of the pyramid holding the
// answer: ErrBadRequest or ErrNotImplemented for what Parse refuses,
// ErrNotFound when the answer must be derived (see Resolve).
func (p *Pyramid) Lookup(region, size, rotation, qualityFormat string) (string, error) {
	file, _, err := p.Resolve(region, size, rotation, qualityFormat)
	if err == nil && file == "" {
		return "", fmt.Errorf("%w: %s/%s/%s/%s is neither a tile nor a size (see info.json)", ErrNotFound, region, size, rotation, qualityFormat)
	}
	return file, err
}

// Resolve reads an image request: file is the pyramid's file answering it
// (a tile or a listed size: the requests viewers send, answered with one
// map lookup), or else d is what Tiler.Derive makes.
func (p *Pyramid) Resolve(region, size, rotation, qualityFormat string) (file string, d Derivation, err error) {
	if rotation == "0" && qualityFormat == "default.jpg" {
		if file, ok := p.direct[region+"/"+size]; ok {
			return file, d, nil
		}
	}
	d, err = Parse(p.meta.Width, p.meta.Height, region, size, rotation, qualityFormat)
	if err != nil {
		return "", d, err
	}
	if d.Rotation != 0 || d.Mirror || d.Quality != "default" || d.Format != "jpg" {
		return "", d, nil
	}
	reg := fmt.Sprintf("%d,%d,%d,%d", d.X, d.Y, d.W, d.H)
	name := fmt.Sprintf("%s/%d,%d", reg, d.Width, d.Height)
	if _, ok := p.files[name]; !ok {
		// "w," and ",h" may round the other edge the other way than the
		// pyramid did: its file is the answer all the same.
		ws, hs, _ := strings.Cut(strings.TrimPrefix(size, "^"), ",")
		found := false
		for _, delta := range []int{-1, 1} {
			var alt string
			switch {
			case hs == "" && digits(ws):
				alt = fmt.Sprintf("%s/%d,%d", reg, d.Width, d.Height+delta)
			case ws == "" && digits(hs):
				alt = fmt.Sprintf("%s/%d,%d", reg, d.Width+delta, d.Height)
			default:
				continue
			}
			if _, ok := p.files[alt]; ok {
				name, found = alt, true
				break
			}
		}
		if !found {
			return "", d, nil
		}
	}
	return filepath.Join(p.dir, filepath.FromSlash(name), "0", "default.jpg"), d, nil
}
