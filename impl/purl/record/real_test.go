package record

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/druid"
)

// realRecords lists the records of testdata/real (docs/purl.md, "Ingest"):
// real public XML from public repositories other than the one the shared
// corpus comes from, each named <druid>.public.xml (README.md says where
// each comes from).
func realRecords(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "real", "*.public.xml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no records in testdata/real: %v", err)
	}
	sort.Strings(files)
	return files
}

// TestIngestRealRecords: every record of testdata/real is accepted as the
// object its file is named for, its served form is stable, and what it
// says of the object (files, rights, title) is read from it.
func TestIngestRealRecords(t *testing.T) {
	ctx := context.Background()
	schema, err := NewMODSSchema(modsXSD(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range realRecords(t) {
		name := filepath.Base(p)
		id, err := druid.Parse(strings.TrimSuffix(name, ".public.xml"))
		if err != nil {
			t.Fatalf("%s: the file is not named for a druid: %v", name, err)
		}
		in, err := IngestWith(ctx, read(t, p), IngestOptions{Schema: schema, ID: id})
		if err != nil {
			t.Errorf("%s: refused: %v", name, err)
			continue
		}
		if in.Record.Druid != id {
			t.Errorf("%s: ingested as %s", name, in.Record.Druid)
		}
		again, err := IngestWith(ctx, in.Data, IngestOptions{Schema: schema, ID: id})
		if err != nil || string(again.Data) != string(in.Data) {
			t.Errorf("%s: the served record is not stable: %v", name, err)
		}
		t.Logf("%s: %s, %d files, rights %s; warnings: %q", name, in.Record.ContentType, len(in.Record.Files()), in.Record.Rights.Read, in.Warnings)
	}
}
