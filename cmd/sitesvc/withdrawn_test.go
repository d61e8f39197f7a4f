package main

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// Withdrawn means withdrawn (issue 11.10): in one process, a DELETE or a
// PUT that makes an object dark shows in Embed's oEmbed answer and viewer
// at once, although both were cached just before (the cache lives 30 s).
func TestEmbedForgetsWithdrawnObjects(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the binary")
	}
	srv := testkit.StartServer(t)
	token := testkit.AddToken(t, srv.DataDir, "publisher", "w11b")
	send := func(method, path, body string) (int, string) {
		t.Helper()
		var r io.Reader
		if body != "" {
			r = strings.NewReader(body)
		}
		req, err := http.NewRequest(method, srv.URL+path, r)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			req.Header.Set("Content-Type", "application/xml")
		}
		resp, data := testkit.Do(t, nil, req)
		return resp.StatusCode, string(data)
	}
	embedded := func(id string) (oembed, iframe int, page string) {
		t.Helper()
		q := "?url=" + url.QueryEscape(srv.URL+"/purl/"+id)
		resp, _ := srv.Get(t, "/embed/embed"+q)
		oembed = resp.StatusCode
		resp, body := srv.Get(t, "/embed/iframe"+q)
		return oembed, resp.StatusCode, string(body)
	}

	// Deleted.
	for i := 0; i < 2; i++ { // the second answer comes from the cache
		if o, f, page := embedded("bb000kk0000"); o != 200 || f != 200 || !strings.Contains(page, "reading-room-north.png") {
			t.Fatalf("before the delete: oEmbed %d, iframe %d", o, f)
		}
	}
	if status, body := send(http.MethodDelete, "/purl/bb000kk0000", ""); status != http.StatusNoContent {
		t.Fatalf("DELETE: %d %s", status, body)
	}
	if o, f, page := embedded("bb000kk0000"); o != 404 || f != 404 || strings.Contains(page, "reading-room-north.png") {
		t.Errorf("after the delete: oEmbed %d, iframe %d (want 404, no file links)", o, f)
	}

	// Made dark by a PUT of its record.
	resp, record := srv.Get(t, "/purl/bg333mn3333.xml")
	if resp.StatusCode != 200 {
		t.Fatalf("record: %d", resp.StatusCode)
	}
	for i := 0; i < 2; i++ {
		if o, f, _ := embedded("bg333mn3333"); o != 200 || f != 200 {
			t.Fatalf("before darkening: oEmbed %d, iframe %d", o, f)
		}
	}
	dark := string(record)
	for _, kind := range []string{"discover", "read"} {
		start := strings.Index(dark, `<access type="`+kind+`">`)
		end := strings.Index(dark[start:], "</access>")
		if start < 0 || end < 0 {
			t.Fatalf("no %s access in the record:\n%s", kind, record)
		}
		dark = dark[:start] + `<access type="` + kind + `"><machine><none/></machine></access>` + dark[start+end+len("</access>"):]
	}
	if status, body := send(http.MethodPut, "/purl/bg333mn3333.xml", dark); status != http.StatusOK {
		t.Fatalf("PUT dark record: %d %s", status, body)
	}
	if o, f, _ := embedded("bg333mn3333"); o != 404 || f != 404 {
		t.Errorf("after darkening: oEmbed %d, iframe %d (want 404)", o, f)
	}
}
