package embed

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/embed/objectview"
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

// documentResponse is an oEmbed answer or iframe document, rendered from
// a cached object. ref names it, so that the same request can later be
// answered from the cache before routing (see fastpath.go).
type documentResponse struct {
	// Respond makes a *documentResponse the answer itself (one
	// allocation for both; see answer).
	embedapi.Respond
	ref       answerRef
	rendering rendering
	kept      bool // the rendering is held by the cache entry
}

// answer is d as the answer of its operation.
func answer(d documentResponse) *documentResponse {
	p := &d
	p.Respond.Representation = p
	return p
}

// WriteResponse writes the document (it has no validators: the object
// behind it changes under the same URL; see docs/embed.md).
func (r *documentResponse) WriteResponse(w http.ResponseWriter, _ *http.Request) error {
	return writeDocument(w, r.ref.key.kind, r.rendering)
}

// Kinds of document (renderKey.kind).
const (
	kindJSON   byte = 'j' // oEmbed JSON
	kindXML    byte = 'x' // oEmbed XML
	kindIframe byte = 'i' // the iframe document
)

// writeDocument writes a 200 with a rendered document. Both the routed
// handlers and the fast path use it, so they answer byte for byte alike.
// The header values share one allocation; each is capped at its own length
// so that a later Add to one of them cannot write over the next.
func writeDocument(w http.ResponseWriter, kind byte, r rendering) error {
	h := w.Header()
	vals := make([]string, 5)
	vals[1], vals[2], vals[4] = r.length, documentCacheControl, "nosniff"
	switch kind {
	case kindIframe:
		vals[0], vals[3] = "text/html; charset=utf-8", "frame-ancestors *"
		// Any site may frame the viewer.
		h["Content-Security-Policy"] = vals[3:4:4]
		delete(h, "X-Frame-Options")
	case kindXML:
		vals[0], vals[3] = "text/xml; charset=utf-8", "*"
		h["Access-Control-Allow-Origin"] = vals[3:4:4]
	default:
		vals[0], vals[3] = "application/json", "*"
		h["Access-Control-Allow-Origin"] = vals[3:4:4]
	}
	h["Content-Type"] = vals[0:1:1]
	h["Content-Length"] = vals[1:2:2]
	h["Cache-Control"] = vals[2:3:3]
	h["X-Content-Type-Options"] = vals[4:5:5]
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(r.body)
	return err
}

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
	kind := kindJSON
	if p.Format != nil {
		switch *p.Format {
		case embedapi.Json:
		case embedapi.Xml:
			kind = kindXML
		default:
			return nil, &apiserve.Error{Status: http.StatusNotImplemented, Message: "format " + strconv.Quote(truncate(string(*p.Format), 64)) + " is not supported (use json or xml)", Parameter: "format"}
		}
	}
	vp := viewParams{maxHeight: p.Maxheight, maxWidth: p.Maxwidth, hideTitle: p.HideTitle}
	d, err := h.document(ctx, p.Url, vp, kind, func(obj *objectview.Object) ([]byte, error) {
		o := h.s.oembed(obj, vp)
		if kind == kindXML {
			return oembedXML(o)
		}
		return oembedJSON(o)
	})
	if err != nil {
		return nil, err // a nil interface, not a nil *documentResponse
	}
	return d, nil
}

func (h *handlers) GetIframe(ctx context.Context, req embedapi.GetIframeRequestObject) (embedapi.GetIframeResponseObject, error) {
	p := req.Params
	vp := viewParams{maxHeight: p.Maxheight, maxWidth: p.Maxwidth, hideTitle: p.HideTitle}
	d, err := h.document(ctx, p.Url, vp, kindIframe, func(obj *objectview.Object) ([]byte, error) {
		return h.s.iframeDocument(obj, vp)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// document is the document of kind for the object at url as vp shows it:
// rendered by render once per object and key (kept in the object's cache
// entry), and named by its ref, so that the fast path can answer the same
// request later (fastpath.go).
func (h *handlers) document(ctx context.Context, url string, vp viewParams, kind byte, render func(*objectview.Object) ([]byte, error)) (*documentResponse, error) {
	e, err := h.s.object(ctx, url)
	if err != nil {
		return nil, lookupError(err)
	}
	ref := answerRef{druid: e.druid, key: vp.key(kind)}
	r, kept, err := e.renderedAnswer(ref.key, func() ([]byte, error) { return render(e.object) }, h.s.cache.grew)
	if err != nil {
		return nil, err
	}
	return answer(documentResponse{ref: ref, rendering: r, kept: kept}), nil
}

// The viewer's assets are prepared representations (asset.prepare):
// apiserve.Content answers their conditional and Range requests.

func (h *handlers) GetViewerScript(_ context.Context, _ embedapi.GetViewerScriptRequestObject) (embedapi.GetViewerScriptResponseObject, error) {
	return &embedapi.Respond{Representation: h.s.assets.js.plain}, nil
}

func (h *handlers) GetViewerStylesheet(_ context.Context, _ embedapi.GetViewerStylesheetRequestObject) (embedapi.GetViewerStylesheetResponseObject, error) {
	return &embedapi.Respond{Representation: h.s.assets.css.plain}, nil
}

func (h *handlers) GetMiradorBundle(_ context.Context, req embedapi.GetMiradorBundleRequestObject) (embedapi.GetMiradorBundleResponseObject, error) {
	a, err := h.s.assets.miradorBundle()
	if err != nil {
		return nil, &apiserve.Error{Status: http.StatusServiceUnavailable, Message: errMiradorMissing.Error(), Err: err}
	}
	return &embedapi.Respond{Representation: a.representation(req.Params.AcceptEncoding)}, nil
}
