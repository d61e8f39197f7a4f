package purl

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/publish"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// otherShapes are public XML records in shapes other repositories publish
// beyond the corpus, written for this test (not copies). Origin of each
// shape: the test fixtures of the public repository sul-dlss/sul-embed
// (spec/fixtures/purl_fixtures.rb), which models what its viewer receives,
// and the public XML writer of sul-dlss/dor-services (Dor::PublicXmlService:
// @id with "druid:", publishVersion, contentMetadata left out when there
// are no resources).
var otherShapes = []struct {
	name, record string
	files        map[string]string // name → content
	manifest     bool              // something to paint
	warning      string
}{
	{
		// No identifier anywhere, no discover access, files in nested
		// folders, a name starting with '#', a file without a size and
		// one with a size larger than any file.
		name: "no identifier, nested folders",
		record: `<publicObject>
  <identityMetadata><objectLabel>Files in folders</objectLabel></identityMetadata>
  <contentMetadata type="file">
    <resource sequence="1" type="file"><label>One</label>
      <file size="12345" mimetype="application/pdf" id="#Title of the PDF.pdf"><location type="url">http://stacks.example.org/file/x/%23Title</location></file>
    </resource>
    <resource sequence="1" type="file"><attr name="label">Two</attr>
      <file mimetype="application/pdf" id="dir1/dir2/Second.pdf"/>
      <file size="99999999999999999" mimetype="application/pdf" id="dir1/Third.pdf"/>
    </resource>
  </contentMetadata>
  <rightsMetadata><access type="read"><machine><world/></machine></access>
    <use><human type="useAndReproduction">You can use this.</human><machine type="creativeCommons" uri="https://creativecommons.org/publicdomain/mark/1.0/">pdm</machine><human type="creativeCommons">Public Domain Mark 1.0</human></use>
  </rightsMetadata>
  <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Files in folders</dc:title></oai_dc:dc>
  <mods xmlns="http://www.loc.gov/mods/v3"><accessCondition type="license">CC pdm: Public Domain Mark 1.0</accessCondition></mods>
</publicObject>`,
		files:   map[string]string{"#Title of the PDF.pdf": "%PDF-1.4 one", "dir1/dir2/Second.pdf": "%PDF-1.4 two", "dir1/Third.pdf": "%PDF-1.4 three"},
		warning: "the record names no identifier",
	},
	{
		// Resource types the service does not know ("foo", "bar"), the
		// older videoData element with an ISO 8601 duration (read as the
		// video's duration), a media type that is not the usual one for
		// its file.
		name: "unknown resource types",
		record: `<publicObject id="druid:ID" published="2014-03-01T12:00:00Z" publishVersion="dor-services/4.6.2">
  <identityMetadata><objectType>item</objectType><objectLabel>Files and what not</objectLabel></identityMetadata>
  <contentMetadata type="file">
    <resource sequence="1" type="file"><attr name="label">Resource Label</attr><file size="5" mimetype="application/png" id="Page1.png"/></resource>
    <resource id="media1" sequence="2" type="bar"><label>mp4-normal</label><file id="clip.mp4" mimetype="video/mp4" size="5"><videoData duration="P0DT1H2M3S" height="288" width="352"/></file></resource>
    <resource id="image2" sequence="3" type="foo"><file id="page.jp2" mimetype="image/jp2" size="5"><imageData height="4442" width="3417"/></file></resource>
  </contentMetadata>
  <rightsMetadata>
    <access type="discover"><machine><world/></machine></access>
    <access type="read"><machine><group rule="no-download">sitelib</group></machine></access>
  </rightsMetadata>
  <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Files and what not</dc:title></oai_dc:dc>
</publicObject>`,
		files:    map[string]string{"Page1.png": "png..", "clip.mp4": "mp4..", "page.jp2": "jp2.."},
		manifest: true,
		warning:  "is not a type the service knows: its files are served and shown by their media types",
	},
	{
		// A collection as dor-services wrote it: @id, no contentMetadata
		// (no resources), releaseData, MODS 3.3 with a schema location.
		name: "collection without contentMetadata",
		record: `<publicObject id="druid:ID" published="2012-05-01T08:00:00-07:00" publishVersion="dor-services/4.1.0">
  <identityMetadata><objectType>collection</objectType><objectLabel>A collection</objectLabel><tag>Project : Example</tag></identityMetadata>
  <rightsMetadata><access type="discover"><machine><world/></machine></access><access type="read"><machine><world/></machine></access></rightsMetadata>
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:hydra="http://projecthydra.org/ns/relations#"><rdf:Description rdf:about="info:fedora/druid:ID"><hydra:isGovernedBy rdf:resource="info:fedora/druid:bb999bb9999"/></rdf:Description></rdf:RDF>
  <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>A collection</dc:title></oai_dc:dc>
  <mods xmlns="http://www.loc.gov/mods/v3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="3.3" xsi:schemaLocation="http://www.loc.gov/mods/v3 http://www.loc.gov/standards/mods/v3/mods-3-3.xsd"><titleInfo><title>A collection</title></titleInfo><typeOfResource collection="yes"/></mods>
  <releaseData><release to="Searchworks">true</release></releaseData>
</publicObject>`,
		manifest: true, // a collection's IIIF Collection
		warning:  "no contentMetadata",
	},
}

