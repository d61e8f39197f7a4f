// Package apidocs serves the browsable documentation of an OpenAPI
// service: a page at {base}/docs that renders the service's own
// {base}/openapi.json with Redoc, and the Redoc bundle itself, built into
// the binary (scripts/build-apidocs.sh copies the pinned npm package's
// bundle into ./bundle before `go build`). Nothing is fetched from a CDN:
// the page loads only the bundle and the document, both from the service.
package apidocs

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"github.com/sitelib/sitesvc/impl/apiserve/representation"
)

//go:embed bundle
var bundleFS embed.FS

// Cache lifetimes: the page is tiny and names the bundle by a fixed path,
// so it is revalidated; the bundle changes only with a new binary.
const (
	pageCacheControl   = "no-cache"
	bundleCacheControl = "public, max-age=3600"
)

// Paths under the service's base URL.
const (
	// PagePath is the documentation page.
	PagePath = "/docs"
	// BundlePath is the Redoc bundle the page loads.
	BundlePath = "/docs/redoc.standalone.js"
	// LicensePath is the bundle's third-party license notices.
	LicensePath = "/docs/redoc.standalone.js.LICENSE.txt"
)

// file is a served file: its representation with a strong ETag and, when
// it pays, a gzip representation with its own ETag (nil otherwise), both
// representation.Content (which answers 304, 412 and Range).
type file struct {
	plain, compressed *representation.Content
}

// newFile prepares body with its header fields; compress adds the gzip
// form (and makes both vary by Accept-Encoding).
func newFile(body []byte, contentType, cacheControl string, compress bool) (*file, error) {
	sum := sha256.Sum256(body)
	rep := func(body []byte, etag string) *representation.Content {
		c := representation.NewContent(body, etag, time.Time{}).
			WithHeader("Content-Type", contentType).
			WithHeader("Cache-Control", cacheControl).
			WithHeader("X-Content-Type-Options", "nosniff")
		if compress {
			c.WithHeader("Vary", "Accept-Encoding")
		}
		return c
	}
	f := &file{plain: rep(body, `"`+hex.EncodeToString(sum[:16])+`"`)}
	if compress {
		var buf bytes.Buffer
		zw, err := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		if err != nil {
			return nil, err
		}
		if _, err := zw.Write(body); err != nil {
			return nil, err
		}
		if err := zw.Close(); err != nil {
			return nil, err
		}
		f.compressed = rep(buf.Bytes(), `"`+hex.EncodeToString(sum[:16])+`-gzip"`).WithHeader("Content-Encoding", "gzip")
	}
	return f, nil
}

// serve writes f, compressed when the client accepts gzip.
func (f *file) serve(w http.ResponseWriter, r *http.Request) {
	if f.compressed != nil && representation.AcceptsEncoding(r.Header.Values("Accept-Encoding"), "gzip") {
		f.compressed.Serve(w, r)
		return
	}
	f.plain.Serve(w, r)
}

// redocCDNLogo is the one resource the Redoc bundle loads from outside
// (TestDocsPagesInBrowser fails on any request to another host).
const redocCDNLogo = "https://cdn.redoc.ly/redoc/logo-mini.svg"

// inlineLogo is an empty image in its place.
const inlineLogo = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E"

// Docs serves one service's documentation page and the bundle.
type Docs struct {
	page, bundle, license *file
	mux                   *http.ServeMux
}

var pageTemplate = template.Must(template.New("docs").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} — API documentation</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; } .missing { font-family: system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem; }</style>
</head>
<body>
{{if .Bundled}}<redoc spec-url="openapi.json"></redoc>
<script src="docs/redoc.standalone.js"></script>
{{else}}<div class="missing">
<h1>{{.Title}}</h1>
<p>The documentation viewer (Redoc) was not built into this binary: build it with <code>make build</code>.
The contract itself is here: <a href="openapi.yaml">openapi.yaml</a>, <a href="openapi.json">openapi.json</a>.</p>
</div>
{{end}}</body>
</html>
`))

// New prepares the documentation of the service titled title. The page
// refers to openapi.json and the bundle relative to {base}/docs, so it
// works under any base URL.
func New(title string) (*Docs, error) {
	js, jsErr := bundleFS.ReadFile("bundle/redoc.standalone.js")
	bundled := jsErr == nil && len(js) > 0
	var page bytes.Buffer
	if err := pageTemplate.Execute(&page, struct {
		Title   string
		Bundled bool
	}{title, bundled}); err != nil {
		return nil, fmt.Errorf("apidocs: rendering the page: %w", err)
	}
	d := &Docs{}
	var err error
	if d.page, err = newFile(page.Bytes(), "text/html; charset=utf-8", pageCacheControl, false); err != nil {
		return nil, fmt.Errorf("apidocs: %w", err)
	}
	if !bundled {
		d.mux = d.routes()
		return d, nil
	}
	// The side menu's "API docs by Redocly" link shows a logo loaded from
	// Redocly's CDN, unconditionally; the page must load nothing from
	// elsewhere, so the logo becomes an inline image (the link and its
	// text stay).
	js = bytes.ReplaceAll(js, []byte(redocCDNLogo), []byte(inlineLogo))
	if d.bundle, err = newFile(js, "text/javascript; charset=utf-8", bundleCacheControl, true); err != nil {
		return nil, fmt.Errorf("apidocs: compressing the bundle: %w", err)
	}
	if lic, err := bundleFS.ReadFile("bundle/redoc.standalone.js.LICENSE.txt"); err == nil {
		if d.license, err = newFile(lic, "text/plain; charset=utf-8", bundleCacheControl, false); err != nil {
			return nil, fmt.Errorf("apidocs: %w", err)
		}
	}
	d.mux = d.routes()
	return d, nil
}

// Bundled reports whether the Redoc bundle is built into the binary.
func (d *Docs) Bundled() bool { return d.bundle != nil }

// ServeHTTP serves PagePath, BundlePath and LicensePath (paths relative to
// the service's base URL) to GET and HEAD; another method is 405, another
// path 404.
func (d *Docs) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	d.mux.ServeHTTP(w, r)
}

// routes are the paths' handlers; a "GET" pattern also answers HEAD, and
// another method 405 with Allow.
func (d *Docs) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+PagePath, d.page.serve)
	for path, f := range map[string]*file{BundlePath: d.bundle, LicensePath: d.license} {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			if f == nil {
				http.Error(w, "the documentation viewer was not built into this binary (make build)", http.StatusServiceUnavailable)
				return
			}
			f.serve(w, r)
		})
	}
	return mux
}
