package purl

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/internal/variants"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// servedShape checks the served public XML: root publicObject with
// objectId and published only, the seed's six children in order, and the
// embedded MODS record after them when the object has one.
func servedShape(t *testing.T, v variants.Variant, data []byte) {
	t.Helper()
	root, attrs, kids, err := publicXMLShape(data)
	if err != nil {
		t.Error(err)
	}
	if root != "publicObject" || attrs["objectId"] != "druid:"+v.Druid || attrs["published"] == "" || len(attrs) != 2 {
		t.Errorf("root %s %v", root, attrs)
	}
	want := "identityMetadata versionMetadata RDF contentMetadata rightsMetadata dc"
	if v.MODSVersion != "" && !v.MODSDerived {
		want += " mods"
	}
	if got := strings.Join(kids, " "); got != want {
		t.Errorf("children %q, want %q", got, want)
	}
}

// checkVariantManifest checks a variant's manifest: valid by the IIIF
// JSON Schema, at least one canvas, its title.
func checkVariantManifest(t *testing.T, v variants.Variant, body []byte) {
	t.Helper()
	if err := iiifPresentation(t).Validate(body); err != nil {
		t.Fatalf("manifest is not valid IIIF 3.0: %v", err)
	}
	var m purlapi.Manifest
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Items) == 0 {
		t.Error("manifest without items")
	}
	if got := m.Label["none"]; len(got) != 1 || got[0] != v.Title {
		t.Errorf("manifest label %v, want %q", got, v.Title)
	}
}

// iiifSchema is ../shared's IIIF Presentation 3.0 JSON Schema, compiled
// once.
var iiifSchema testkit.Once[*testkit.JSONSchema]

// iiifPresentation is the IIIF Presentation 3.0 JSON Schema manifests are
// checked against.
func iiifPresentation(t testing.TB) *testkit.JSONSchema {
	t.Helper()
	// Outside Get: without ../shared, SharedDir skips this test.
	path := filepath.Join(testkit.SharedDir(t), "data", "schemas", "iiif-presentation-3.0.schema.json")
	return iiifSchema.Get(t, func() (*testkit.JSONSchema, error) { return testkit.CompileJSONSchema(path) })
}

