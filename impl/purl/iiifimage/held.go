package iiifimage

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/heldbytes"
)

// The tiles and listed sizes a viewer asks for again and again are held
// in memory, prepared for serving (apiserve.Content: body, ETag,
// Last-Modified), so such a request opens, stats and reads no file. A
// pyramid's files never change while it exists (a new version of the
// source is a new directory), so a held file is right until its pyramid
// is evicted, which Pyramid.Evicted tells: the store then drops it
// (heldbytes, with the pyramid's eviction as its staleness). Derived
// images are not held (the cache bound may remove them while their
// pyramid stays).

// HeldLimits bound the files held in memory over all pyramids
// (heldbytes.FileLimits; larger listed sizes are served from disk); past
// those, the least recently used are let go.
var HeldLimits = heldbytes.FileLimits()

// heldFile is a pyramid file prepared for serving.
type heldFile struct {
	p       *Pyramid
	content *apiserve.Content
}

// newHeld is the store of a Tiler's held files, keyed by path.
func newHeld(limits heldbytes.Limits) (*heldbytes.Store[string, *heldFile], error) {
	return heldbytes.New[string](limits, func(h *heldFile) bool { return h.p.Evicted() })
}

// FileETag is the entity tag of a file of the pyramid: the pyramid's
// version, the file's size and modification time.
func (p *Pyramid) FileETag(size int64, modTime time.Time) string {
	return fmt.Sprintf(`"%s-%x-%x"`, p.Version(), size, modTime.UnixNano())
}

// Held answers file, a file of p (as Pyramid.Resolve names it), prepared
// for serving from memory; nil (and no error) when it is not held and
// cannot be (over HeldLimits.ItemBytes, or p evicted): the caller serves it from
// disk.
func (t *Tiler) Held(p *Pyramid, file string) (*apiserve.Content, error) {
	if h, ok := t.held.Get(file); ok && h.p == p {
		return h.content, nil
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
	if !t.held.Fits(size) {
		return nil, nil
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(f, body); err != nil {
		return nil, fmt.Errorf("iiifimage: reading %s: %w", file, err)
	}
	h := &heldFile{p: p, content: apiserve.NewContent(body, p.FileETag(size, info.ModTime()), info.ModTime())}
	if held, err := t.held.Add(file, h, size); err == nil && held.p == p {
		return held.content, nil // h, or the same file held by another request first
	}
	return h.content, nil
}

// HeldStats is the state of the files held in memory.
func (t *Tiler) HeldStats() heldbytes.Stats { return t.held.Stats() }

// HeldBytes is the bytes of the files held in memory.
func (t *Tiler) HeldBytes() int64 { return t.held.Stats().Bytes }
