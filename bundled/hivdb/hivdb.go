// Package hivdb is the HIV-1 data the Algorithm (SOAP) service runs on, built into the
// binary: the four bundled ASI algorithms (algorithms/*.xml), the reference
// tables (reference/*) and their licence (LICENSE: public domain, The
// Unlicense). The files are copies of ../shared/data/hivdb; the package's
// tests keep them equal. `sitesvc serve --hivdb-dir DIR` reads a directory
// of the same layout instead (a newer release without a rebuild).
package hivdb

import (
	"embed"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
)

//go:embed LICENSE algorithms reference
var files embed.FS

// FS is the bundled data: LICENSE, algorithms/ and reference/.
func FS() fs.FS { return files }

// Reference is the bundled reference/ directory alone (consensus
// sequences, drugs, mutation tables, subtype references), the form an
// aligner or the resistance engine takes it in.
func Reference() fs.FS { return mustSub(files, "reference") }

// ReferenceOf is the reference/ directory of an hivdb data set of this
// layout (the bundled one or an --hivdb-dir override).
func ReferenceOf(fsys fs.FS) (fs.FS, error) {
	sub, err := fs.Sub(fsys, "reference")
	if err != nil {
		return nil, fmt.Errorf("hivdb reference directory: %w", err)
	}
	return sub, nil
}

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		// fs.Sub fails only for an invalid path, and dir is a constant.
		panic(err)
	}
	return sub
}

// AlgorithmVersion is what an algorithm file says about itself.
type AlgorithmVersion struct {
	File    string // file stem: HIVDB_10.2
	Name    string // ALGNAME
	Version string // ALGVERSION
	Date    string // ALGDATE
}

func (v AlgorithmVersion) String() string {
	if v.Date == "" {
		return v.Name + " " + v.Version
	}
	return fmt.Sprintf("%s %s (%s)", v.Name, v.Version, v.Date)
}

// Versions reads the name, version and date of every algorithm in
// algorithms/ of fsys, in file-name order. It reads only the head of each
// file, so it is cheap enough for `sitesvc --version`.
func Versions(fsys fs.FS) ([]AlgorithmVersion, error) {
	names, err := fs.Glob(fsys, "algorithms/*.xml")
	if err != nil {
		return nil, fmt.Errorf("listing algorithms: %w", err)
	}
	if len(names) == 0 {
		return nil, errors.New("no algorithms/*.xml")
	}
	slices.Sort(names)
	out := make([]AlgorithmVersion, 0, len(names))
	for _, name := range names {
		v, err := headerOf(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func headerOf(fsys fs.FS, name string) (AlgorithmVersion, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return AlgorithmVersion{}, fmt.Errorf("reading %s: %w", name, err)
	}
	defer f.Close()
	v := AlgorithmVersion{File: path.Base(name[:len(name)-len(".xml")])}
	dec := xml.NewDecoder(f)
	var field *string
	// The header fields precede DEFINITIONS; ALGDATE is optional.
header:
	for v.Name == "" || v.Version == "" || v.Date == "" {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return AlgorithmVersion{}, fmt.Errorf("reading %s: %w", name, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "DEFINITIONS":
				break header
			case "ALGNAME":
				field = &v.Name
			case "ALGVERSION":
				field = &v.Version
			case "ALGDATE":
				field = &v.Date
			default:
				field = nil
			}
		case xml.CharData:
			if field != nil {
				*field += strings.TrimSpace(string(t))
			}
		case xml.EndElement:
			field = nil
		}
	}
	if v.Name == "" || v.Version == "" {
		return AlgorithmVersion{}, fmt.Errorf("%s: no ALGNAME or ALGVERSION", name)
	}
	return v, nil
}