// validateMODS36 runs xmllint with the MODS 3.6 schema on docs.
func validateMODS36(t *testing.T, docs map[string][]byte) {
	t.Helper()
	if len(docs) == 0 {
		return
	}
	dir := t.TempDir()
	var files []string
	for name, d := range docs {
		p := filepath.Join(dir, name+".mods.xml")
		if err := os.WriteFile(p, d, 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	if err := testkit.ValidateXML(t, testkit.MODSXSD(t), files...); err != nil {
		t.Fatalf("served MODS 3.6 records do not validate: %v", err)
	}
}

// checkServedMODS checks the version the served MODS declares and that a
// derived one says so; it returns the record when it is MODS 3.6.
func checkServedMODS(t *testing.T, v variants.Variant, body []byte) []byte {
	t.Helper()
	m, err := record.ParseMODS(body)
	if err != nil {
		t.Fatalf(".mods: %v", err)
	}
	if m.Version != v.MODSVersion {
		t.Errorf(".mods version %s, want %s", m.Version, v.MODSVersion)
	}
	if derived := bytes.Contains(body, []byte(record.DerivedOrigin)); derived != v.MODSDerived {
		t.Errorf(".mods derived %v, want %v", derived, v.MODSDerived)
	}
	if m.Version == "3.6" {
		if !bytes.Contains(body, []byte(record.MODS36Location)) {
			t.Error(".mods 3.6 without the 3.6 schema location")
		}
		return body
	}
	return nil
}

// TestVariantsThroughPUT publishes every real-world record form with PUT
// and checks what is served for it: .xml, .mods, manifest, page, files.
func TestVariantsThroughPUT(t *testing.T) {
	t.Parallel()
	f, _ := newMODSFixture(t)
	ctx := context.Background()
	mods36 := map[string][]byte{}
	for _, v := range variants.All() {
		t.Run(v.Name, func(t *testing.T) {
			id, err := druid.Parse(v.Druid)
			if err != nil {
				t.Fatal(err)
			}
			// Files cannot be uploaded over HTTP: they are put in the store
			// as `sitesvc purl publish` would.
			for name, data := range v.Files {
				if _, err := f.svc.store.Write(ctx, id, name, bytes.NewReader(data)); err != nil {
					t.Fatal(err)
				}
			}
			resp, body := f.do(t, http.MethodPut, "/"+v.Druid+".xml", []byte(v.Public), xmlType, bearer("pub"))
			expect(t, resp, body, http.StatusCreated, "application/json")
			var res purlapi.PublishResult
			if err := json.Unmarshal(body, &res); err != nil {
				t.Fatal(err)
			}
			var warnings []string
			if res.Warnings != nil {
				warnings = *res.Warnings
			}
			if v.Warning != "" && !strings.Contains(strings.Join(warnings, "\n"), v.Warning) {
				t.Errorf("warnings %q lack %q", warnings, v.Warning)
			}
			if v.Warning == "" && len(warnings) > 0 {
				t.Errorf("unexpected warnings %q", warnings)
			}

			resp, body = f.get(t, "/"+v.Druid+".xml")
			expect(t, resp, body, http.StatusOK, typeXML)
			if resp.Header.Get("ETag") != res.Etag {
				t.Errorf("served ETag %s, PUT said %s", resp.Header.Get("ETag"), res.Etag)
			}
			servedShape(t, v, body)
			rec, err := record.Parse(body)
			if err != nil {
				t.Fatalf("served record: %v", err)
			}
			if rec.Thumb != v.Thumb || len(rec.Releases) != v.Releases || rec.Title() != v.Title {
				t.Errorf("served record: thumb %q releases %d title %q", rec.Thumb, len(rec.Releases), rec.Title())
			}

			resp, body = f.get(t, "/"+v.Druid+".mods")
			expect(t, resp, body, http.StatusOK, typeMODS)
			if doc := checkServedMODS(t, v, body); doc != nil {
				mods36[v.Druid] = doc
			}

			resp, body = f.get(t, "/"+v.Druid+"/iiif/manifest")
			expect(t, resp, body, http.StatusOK, typeManifest)
			checkVariantManifest(t, v, body)

			resp, body = f.get(t, "/"+v.Druid)
			expect(t, resp, body, http.StatusOK, typeHTML)
			page := string(body)
			if err := checkHTML5(page); err != nil {
				t.Errorf("page: %v", err)
			}
			if !strings.Contains(page, "<title>"+html.EscapeString(v.Title)+"</title>") {
				t.Errorf("page title is not %q", v.Title)
			}
			resp, _ = f.get(t, "/"+v.Druid+"/file/image1.png")
			if want := map[bool]int{true: http.StatusForbidden, false: http.StatusOK}[v.Embargoed]; resp.StatusCode != want {
				t.Errorf("file: %d, want %d", resp.StatusCode, want)
			}
		})
	}
	validateMODS36(t, mods36)
}

// TestSwappedSampleServedAsPublished: a sample with rightsMetadata and
// contentMetadata swapped is accepted and served exactly as the sample.
func TestSwappedSampleServedAsPublished(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	orig := f.sample(t, "bb000kk0000", "public.xml")
	resp, body := f.do(t, http.MethodPut, "/bb000kk0000.xml", []byte(swapRightsAndContent(t, string(orig))), xmlType, bearer("pub"))
	expect(t, resp, body, http.StatusOK, "application/json")
	_, body = f.get(t, "/bb000kk0000.xml")
	if !bytes.Equal(body, orig) {
		t.Errorf("served:\n%s\nwant the sample:\n%s", body, orig)
	}
}

// TestVariantsThroughPublish publishes every variant with the real
// binary's `purl publish` into a running server and checks .xml, .mods,
// manifest, page and the embed iframe of each.
func TestVariantsThroughPublish(t *testing.T) {
	t.Parallel()
	testkit.RequireTool(t, "xmllint")
	srv := testkit.StartServer(t)
	tree := t.TempDir()
	all := variants.All()
	for _, v := range all {
		if _, err := v.WriteDir(tree); err != nil {
			t.Fatal(err)
		}
	}
	out, err := publishCmd(testkit.Binary(t), srv.DataDir, "--mods-schema", testkit.MODSXSD(t), tree).CombinedOutput()
	if err != nil {
		t.Fatalf("purl publish: %v\n%s", err, out)
	}
	mods36 := map[string][]byte{}
	for _, v := range all {
		t.Run(v.Name, func(t *testing.T) {
			if !strings.Contains(string(out), "published druid:"+v.Druid) {
				t.Errorf("purl publish output lacks %s:\n%s", v.Druid, out)
			}
			if v.Warning != "" && !strings.Contains(string(out), "warning: druid:"+v.Druid) {
				t.Errorf("purl publish output lacks the warning for %s:\n%s", v.Druid, out)
			}
			checkVariantServed(t, srv, v, mods36)
		})
	}
	validateMODS36(t, mods36)
}

// checkVariantServed checks what the real server serves for a variant:
// .xml, .mods, manifest, page and the Embed iframe.
func checkVariantServed(t *testing.T, srv *testkit.Server, v variants.Variant, mods36 map[string][]byte) {
	t.Helper()
	purl := srv.URL + "/purl/" + v.Druid
	resp, body := srv.Get(t, "/purl/"+v.Druid+".xml")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf(".xml: %d %s", resp.StatusCode, body)
	}
	servedShape(t, v, body)
	resp, body = srv.Get(t, "/purl/"+v.Druid+".mods")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf(".mods: %d %s", resp.StatusCode, body)
	}
	if doc := checkServedMODS(t, v, body); doc != nil {
		mods36[v.Druid] = doc
	}
	resp, body = srv.Get(t, "/purl/"+v.Druid+"/iiif/manifest")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("manifest: %d %s", resp.StatusCode, body)
	}
	checkVariantManifest(t, v, body)
	resp, body = srv.Get(t, "/purl/"+v.Druid)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<title>"+html.EscapeString(v.Title)+"</title>") {
		t.Errorf("page: %d, title not %q", resp.StatusCode, v.Title)
	}
	resp, body = srv.Get(t, "/embed/iframe?url="+url.QueryEscape(purl))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), html.EscapeString(v.Title)) ||
		!strings.Contains(string(body), `data-viewer-uri="`+purl+`/iiif/manifest"`) {
		t.Errorf("iframe: %d, title %q or manifest missing:\n%s", resp.StatusCode, v.Title, body)
	}
}

