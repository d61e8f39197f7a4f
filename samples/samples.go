// Package samples holds the sample PURL objects (samples/purl, written by
// cmd/purlsamples) built into the binary, so that the embedded default
// loads them into an empty store from any working directory.
package samples

import (
	"embed"
	"io/fs"
)

//go:embed purl
var files embed.FS

// PURL is the sample objects, one directory per druid.
func PURL() fs.FS {
	sub, err := fs.Sub(files, "purl")
	if err != nil {
		// fs.Sub fails only for an invalid path, and "purl" is valid.
		panic(err)
	}
	return sub
}
