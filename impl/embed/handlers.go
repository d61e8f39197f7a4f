package embed

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/embed/purlref"
)

// handlers implements the generated strict server interface.
type handlers struct{ s *Service }

var _ embedapi.StrictServerInterface = (*handlers)(nil)

// Cache lifetimes sent to clients: oEmbed and iframe documents follow the
// object (short); versioned viewer assets never change under their URL.
const (
	documentCacheControl = "public, max-age=300"
	assetCacheControl    = "public, max-age=86400"
	bundleCacheControl   = "public, max-age=86400"
)

// bytesResponse writes a prepared body with its media type. It implements
// every generated 200 response interface, so the hot path neither encodes
// nor copies through a reader.
type bytesResponse struct {
	contentType string
	body        []byte
	etag        string
	cache       string
	cors        bool
	frameable   bool
	encoding    string // Content-Encoding, "" for identity
	// varyEncoding marks a resource whose representation depends on
	// Accept-Encoding.
	varyEncoding bool
}

func (r bytesResponse) write(w http.ResponseWriter) error {
	h := w.Header()
	h.Set("Content-Type", r.contentType)
	h.Set("Content-Length", strconv.Itoa(len(r.body)))
	if r.cache != "" {
		h.Set("Cache-Control", r.cache)
	}
	if r.etag != "" {
		h.Set("ETag", r.etag)
	}
	if r.cors {
		h.Set("Access-Control-Allow-Origin", "*")
	}
	if r.encoding != "" {
		h.Set("Content-Encoding", r.encoding)
	}
	if r.varyEncoding {
		h.Set("Vary", "Accept-Encoding")
	}
	if r.frameable {
		// Any site may frame the viewer.
		h.Set("Content-Security-Policy", "frame-ancestors *")
		h.Del("X-Frame-Options")
	}
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(r.body)
	return err
}

func (r bytesResponse) VisitGetEmbedResponse(w http.ResponseWriter) error  { return r.write(w) }
func (r bytesResponse) VisitGetIframeResponse(w http.ResponseWriter) error { return r.write(w) }
func (r bytesResponse) VisitGetViewerScriptResponse(w http.ResponseWriter) error {
	return r.write(w)
}
func (r bytesResponse) VisitGetViewerStylesheetResponse(w http.ResponseWriter) error {
	return r.write(w)
}
func (r bytesResponse) VisitGetMiradorBundleResponse(w http.ResponseWriter) error {
	return r.write(w)
}

// notModified answers 304 with the validator headers.
type notModified struct {
	etag, cache  string
	varyEncoding bool
}

func (r notModified) write(w http.ResponseWriter) error {
	w.Header().Set("ETag", r.etag)
	if r.varyEncoding {
		w.Header().Set("Vary", "Accept-Encoding")
	}
	if r.cache != "" {
		w.Header().Set("Cache-Control", r.cache)
	}
	w.WriteHeader(http.StatusNotModified)
	return nil
}

func (r notModified) VisitGetViewerScriptResponse(w http.ResponseWriter) error { return r.write(w) }
func (r notModified) VisitGetViewerStylesheetResponse(w http.ResponseWriter) error {
	return r.write(w)
}
func (r notModified) VisitGetMiradorBundleResponse(w http.ResponseWriter) error { return r.write(w) }

// lookupError maps an object lookup failure to the contract's statuses.
func lookupError(err error) error {
	switch {
	case errors.Is(err, purlref.ErrNotPURL):
		return &apiserve.Error{Status: http.StatusNotFound, Message: "url is not a persistent URL of an object in this repository", Parameter: "url", Err: err}
	case errors.Is(err, errObjectNotFound):
		return &apiserve.Error{Status: http.StatusNotFound, Message: "no public object at this url", Parameter: "url", Err: err}
	default:
		return &apiserve.Error{Status: http.StatusBadGateway, Message: "the PURL service could not be reached or gave an unusable answer", Err: err}
	}
}

