package purl

import (
	"context"
	"fmt"
	"io"
	"mime"
	"sync"

	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/heldbytes"
)

// Small files anyone may read are held in memory once served, prepared for
// serving (apiserve.Content: body, ETag, Last-Modified, Range), in the same
// kind of store as the image service's tiles (impl/heldbytes): a repeated
// request — a viewer's ranges of a small file, a thumbnail — opens, stats
// and seeks no file and decides no rights. A file is held for the object
// it was read for, whose store version is fixed (pin.go): a new version, a
// write or a withdrawal builds a new object, and the old one's files are
// let go when the object leaves the cache (Service.retire).

// HeldFileLimits bound the files held over all objects
// (heldbytes.FileLimits); past those, the least recently used are let go.
// A larger file is served from disk.
var HeldFileLimits = heldbytes.FileLimits()

// heldKey names a held file: the object it was read for and its name.
type heldKey struct {
	obj  *object
	name string
}

// heldFiles is what one object has held, so that its files are let go
// with it.
type heldFiles struct {
	mu      sync.Mutex
	names   map[string]struct{}
	retired bool
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
// be (too large, unreadable, or s holds no files: the caller then serves
// it from disk, which reports errors as it does for any file). Only for
// files anyone may read: a held file is served without a rights decision.
func (s *Service) held(ctx context.Context, obj *object, name, mimeType string) *heldFile {
	if s.heldFiles == nil {
		return nil
	}
	key := heldKey{obj: obj, name: name}
	if h, ok := s.heldFiles.Get(key); ok {
		return h
	}
	blob, err := s.openFile(ctx, obj, name) // pin.go
	if err != nil {
		return nil
	}
	defer blob.File.Close()
	size := blob.Info.Size()
	if !s.heldFiles.Fits(size) || !blob.Info.Mode().IsRegular() {
		return nil
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(blob.File, body); err != nil {
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
	h, err = s.heldFiles.Add(key, h, size)
	if err != nil {
		return h // read, but not held
	}
	obj.held.mu.Lock()
	defer obj.held.mu.Unlock()
	if obj.held.retired {
		s.heldFiles.Remove(key) // retired while this file was read: let it go now
		return h
	}
	if obj.held.names == nil {
		obj.held.names = map[string]struct{}{}
	}
	obj.held.names[name] = struct{}{}
	return h
}

// retire lets go of the files obj holds: it has left the cache (evicted,
// replaced by a newer build, or forgotten after a write). Requests still
// using it are served from what they hold; nothing more is held for it.
func (s *Service) retire(obj *object) {
	obj.held.mu.Lock()
	defer obj.held.mu.Unlock()
	obj.held.retired = true
	if s.heldFiles != nil {
		for name := range obj.held.names {
			s.heldFiles.Remove(heldKey{obj: obj, name: name})
		}
	}
	obj.held.names = nil
}
