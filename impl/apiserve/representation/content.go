// Package representation is the HTTP edge's one answer to a read of a
// prepared representation (Content: validators, conditional requests,
// Range) and its one parser of the Accept family of fields. impl/apiserve
// re-exports it (apiserve.Content, apiserve.AcceptQuality…); it is a
// package of its own so that what apiserve builds on (impl/apidocs) can
// use it too.
package representation

import (
	"bytes"
	"errors"
	"net/http"
	"net/textproto"
	"strconv"
	"sync/atomic"
	"time"
)

// Content is a representation held in memory (a record, a rendered page or
// document, a static asset) with its validators and header fields,
// prepared once so that serving it formats and allocates nothing per
// request. It is the one representation every cached read returns (PURL's
// records, pages and manifests, Hours' documents, Embed's viewer assets,
// the API documentation's files): 304, 412 and Range are answered here and
// nowhere else.
//
// Serve answers the common requests itself, with the prepared header
// values: a GET or HEAD without preconditions or Range (200), one whose
// If-None-Match is the representation's own tag (304, a cache
// revalidating), and one asking for a single satisfiable byte range,
// with no precondition but an If-Range naming the tag (206; shortcut.go).
// Any other request goes through http.ServeContent (via ServeContent,
// which tidies Range first), which implements conditional requests (RFC
// 9110 §13: If-Match, If-None-Match, If-Modified-Since,
// If-Unmodified-Since, If-Range; 304 and 412) and ranges (§14: 206, 416,
// several ranges) on the same bytes, so both ways answer alike
// (TestShortcutsAnswerAsServeContent); the short ways only skip the work
// those requests do not need: parsing every field, sniffing, formatting
// the header values.
//
// Content implements the generated Representation interface of every API
// package (gen/<svc>api.Respond): a handler answers with
// &<svc>api.Respond{Representation: content}.
type Content struct {
	body    []byte
	modTime time.Time

	etag, lastModified, length []string // prepared header values
	// header holds the representation's other fields (Content-Type,
	// Cache-Control, Content-Encoding, Vary…), set on every answer: 200,
	// 206, 304 and 412 alike (http.ServeContent removes what a 304 must
	// not carry).
	header []headerField
	// whole: Range is not served (WholeOnly).
	whole bool
	// lastRange is the header values of the last single range answered
	// (shortcut.go): a range asked for again, such as the first bytes of
	// a file every player or viewer reads, is answered with them.
	lastRange atomic.Pointer[preparedRange]
}

type headerField struct {
	name  string // canonical
	value []string
}

// NewContent prepares body with its strong ETag (quoted, as sent) and the
// time it last changed (zero: no Last-Modified).
func NewContent(body []byte, etag string, modTime time.Time) *Content {
	c := &Content{body: body, modTime: modTime, length: []string{strconv.Itoa(len(body))}}
	if etag != "" {
		c.etag = []string{etag}
	}
	if !modTime.IsZero() && !modTime.Equal(time.Unix(0, 0)) {
		c.lastModified = []string{modTime.UTC().Format(http.TimeFormat)}
	}
	return c
}

// WithHeader adds a header field that every answer carries (replacing a
// value set on the writer before), and returns c. It is part of preparing
// c: call it before c is shared.
func (c *Content) WithHeader(name string, values ...string) *Content {
	name = textproto.CanonicalMIMEHeaderKey(name)
	for i := range c.header {
		if c.header[i].name == name {
			c.header[i].value = values
			return c
		}
	}
	c.header = append(c.header, headerField{name: name, value: values})
	return c
}

// WholeOnly makes c answer whole, never in ranges: Range and If-Range are
// ignored (RFC 9110 §14.2 lets a server), and Accept-Ranges says none. For
// documents a client reads whole (JSON:API, XML records, pages,
// manifests), whose contracts then declare no 206 or 416 and whose
// generated clients type their answers as documents, not as byte strings.
// Part of preparing c: call it before c is shared.
func (c *Content) WholeOnly() *Content {
	c.whole = true
	return c
}

// Body is the representation's bytes (not to be modified).
func (c *Content) Body() []byte { return c.body }

