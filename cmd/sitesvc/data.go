package main

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"strings"

	"github.com/sitelib/sitesvc/bundled/hivdb"
	"github.com/sitelib/sitesvc/bundled/modsschema"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/samples"
)

// The data the services run on is built into the binary (bundled/…,
// samples/); each has a flag that points at a directory instead.

// builtIn names the source of built-in data in logs and errors.
const builtIn = "built in"

// hivdbData is the HIV-1 data set of --hivdb-dir, or the built-in one.
func hivdbData(dir string) (fsys fs.FS, source string, err error) {
	if dir == "" {
		return hivdb.FS(), builtIn, nil
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, "", fmt.Errorf("--hivdb-dir: %w", err)
	}
	if !st.IsDir() {
		return nil, "", fmt.Errorf("--hivdb-dir %s is not a directory", dir)
	}
	return os.DirFS(dir), dir, nil
}

// algorithmVersions is "HIVDB 10.2 (2026-04-26), …" for logs and --version.
func algorithmVersions(fsys fs.FS) (string, error) {
	vs, err := hivdb.Versions(fsys)
	if err != nil {
		return "", err
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.String()
	}
	return strings.Join(out, ", "), nil
}

// openMODSSchema is the MODS schema checker of path (a --purl-mods-schema
// or --mods-schema value), or of the built-in schema when path is empty.
// Without xmllint the built-in schema degrades to structural checks (with
// a warning), while a schema the user named is an error.
func openMODSSchema(path string, logger *slog.Logger) (*record.MODSSchema, error) {
	if path != "" {
		return record.NewMODSSchema(path)
	}
	m, err := record.NewMODSSchemaFS(modsschema.FS(), modsschema.Main)
	if errors.Is(err, exec.ErrNotFound) {
		logger.Warn("MODS records are checked for structure only: xmllint is not installed (Debian package libxml2-utils)")
		return nil, nil
	}
	return m, err
}

// sampleObjects is the sample PURL objects of --purl-samples: the
// built-in ones (""), none ("none"), or a directory.
func sampleObjects(setting string) (fs.FS, string) {
	switch setting {
	case "":
		return samples.PURL(), builtIn
	case "none":
		return nil, ""
	default:
		return os.DirFS(setting), setting
	}
}
