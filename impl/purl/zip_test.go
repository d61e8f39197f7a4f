package purl

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/druid"
)

// TestZip: "Download all" gives every file of the object in a zip, with
// the rights of the files themselves.
func TestZip(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	resp, body := f.get(t, "/bb000kk0000.zip")
	expect(t, resp, body, http.StatusOK, "application/zip")
	if cd := resp.Header.Get("Content-Disposition"); cd != "attachment; filename=bb000kk0000.zip" {
		t.Errorf("Content-Disposition %q", cd)
	}
	names, files := readZip(t, body)
	for _, name := range names {
		want, _ := os.ReadFile(filepath.Join(f.samples, "bb000kk0000", name))
		if !bytes.Equal(files[name], want) {
			t.Errorf("%s: zipped bytes differ", name)
		}
	}
	if strings.Join(names, " ") != "reading-room-north.png reading-room-south.png" {
		t.Errorf("entries %v", names)
	}
	if resp, body := f.raw(t, http.MethodHead, "/bb000kk0000.zip"); resp.StatusCode != http.StatusOK || len(body) != 0 {
		t.Errorf("HEAD: %d, %d bytes", resp.StatusCode, len(body))
	}
	if _, page := f.get(t, "/bb000kk0000"); !strings.Contains(string(page), `<a id="download-all" href="`+base+`/bb000kk0000.zip" download>`) {
		t.Error("page lacks Download all")
	}

	for _, c := range []struct {
		path, token string
		status      int
	}{
		{"/bn888yz8888.zip", "", http.StatusUnauthorized},
		{"/bn888yz8888.zip", "other", http.StatusForbidden},
		{"/bn888yz8888.zip", "member", http.StatusOK},
		{"/bk666tv6666.zip", "", http.StatusForbidden},
		{"/bm777wx7777.zip", "", http.StatusForbidden},
		{"/bp999bc9999.zip", "", http.StatusNotFound},
		{"/bc999df9999.zip", "", http.StatusNotFound},
		{"/bc000df0001.zip", "", http.StatusNotFound}, // a collection without files
	} {
		var headers []string
		if c.token != "" {
			headers = append(headers, bearer(c.token))
		}
		resp, body := f.get(t, c.path, headers...)
		if resp.StatusCode != c.status {
			t.Errorf("GET %s (token %q): %d %s, want %d", c.path, c.token, resp.StatusCode, body, c.status)
		}
	}
	for _, id := range []string{"bn888yz8888", "bk666tv6666", "bm777wx7777"} {
		if _, page := f.get(t, "/"+id); strings.Contains(string(page), "download-all") {
			t.Errorf("%s: page offers Download all to readers who cannot download", id)
		}
	}
}

// TestZipIsStreamed: a zip of a 48 MiB file is written as it is read,
// never held whole: the response is chunked and the process allocates far
// less than the archive's size while serving it.
func TestZipIsStreamed(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	id, _ := druid.Parse("bz321xy4321")
	const size = 48 << 20
	big := bytes.Repeat([]byte("0123456789abcdef"), size/16)
	if _, err := f.svc.store.Write(ctx, id, "big.bin", bytes.NewReader(big)); err != nil {
		t.Fatal(err)
	}
	rec := strings.Replace(citationRecord("bz321xy4321"), `<contentMetadata objectId="druid:bz321xy4321" type="file"/>`,
		`<contentMetadata objectId="druid:bz321xy4321" type="file"><resource sequence="1" type="file"><file id="big.bin" mimetype="application/octet-stream" size="50331648"/></resource></contentMetadata>`, 1)
	rec = strings.Replace(rec, "<none/>", "<world/>", 1)
	resp, body := f.do(t, http.MethodPut, "/bz321xy4321.xml", []byte(rec), xmlType, bearer("pub"))
	expect(t, resp, body, http.StatusCreated, "application/json")
	big = nil

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	// Straight to the server, not through the validating client (which
	// reads the whole body to check it).
	r, err := http.Get(f.srv.URL + "/bz321xy4321.zip")
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, r.Body)
	r.Body.Close()
	runtime.ReadMemStats(&after)
	if err != nil || r.StatusCode != http.StatusOK || n < size {
		t.Fatalf("GET zip: %d, %d bytes, %v", r.StatusCode, n, err)
	}
	if r.ContentLength != -1 {
		t.Errorf("Content-Length %d: the archive was not streamed", r.ContentLength)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("serving a %d-byte zip allocated %d bytes: it is buffered", n, alloc)
	}
}

// readZip reads a whole zip: its entries' names in order and their bytes.
func readZip(t *testing.T, data []byte) ([]string, map[string][]byte) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	files := map[string][]byte{}
	for _, e := range zr.File {
		r, err := e.Open()
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		names = append(names, e.Name)
		files[e.Name] = b
	}
	return names, files
}

// zipEntry downloads a zip and returns one entry's bytes.
func zipEntry(t *testing.T, f *fixture, path, name string) []byte {
	t.Helper()
	resp, body := f.get(t, path)
	expect(t, resp, body, http.StatusOK, "application/zip")
	_, files := readZip(t, body)
	data, ok := files[name]
	if !ok {
		t.Fatalf("%s: no %s", path, name)
	}
	return data
}
