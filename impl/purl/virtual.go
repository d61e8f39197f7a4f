package purl

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/purl/store"
)

// constituentImage is an image of a virtual object's constituent that the
// virtual object's manifest paints (docs/purl.md, "Virtual objects").
type constituentImage struct {
	label string         // the virtual object's resource label
	rec   *record.Record // the constituent's record
	file  record.File    // the image, as the constituent lists it
}

// constituents are what a virtual object read of its constituents: the
// images it paints, and the stat of each constituent's public XML when
// they were read (nil: not published), so that a change to one is seen.
type constituents struct {
	images []constituentImage
	stamps map[druid.Druid]fs.FileInfo
}

// hasManifest reports whether the object has a IIIF manifest: its own
// record says so, or it is a virtual object with constituents' images.
func (o *object) hasManifest() bool {
	return o.rec.HasManifest() || len(o.constituents.images) > 0
}

// loadConstituents reads the constituents a virtual object's externalFile
// elements name, straight from the store (not through the cache, so a
// cycle of virtual objects cannot recurse), and keeps the images each
// constituent publishes, in the virtual object's resource order. One not
// published (or dark), or not listing the file as an image with a pixel
// size, is left out with a log line.
func (s *Service) loadConstituents(ctx context.Context, obj *object, now time.Time) {
	rec := obj.rec
	read := map[druid.Druid]*record.Record{}
	for _, res := range rec.Resources {
		for _, ext := range res.External {
			if obj.constituents.stamps == nil {
				obj.constituents.stamps = map[druid.Druid]fs.FileInfo{}
			}
			crec, seen := read[ext.Object]
			if !seen {
				crec = s.readConstituent(ctx, rec.Druid, ext.Object, obj, now)
				read[ext.Object] = crec
			}
			if crec == nil {
				continue
			}
			f, ok := crec.File(ext.Name)
			if !ok || !strings.HasPrefix(strings.ToLower(f.MimeType), "image/") {
				s.cfg.Logger.WarnContext(ctx, "purl: virtual object: the constituent does not publish the image, left out", "druid", rec.Druid.Qualified(), "constituent", ext.Object.Qualified(), "file", ext.Name)
				continue
			}
			if f.Width <= 0 || f.Height <= 0 {
				// The constituent gives no size: the virtual object's
				// imageData says what the repository knew.
				f.Width, f.Height = ext.Width, ext.Height
			}
			if f.Width <= 0 || f.Height <= 0 {
				s.cfg.Logger.WarnContext(ctx, "purl: virtual object: no pixel size for the constituent's image, left out", "druid", rec.Druid.Qualified(), "constituent", ext.Object.Qualified(), "file", ext.Name)
				continue
			}
			label := res.Label
			if label == "" {
				label = f.Name
			}
			obj.constituents.images = append(obj.constituents.images, constituentImage{label: label, rec: crec, file: f})
		}
	}
}

// readConstituent reads constituent id's record, noting the stat of its
// public XML in obj; nil when it is not published, dark or unreadable.
func (s *Service) readConstituent(ctx context.Context, virtual, id druid.Druid, obj *object, now time.Time) *record.Record {
	data, info, err := store.ReadAll(ctx, s.store, id, store.PublicXML)
	obj.constituents.stamps[id] = info
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.cfg.Logger.ErrorContext(ctx, "purl: virtual object: reading a constituent", "druid", virtual.Qualified(), "constituent", id.Qualified(), "err", err)
		} else {
			s.cfg.Logger.WarnContext(ctx, "purl: virtual object: the constituent is not published here, its images are left out", "druid", virtual.Qualified(), "constituent", id.Qualified())
		}
		return nil
	}
	crec, err := record.Parse(data)
	if err != nil || crec.Druid != id || crec.Rights.Dark() {
		s.cfg.Logger.WarnContext(ctx, "purl: virtual object: the constituent cannot be shown, its images are left out", "druid", virtual.Qualified(), "constituent", id.Qualified(), "err", err)
		return nil
	}
	// The constituent's embargo ending changes who reads its images.
	if end := crec.Rights.NextEmbargoEnd(now); !end.IsZero() && (obj.rightsChange.IsZero() || end.Before(obj.rightsChange)) {
		obj.rightsChange = end
	}
	return crec
}

// constituentsChanged reports whether a constituent's public XML is not
// the one the virtual object was built from (republished, withdrawn, or
// published since).
func (s *Service) constituentsChanged(ctx context.Context, obj *object) bool {
	for id, was := range obj.constituents.stamps {
		now, err := s.store.Stat(ctx, id, store.PublicXML)
		if err != nil {
			now = nil
		}
		if !sameFile(was, now) {
			return true
		}
	}
	return false
}
