package purl

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/record"
)

// manifestJSON is the part of a manifest these tests read.
type manifestJSON struct {
	Behavior []string `json:"behavior"`
	Items    []struct {
		Width  int `json:"width"`
		Height int `json:"height"`
		Items  []struct {
			Items []struct {
				Body struct {
					ID   string `json:"id"`
					Type string `json:"type"`
				} `json:"body"`
			} `json:"items"`
		} `json:"items"`
	} `json:"items"`
	Rendering []struct {
		ID string `json:"id"`
	} `json:"rendering"`
	Provider []struct {
		ID    string              `json:"id"`
		Type  string              `json:"type"`
		Label map[string][]string `json:"label"`
	} `json:"provider"`
	SeeAlso []struct {
		ID     string `json:"id"`
		Format string `json:"format"`
	} `json:"seeAlso"`
	PartOf []struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"partOf"`
}

func getManifest(t *testing.T, f *fixture, id string) manifestJSON {
	t.Helper()
	resp, body := f.get(t, "/"+id+"/iiif/manifest")
	expect(t, resp, body, 200, typeManifest)
	if err := iiifPresentation(t).Validate(body); err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	var m manifestJSON
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestManifestProperties: books are paged, every manifest names its
// provider, its records (seeAlso: public XML and MODS) and the IIIF
// Collection it is part of.
func TestManifestProperties(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	book := getManifest(t, f, "bd111gh1111")
	if strings.Join(book.Behavior, ",") != "paged" || len(book.Items) != 12 { // the sample book has twelve pages
		t.Errorf("book: behavior %v, %d canvases", book.Behavior, len(book.Items))
	}
	img := getManifest(t, f, "bb000kk0000")
	if img.Behavior != nil {
		t.Errorf("image object: behavior %v", img.Behavior)
	}
	if len(img.Provider) != 1 || img.Provider[0].Type != "Agent" || img.Provider[0].ID != base || img.Provider[0].Label["none"][0] != "sitesvc digital library" {
		t.Errorf("provider %+v", img.Provider)
	}
	if len(img.SeeAlso) != 2 || img.SeeAlso[0].ID != base+"/bb000kk0000.xml" || img.SeeAlso[1].ID != base+"/bb000kk0000.mods" || img.SeeAlso[1].Format != "application/mods+xml" {
		t.Errorf("seeAlso %+v", img.SeeAlso)
	}
	if len(img.PartOf) != 1 || img.PartOf[0].ID != base+"/bc000df0001/iiif/manifest" || img.PartOf[0].Type != "Collection" {
		t.Errorf("partOf %+v", img.PartOf)
	}
	// Restricted objects offer no downloads that would fail.
	if m := getManifest(t, f, "bn888yz8888"); m.Rendering != nil {
		t.Errorf("restricted object's manifest offers renderings %+v", m.Rendering)
	}
}

// TestManifestOfADocumentWithACover: a PDF with a cover image (imageData
// given on a file resource) named as the thumbnail gets one canvas, the
// cover, and the PDF as a rendering; without the cover it has no manifest.
func TestManifestOfADocumentWithACover(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	doc := strings.Replace(citationRecord("bz321xy4321"), `<contentMetadata objectId="druid:bz321xy4321" type="file"/>`,
		`<contentMetadata objectId="druid:bz321xy4321" type="document"><thumb>cover.png</thumb>`+
			`<resource sequence="1" type="document"><file id="text.pdf" mimetype="application/pdf" size="10"/></resource>`+
			`<resource sequence="2" type="file"><file id="cover.png" mimetype="image/png" size="20"><imageData width="30" height="40"/></file></resource>`+
			`</contentMetadata>`, 1)
	doc = strings.Replace(doc, "<none/>", "<world/>", 1)
	rec, err := record.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if !rec.HasManifest() || len(rec.Canvases()) != 1 {
		t.Fatalf("canvases %+v", rec.Canvases())
	}
	body, err := f.svc.buildManifest(&object{rec: rec})
	if err != nil {
		t.Fatal(err)
	}
	if err := iiifPresentation(t).Validate(body); err != nil {
		t.Fatal(err)
	}
	var m manifestJSON
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Items) != 1 || m.Items[0].Width != 30 || m.Items[0].Items[0].Items[0].Body.ID != base+"/bz321xy4321/file/cover.png" {
		t.Errorf("cover canvas: %s", body)
	}
	if len(m.Rendering) != 1 || m.Rendering[0].ID != base+"/bz321xy4321/file/text.pdf" {
		t.Errorf("renderings %+v", m.Rendering)
	}
	noCover := strings.Replace(doc, "<thumb>cover.png</thumb>", "", 1)
	if rec, err := record.Parse([]byte(noCover)); err != nil || rec.HasManifest() {
		t.Errorf("a PDF whose image is not its thumbnail: manifest %v (%v)", rec != nil && rec.HasManifest(), err)
	}
}
