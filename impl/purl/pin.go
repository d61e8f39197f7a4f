package purl

import (
	"context"
	"errors"

	"github.com/sitelib/sitesvc/impl/purl/store"
)

// openFile opens a file of obj from the store version obj's records were read from, so a
// file served with a record belongs to the same version even while another process is
// publishing a new one (the record is looked at again after Config.Recheck). The store
// keeps the version a switch replaced until the next switch; when two switches came within
// that window the pinned version is gone: the file then comes from the current version and
// the cached object is dropped, so the next request reads everything anew.
func (s *Service) openFile(ctx context.Context, obj *object, name string) (store.Blob, error) {
	id := obj.rec.Druid
	if obj.version != "" {
		blob, err := s.store.OpenAt(ctx, id, obj.version, name)
		if err == nil || !errors.Is(err, store.ErrNotFound) {
			return blob, err
		}
		if cur, cerr := s.store.Current(ctx, id); cerr == nil && cur == obj.version {
			return blob, err // the current version has no such file
		}
		s.forget(id)
	}
	return s.store.Open(ctx, id, name)
}
