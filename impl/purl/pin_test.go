package purl

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
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
	_, body = f.get(t, "/"+id+"/file/reading-room-south.png")
	if !bytes.Equal(body, oldFile) {
		t.Error("the old record is served with the new version's file")
	}
	if got := zipEntry(t, f, "/"+id+".zip", "reading-room-south.png"); !bytes.Equal(got, oldFile) {
		t.Error("the old record's zip holds the new version's file")
	}
	// The service looks again: both new.
	f.svc.forget(id)
	_, body = f.get(t, "/"+id+".xml")
	if !bytes.Contains(body, []byte("New views")) {
		t.Error("the new record is not served after a reload")
	}
	_, body = f.get(t, "/"+id+"/file/reading-room-south.png")
	if !bytes.Equal(body, newFile) {
		t.Error("the new record is served with the old version's file")
	}
	if got := zipEntry(t, f, "/"+id+".zip", "reading-room-south.png"); !bytes.Equal(got, newFile) {
		t.Error("the new record's zip holds the old version's file")
	}
}

// zipEntry downloads a zip and returns one entry's bytes.
func zipEntry(t *testing.T, f *fixture, path, name string) []byte {
	t.Helper()
	resp, body := f.get(t, path)
	expect(t, resp, body, http.StatusOK, "application/zip")
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	rc, err := zr.Open(name)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatalf("%s: %s: %v", path, name, err)
	}
	return data
}
