// Package mirador is the Embed viewer's Mirador bundle built into the
// binary. `make build` copies dist/mirador.min.js (and its licence notices)
// from impl/embed/viewer/node_modules, where scripts/build-viewer.sh
// installs the pinned npm package, and stops with an error when it is
// missing. A plain `go build` on a clone without it still compiles (only
// dist/README.md is then embedded); such a binary has no bundle, says so at
// start, and serves Mirador only from --viewer-dir.
package mirador

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var files embed.FS

// File is the bundle's name.
const File = "mirador.min.js"

// Bundle returns the embedded mirador.min.js, or ok=false when the binary
// was built without it.
func Bundle() (body []byte, ok bool) {
	b, err := fs.ReadFile(files, "dist/"+File)
	if err != nil || len(b) == 0 {
		return nil, false
	}
	return b, true
}
