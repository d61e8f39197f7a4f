package purl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/purl/store"
	"github.com/sitelib/sitesvc/impl/server"
)

// The IIIF Image API 3.0 service of every image file (docs/purl.md, "IIIF
// Image API"): {purl}/iiif/image/{name}/info.json and
// {purl}/iiif/image/{name}/{region}/{size}/{rotation}/{quality}.{format}.
// The pyramids are made by iiifimage on the first request for a file
// version (or by prepareImages after publishing) and kept under
// <DataDir>/iiif; this file only routes, checks rights and serves.

const typeImageInfo = `application/ld+json;profile="http://iiif.io/api/image/3/context.json"`

// newTiler opens the pyramid cache; without libvips it says so once in
// the log and the service serves the original files only.
func newTiler(cfg Config) (*iiifimage.Tiler, error) {
	t, err := iiifimage.New(filepath.Join(cfg.DataDir, "iiif"), cfg.IIIF)
	if err != nil {
		return nil, fmt.Errorf("purl: %w", err)
	}
	if !t.Available() {
		cfg.Logger.Warn("purl: libvips (the vips command) is not installed: no IIIF image service, images are served as their original files only")
	}
	return t, nil
}

// dropImages removes the image pyramids of a deleted object; a failure
// is logged (the object is gone either way, and the pyramids are only
// reachable through it).
func (s *Service) dropImages(ctx context.Context, id druid.Druid) {
	if err := s.tiler.Drop(string(id)); err != nil {
		s.cfg.Logger.ErrorContext(ctx, "purl: removing image pyramids", "druid", id.Qualified(), "err", err)
	}
}

// imageServiceID is the id of the image service of file name.
func (s *Service) imageServiceID(rec *record.Record, name string) string {
	return s.purl(rec.Druid) + "/iiif/image/" + url.PathEscape(name)
}

// hasImageService reports whether a file gets an image service.
func (s *Service) hasImageService(f record.File) bool {
	return s.tiler.Available() && iiifimage.Tileable(f.MimeType) && f.Width > 0 && f.Height > 0
}

// pyramid answers the pyramid of an image file the request may read, or
// the failure to answer.
func (s *Service) pyramid(ctx context.Context, rawID, name string) (*object, *iiifimage.Pyramid, *failure) {
	obj, fail := s.readObject(ctx, rawID)
	if fail != nil {
		return nil, nil, fail
	}
	id := obj.rec.Druid
	f, ok := obj.rec.File(name)
	if !ok || !iiifimage.Tileable(f.MimeType) {
		return nil, nil, s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: %s has no image file %q", id.Qualified(), name))
	}
	// A file anyone may read now needs no look at the request (nor the
	// message a refusal would carry).
	if !obj.rec.Rights.FileWorldReadable(f.Name, s.cfg.Now()) {
		if status, msg := s.fileAccessFor(exchangeFrom(ctx).req, obj.rec, f.Name); status != 0 {
			fail := s.fail(ctx, status, msg)
			fail.vary = "Authorization"
			return nil, nil, fail
		}
	}
	if !s.tiler.Available() {
		return nil, nil, s.fail(ctx, http.StatusServiceUnavailable, fmt.Sprintf("%v; the file is at %s/file/%s", iiifimage.ErrUnavailable, s.purl(id), url.PathEscape(name)))
	}
	if p := obj.pyramid(f.Name); p != nil && !p.Evicted() {
		s.tiler.Touch(p)
		return obj, p, nil
	}
	blob, err := s.store.Open(ctx, id, f.Name)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil, s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: file %q of %s is not in the store", name, id.Qualified()))
		}
		return nil, nil, s.internal(ctx, "opening image", id.Qualified(), name, err)
	}
	src := iiifimage.Source{Object: string(id), Name: f.Name, Path: blob.File.Name(), Size: blob.Info.Size(), ModTime: blob.Info.ModTime()}
	blob.File.Close()
	// A first view may build the pyramid (a 400 MP JPEG 2000 takes about a minute): the
	// request gets the build's own bound to write its answer, not --write-timeout.
	if err := server.ExtendWriteDeadline(ctx, iiifimage.BuildTimeout+time.Minute); err != nil {
		return nil, nil, s.internal(ctx, "extending the write deadline", id.Qualified(), name, err)
	}
	p, err := s.tiler.Pyramid(ctx, src)
	if err != nil {
		return nil, nil, s.imageFailure(ctx, "making the image pyramid", id, name, err)
	}
	obj.setPyramid(f.Name, p)
	return obj, p, nil
}

