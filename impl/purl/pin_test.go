package purl

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/publish"
	"github.com/sitelib/sitesvc/impl/purl/store"
)

// While another process publishes a new version and the service still serves the record it
// read (until it looks at the store again), the files it serves are those of that record's
// version, not the new one's: a reader never gets a record of one version with a file of
// another. Once the service looks again, record and files are the new version's.
func TestFilesComeFromTheRecordsVersion(t *testing.T) {
	t.Parallel()
	const id = "bb000kk0000"
	f := newFixture(t, func(cfg *Config) { cfg.Recheck = time.Hour })
	resp, rec := f.get(t, "/"+id+".xml")
	expect(t, resp, rec, http.StatusOK, typeXML)
	resp, oldFile := f.get(t, "/"+id+"/file/reading-room-south.png")
	expect(t, resp, oldFile, http.StatusOK, "image/png")

	// Another process: a new version whose south image has other bytes (same size, so
	// the record stays valid) and whose label changed.
	dir := filepath.Join(t.TempDir(), id)
	copySample(t, id, filepath.Dir(dir))
	newFile := bytes.Clone(oldFile)
	newFile[len(newFile)-1] ^= 0xff
	if err := os.WriteFile(filepath.Join(dir, "reading-room-south.png"), newFile, 0o644); err != nil {
		t.Fatal(err)
	}
	pub, _ := os.ReadFile(filepath.Join(dir, "public.xml"))
	pub = bytes.Replace(pub, []byte("<objectLabel>Two views"), []byte("<objectLabel>New views"), 1)
	if err := os.WriteFile(filepath.Join(dir, "public.xml"), pub, 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := store.OpenFS(filepath.Join(f.svc.fsStore.Root()))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := publish.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := publish.Write(context.Background(), other, obj); err != nil {
		t.Fatal(err)
	}

	_, body := f.get(t, "/"+id+".xml")
	if !bytes.Equal(body, rec) {
		t.Fatal("the record changed before the service looked again (the test needs the old one cached)")
	}
	checkServedFile(t, f, id, "reading-room-south.png", oldFile, "the old record", "the new version's")
	// The service looks again: both new.
	f.svc.forget(id)
	_, body = f.get(t, "/"+id+".xml")
	if !bytes.Contains(body, []byte("New views")) {
		t.Error("the new record is not served after a reload")
	}
	checkServedFile(t, f, id, "reading-room-south.png", newFile, "the new record", "the old version's")
}

// checkServedFile checks that object id's file name, alone and in the object's zip, is
// want: the record (as named by which) is served with its own version of the file, not
// with the other's.
func checkServedFile(t *testing.T, f *fixture, id, name string, want []byte, which, other string) {
	t.Helper()
	if _, body := f.get(t, "/"+id+"/file/"+name); !bytes.Equal(body, want) {
		t.Errorf("%s is served with %s file", which, other)
	}
	if got := zipEntry(t, f, "/"+id+".zip", name); !bytes.Equal(got, want) {
		t.Errorf("%s's zip holds %s file", which, other)
	}
}
