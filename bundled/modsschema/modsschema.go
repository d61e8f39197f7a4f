// Package modsschema is the MODS 3.6 XML Schema the PURL service checks
// published MODS records against, built into the binary: mods-3-6.xsd and
// the two schemas it imports by relative location, mods-xml.xsd (the xml:
// namespace) and xlink.xsd. See README.md for where they come from and
// their terms. The files are copies of ../shared/data/schemas/mods; the
// package's tests keep them equal.
package modsschema

import (
	"embed"
	"io/fs"
)

//go:embed mods-3-6.xsd mods-xml.xsd xlink.xsd
var files embed.FS

// Main is the schema to validate against; the others are its imports.
const Main = "mods-3-6.xsd"

// FS holds the three schema files side by side.
func FS() fs.FS { return files }
