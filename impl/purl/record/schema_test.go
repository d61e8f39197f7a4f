package record

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/bundled/modsschema"
	"github.com/sitelib/sitesvc/impl/testkit"
)

func modsXSD(t *testing.T) string {
	t.Helper()
	testkit.RequireTool(t, "xmllint") // Debian package libxml2-utils
	return testkit.MODSXSD(t)
}

// testSchema is the MODS 3.6 schema of ../shared, checked with xmllint.
func testSchema(t *testing.T) *MODSSchema {
	t.Helper()
	schema, err := NewMODSSchema(modsXSD(t))
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

func TestMODSSchema(t *testing.T) {
	m, err := NewMODSSchema(modsXSD(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, dir := range sampleDirs(t) {
		if err := m.Validate(ctx, read(t, filepath.Join(dir, "mods.xml"))); err != nil {
			t.Errorf("%s: %v", dir, err)
		}
	}
	sample := string(read(t, filepath.Join(sampleDirs(t)[0], "mods.xml")))
	for name, doc := range map[string]string{
		// Both pass ParseMODS: its checks stop at the top level.
		"unknown nested element": strings.Replace(sample, "<title>", "<bogus/><title>", 1),
		"bad enumerated value":   strings.Replace(sample, "<typeOfResource>still image<", "<typeOfResource>hologram<", 1),
	} {
		if _, err := ParseMODS([]byte(doc)); err != nil {
			t.Fatalf("%s: ParseMODS refuses it already: %v", name, err)
		}
		err := m.Validate(ctx, []byte(doc))
		if !errors.Is(err, ErrUnacceptable) || !strings.Contains(err.Error(), "MODS 3.6 schema: line ") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// External entities are neither fetched nor substituted.
	xxe := `<?xml version="1.0"?><!DOCTYPE mods [<!ENTITY x SYSTEM "file:///etc/passwd">]>` +
		`<mods xmlns="http://www.loc.gov/mods/v3" version="3.6"><titleInfo><title>&x;</title></titleInfo></mods>`
	if err := m.Validate(ctx, []byte(xxe)); err != nil && strings.Contains(err.Error(), "root:") {
		t.Errorf("entity substituted: %v", err)
	}
	if _, err := NewMODSSchema(filepath.Join(t.TempDir(), "missing.xsd")); err == nil {
		t.Error("a missing XSD is accepted")
	}
}

// TestMODSSchemaFS: a schema given as an fs.FS (the built-in one) is
// written to a private directory, checks records like the same schema on
// disk, is written again when that directory is removed under it, and
// Close removes it.
func TestMODSSchemaFS(t *testing.T) {
	testkit.RequireTool(t, "xmllint")
	m, err := NewMODSSchemaFS(modsschema.FS(), modsschema.Main)
	if err != nil {
		t.Fatal(err)
	}
	bad := []byte(`<mods xmlns="http://www.loc.gov/mods/v3" version="3.6"><titleInfo><nonsense/></titleInfo></mods>`)
	check := func() {
		t.Helper()
		if err := m.Validate(context.Background(), []byte(minimalMODS)); err != nil {
			t.Errorf("valid record refused: %v", err)
		}
		if err := m.Validate(context.Background(), bad); !errors.Is(err, ErrUnacceptable) {
			t.Errorf("invalid record: %v", err)
		}
	}
	check()
	if err := os.RemoveAll(m.dir); err != nil {
		t.Fatal(err)
	}
	check()
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m.dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Close left %s: %v", m.dir, err)
	}
}
