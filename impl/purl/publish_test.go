package purl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/purl/publish"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/purl/store"
	"github.com/sitelib/sitesvc/impl/testkit"
)

const xmlType = "Content-Type: application/xml"

func bearer(token string) string { return "Authorization: Bearer " + token }

// sample returns a sample's record as the fixture serves it: citing the
// object at the fixture's PURL base.
func (f *fixture) sample(t *testing.T, id, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(f.samples, id, name))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.ReplaceAll(data, []byte(SamplesPURLBase+"/"), []byte(base+"/"))
}

func TestPublishAuth(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	doc := f.sample(t, "bb000kk0000", "public.xml")
	for _, c := range []struct {
		method, path string
		headers      []string
		status       int
	}{
		{http.MethodPut, "/bb000kk0000.xml", []string{xmlType}, 401},
		{http.MethodPut, "/bb000kk0000.xml", []string{xmlType, bearer("wrong")}, 401},
		{http.MethodPut, "/bb000kk0000.xml", []string{xmlType, bearer("editor")}, 403},
		{http.MethodPut, "/bb000kk0000.xml", []string{xmlType, bearer("member")}, 403},
		{http.MethodPut, "/bb000kk0000.mods", []string{xmlType}, 401},
		{http.MethodDelete, "/bb000kk0000", nil, 401},
		{http.MethodDelete, "/bb000kk0000", []string{bearer("editor")}, 403},
	} {
		var body []byte
		if c.method == http.MethodPut {
			body = doc
		}
		resp, b := f.do(t, c.method, c.path, body, c.headers...)
		if resp.StatusCode != c.status {
			t.Errorf("%s %s %v: %d %s, want %d", c.method, c.path, c.headers, resp.StatusCode, b, c.status)
		}
		if c.status == 401 && resp.Header.Get("WWW-Authenticate") != `Bearer realm="purl"` {
			t.Errorf("401 without WWW-Authenticate")
		}
	}
	// Nothing changed.
	resp, b := f.get(t, "/bb000kk0000.xml")
	expect(t, resp, b, 200, typeXML)
}

