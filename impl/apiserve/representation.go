package apiserve

import (
	"io"
	"net/http"
	"time"

	"github.com/sitelib/sitesvc/impl/apiserve/representation"
)

// The representation of cached reads and the Accept parser live in
// impl/apiserve/representation (so that impl/apidocs, which apiserve
// imports, serves its files through them too); the services name them
// here.

// Content is a prepared representation: see representation.Content.
type Content = representation.Content

// NewContent prepares body with its strong ETag and modification time.
func NewContent(body []byte, etag string, modTime time.Time) *Content {
	return representation.NewContent(body, etag, modTime)
}

// MaxRanges is the most ranges one reply carries.
const MaxRanges = representation.MaxRanges

// ServeContent is http.ServeContent with the Range field tidied first.
func ServeContent(w http.ResponseWriter, r *http.Request, name string, modtime time.Time, content io.ReadSeeker) {
	representation.ServeContent(w, r, name, modtime, content)
}

// TidyRanges merges and bounds the ranges of r's Range field.
func TidyRanges(r *http.Request, size int64) *http.Request { return representation.TidyRanges(r, size) }

// AcceptItem is one element of an Accept-family field.
type AcceptItem = representation.AcceptItem

// ParseAccept is the one parser of the Accept family of fields.
func ParseAccept(values []string) []AcceptItem { return representation.ParseAccept(values) }

// AcceptQuality is the highest quality Accept gives any of mediaTypes.
func AcceptQuality(accept []string, mediaTypes ...string) float64 {
	return representation.AcceptQuality(accept, mediaTypes...)
}

// Prefers reports whether Accept rates one of these above all others.
func Prefers(accept []string, these, others []string) bool {
	return representation.Prefers(accept, these, others)
}

// AcceptsEncoding reports whether Accept-Encoding allows coding.
func AcceptsEncoding(acceptEncoding []string, coding string) bool {
	return representation.AcceptsEncoding(acceptEncoding, coding)
}