func (h *handlers) GetEmbed(ctx context.Context, req embedapi.GetEmbedRequestObject) (embedapi.GetEmbedResponseObject, error) {
	p := req.Params
	// The validator has already refused values outside the enum (as 501);
	// this guards the handler if it is ever called without it.
	kind, contentType := byte('j'), "application/json"
	if p.Format != nil {
		switch *p.Format {
		case embedapi.Json:
		case embedapi.Xml:
			kind, contentType = 'x', "text/xml; charset=utf-8"
		default:
			return nil, &apiserve.Error{Status: http.StatusNotImplemented, Message: "format " + strconv.Quote(truncate(string(*p.Format), 64)) + " is not supported (use json or xml)", Parameter: "format"}
		}
	}
	e, err := h.s.object(ctx, p.Url)
	if err != nil {
		return nil, lookupError(err)
	}
	vp := viewParams{maxHeight: p.Maxheight, maxWidth: p.Maxwidth, hideTitle: p.HideTitle}
	body, err := e.renderedBytes(vp.key(kind), func() ([]byte, error) {
		o := h.s.oembed(e.object, vp)
		if kind == 'x' {
			return oembedXML(o)
		}
		return oembedJSON(o)
	})
	if err != nil {
		return nil, err
	}
	return bytesResponse{contentType: contentType, body: body, cache: documentCacheControl, cors: true}, nil
}

func (h *handlers) GetIframe(ctx context.Context, req embedapi.GetIframeRequestObject) (embedapi.GetIframeResponseObject, error) {
	p := req.Params
	e, err := h.s.object(ctx, p.Url)
	if err != nil {
		return nil, lookupError(err)
	}
	vp := viewParams{maxHeight: p.Maxheight, maxWidth: p.Maxwidth, hideTitle: p.HideTitle}
	body, err := e.renderedBytes(vp.key('i'), func() ([]byte, error) {
		return h.s.iframeDocument(e.object, vp)
	})
	if err != nil {
		return nil, err
	}
	return bytesResponse{contentType: "text/html; charset=utf-8", body: body, cache: documentCacheControl, frameable: true}, nil
}

func (h *handlers) GetViewerScript(_ context.Context, req embedapi.GetViewerScriptRequestObject) (embedapi.GetViewerScriptResponseObject, error) {
	a := h.s.assets.js
	if req.Params.IfNoneMatch != nil && a.matches(*req.Params.IfNoneMatch) {
		return notModified{etag: a.etag, cache: assetCacheControl}, nil
	}
	return bytesResponse{contentType: "text/javascript; charset=utf-8", body: a.body, etag: a.etag, cache: assetCacheControl}, nil
}

func (h *handlers) GetViewerStylesheet(_ context.Context, req embedapi.GetViewerStylesheetRequestObject) (embedapi.GetViewerStylesheetResponseObject, error) {
	a := h.s.assets.css
	if req.Params.IfNoneMatch != nil && a.matches(*req.Params.IfNoneMatch) {
		return notModified{etag: a.etag, cache: assetCacheControl}, nil
	}
	return bytesResponse{contentType: "text/css; charset=utf-8", body: a.body, etag: a.etag, cache: assetCacheControl}, nil
}

func (h *handlers) GetMiradorBundle(_ context.Context, req embedapi.GetMiradorBundleRequestObject) (embedapi.GetMiradorBundleResponseObject, error) {
	a, err := h.s.assets.miradorBundle()
	if err != nil {
		return nil, &apiserve.Error{Status: http.StatusServiceUnavailable, Message: errMiradorMissing.Error(), Err: err}
	}
	resp := bytesResponse{contentType: "text/javascript; charset=utf-8", body: a.body, etag: a.etag, cache: bundleCacheControl, varyEncoding: true}
	if req.Params.AcceptEncoding != nil && a.gzipped != nil && acceptsGzip(*req.Params.AcceptEncoding) {
		resp.body, resp.etag, resp.encoding = a.gzipped, a.gzippedETag, "gzip"
	}
	if req.Params.IfNoneMatch != nil && *req.Params.IfNoneMatch != "" && etagListContains(*req.Params.IfNoneMatch, resp.etag) {
		return notModified{etag: resp.etag, cache: bundleCacheControl, varyEncoding: true}, nil
	}
	return resp, nil
}
