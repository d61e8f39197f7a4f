package apiserve

import (
	"bytes"
	"net/http"
	"strconv"
	"time"
)

// Content is a representation held in memory (a record, a rendered page or
// document) with its validators, prepared once so that serving it formats
// and allocates nothing per request.
//
// Serve answers the common request, a GET or HEAD without preconditions
// or Range, by writing the prepared header values and the body. Any other
// request goes through http.ServeContent, which implements conditional
// requests (RFC 9110 §13: If-Match, If-None-Match, If-Modified-Since,
// If-Unmodified-Since, If-Range; 304 and 412) and ranges (206, 416) on the
// same bytes, so both ways answer alike; the fast way only skips the work
// a request without those fields does not need.
type Content struct {
	body    []byte
	modTime time.Time

	etag, lastModified, length []string // prepared header values
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

// Body is the representation's bytes (not to be modified).
func (c *Content) Body() []byte { return c.body }

// ETag is the representation's entity tag as sent ("" when none).
func (c *Content) ETag() string {
	if c.etag == nil {
		return ""
	}
	return c.etag[0]
}

// Serve writes c as the answer to r. The header fields of the answer that
// are not the representation's own (Content-Type, Cache-Control, CORS…)
// are set on w before.
func (c *Content) Serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	if c.etag != nil {
		h["Etag"] = c.etag
	}
	if !unconditional(r) {
		ServeContent(w, r, "", c.modTime, bytes.NewReader(c.body))
		return
	}
	// What http.ServeContent writes for such a request.
	if c.lastModified != nil {
		h["Last-Modified"] = c.lastModified
	}
	h["Accept-Ranges"] = acceptRanges
	if h.Get("Content-Encoding") == "" {
		h["Content-Length"] = c.length
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(c.body)
	}
}

var acceptRanges = []string{"bytes"}

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