func TestPublishRejectsAndKeepsPrevious(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := "bb000kk0000"
	orig := f.sample(t, id, "public.xml")
	origMODS := f.sample(t, id, "mods.xml")
	s := string(orig)
	cases := []struct {
		name   string
		path   string
		body   string
		ctype  string
		status int
		says   string
	}{
		{"truncated", ".xml", s[:len(s)/2], "application/xml", 400, "bad request"},
		{"not xml", ".xml", "hello", "application/xml", 400, "bad request"},
		{"wrong root", ".xml", strings.ReplaceAll(s, "publicObject", "privateObject"), "application/xml", 422, "root element"},
		{"other druid", ".xml", strings.ReplaceAll(s, "druid:bb000kk0000", "druid:bc123df4567"), "application/xml", 422, "does not match the path"},
		{"missing file", ".xml", strings.Replace(s, `id="reading-room-south.png"`, `id="elsewhere.png"`, 1), "application/xml", 422, "is not in the object"},
		{"file outside", ".xml", strings.Replace(s, `id="reading-room-south.png"`, `id="../reading-room-south.png"`, 1), "application/xml", 422, "cannot be in the object folder"},
		{"json", ".xml", s, "application/json", 415, "application/xml"},
		{"no type", ".xml", s, "", 415, "application/xml"},
		{"too large", ".xml", strings.Repeat(" ", 9<<20), "application/xml", 413, "at most"},
		{"mods truncated", ".mods", string(origMODS[:100]), "application/xml", 400, "bad request"},
		{"public as mods", ".mods", s, "application/xml", 422, "want mods"},
	}
	for _, c := range cases {
		headers := []string{bearer("pub")}
		if c.ctype != "" {
			headers = append(headers, "Content-Type: "+c.ctype)
		}
		resp, body := f.do(t, http.MethodPut, "/"+id+c.path, []byte(c.body), headers...)
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.says) {
			t.Errorf("%s: %d %q, want %d containing %q", c.name, resp.StatusCode, body, c.status, c.says)
		}
	}
	resp, body := f.get(t, "/"+id+".xml")
	expect(t, resp, body, 200, typeXML)
	if !bytes.Equal(body, orig) {
		t.Error("a rejected write changed the public XML")
	}
	_, body = f.get(t, "/"+id+".mods")
	if !bytes.Equal(body, origMODS) {
		t.Error("a rejected write changed the MODS")
	}
	entries, _ := os.ReadDir(filepath.Join(f.svc.fsStore.Root(), "bb", "000", "kk", "0000"))
	for _, e := range entries {
		if store.Leftover(e.Name()) {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func swapRightsAndContent(t *testing.T, s string) string {
	ci, ce := strings.Index(s, "  <contentMetadata"), strings.Index(s, "</contentMetadata>\n")+len("</contentMetadata>\n")
	ri, re := strings.Index(s, "  <rightsMetadata>"), strings.Index(s, "</rightsMetadata>\n")+len("</rightsMetadata>\n")
	if ci < 0 || ri < ci || ce > ri {
		t.Fatal("sample layout changed")
	}
	return s[:ci] + s[ri:re] + s[ce:ri] + s[ci:ce] + s[re:]
}

func TestPublishLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Replace a record: new label, served at once.
	id := "bb000kk0000"
	changed := strings.Replace(string(f.sample(t, id, "public.xml")), "<objectLabel>Two views", "<objectLabel>Three views", 1)
	resp, body := f.do(t, http.MethodPut, "/"+id+".xml", []byte(changed), xmlType, bearer("pub"))
	expect(t, resp, body, http.StatusOK, "application/json")
	var res purlapi.PublishResult
	if err := json.Unmarshal(body, &res); err != nil || res.Id != "druid:"+id || res.Document != "public.xml" {
		t.Fatalf("result %s: %v", body, err)
	}
	resp, body = f.get(t, "/"+id+".xml")
	if string(body) != changed || resp.Header.Get("ETag") != res.Etag {
		t.Errorf("new record not served (ETag %s, result %s)", resp.Header.Get("ETag"), res.Etag)
	}

	// A new object without files, then its MODS.
	newID := "bz321xy4321"
	mods := f.sample(t, id, "mods.xml")
	resp, body = f.do(t, http.MethodPut, "/"+newID+".mods", mods, xmlType, bearer("pub"))
	expect(t, resp, body, http.StatusConflict, "")
	rec := citationRecord(newID)
	resp, body = f.do(t, http.MethodPut, "/druid:"+strings.ToUpper(newID)+".xml", []byte(rec), xmlType, bearer("admin"))
	expect(t, resp, body, http.StatusCreated, "application/json")
	// Without MODS, .mods serves MODS 3.6 derived from the Dublin Core.
	resp, body = f.get(t, "/"+newID+".mods")
	expect(t, resp, body, http.StatusOK, typeMODS)
	if !strings.Contains(string(body), "<recordOrigin>"+record.DerivedOrigin) {
		t.Errorf("GET .mods of an object without MODS: %s", body)
	}
	resp, body = f.do(t, http.MethodPut, "/"+newID+".mods", mods, xmlType, bearer("pub"))
	expect(t, resp, body, http.StatusCreated, "application/json")
	resp, body = f.get(t, "/"+newID)
	expect(t, resp, body, http.StatusOK, typeHTML)
	if !strings.Contains(string(body), "Two views of the reading room") { // the MODS title wins on the page
		t.Error("page does not show the MODS title")
	}
	// No file, nothing to paint on a canvas: no manifest, and the page
	// names none.
	resp, body = f.get(t, "/"+newID+"/iiif/manifest")
	expect(t, resp, body, http.StatusNotFound, typeText)
	if _, page := f.get(t, "/"+newID); strings.Contains(string(page), "/iiif/manifest") {
		t.Error("the page of an object without a manifest names one")
	}

	// Withdraw it.
	resp, body = f.do(t, http.MethodDelete, "/"+newID, nil, bearer("pub"))
	expect(t, resp, body, http.StatusNoContent, "")
	for _, p := range []string{"", ".xml", ".mods", "/iiif/manifest"} {
		resp, body = f.get(t, "/"+newID+p)
		expect(t, resp, body, http.StatusNotFound, "")
	}
	resp, body = f.do(t, http.MethodDelete, "/"+newID, nil, bearer("pub"))
	expect(t, resp, body, http.StatusNotFound, "")
	resp, body = f.do(t, http.MethodDelete, "/not-a-druid", nil, bearer("pub"))
	expect(t, resp, body, http.StatusNotFound, "")
}

// citationRecord is a minimal record of an object with no files.
func citationRecord(id string) string {
	return fmt.Sprintf(`<?xml version="1.0" encoding="UTF-8"?>
<publicObject objectId="druid:%[1]s" published="2026-02-01T00:00:00Z">
  <identityMetadata><objectType>item</objectType><objectLabel>Published over HTTP</objectLabel></identityMetadata>
  <versionMetadata objectId="druid:%[1]s"><version versionId="1" date="2026-02-01T00:00:00Z"><description>First</description></version></versionMetadata>
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:fedora="info:fedora/fedora-system:def/relations-external#">
    <rdf:Description rdf:about="info:fedora/druid:%[1]s"><fedora:isMemberOfCollection rdf:resource="info:fedora/druid:bc000df0001"/></rdf:Description>
  </rdf:RDF>
  <contentMetadata objectId="druid:%[1]s" type="file"/>
  <rightsMetadata>
    <access type="discover"><machine><world/></machine></access>
    <access type="read"><machine><none/></machine></access>
    <use><license>https://creativecommons.org/publicdomain/zero/1.0/</license></use>
  </rightsMetadata>
  <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Published over HTTP</dc:title></oai_dc:dc>
</publicObject>
`, id)
}

// TestConcurrentReadersAndWriters: while writers replace a record over
// and over, every reader gets one whole version, never a mix or nothing.
func TestConcurrentReadersAndWriters(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	id := "bb000kk0000"
	a := string(f.sample(t, id, "public.xml"))
	versions := []string{a}
	for i := 1; i < 4; i++ {
		versions = append(versions, strings.Replace(a, "<objectLabel>Two views", fmt.Sprintf("<objectLabel>Version %d of two views", i)+strings.Repeat(" ", i*1000), 1))
	}
	valid := map[string]bool{}
	for _, v := range versions {
		valid[v] = true
	}
	client := &http.Client{}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				req, _ := http.NewRequest(http.MethodPut, f.srv.URL+"/"+id+".xml", strings.NewReader(versions[(i+w)%len(versions)]))
				req.Header.Set("Content-Type", "application/xml")
				req.Header.Set("Authorization", "Bearer pub")
				resp, err := client.Do(req)
				if err != nil {
					errs <- err
					return
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("writer: status %d", resp.StatusCode)
					return
				}
			}
		}(w)
	}
	readers := testkit.NewRepeaters()
	for r := 0; r < 4; r++ {
		readers.Go(func() bool {
			resp, err := client.Get(f.srv.URL + "/" + id + ".xml")
			if err != nil {
				errs <- err
				return true
			}
			var buf bytes.Buffer
			buf.ReadFrom(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !valid[buf.String()] {
				errs <- fmt.Errorf("reader got status %d and %d bytes that are no published version", resp.StatusCode, buf.Len())
				return true
			}
			return false
		})
	}
	wg.Wait()
	// Read after write: the readers are still running (loading and caching
	// the object concurrently), yet once a PUT has answered, every GET
	// serves what it stored, never a version a racing load had read.
	for i, v := range versions {
		resp, body := f.do(t, http.MethodPut, "/"+id+".xml", []byte(v), xmlType, bearer("pub"))
		expect(t, resp, body, http.StatusOK, "application/json")
		if _, got := f.get(t, "/"+id+".xml"); string(got) != v {
			t.Errorf("after the PUT of version %d another version is served", i)
		}
	}
	readers.Stop()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestPublishMODSAgainstTheSchema: with the MODS 3.6 XSD configured, a
// MODS record with an element the schema rejects is published with that
// element dropped and a warning naming it, over HTTP and by publish.Tree;
// the served .mods validates against the schema.
func TestPublishMODSAgainstTheSchema(t *testing.T) {
	t.Parallel()
	f, schema := newMODSFixture(t)
	id := "bb000kk0000"
	orig := f.sample(t, id, "mods.xml")
	bad := strings.Replace(string(orig), "<title>", "<bogus/><title>", 1)
	resp, body := f.do(t, http.MethodPut, "/"+id+".mods", []byte(bad), xmlType, bearer("pub"))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "titleInfo/bogus is not allowed by MODS 3.6") {
		t.Errorf("schema-invalid MODS: %d %s", resp.StatusCode, body)
	}
	_, body = f.get(t, "/"+id+".mods")
	if bytes.Contains(body, []byte("bogus")) || schema.Validate(context.Background(), body) != nil {
		t.Errorf("served MODS is not the repaired record:\n%s", body)
	}

	dir := filepath.Join(t.TempDir(), "obj")
	testkit.CopyPURLSample(t, "bf222jk2222", dir, "bt314vw1592")
	modsPath := filepath.Join(dir, "mods.xml")
	data, err := os.ReadFile(modsPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(modsPath, []byte(strings.Replace(string(data), "<title>", "<bogus/><title>", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	objs, err := publish.Tree(context.Background(), f.svc.store, dir, publish.WithMODSSchema(schema))
	if err != nil || len(objs) != 1 || !strings.Contains(strings.Join(objs[0].Warnings, "\n"), "bogus") {
		t.Fatalf("publish.Tree of a schema-invalid mods.xml: %v", err)
	}
	_, body = f.get(t, "/bt314vw1592.mods")
	if bytes.Contains(body, []byte("bogus")) || schema.Validate(context.Background(), body) != nil {
		t.Errorf("served MODS is not the repaired record:\n%s", body)
	}
}

// Authorisation before work (issue 11.6): a write without a publishing
// token is refused before its body is read. With a body that never ends,
// only such an answer can come back; the old code read up to the 8 MiB
// document limit first and answered 413 whatever the token.
func TestWriteAuthorisedBeforeBody(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tc := range []struct {
		method, path, token string
		status              int
	}{
		{http.MethodPut, "/bc123df4567.xml", "", 401},
		{http.MethodPut, "/bc123df4567.xml", "nonsense", 401},
		{http.MethodPut, "/bc123df4567.xml", "editor", 403},
		{http.MethodPut, "/bc123df4567.mods", "member", 403},
		{http.MethodDelete, "/bc123df4567", "reader", 403},
		{http.MethodPut, "/bc123df4567.xml", "pub", 413},
		{http.MethodDelete, "/bc123df4567", "pub", 413},
	} {
		header := http.Header{"Content-Type": {"application/xml"}}
		if tc.token != "" {
			header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, body := testkit.SendEndless(t, tc.method, f.srv.URL+tc.path, header)
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s as %q with an endless body: %d, want %d: %s", tc.method, tc.path, tc.token, resp.StatusCode, tc.status, body)
		}
	}
}
