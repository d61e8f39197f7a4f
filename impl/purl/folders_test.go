package purl

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/publish"
)

// folderRecord names three files, two of them in folders.
func folderRecord(id string) string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<publicObject objectId="druid:%[1]s" published="2026-01-01T00:00:00Z">
  <identityMetadata><objectType>item</objectType><objectLabel>Folders</objectLabel></identityMetadata>
  <contentMetadata objectId="druid:%[1]s" type="file">
    <resource id="r1" sequence="1" type="file">
      <file id="data/a.csv" mimetype="text/csv" size="4"/>
      <file id="data/sub/b.txt" mimetype="text/plain" size="4"/>
      <file id="c.txt" mimetype="text/plain" size="4"/>
    </resource>
  </contentMetadata>
  <rightsMetadata><access type="discover"><machine><world/></machine></access><access type="read"><machine><world/></machine></access></rightsMetadata>
  <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Folders</dc:title></oai_dc:dc>
</publicObject>`, id)
}

// TestFilesInFolders: file ids with "/" are published (purl publish, PUT
// keeping them) and served at /{id}/file/{path}, with the slashes as they
// are or escaped; nothing else under the object, nor outside it, is reached
// by a path (docs/purl.md, "Files in folders").
func TestFilesInFolders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := "bz200fd2000"
	dir := filepath.Join(t.TempDir(), id)
	files := map[string]string{"data/a.csv": "a,b\n", "data/sub/b.txt": "bbb\n", "c.txt": "ccc\n"}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "public.xml"), []byte(folderRecord(id)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := publish.Tree(context.Background(), f.svc.store, dir); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		for name, body := range files {
			for _, path := range []string{name, escapeSlashes(name)} {
				resp, got := f.raw(t, http.MethodGet, "/"+id+"/file/"+path)
				if resp.StatusCode != http.StatusOK || string(got) != body {
					t.Errorf("%s: GET file/%s: %d %q", when, path, resp.StatusCode, got)
				}
			}
		}
	}
	check("after purl publish")
	// The record alone, again: the files in folders stay.
	resp, body := f.do(t, http.MethodPut, "/"+id+".xml", []byte(folderRecord(id)), xmlType, bearer("pub"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	check("after PUT")

	for _, path := range []string{
		"data/../c.txt", "data/./a.csv", "data//a.csv", "data/", "data", "data/sub", "/data/a.csv",
		"..%2Fpublic.xml", "../public.xml", "data%2F..%2F..%2Fpublic.xml", "%2E%2E/public.xml", "%2e%2e%2fpublic.xml",
		"data%5Ca.csv", "data/sub/..%2Fb.txt", "data%252Fa.csv", "public.xml", "mods.xml", "current/public.xml",
		"data/a.csv%00", "DATA/A.CSV",
	} {
		if resp, got := f.raw(t, http.MethodGet, "/"+id+"/file/"+path); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET file/%s: %d %q, want 404", path, resp.StatusCode, got)
		}
	}

	// The zip keeps the folders.
	resp, zipped := f.raw(t, http.MethodGet, "/"+id+".zip")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("zip: %d", resp.StatusCode)
	}
	names, zippedFiles := readZip(t, zipped)
	for name, body := range files {
		if got, ok := zippedFiles[name]; !ok {
			t.Errorf("zip lacks %s (has %v)", name, names)
		} else if string(got) != body {
			t.Errorf("zip's %s is %q, want %q", name, got, body)
		}
	}

	// A record naming a file in a folder the object does not have is refused.
	bad := bytes.Replace([]byte(folderRecord(id)), []byte("data/sub/b.txt"), []byte("data/other/b.txt"), 1)
	if resp, body := f.do(t, http.MethodPut, "/"+id+".xml", bad, xmlType, bearer("pub")); resp.StatusCode != http.StatusUnprocessableEntity {
		t.Errorf("PUT naming a missing file in a folder: %d %s", resp.StatusCode, body)
	}
}

func escapeSlashes(s string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte("/"), []byte("%2F")))
}
