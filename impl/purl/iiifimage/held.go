package iiifimage

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sitelib/sitesvc/impl/apiserve"
)

// The tiles and listed sizes a viewer asks for again and again are held
// in memory, prepared for serving (apiserve.Content: body, ETag,
// Last-Modified), so such a request opens, stats and reads no file. A
// pyramid's files never change while it exists (a new version of the
// source is a new directory), so a held file is right until its pyramid
// is evicted, which Pyramid.Evicted tells. Derived images are not held
// (the cache bound may remove them while their pyramid stays).

const (
	// MaxHeldBytes bounds the bytes of the files held in memory, over all
	// pyramids; past it a file is served from disk as before.
	MaxHeldBytes = 64 << 20
	// MaxHeldFile is the largest file held (a 512-pixel JPEG tile is
	// about 10–100 KB; large listed sizes are served from disk).
	MaxHeldFile = 512 << 10
	// heldSweepEvery is how often, at most, a full store looks for the
	// files of evicted pyramids to let go.
	heldSweepEvery = time.Second
)

// heldFiles maps a pyramid file's path to its *heldFile.
type heldFiles struct {
	max       int64 // MaxHeldBytes (smaller in tests)
	m         sync.Map
	bytes     atomic.Int64
	lastSweep atomic.Int64 // unix nanoseconds
}

type heldFile struct {
	p       *Pyramid
	content *apiserve.Content
}

// FileETag is the entity tag of a file of the pyramid: the pyramid's
// version, the file's size and modification time.
func (p *Pyramid) FileETag(size int64, modTime time.Time) string {
	return fmt.Sprintf(`"%s-%x-%x"`, p.Version(), size, modTime.UnixNano())
}

// Held answers file, a file of p (as Pyramid.Resolve names it), prepared
// for serving from memory; nil (and no error) when it is not held and
// cannot be (over MaxHeldFile, or MaxHeldBytes reached): the caller
// serves it from disk.
func (t *Tiler) Held(p *Pyramid, file string) (*apiserve.Content, error) {
	if v, ok := t.held.m.Load(file); ok {
		h := v.(*heldFile)
		if h.p == p && !p.Evicted() {
			return h.content, nil
		}
		// A pyramid made again after its eviction, in the same directory.
		if t.held.m.CompareAndDelete(file, v) {
			t.held.bytes.Add(-int64(len(h.content.Body())))
		}
	}
	if p.Evicted() {
		return nil, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("iiifimage: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("iiifimage: %w", err)
	}
	size := info.Size()
	if size > MaxHeldFile || !t.reserveHeld(size) {
		return nil, nil
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(f, body); err != nil {
		t.held.bytes.Add(-size)
		return nil, fmt.Errorf("iiifimage: reading %s: %w", file, err)
	}
	h := &heldFile{p: p, content: apiserve.NewContent(body, p.FileETag(size, info.ModTime()), info.ModTime())}
	if v, loaded := t.held.m.LoadOrStore(file, h); loaded {
		// Another request held it first.
		t.held.bytes.Add(-size)
		return v.(*heldFile).content, nil
	}
	return h.content, nil
}

// reserveHeld counts n more bytes held, when they fit; a full store first
// lets go of the files of evicted pyramids (at most once per
// heldSweepEvery).
func (t *Tiler) reserveHeld(n int64) bool {
	if t.held.bytes.Add(n) <= t.held.max {
		return true
	}
	t.held.bytes.Add(-n)
	now := time.Now().UnixNano()
	last := t.held.lastSweep.Load()
	if now-last < int64(heldSweepEvery) || !t.held.lastSweep.CompareAndSwap(last, now) {
		return false
	}
	t.held.m.Range(func(k, v any) bool {
		if h := v.(*heldFile); h.p.Evicted() && t.held.m.CompareAndDelete(k, v) {
			t.held.bytes.Add(-int64(len(h.content.Body())))
		}
		return true
	})
	if t.held.bytes.Add(n) <= t.held.max {
		return true
	}
	t.held.bytes.Add(-n)
	return false
}

// HeldBytes is the bytes of the files held in memory.
func (t *Tiler) HeldBytes() int64 { return t.held.bytes.Load() }