// objectPyramids remembers, per loaded object, the pyramid of each of its
// image files, so a tile request costs no look at the source file. An
// object is reloaded whenever its public.xml changes, which every
// publication of its files writes; a reloaded object starts empty.
type objectPyramids struct {
	mu sync.Mutex
	m  map[string]*iiifimage.Pyramid
}

func (o *object) pyramid(name string) *iiifimage.Pyramid {
	o.pyramids.mu.Lock()
	defer o.pyramids.mu.Unlock()
	return o.pyramids.m[name]
}

func (o *object) setPyramid(name string, p *iiifimage.Pyramid) {
	o.pyramids.mu.Lock()
	defer o.pyramids.mu.Unlock()
	if o.pyramids.m == nil {
		o.pyramids.m = map[string]*iiifimage.Pyramid{}
	}
	o.pyramids.m[name] = p
}

// retryAfterBusy is the Retry-After of a 503 when the build queue is
// full: about one build of a large photograph.
const retryAfterBusy = "10"

// imageFailure answers an error of the image service: an image over the
// pixel limit is 422 (it cannot be served, the request was fine), a full
// build queue 503 with Retry-After, anything else 500.
func (s *Service) imageFailure(ctx context.Context, what string, id druid.Druid, name string, err error) *failure {
	file := fmt.Sprintf("%s/file/%s", s.purl(id), url.PathEscape(name))
	switch {
	case errors.Is(err, iiifimage.ErrTooLarge):
		var tl *iiifimage.TooLargeError
		errors.As(err, &tl)
		return s.fail(ctx, http.StatusUnprocessableEntity, fmt.Sprintf("unprocessable: %s has no image service: %v; the file is at %s", name, tl, file))
	case errors.Is(err, iiifimage.ErrBusy):
		f := s.fail(ctx, http.StatusServiceUnavailable, "the image service is busy preparing other images; try again in a few seconds")
		f.retryAfter = retryAfterBusy
		return f
	}
	return s.internal(ctx, what, id.Qualified(), name, err)
}

func (s *Service) internal(ctx context.Context, what, id, name string, err error) *failure {
	s.cfg.Logger.ErrorContext(ctx, "purl: "+what, "druid", id, "file", name, "err", err)
	return s.fail(ctx, http.StatusInternalServerError, "internal error: the image cannot be read")
}

// Header values of the image service's answers, shared (never edited in place).
var (
	ctypeImageInfo          = []string{typeImageInfo}
	ctypeJSON               = []string{"application/json"}
	ctypeJPEG               = []string{"image/jpeg"}
	varyAcceptAuthorization = []string{"Accept", "Authorization"}
)

// GetImageInfo implements purlapi.StrictServerInterface: info.json.
func (s *Service) GetImageInfo(ctx context.Context, req purlapi.GetImageInfoRequestObject) (purlapi.GetImageInfoResponseObject, error) {
	if refused := s.refusedInfo(ctx, req.Id, req.Name); refused != nil { // iiif_auth.go
		return respond(refused), nil
	}
	obj, p, fail := s.pyramid(ctx, req.Id, req.Name)
	if fail != nil {
		return respond(fail), nil
	}
	body, err := p.Info(s.imageServiceID(obj.rec, req.Name))
	if err != nil {
		return respond(s.internal(ctx, "writing info.json", obj.rec.Druid.Qualified(), req.Name, err)), nil
	}
	body = s.withAuthInfo(obj.rec, req.Name, body) // iiif_auth.go
	world := obj.rec.Rights.WorldReadable(s.cfg.Now())
	r := exchangeFrom(ctx).req
	// IIIF Image API 3.0, 5: JSON unless the client asks for JSON-LD.
	ctype, etag := ctypeJSON, `"`+p.Version()+`-info"`
	if acceptsJSONLD(r.Header.Values("Accept")) {
		ctype, etag = ctypeImageInfo, `"`+p.Version()+`-info-ld"`
	}
	c := content{req: r, ctype: ctype, etag: etag, vary: varyAccept,
		cacheControl: s.cacheControl(world), csp: dataCSP, modTime: obj.lastMod, body: bytes.NewReader(body)}
	if !world {
		c.vary = varyAcceptAuthorization
	}
	return served(ctx, c), nil
}

// acceptsJSONLD reports whether an Accept header names
// application/ld+json (with any parameters) at a quality above zero.
func acceptsJSONLD(accept []string) bool {
	return apiserve.AcceptQuality(accept, "application/ld+json") > 0
}