// TestVariantsThroughPUTToTheBinary replaces, in the real server, a plain
// record of each variant's object with the variant by PUT (the files are
// published first with purl publish, since files cannot be uploaded over
// HTTP), and checks .xml, .mods, manifest, page and the Embed iframe.
func TestVariantsThroughPUTToTheBinary(t *testing.T) {
	t.Parallel()
	testkit.RequireTool(t, "xmllint")
	srv := testkit.StartServer(t)
	bin := testkit.Binary(t)
	tree := t.TempDir()
	all := variants.All()
	for _, v := range all {
		plain := v
		plain.Public = plainRecord(v.Druid, len(v.Files["image1.png"]))
		if _, err := plain.WriteDir(tree); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := publishCmd(bin, srv.DataDir, tree).CombinedOutput(); err != nil {
		t.Fatalf("purl publish: %v\n%s", err, out)
	}
	token := testkit.AddToken(t, srv.DataDir, "publisher", "variants")
	mods36 := map[string][]byte{}
	for _, v := range all {
		t.Run(v.Name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPut, srv.URL+"/purl/"+v.Druid+".xml", strings.NewReader(v.Public))
			req.Header.Set("Content-Type", "application/xml")
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var res purlapi.PublishResult
			err = json.NewDecoder(resp.Body).Decode(&res)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || err != nil {
				t.Fatalf("PUT: %d %v", resp.StatusCode, err)
			}
			if v.Warning != "" && (res.Warnings == nil || !strings.Contains(strings.Join(*res.Warnings, "\n"), v.Warning)) {
				t.Errorf("PUT warnings %v lack %q", res.Warnings, v.Warning)
			}
			checkVariantServed(t, srv, v, mods36)
		})
	}
	validateMODS36(t, mods36)
}

// plainRecord is a record in the seed's shape of an object with one
// image1.png of size bytes.
func plainRecord(id string, size int) string {
	return strings.NewReplacer("ID", id, "SIZE", strconv.Itoa(size)).Replace(`<?xml version="1.0" encoding="UTF-8"?>
<publicObject objectId="druid:ID" published="2014-01-01T00:00:00Z">
  <identityMetadata><objectType>item</objectType><objectLabel>Plain</objectLabel></identityMetadata>
  <versionMetadata objectId="druid:ID"><version versionId="1" date="2014-01-01T00:00:00Z"><description>Plain</description></version></versionMetadata>
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="info:fedora/druid:ID"/></rdf:RDF>
  <contentMetadata objectId="druid:ID" type="image"><resource sequence="1" type="image"><file id="image1.png" mimetype="image/png" size="SIZE"><imageData width="4" height="3"/></file></resource></contentMetadata>
  <rightsMetadata><access type="discover"><machine><world/></machine></access><access type="read"><machine><world/></machine></access></rightsMetadata>
  <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Plain</dc:title></oai_dc:dc>
</publicObject>
`)
}
