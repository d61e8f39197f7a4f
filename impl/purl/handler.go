package purl

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/store"
)

// Media types of the representations.
const (
	typeHTML     = "text/html; charset=utf-8"
	typeXML      = "application/xml; charset=utf-8"
	typeMODS     = "application/mods+xml; charset=utf-8"
	typeManifest = `application/ld+json;profile="http://iiif.io/api/presentation/3/context.json"`
	typeText     = "text/plain; charset=utf-8"
)

var _ purlapi.StrictServerInterface = (*Service)(nil)

// GetObject implements purlapi.StrictServerInterface: the HTML page.
func (s *Service) GetObject(ctx context.Context, req purlapi.GetObjectRequestObject) (purlapi.GetObjectResponseObject, error) {
	if r := s.pageRedirect(ctx, req.Id); r != nil {
		return respond(r), nil
	}
	resp, err := s.readRepresentation(ctx, req.Id, "html")
	if c, ok := resp.(*content); ok {
		c.vary = varyAccept // Accept may redirect to the manifest (pageRedirect)
	}
	return resp, err
}

// GetObjectHtml implements purlapi.StrictServerInterface: the same bytes as GetObject.
func (s *Service) GetObjectHtml(ctx context.Context, req purlapi.GetObjectHtmlRequestObject) (purlapi.GetObjectHtmlResponseObject, error) {
	return s.readRepresentation(ctx, req.Id, "html")
}

// GetPublicXml implements purlapi.StrictServerInterface: the public XML as published.
func (s *Service) GetPublicXml(ctx context.Context, req purlapi.GetPublicXmlRequestObject) (purlapi.GetPublicXmlResponseObject, error) {
	return s.readRepresentation(ctx, req.Id, "xml")
}

// GetMods implements purlapi.StrictServerInterface: the MODS record as published.
func (s *Service) GetMods(ctx context.Context, req purlapi.GetModsRequestObject) (purlapi.GetModsResponseObject, error) {
	return s.readRepresentation(ctx, req.Id, "mods")
}

// GetManifest implements purlapi.StrictServerInterface: the IIIF manifest
// (a IIIF Collection for a collection object).
func (s *Service) GetManifest(ctx context.Context, req purlapi.GetManifestRequestObject) (purlapi.GetManifestResponseObject, error) {
	return s.readRepresentation(ctx, req.Id, "manifest")
}

// respond answers an operation with one of PURL's other representations
// (failure, redirect, zipResponse, refusedImageInfo): the generated
// purlapi.Respond implements every operation's response interface.
func respond(r purlapi.Representation) *purlapi.Respond {
	return &purlapi.Respond{Representation: r}
}

// served answers an operation with content (the common answer), kept in
// the request's exchange: no allocation for the content and its Respond.
func served(ctx context.Context, c content) *content {
	p := &exchangeFrom(ctx).answer
	*p = c
	p.Respond.Representation = p
	return p
}

// readResponse is what the GET operations answer: served content or
// another representation in a Respond.
type readResponse interface {
	purlapi.GetObjectResponseObject
	purlapi.GetObjectHtmlResponseObject
	purlapi.GetPublicXmlResponseObject
	purlapi.GetModsResponseObject
	purlapi.GetManifestResponseObject
	purlapi.GetManifestIiif3ResponseObject
}

// readObject resolves the identifier of a request to a published, visible
// object, or the failure to answer.
func (s *Service) readObject(ctx context.Context, rawID string) (*object, *failure) {
	id, err := druid.Parse(rawID)
	if err != nil {
		return nil, s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: %q is not a druid", rawID))
	}
	obj, err := s.object(ctx, id)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: no object %s", id.Qualified()))
		}
		s.cfg.Logger.ErrorContext(ctx, "purl: loading object", "druid", id.Qualified(), "err", err)
		return nil, s.fail(ctx, http.StatusInternalServerError, "internal error: the object cannot be read")
	}
	return obj, nil
}

