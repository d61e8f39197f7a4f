package purl

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestRealRecords publishes every record of record/testdata/real (real
// public XML from other public repositories than the shared corpus's:
// record/testdata/real/README.md) the way TestCorpus publishes the shared
// corpus, with `purl publish` and PUT through the real server, and checks
// what is served for each: .xml in the seed's shape and namespace-well-formed
// (xmllint), .mods valid MODS 3.6, the page, the manifest when there is
// something to paint, oEmbed and the embed iframe. Every file the record
// names is in the served .xml. None of these records may be refused: each
// is well-formed and is published under the druid its file is named for.
func TestRealRecords(t *testing.T) {
	xmllint := testkit.RequireTool(t, "xmllint")
	dir := filepath.Join("record", "testdata", "real")
	files, err := filepath.Glob(filepath.Join(dir, "*.public.xml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no records in %s: %v", dir, err)
	}
	sort.Strings(files)
	srv := testkit.StartServer(t)
	bin := testkit.Binary(t)
	token := testkit.AddToken(t, srv.DataDir, "publisher", "real")
	work := t.TempDir()
	mods := map[string][]byte{}
	manifests := map[string][]byte{}
	for _, p := range files {
		stem := strings.TrimSuffix(filepath.Base(p), ".public.xml")
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		outcome, served, err := corpusRecord(t, srv, bin, token, filepath.Join(work, stem), raw, nil, manifests)
		if err == nil {
			err = servedTruthfully(srv, xmllint, stem, raw)
		}
		if err != nil {
			t.Errorf("%s: %v", stem, err)
			continue
		}
		if served != nil {
			mods[stem] = served
		}
		t.Logf("%s: %s", stem, outcome)
	}
	validateMODS36(t, mods)
	t.Logf("%d real records served", len(files))
	t.Run("iiif-parser", func(t *testing.T) { parseWithIIIFParser(t, manifests) })
}

// servedTruthfully checks the served .xml of id against the raw record:
// namespace-well-formed, and naming every file the raw record names.
func servedTruthfully(srv *testkit.Server, xmllint, id string, raw []byte) error {
	body, err := corpusGet(srv, "/purl/"+id+".xml", http.StatusOK)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp("", "served-*.xml")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(body); err != nil {
		return err
	}
	f.Close()
	if out, err := exec.Command(xmllint, "--noout", f.Name()).CombinedOutput(); err != nil || len(out) > 0 {
		return fmt.Errorf("the served .xml is not namespace-well-formed: %v: %s", err, out)
	}
	rec, err := record.Parse(body)
	if err != nil {
		return err
	}
	for _, d := range declaredFiles(raw) {
		if _, ok := rec.File(d.name); !ok {
			return fmt.Errorf("file %q of the record is not in the served record", d.name)
		}
	}
	return nil
}
