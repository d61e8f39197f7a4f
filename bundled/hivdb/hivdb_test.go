package hivdb_test

import (
	"path/filepath"
	"testing"

	"github.com/sitelib/sitesvc/bundled/hivdb"
	"github.com/sitelib/sitesvc/impl/resistance"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestSameAsShared: the built-in data is ../shared/data/hivdb's
// algorithms, reference tables and licence, byte for byte, and nothing else.
func TestSameAsShared(t *testing.T) {
	dir := filepath.Join(testkit.SharedDir(t), "data", "hivdb")
	testkit.SameFiles(t, hivdb.FS(), dir, "LICENSE", "algorithms", "reference")
}

// TestVersions: the four algorithms, named as their files say.
func TestVersions(t *testing.T) {
	vs, err := hivdb.Versions(hivdb.FS())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"ANRS_34": "ANRS 34", "HIVDB_10.2": "HIVDB 10.2", "HIVDB_9.8": "HIVDB 9.8", "Rega_10.0": "Rega v10.0.0 10.0.0"}
	if len(vs) != len(want) {
		t.Fatalf("versions %v", vs)
	}
	for _, v := range vs {
		if got := v.Name + " " + v.Version; got != want[v.File] || (v.Date == "") != (v.File == "Rega_10.0") {
			t.Errorf("%s: %q (%s), want %q", v.File, got, v.Date, want[v.File])
		}
	}
}

// TestEngineLoads: the resistance engine loads from the built-in data, and
// the reference directory alone is an fs.FS holding the tables.
func TestEngineLoads(t *testing.T) {
	e, err := resistance.Load(hivdb.FS())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Algorithm("HIVDB_9.8"); !ok || e.Default() == nil {
		t.Error("algorithms missing")
	}
	for _, name := range []string{"genes_hiv1.yml", "genotype-references_hiv1.json"} {
		if _, err := hivdb.Reference().Open(name); err != nil {
			t.Errorf("Reference(): %v", err)
		}
	}
}
