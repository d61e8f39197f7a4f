package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ValidateXML checks the XML files against the XML Schema at xsd with
// xmllint (Debian package libxml2-utils; a test without it is ended as
// RequireTool says), never fetching anything from the network. The error
// holds what xmllint said.
func ValidateXML(t testing.TB, xsd string, files ...string) error {
	t.Helper()
	xmllint := RequireTool(t, "xmllint")
	out, err := exec.Command(xmllint, append([]string{"--noout", "--nonet", "--schema", xsd}, files...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("xmllint --schema %s: %w\n%s", filepath.Base(xsd), err, out)
	}
	return nil
}

// ValidateXMLDoc is ValidateXML of the document doc.
func ValidateXMLDoc(t testing.TB, xsd string, doc []byte) error {
	t.Helper()
	f := filepath.Join(t.TempDir(), "doc.xml")
	if err := os.WriteFile(f, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	return ValidateXML(t, xsd, f)
}

// MODSXSD is the MODS 3.6 schema of ../shared (data/schemas/mods/mods-3-6.xsd), against
// which the PURL service checks and serves MODS records.
func MODSXSD(t testing.TB) string {
	t.Helper()
	return filepath.Join(SharedDir(t), "data", "schemas", "mods", "mods-3-6.xsd")
}