// TestOtherRepositoriesShapes publishes each record of otherShapes with PUT
// (files already in the store) and with publish.Tree (what `sitesvc purl
// publish` runs; the folder named by the druid), and checks what is
// served: .xml in the seed's shape, .mods as valid MODS 3.6, the page,
// the manifest, every file.
func TestOtherRepositoriesShapes(t *testing.T) {
	t.Parallel()
	f, schema := newMODSFixture(t)
	ctx := context.Background()
	mods := map[string][]byte{}
	ids := []string{"bx301cd3001", "bx302cd3002", "bx303cd3003", "bx304cd3004", "bx305cd3005", "bx306cd3006"}
	for i, c := range otherShapes {
		t.Run(c.name, func(t *testing.T) {
			for way, id := range map[string]string{"PUT": ids[2*i], "publish": ids[2*i+1]} {
				doc := strings.ReplaceAll(c.record, "druid:ID", "druid:"+id)
				switch way {
				case "PUT":
					for name, body := range c.files {
						if _, err := f.svc.store.Write(ctx, druid.Druid(id), name, strings.NewReader(body)); err != nil {
							t.Fatal(err)
						}
					}
					resp, body := f.do(t, http.MethodPut, "/"+id+".xml", []byte(doc), xmlType, bearer("pub"))
					if resp.StatusCode != http.StatusCreated || !strings.Contains(string(body), c.warning) {
						t.Fatalf("PUT: %d %s, want 201 with a warning naming %q", resp.StatusCode, body, c.warning)
					}
				case "publish":
					dir := filepath.Join(t.TempDir(), id)
					for name, body := range c.files {
						p := filepath.Join(dir, filepath.FromSlash(name))
						if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
							t.Fatal(err)
						}
						if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
							t.Fatal(err)
						}
					}
					if err := os.MkdirAll(dir, 0o755); err != nil {
						t.Fatal(err)
					}
					if err := os.WriteFile(filepath.Join(dir, "public.xml"), []byte(doc), 0o644); err != nil {
						t.Fatal(err)
					}
					objs, err := publish.Tree(ctx, f.svc.store, dir, publish.WithMODSSchema(schema))
					if err != nil || !strings.Contains(strings.Join(objs[0].Warnings, "\n"), c.warning) {
						t.Fatalf("purl publish: %v, want a warning naming %q", err, c.warning)
					}
				}
				resp, body := f.get(t, "/"+id+".xml")
				expect(t, resp, body, http.StatusOK, typeXML)
				if err := seedShape(body, id); err != nil {
					t.Errorf("%s: .xml: %v", way, err)
				}
				resp, body = f.get(t, "/"+id+".mods")
				expect(t, resp, body, http.StatusOK, typeMODS)
				if m, err := record.ParseMODS(body); err != nil || m.Version != "3.6" {
					t.Errorf("%s: .mods: %v", way, err)
				}
				mods[way+"-"+id] = body
				resp, body = f.get(t, "/"+id)
				expect(t, resp, body, http.StatusOK, typeHTML)
				resp, body = f.get(t, "/"+id+"/iiif/manifest")
				if (resp.StatusCode == http.StatusOK) != c.manifest {
					t.Errorf("%s: manifest %d, want one: %v", way, resp.StatusCode, c.manifest)
				} else if c.manifest {
					if err := iiifPresentation(t).Validate(body); err != nil {
						t.Errorf("%s: manifest is not valid IIIF 3.0: %v", way, err)
					}
				}
				for name, want := range c.files {
					resp, got := f.raw(t, http.MethodGet, "/"+id+"/file/"+url.PathEscape(name), bearer("member"))
					if resp.StatusCode != http.StatusOK || !bytes.Equal(got, []byte(want)) {
						t.Errorf("%s: file %s: %d %q", way, name, resp.StatusCode, got)
					}
				}
			}
		})
	}
	validateMODS36(t, mods)
}

// modsSchemaForTests is the MODS 3.6 schema of ../shared, checked with
// xmllint (the test is skipped without it, a failure in CI).
func modsSchemaForTests(t *testing.T) *record.MODSSchema {
	t.Helper()
	testkit.RequireTool(t, "xmllint")
	schema, err := record.NewMODSSchema(testkit.MODSXSD(t))
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// newMODSFixture is a fixture whose service checks MODS records against
// the MODS 3.6 schema, and the schema.
func newMODSFixture(t *testing.T) (*fixture, *record.MODSSchema) {
	t.Helper()
	schema := modsSchemaForTests(t)
	return newFixture(t, func(c *Config) { c.MODSSchema = schema }), schema
}
