package record

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// corpusRecords returns the paths of the real records of
// ../shared/data/purl-records (public XML and MODS), skipping the test
// when the corpus is absent.
func corpusRecords(t *testing.T, suffix string) []testkit.File {
	t.Helper()
	dir := filepath.Join(filepath.Dir(testkit.RepoRoot(t)), "shared", "data", "purl-records")
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		t.Skip("../shared/data/purl-records is absent: no real records to read")
	}
	return testkit.Files(t, filepath.Join(dir, "*"+suffix))
}

// TestIngestCorpus: every real record of the corpus is accepted, and its
// served form is stable (read again, it is served byte for byte).
func TestIngestCorpus(t *testing.T) {
	ctx := context.Background()
	for _, f := range corpusRecords(t, ".public.xml") {
		p, data := f.Path, f.Data
		in, err := Ingest(ctx, data, nil)
		if err != nil {
			t.Errorf("%s: refused: %v", filepath.Base(p), err)
			continue
		}
		again, err := Ingest(ctx, in.Data, nil)
		if err != nil || !bytes.Equal(again.Data, in.Data) {
			t.Errorf("%s: the served record is not stable: %v", filepath.Base(p), err)
		}
	}
}

// TestPrepareMODSCorpus: every MODS record of the corpus (published beside
// a record, or embedded in one), of every era (3.3 to 3.7, or no version),
// is served as MODS 3.6 that validates against the MODS 3.6 schema, and
// preparing that again changes nothing.
func TestPrepareMODSCorpus(t *testing.T) {
	schema := testSchema(t)
	ctx := context.Background()
	docs := map[string][]byte{}
	for _, f := range corpusRecords(t, ".xml") {
		p, data := f.Path, f.Data
		if strings.HasSuffix(p, ".mods.xml") {
			docs[filepath.Base(p)] = data
			continue
		}
		root, err := parseTree(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, e := range root.elements() {
			if e.qname() == (xml.Name{Space: NSMODS, Local: "mods"}) {
				docs[filepath.Base(p)+" (embedded)"] = e.standalone().document()
			}
		}
	}
	versions := map[string]int{}
	for name, doc := range docs {
		m, err := ParseMODS(doc)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		versions[m.Version]++
		out, _, warnings := prepareServed(t, ctx, schema, name, doc)
		if out == nil {
			continue
		}
		if !bytes.Contains(out, []byte(MODS36Location)) {
			t.Errorf("%s: served MODS does not name the MODS 3.6 schema", name)
		}
		t.Logf("%s: MODS %q, %d warnings", name, m.Version, len(warnings))
	}
	for _, v := range []string{"3.3", "3.4", "3.5", "3.6", "3.7", ""} {
		if versions[v] == 0 {
			t.Errorf("the corpus has no MODS record of version %q: %v", v, versions)
		}
	}
	t.Logf("%d MODS records by version: %v", len(docs), versions)
}
