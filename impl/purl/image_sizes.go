package purl

import (
	"context"
	"errors"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/purl/store"
)

// imageSizeReaders bounds the size reads of one object's load at once;
// each also takes a slot of the image service's build queue.
const imageSizeReaders = 2

// imageSizeRetry is how long an object some of whose sizes could not be
// read now (the build queue full) is served without them before it is
// built again, reading only those.
const imageSizeRetry = 5 * time.Second

// pixelSize is a size read from an image file; zero when the file could
// not be read as an image (it stays unpainted).
type pixelSize struct{ width, height int }

// imageSizes are the sizes read from the files of one version of an
// object whose record gives none (docs/purl.md, "Images without a
// size"). A stored file never changes within a version, so an object
// built again from the same version (an embargo ending, a collection's
// member list expiring, the cache rechecking) reuses them.
type imageSizes struct {
	version string
	sizes   map[string]pixelSize
}

// sizeImages gives the image files the record gives no pixel size (and
// the image service can serve) the size read from the stored file, or
// from prev's reads of the same version. It reports false when a file
// could not be read for a passing reason (the build queue full, the
// request gone): the object is then built again after imageSizeRetry,
// keeping what was read. A file that is not a readable image, or is larger
// than the image service takes, stays unsized, with a log line.
func (s *Service) sizeImages(ctx context.Context, obj *object, prev *object) bool {
	rec := obj.rec
	var names []string
	for _, name := range rec.UnsizedImages() {
		if f, ok := rec.File(name); ok && iiifimage.Tileable(f.MimeType) {
			names = append(names, name)
		}
	}
	if len(names) == 0 || !s.tiler.Available() {
		return true
	}
	obj.imageSizes = imageSizes{version: obj.version, sizes: make(map[string]pixelSize, len(names))}
	var known map[string]pixelSize
	if prev != nil && prev.imageSizes.version == obj.version {
		known = prev.imageSizes.sizes
	}
	var (
		mu       sync.Mutex
		complete = true
		g        errgroup.Group
	)
	g.SetLimit(imageSizeReaders)
	for _, name := range names {
		if size, ok := known[name]; ok {
			obj.imageSizes.sizes[name] = size
			continue
		}
		g.Go(func() error {
			size, ok := s.readImageSize(ctx, rec, obj.version, name)
			mu.Lock()
			defer mu.Unlock()
			if ok {
				obj.imageSizes.sizes[name] = size
			} else {
				complete = false
			}
			return nil
		})
	}
	_ = g.Wait() // the readers report through complete, never an error
	for name, size := range obj.imageSizes.sizes {
		if size.width > 0 && size.height > 0 {
			rec.SetImageSize(name, size.width, size.height)
		}
	}
	return complete
}

// readImageSize reads the pixel size of one stored file of the version.
// ok is false when the answer is not final (a passing failure); a zero
// size with ok true is a file that is not a readable image.
func (s *Service) readImageSize(ctx context.Context, rec *record.Record, version, name string) (size pixelSize, ok bool) {
	id := rec.Druid
	blob, err := s.store.OpenAt(ctx, id, version, name)
	if errors.Is(err, store.ErrNotFound) {
		// A record naming a file it does not ship: nothing to paint.
		s.cfg.Logger.WarnContext(ctx, "purl: image without a size in its record is not in the store, not painted", "druid", id.Qualified(), "file", name)
		return size, true
	}
	if err != nil {
		s.cfg.Logger.WarnContext(ctx, "purl: image without a size in its record: cannot open it to read its size", "druid", id.Qualified(), "file", name, "err", err)
		return size, false
	}
	path := blob.File.Name()
	blob.File.Close()
	w, h, err := s.tiler.ImageSize(ctx, path)
	switch {
	case err == nil:
		return pixelSize{w, h}, true
	case errors.Is(err, iiifimage.ErrBusy), ctx.Err() != nil:
		s.cfg.Logger.WarnContext(ctx, "purl: image without a size in its record: size not read now, the image is shown unpainted until it is", "druid", id.Qualified(), "file", name, "err", err)
		return size, false
	default:
		s.cfg.Logger.WarnContext(ctx, "purl: image without a size in its record: not a readable image, not painted", "druid", id.Qualified(), "file", name, "err", err)
		return size, true
	}
}
