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
	"strconv"
	"strings"
	"sync"
	"time"
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

// matches reports whether an If-None-Match header names a's ETag.
func (a asset) matches(ifNoneMatch string) bool {
	return ifNoneMatch != "" && etagListContains(ifNoneMatch, a.etag)
}

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
	switch {
	case viewerDir != "":
		a.miradorPath = filepath.Join(viewerDir, miradorFile)
	case len(bundle) > 0:
		// Built in: compressed once here, never re-read.
		m, err := newAsset(bundle).withGzip()
		if err != nil {
			return nil, fmt.Errorf("compressing the built-in Mirador bundle: %w", err)
		}
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
	a.mirador, a.miradorSize, a.miradorTime = &m, st.Size(), st.ModTime()
	return a.mirador, nil
}

// acceptsGzip reports whether an Accept-Encoding value accepts gzip: a
// "gzip" (or "x-gzip") or "*" coding whose q is not 0.
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		if coding != "gzip" && coding != "x-gzip" && coding != "*" {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
				if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					q = f
				}
			}
		}
		return q > 0
	}
	return false
}

// etagListContains reports whether the If-None-Match value list holds etag
// (weak comparison, as RFC 9110 asks for If-None-Match) or is "*".
func etagListContains(list, etag string) bool {
	want := trimWeak(etag)
	for len(list) > 0 {
		// Skip separators.
		for len(list) > 0 && (list[0] == ' ' || list[0] == ',' || list[0] == '\t') {
			list = list[1:]
		}
		if list == "" {
			break
		}
		if list[0] == '*' {
			return true
		}
		var tag string
		start := 0
		if len(list) >= 2 && list[:2] == "W/" {
			start = 2
		}
		if start >= len(list) || list[start] != '"' {
			return false
		}
		end := start + 1
		for end < len(list) && list[end] != '"' {
			end++
		}
		if end >= len(list) {
			return false
		}
		tag, list = list[:end+1], list[end+1:]
		if trimWeak(tag) == want {
			return true
		}
	}
	return false
}

func trimWeak(tag string) string {
	if len(tag) >= 2 && tag[:2] == "W/" {
		return tag[2:]
	}
	return tag
}
