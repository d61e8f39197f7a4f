package purl

import (
	"context"
	"net/http"
	"strconv"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/purl/druid"
)

// Paths people already use (issue 14.4, docs/purl.md "Paths people already
// use"): a trailing slash and the druid: prefix redirect to the canonical
// PURL, /{id}/iiif3/manifest answers like /{id}/iiif/manifest, and a GET of
// the PURL preferring JSON-LD is sent to the manifest.

// GetObjectSlash implements purlapi.StrictServerInterface: /{id}/ → /{id}.
func (s *Service) GetObjectSlash(ctx context.Context, req purlapi.GetObjectSlashRequestObject) (purlapi.GetObjectSlashResponseObject, error) {
	id, err := druid.Parse(req.Id)
	if err != nil {
		return respond(s.fail(ctx, http.StatusNotFound, "not found: "+strconv.Quote(req.Id)+" is not a druid")), nil
	}
	return respond(redirect{status: http.StatusMovedPermanently, location: s.purl(id), cacheControl: s.cacheControl(true)}), nil
}

// GetManifestIiif3 implements purlapi.StrictServerInterface: the manifest
// at the iiif3 path, the same answer as GetManifest.
func (s *Service) GetManifestIiif3(ctx context.Context, req purlapi.GetManifestIiif3RequestObject) (purlapi.GetManifestIiif3ResponseObject, error) {
	return s.readRepresentation(ctx, req.Id, "manifest")
}

// pageRedirect is GetObject's answer when it is not the page: a
// non-canonical spelling of the identifier (druid: prefix, capitals) is
// 301 to the canonical PURL; a client preferring JSON-LD is 303 to the
// manifest, when there is one. nil: serve the page.
func (s *Service) pageRedirect(ctx context.Context, rawID string) purlapi.Representation {
	id, err := druid.Parse(rawID)
	if err != nil {
		return nil // the page's own 404
	}
	if string(id) != rawID {
		return redirect{status: http.StatusMovedPermanently, location: s.purl(id), cacheControl: s.cacheControl(true), varyAccept: true}
	}
	if !prefersJSONLD(exchangeFrom(ctx).req) {
		return nil
	}
	obj, fail := s.readObject(ctx, rawID)
	if fail != nil {
		return fail
	}
	if obj.manifest.body == nil {
		return nil // nothing to send the client to: the page
	}
	return redirect{status: http.StatusSeeOther, location: s.purl(id) + "/iiif/manifest", varyAccept: true}
}

// prefersJSONLD reports whether r's Accept names application/ld+json with
// a higher quality than text/html (named explicitly; wildcards count for
// neither, so a browser's "text/html, …, */*" keeps the page).
func prefersJSONLD(r *http.Request) bool {
	accept := r.Header.Values("Accept")
	ld := apiserve.AcceptQuality(accept, "application/ld+json")
	return ld > 0 && ld > apiserve.AcceptQuality(accept, "text/html")
}

// redirect is a 301 or 303 to location.
type redirect struct {
	status       int
	location     string
	cacheControl []string
	varyAccept   bool
}

func (r redirect) WriteResponse(w http.ResponseWriter, _ *http.Request) error {
	h := w.Header()
	h.Set("Location", r.location)
	h["X-Content-Type-Options"] = nosniff
	if r.cacheControl != nil {
		h["Cache-Control"] = r.cacheControl
	}
	if r.varyAccept {
		h.Add("Vary", "Accept")
	}
	w.WriteHeader(r.status)
	return nil
}
