package embed

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sitelib/sitesvc/impl/apiserve"
)

// assetFS holds the iframe template and the viewer's own script and
// stylesheet; they are small and belong to this package's code. Mirador is
// not here: it is an npm package installed beside the source (see
// scripts/build-viewer.sh), built into the binary by bundled/mirador and
// passed in as Config.MiradorBundle, or read from Config.ViewerDir.
//
//go:embed assets
var assetFS embed.FS

// asset is a served file with its strong ETag.
type asset struct {
	body []byte
	etag string // quoted

	// gzipped is body gzip-compressed, with its own ETag (a different
	// representation needs a different strong validator); nil when the
	// asset is not offered compressed.
	gzipped     []byte
	gzippedETag string

	// plain and compressed are the representations served (nil until
	// prepare; compressed nil when not offered): apiserve.Content answers
	// 304, 412 and Range for them as for every cached read.
	plain, compressed *apiserve.Content
}

// Media types of the assets.
const (
	typeJavaScript = "text/javascript; charset=utf-8"
	typeCSS        = "text/css; charset=utf-8"
)

// prepare makes a's representations with their header fields, once,
// before a is shared. An asset offered compressed varies by
// Accept-Encoding in both forms.
func (a *asset) prepare(contentType, cacheControl string) {
	rep := func(body []byte, etag, encoding string) *apiserve.Content {
		c := apiserve.NewContent(body, etag, time.Time{}).
			WithHeader("Content-Type", contentType).
			WithHeader("Cache-Control", cacheControl).
			WithHeader("X-Content-Type-Options", "nosniff")
		if encoding != "" {
			c.WithHeader("Content-Encoding", encoding)
		}
		if a.gzipped != nil {
			c.WithHeader("Vary", "Accept-Encoding")
		}
		return c
	}
	a.plain = rep(a.body, a.etag, "")
	if a.gzipped != nil {
		a.compressed = rep(a.gzipped, a.gzippedETag, "gzip")
	}
}

// representation is the form of a to send for an Accept-Encoding field
// (nil: absent).
func (a *asset) representation(acceptEncoding *string) *apiserve.Content {
	if a.compressed != nil && acceptEncoding != nil && apiserve.AcceptsEncoding([]string{*acceptEncoding}, "gzip") {
		return a.compressed
	}
	return a.plain
}

// withGzip adds the compressed representation.
func (a asset) withGzip() (asset, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.DefaultCompression)
	if err != nil {
		return a, err
	}
	if _, err := zw.Write(a.body); err != nil {
		return a, err
	}
	if err := zw.Close(); err != nil {
		return a, err
	}
	a.gzipped = buf.Bytes()
	a.gzippedETag = `"` + a.etagToken() + `-gzip"`
	return a, nil
}

func newAsset(body []byte) asset {
	sum := sha256.Sum256(body)
	return asset{body: body, etag: `"` + hex.EncodeToString(sum[:16]) + `"`}
}

// etagToken is the ETag without quotes, used to version asset URLs so a
// changed asset is never served from a stale browser cache.
func (a asset) etagToken() string { return a.etag[1 : len(a.etag)-1] }

// assets are the viewer files the service serves.
type assets struct {
	js, css asset

	miradorPath string
	mu          sync.Mutex
	mirador     *asset // nil until read; reread when the file changes
	miradorSize int64
	miradorTime time.Time
}

// miradorFile is the bundle's name in the viewer directory.
const miradorFile = "mirador.min.js"

func newAssets(viewerDir string, bundle []byte) (*assets, error) {
	js, err := fs.ReadFile(assetFS, "assets/viewer.js")
	if err != nil {
		return nil, fmt.Errorf("embedded viewer script: %w", err)
	}
	css, err := fs.ReadFile(assetFS, "assets/viewer.css")
	if err != nil {
		return nil, fmt.Errorf("embedded viewer stylesheet: %w", err)
	}
	a := &assets{js: newAsset(js), css: newAsset(css)}
	a.js.prepare(typeJavaScript, assetCacheControl)
	a.css.prepare(typeCSS, assetCacheControl)
	switch {
	case viewerDir != "":
		a.miradorPath = filepath.Join(viewerDir, miradorFile)
	case len(bundle) > 0:
		// Built in: compressed once here, never re-read.
		m, err := newAsset(bundle).withGzip()
		if err != nil {
			return nil, fmt.Errorf("compressing the built-in Mirador bundle: %w", err)
		}
		m.prepare(typeJavaScript, bundleCacheControl)
		a.mirador = &m
	}
	return a, nil
}

// errMiradorMissing: the bundle is not installed in the viewer directory.
var errMiradorMissing = errors.New("the Mirador bundle is not installed (run scripts/build-viewer.sh)")

// miradorMissing reports whether the bundle file is absent. It only looks:
// reading and compressing waits for the first request.
func (a *assets) miradorMissing() bool {
	if a.miradorPath == "" {
		return a.mirador == nil
	}
	st, err := os.Stat(a.miradorPath)
	return err != nil || !st.Mode().IsRegular()
}

// miradorBundle returns the bundle, reading it again only when its size or
// modification time changed (build-viewer.sh may install it while the
// server runs).
func (a *assets) miradorBundle() (*asset, error) {
	if a.miradorPath == "" {
		if a.mirador != nil {
			return a.mirador, nil
		}
		return nil, errMiradorMissing
	}
	st, err := os.Stat(a.miradorPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errMiradorMissing, err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.mirador != nil && st.Size() == a.miradorSize && st.ModTime().Equal(a.miradorTime) {
		return a.mirador, nil
	}
	body, err := os.ReadFile(a.miradorPath)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errMiradorMissing, err)
	}
	m, err := newAsset(body).withGzip()
	if err != nil {
		return nil, fmt.Errorf("compressing the Mirador bundle %s: %w", a.miradorPath, err)
	}
	m.prepare(typeJavaScript, bundleCacheControl)
	a.mirador, a.miradorSize, a.miradorTime = &m, st.Size(), st.ModTime()
	return a.mirador, nil
}