// GetImage implements purlapi.StrictServerInterface: a tile or a size.
func (s *Service) GetImage(ctx context.Context, req purlapi.GetImageRequestObject) (purlapi.GetImageResponseObject, error) {
	obj, p, fail := s.pyramid(ctx, req.Id, req.Name)
	if fail != nil {
		return respond(fail), nil
	}
	path, d, err := p.Resolve(req.Region, req.Size, req.Rotation, req.Quality)
	switch {
	case errors.Is(err, iiifimage.ErrBadRequest):
		return respond(s.fail(ctx, http.StatusBadRequest, err.Error())), nil
	case errors.Is(err, iiifimage.ErrNotImplemented):
		return respond(s.fail(ctx, http.StatusNotImplemented, err.Error())), nil
	case err != nil:
		return respond(s.internal(ctx, "looking up a tile", obj.rec.Druid.Qualified(), req.Name, err)), nil
	}
	world := obj.rec.Rights.WorldReadable(s.cfg.Now())
	c := content{req: exchangeFrom(ctx).req, ctype: ctypeJPEG, cacheControl: s.cacheControl(world)}
	if !world {
		c.vary = varyAuthorization
	}
	if path != "" {
		// A tile or listed size: served from memory once read.
		held, err := s.tiler.Held(p, path)
		if err != nil {
			return respond(s.internal(ctx, "reading a tile", obj.rec.Druid.Qualified(), req.Name, err)), nil
		}
		if held != nil {
			c.prepared = held
			return served(ctx, c), nil
		}
	}
	if path == "" {
		// Not a tile or listed size: made from the pyramid once, then kept.
		if path, err = s.tiler.Derive(ctx, p, d); err != nil {
			if errors.Is(err, iiifimage.ErrEvicted) {
				obj.setPyramid(req.Name, nil)
				err = fmt.Errorf("%w: %w", iiifimage.ErrBusy, err)
			}
			return respond(s.imageFailure(ctx, "making a derived image", obj.rec.Druid, req.Name, err)), nil
		}
		if d.Format != "jpg" {
			c.ctype = []string{d.ContentType()}
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return respond(s.internal(ctx, "opening a tile", obj.rec.Druid.Qualified(), req.Name, err)), nil
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return respond(s.internal(ctx, "reading a tile", obj.rec.Druid.Qualified(), req.Name, err)), nil
	}
	c.etag, c.modTime, c.body, c.closer = p.FileETag(info.Size(), info.ModTime()), info.ModTime(), f, f
	return served(ctx, c), nil
}

// imageManifestParts adds to an image annotation body its image service
// and returns the canvas thumbnail, both only when the file has an image
// service. Kept apart from buildManifest so the manifest's own shape can
// change without touching the image service.
func (s *Service) imageManifestParts(rec *record.Record, f record.File, body *iiifRef) []iiifRef {
	if !s.hasImageService(f) {
		return nil
	}
	id := s.imageServiceID(rec, f.Name)
	body.Service = []iiifService{{ID: id, Type: "ImageService3", Profile: iiifimage.Profile}}
	path, w, h := iiifimage.ThumbnailRequest(f.Width, f.Height)
	return []iiifRef{{ID: id + "/" + path, Type: "Image", Format: "image/jpeg", Width: w, Height: h,
		Service: []iiifService{{ID: id, Type: "ImageService3", Profile: iiifimage.Profile}}}}
}

// iiifService is a IIIF Image API 3.0 service reference.
type iiifService struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Profile string `json:"profile"`
	// raw, when set, is the whole service as JSON (iiif_auth.go).
	raw json.RawMessage
}

// GetImageService implements purlapi.StrictServerInterface: the service's
// base URI is sent to its info.json (IIIF baseUriRedirect); the info.json
// checks the rights.
func (s *Service) GetImageService(ctx context.Context, req purlapi.GetImageServiceRequestObject) (purlapi.GetImageServiceResponseObject, error) {
	obj, fail := s.readObject(ctx, req.Id)
	if fail != nil {
		return respond(fail), nil
	}
	if f, ok := obj.rec.File(req.Name); !ok || !iiifimage.Tileable(f.MimeType) {
		return respond(s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: %s has no image file %q", obj.rec.Druid.Qualified(), req.Name))), nil
	}
	loc, origin := s.imageServiceID(obj.rec, req.Name)+"/info.json", "*"
	return purlapi.GetImageService303Response{Headers: purlapi.GetImageService303ResponseHeaders{Location: &loc, AccessControlAllowOrigin: &origin}}, nil
}