// ETag is the representation's entity tag as sent ("" when none).
func (c *Content) ETag() string {
	if c.etag == nil {
		return ""
	}
	return c.etag[0]
}

// WriteResponse serves c as the answer to r (the generated
// Representation interface). A HEAD, which the edge routes as its GET,
// is answered as that GET: net/http sends no body for a HEAD, and the
// status and header fields are the GET's, as RFC 9110 §9.3.2 asks.
func (c *Content) WriteResponse(w http.ResponseWriter, r *http.Request) error {
	if r == nil {
		return ErrNoRequest
	}
	c.Serve(w, r)
	return nil
}

// ErrNoRequest is what WriteResponse answers without the request (a
// service whose strict handler does not bind it: <svc>api.BindRequests),
// a wiring mistake that would otherwise ignore every precondition.
var ErrNoRequest = errors.New("apiserve: a Content was answered without its request: bind it with <svc>api.BindRequests (or <svc>api.Bind)")

// Serve writes c as the answer to r. The header fields of the answer that
// are neither the representation's own nor prepared with WithHeader (CORS,
// Vary set by the edge…) are set on w before.
func (c *Content) Serve(w http.ResponseWriter, r *http.Request) {
	c.setFields(w)
	if c.whole {
		r = withoutRanges(r)
	}
	if !unconditional(r) {
		if !c.serveShortcut(w, r) { // shortcut.go
			c.serveGeneral(w, r)
		}
		return
	}
	h := w.Header()
	// What http.ServeContent writes for such a request, and Content-Length
	// also when the bytes are encoded (it leaves the field out then, not
	// knowing what a writer after it does; c's bytes are sent as they are).
	if c.lastModified != nil {
		h["Last-Modified"] = c.lastModified
	}
	h["Accept-Ranges"] = acceptRanges
	if c.whole {
		h["Accept-Ranges"] = acceptNoRanges
	}
	h["Content-Length"] = c.length
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(c.body)
	}
}

// setFields sets the representation's own header fields on w.
func (c *Content) setFields(w http.ResponseWriter) {
	h := w.Header()
	for _, f := range c.header {
		h[f.name] = f.value
	}
	if c.etag != nil {
		h["Etag"] = c.etag
	}
}

// serveGeneral answers any request through http.ServeContent.
func (c *Content) serveGeneral(w http.ResponseWriter, r *http.Request) {
	ServeContent(preconditionWriter{ResponseWriter: w, whole: c.whole}, r, "", c.modTime, bytes.NewReader(c.body))
}

var (
	acceptRanges   = []string{"bytes"}
	acceptNoRanges = []string{"none"}
)

// withoutRanges is r without Range and If-Range (a copy when it has them).
func withoutRanges(r *http.Request) *http.Request {
	if r.Header.Get("Range") == "" && r.Header.Get("If-Range") == "" {
		return r
	}
	r2 := new(http.Request)
	*r2 = *r
	r2.Header = r.Header.Clone()
	r2.Header.Del("Range")
	r2.Header.Del("If-Range")
	return r2
}

// preconditionWriter drops the representation's Content-Type and
// Content-Encoding from a 412, which http.ServeContent sends without a
// body (a 304 it strips itself): they would describe content that is not
// there.
type preconditionWriter struct {
	http.ResponseWriter
	whole bool // the representation answers whole: Accept-Ranges: none
}

func (w preconditionWriter) WriteHeader(code int) {
	h := w.Header()
	if code == http.StatusPreconditionFailed {
		delete(h, "Content-Type")
		delete(h, "Content-Encoding")
	}
	if w.whole && h.Get("Accept-Ranges") != "" {
		h["Accept-Ranges"] = acceptNoRanges
	}
	w.ResponseWriter.WriteHeader(code)
}

// unconditional reports whether r is a GET or HEAD that carries none of
// the fields that make http.ServeContent answer other than 200.
func unconditional(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	for _, f := range conditionalFields {
		if _, ok := r.Header[f]; ok {
			return false
		}
	}
	return true
}

var conditionalFields = []string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range", "Range"}