func (s *Service) readRepresentation(ctx context.Context, rawID, kind string) (readResponse, error) {
	obj, fail := s.readObject(ctx, rawID)
	if fail != nil {
		return respond(fail), nil
	}
	c := content{req: exchangeFrom(ctx).req, cacheControl: s.cacheControl(true)}
	var rep representation
	switch kind {
	case "html":
		rep, c.ctype = obj.html, ctypeHTML
	case "xml":
		rep, c.ctype = obj.public, ctypeXML
	case "mods":
		if obj.modsDoc.body == nil {
			return respond(s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: %s has no MODS record", obj.rec.Druid.Qualified()))), nil
		}
		rep, c.ctype = obj.modsDoc, ctypeMODS
	case "manifest":
		if obj.manifest.body == nil {
			return respond(s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: %s has no IIIF manifest (nothing to show on a canvas: no image, page, audio or video)", obj.rec.Druid.Qualified()))), nil
		}
		rep, c.ctype = obj.manifest, ctypeManifest
	}
	if kind != "html" {
		// Records are data: a browser showing one runs nothing in it
		// (an XML record could carry XHTML script elements).
		c.csp = dataCSP
	}
	c.prepared = rep.served
	return served(ctx, c), nil
}

// GetFile implements purlapi.StrictServerInterface: one file of the
// object, with its rights enforced.
func (s *Service) GetFile(ctx context.Context, req purlapi.GetFileRequestObject) (purlapi.GetFileResponseObject, error) {
	obj, fail := s.readObject(ctx, req.Id)
	if fail != nil {
		return respond(fail), nil
	}
	id := obj.rec.Druid
	f, ok := obj.rec.File(req.Name)
	if !ok {
		return respond(s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: %s has no file %q", id.Qualified(), req.Name))), nil
	}
	ex := exchangeFrom(ctx)
	download := req.Params.Download != nil && *req.Params.Download
	world := obj.rec.Rights.FileWorldReadable(f.Name, s.cfg.Now())
	if world {
		// anyone may read it: no decision to make, and a small one is
		// served from memory (heldfiles.go)
		if h := s.held(ctx, obj, f.Name, f.MimeType); h != nil {
			d := 0
			if download {
				d = 1
			}
			return served(ctx, content{req: ex.req, ctype: h.ctype, cacheControl: s.cacheControl(true),
				disposition: h.disposition[d], csp: fileCSP, prepared: h.content}), nil
		}
	} else if status, msg := s.fileAccessFor(ex.req, obj.rec, f.Name); status != 0 { // access.go
		fail := s.fail(ctx, status, msg)
		fail.vary = "Authorization"
		return respond(fail), nil
	}
	blob, err := s.openFile(ctx, obj, f.Name) // pin.go
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return respond(s.fail(ctx, http.StatusNotFound, fmt.Sprintf("not found: file %q of %s is not in the store", req.Name, id.Qualified()))), nil
		}
		s.cfg.Logger.ErrorContext(ctx, "purl: opening file", "druid", id.Qualified(), "file", req.Name, "err", err)
		return respond(s.fail(ctx, http.StatusInternalServerError, "internal error: the file cannot be read")), nil
	}
	disposition := "inline"
	if download || !inlineType(f.MimeType) { // filetypes.go
		disposition = "attachment"
	}
	c := content{
		req:          ex.req,
		ctype:        []string{f.MimeType},
		etag:         fmt.Sprintf(`"%x-%x"`, blob.Info.Size(), blob.Info.ModTime().UnixNano()),
		cacheControl: s.cacheControl(world),
		disposition:  []string{mime.FormatMediaType(disposition, map[string]string{"filename": f.Name})},
		name:         f.Name,
		modTime:      blob.Info.ModTime(),
		body:         blob.File,
		closer:       blob.File,
		csp:          fileCSP,
	}
	if !world {
		c.vary = varyAuthorization
	}
	return served(ctx, c), nil
}

// cacheControl is the Cache-Control of object responses, worked out once
// in New (it is on every response).
func (s *Service) cacheControl(public bool) []string {
	if public {
		return s.cacheControlPublic
	}
	return s.cacheControlPrivate
}

// Header values shared by every response that sends them (never modified:
// a handler replaces a field, it does not edit a value in place).
var (
	nosniff           = []string{"nosniff"}
	dataCSP           = []string{"default-src 'none'; sandbox"}
	varyAuthorization = []string{"Authorization, Cookie"}
	varyAccept        = []string{"Accept"}
	ctypeHTML         = []string{typeHTML}
	ctypeXML          = []string{typeXML}
	ctypeMODS         = []string{typeMODS}
	ctypeManifest     = []string{typeManifest}
)

// content is a successful read. It is written by http.ServeContent, which
// the generated response types cannot express: conditional requests (304
// with the validators, 412), Range (206, 416), HEAD without a body, and the
// charset parameters of the media types.
//
// A representation held in memory (record, page, manifest) is prepared:
// apiserve.Content writes it. A file is streamed from the store.
type content struct {
	// Respond makes a *content the answer of any operation itself (see
	// served): one allocation per read for both.
	purlapi.Respond
	req          *http.Request // as received: HEAD stays HEAD
	ctype        []string
	cacheControl []string
	vary         []string
	disposition  []string
	csp          []string
	prepared     *apiserve.Content
	// A file: its ETag, name, time and bytes.
	etag    string
	name    string
	modTime time.Time
	body    io.ReadSeeker
	closer  io.Closer
}

// WriteResponse makes content a purlapi.Representation: c.req is the
// request as received (a HEAD stays a HEAD for http.ServeContent).
func (c content) WriteResponse(w http.ResponseWriter, _ *http.Request) error { return c.serve(w) }

func (c content) serve(w http.ResponseWriter) error {
	if c.closer != nil {
		defer c.closer.Close()
	}
	h := w.Header()
	h["Content-Type"] = c.ctype
	h["X-Content-Type-Options"] = nosniff
	h["Cache-Control"] = c.cacheControl
	if c.vary != nil {
		h["Vary"] = c.vary
	}
	if c.disposition != nil {
		h["Content-Disposition"] = c.disposition
	}
	if c.csp != nil {
		h["Content-Security-Policy"] = c.csp
	}
	if c.prepared != nil {
		c.prepared.Serve(w, c.req)
		return nil
	}
	h.Set("ETag", c.etag)
	apiserve.ServeContent(w, c.req, c.name, c.modTime, c.body)
	return nil
}

// failure is a refusal by a handler. It is written exactly like the
// validator's refusals (writeFailure), which the generated error types
// cannot do: they send text/plain without a charset and cannot answer a
// browser's 404 with an HTML page.
type failure struct {
	req    *http.Request
	base   string
	status int
	msg    string
	vary   string
	// retryAfter, when set, is the Retry-After of a 503.
	retryAfter string
}

func (s *Service) fail(ctx context.Context, status int, msg string) *failure {
	return &failure{req: exchangeFrom(ctx).req, base: s.cfg.BaseURL, status: status, msg: msg}
}

// WriteResponse makes failure a purlapi.Representation.
func (f *failure) WriteResponse(w http.ResponseWriter, _ *http.Request) error { return f.write(w) }

func (f *failure) write(w http.ResponseWriter) error {
	if f.vary != "" {
		w.Header().Set("Vary", f.vary)
	}
	if f.retryAfter != "" {
		w.Header().Set("Retry-After", f.retryAfter)
	}
	return writeFailure(w, f.req, f.base, f.status, f.msg)
}

// writeFailure writes an error: an HTML page for browsers asking for
// something that is not there, one line of plain text otherwise.
func writeFailure(w http.ResponseWriter, r *http.Request, base string, status int, msg string) error {
	h := w.Header()
	h.Del("ETag")
	h.Del("Last-Modified")
	h.Del("Content-Disposition")
	h.Set("Cache-Control", "no-cache")
	h.Add("Vary", "Accept")
	h.Set("X-Content-Type-Options", "nosniff")
	switch status {
	case http.StatusUnauthorized:
		h.Set("WWW-Authenticate", `Bearer realm="purl"`)
	case http.StatusRequestEntityTooLarge:
		// The rest of the body is not read: the connection cannot carry
		// another request (net/http closes it on its own only when it
		// sees the limit through its own ResponseWriter).
		h.Set("Connection", "close")
	}
	if status == http.StatusNotFound && r.Method != http.MethodPut && prefersHTML(r) {
		h.Set("Content-Type", typeHTML)
		w.WriteHeader(status)
		return errorPage.Execute(w, map[string]any{"Status": status, "Text": http.StatusText(status), "Message": msg, "Base": base})
	}
	h.Set("Content-Type", typeText)
	w.WriteHeader(status)
	_, err := fmt.Fprintln(w, msg)
	return err
}

func (s *Service) atLocation(r *http.Request, location string) bool {
	nets := s.cfg.LocationNetworks[location]
	if len(nets) == 0 {
		return false
	}
	ip, ok := s.clientAddr(r) // location.go
	if !ok {
		return false
	}
	for _, n := range nets {
		if n.Contains(ip) {
			return true
		}
	}
	return false
}

// prefersHTML reports whether the Accept header rates text/html above
// plain text (or names it first at the same quality), as browsers do.
func prefersHTML(r *http.Request) bool {
	return apiserve.Prefers(r.Header.Values("Accept"), htmlTypes, plainTypes)
}

var htmlTypes, plainTypes = []string{"text/html"}, []string{"text/plain"}

var errorPage = template.Must(template.New("error").Parse(`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>{{.Status}} {{.Text}}</title></head>
<body>
<h1>{{.Status}} {{.Text}}</h1>
<p>{{.Message}}</p>
<p>Persistent URLs look like <code>{{.Base}}/bb000kk0000</code>.</p>
</body>
</html>
`))
