package purl

import (
	"context"
	"fmt"
	"io"
	"mime"
	"sync"
	"sync/atomic"

	"github.com/sitelib/sitesvc/impl/apiserve"
)

// Small files anyone may read are held in memory once served, prepared for
// serving (apiserve.Content: body, ETag, Last-Modified, Range), as the image
// service holds its tiles (iiifimage/held.go): a repeated request — a
// viewer's ranges of a small file, a thumbnail — opens, stats and seeks no
// file and decides no rights. A file is held by the object it was read for,
// whose store version is fixed (pin.go): a new version, a write or a
// withdrawal builds a new object, and the old one's files are let go when
// the object leaves the cache (Service.retire).
const (
	// MaxHeldFileBytes bounds the bytes of files held, over all objects;
	// past it files are served from disk as before.
	MaxHeldFileBytes = 64 << 20
	// MaxHeldFile is the largest file held.
	MaxHeldFile = 512 << 10
)

// heldFiles is one object's held files.
type heldFiles struct {
	m       sync.Map // file name → *heldFile
	bytes   atomic.Int64
	retired atomic.Bool
}

// heldFile is a file prepared for serving, with its Content-Disposition
// for viewing (inline when its type may be) and for download.
type heldFile struct {
	ctype       []string
	content     *apiserve.Content
	disposition [2][]string // [0] as viewed, [1] with ?download=true
}

// held answers the file called name of obj from memory, reading it into
// memory the first time when it fits; nil when it is not held and cannot
// be (too large, the bound reached, or unreadable: the caller then serves
// it from disk, which reports errors as it does for any file). Only for
// files anyone may read: a held file is served without a rights decision.
func (s *Service) held(ctx context.Context, obj *object, name, mimeType string) *heldFile {
	if v, ok := obj.held.m.Load(name); ok {
		return v.(*heldFile)
	}
	if obj.held.retired.Load() || s.heldMax <= 0 {
		return nil
	}
	blob, err := s.openFile(ctx, obj, name) // pin.go
	if err != nil {
		return nil
	}
	defer blob.File.Close()
	size := blob.Info.Size()
	if size > MaxHeldFile || !blob.Info.Mode().IsRegular() {
		return nil
	}
	if s.heldBytes.Add(size) > s.heldMax {
		s.heldBytes.Add(-size)
		return nil
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(blob.File, body); err != nil {
		s.heldBytes.Add(-size)
		return nil
	}
	etag := fmt.Sprintf(`"%x-%x"`, size, blob.Info.ModTime().UnixNano()) // as GetFile's from disk
	h := &heldFile{
		ctype:   []string{mimeType},
		content: apiserve.NewContent(body, etag, blob.Info.ModTime()),
	}
	view := "attachment"
	if inlineType(mimeType) { // filetypes.go
		view = "inline"
	}
	h.disposition[0] = []string{mime.FormatMediaType(view, map[string]string{"filename": name})}
	h.disposition[1] = []string{mime.FormatMediaType("attachment", map[string]string{"filename": name})}
	if v, loaded := obj.held.m.LoadOrStore(name, h); loaded {
		s.heldBytes.Add(-size)
		return v.(*heldFile)
	}
	obj.held.bytes.Add(size)
	if obj.held.retired.Load() {
		s.retire(obj) // retired while this file was read: let it go now
	}
	return h
}

// retire lets go of the files obj holds: it has left the cache (evicted,
// replaced by a newer build, or forgotten after a write). Requests still
// using it are served from what they hold; nothing more is held for it.
func (s *Service) retire(obj *object) {
	obj.held.retired.Store(true)
	if n := obj.held.bytes.Swap(0); n != 0 {
		s.heldBytes.Add(-n)
	}
}
