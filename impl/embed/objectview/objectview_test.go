package objectview

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	purlrecord "github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/testkit"
)

var now = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func record(contentType, content, read, discover string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<publicObject objectId="druid:bb000kk0000" published="2026-01-15T10:00:00Z">
  <identityMetadata><objectType>item</objectType><objectLabel>The label</objectLabel></identityMetadata>
  <versionMetadata objectId="druid:bb000kk0000"><version versionId="1" date="2026-01-10T09:00:00Z"/></versionMetadata>
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:fedora="info:fedora/fedora-system:def/relations-external#">
    <rdf:Description rdf:about="info:fedora/druid:bb000kk0000">
      <fedora:isMemberOfCollection rdf:resource="info:fedora/druid:bc000df0001"/>
    </rdf:Description>
  </rdf:RDF>
  <contentMetadata objectId="druid:bb000kk0000" type="` + contentType + `">` + content + `</contentMetadata>
  <rightsMetadata>
    <access type="discover"><machine>` + discover + `</machine></access>
    <access type="read"><machine>` + read + `</machine></access>
    <use><human type="useAndReproduction">Use freely.</human><license>https://creativecommons.org/licenses/by/4.0/</license></use>
    <copyright><human>© 2026 Library</human></copyright>
  </rightsMetadata>
  <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:title>  The title  </dc:title><dc:title>Second</dc:title>
  </oai_dc:dc>
</publicObject>`
}

const imageContent = `<thumb>a.png</thumb><resource id="r1" sequence="1" type="image"><label>Recto</label>
<file id="a.png" mimetype="image/png" size="20771"><imageData width="640" height="480"/></file></resource>`

func TestParse(t *testing.T) {
	o, err := Parse([]byte(record("image", imageContent, "<world/>", "<world/>")), "bb000kk0000", now)
	if err != nil {
		t.Fatal(err)
	}
	if o.Title != "The title" || o.ContentType != "image" || len(o.Collections) != 1 || o.Collections[0] != "bc000df0001" {
		t.Errorf("%+v", o)
	}
	if len(o.Resources) != 1 || len(o.Resources[0].Files) != 1 {
		t.Fatalf("resources %+v (unpublished files must be left out)", o.Resources)
	}
	f := o.Resources[0].Files[0]
	if f.Name != "a.png" || f.MimeType != "image/png" || f.Size != 20771 || f.Width != 640 || f.Height != 480 || o.Resources[0].Label != "Recto" {
		t.Errorf("file %+v", f)
	}
	if o.Access.Level != World || o.Access.Restricted() || o.Access.Message() != "" {
		t.Errorf("access %+v (a file-level rule must not decide the object's access)", o.Access)
	}
	if o.Use != "Use freely." || o.Copyright != "© 2026 Library" || o.License != "https://creativecommons.org/licenses/by/4.0/" {
		t.Errorf("use %q copyright %q license %q", o.Use, o.Copyright, o.License)
	}
	if o.Viewer() != ViewerMirador {
		t.Errorf("viewer %s", o.Viewer())
	}
}

// TestTitleFallbacks: the title is the record's first dc:title, trimmed;
// without one, the objectLabel (record.Record.Title: embedded MODS title,
// objectLabel, druid — the same title the PURL page shows).
func TestTitleFallbacks(t *testing.T) {
	rec := strings.Replace(record("file", "", "<world/>", "<world/>"), "<dc:title>  The title  </dc:title>", "<dc:title> </dc:title>", 1)
	o, err := Parse([]byte(rec), "bb000kk0000", now)
	if err != nil || o.Title != "Second" {
		t.Errorf("blank first dc:title: %v %+v", err, o)
	}
	noTitle := strings.Replace(record("file", "", "<world/>", "<world/>"), "<dc:title>  The title  </dc:title><dc:title>Second</dc:title>", "", 1)
	if o, err := Parse([]byte(noTitle), "bb000kk0000", now); err != nil || o.Title != "The label" {
		t.Errorf("no dc:title: %v %+v, want the objectLabel", err, o)
	}
	noLabel := strings.Replace(noTitle, "<objectLabel>The label</objectLabel>", "<objectLabel> </objectLabel>", 1)
	if o, err := Parse([]byte(noLabel), "bb000kk0000", now); err != nil || o.Title != "druid:bb000kk0000" {
		t.Errorf("no title nor label: %v %+v, want the druid", err, o)
	}
}

func TestAccessForms(t *testing.T) {
	for _, tc := range []struct {
		read, discover string
		level          Level
		message        string
	}{
		{"<world/>", "<world/>", World, ""},
		{`<world rule="no-download"/>`, "<world/>", World, ""},
		{"<group>sitelib</group>", "<world/>", Group, "members of sitelib"},
		{"<location>reading-room</location>", "<world/>", Location, "reading-room location"},
		{"<none/>", "<world/>", CitationOnly, "citation only"},
		{"<embargoReleaseDate>2099-01-01</embargoReleaseDate><world/>", "<world/>", Embargoed, "until January 1, 2099"},
		{"<embargoReleaseDate>2020-01-01</embargoReleaseDate><world/>", "<world/>", World, ""},
		{"<embargoReleaseDate>2026-03-01T12:00:00Z</embargoReleaseDate><world/>", "<world/>", Embargoed, "until March 1, 2026"},
		{"<embargoReleaseDate>2026-02-28T23:59:59Z</embargoReleaseDate><world/>", "<world/>", World, ""},
		{"<embargoReleaseDate>2020-01-01</embargoReleaseDate><group>sitelib</group>", "<world/>", Group, "sitelib"},
		{"<none/>", "<none/>", Dark, "not available"},
	} {
		o, err := Parse([]byte(record("image", imageContent, tc.read, tc.discover)), "bb000kk0000", now)
		if err != nil {
			t.Fatal(err)
		}
		if o.Access.Level != tc.level || !strings.Contains(o.Access.Message(), tc.message) {
			t.Errorf("read %s: %+v %q", tc.read, o.Access, o.Access.Message())
		}
		if (tc.level != World) != o.Access.Restricted() {
			t.Errorf("read %s: Restricted() = %v", tc.read, o.Access.Restricted())
		}
		if tc.read == `<world rule="no-download"/>` && !o.Access.NoDownload {
			t.Errorf("no-download rule lost")
		}
	}
}

func TestViewer(t *testing.T) {
	for _, tc := range []struct {
		contentType, content string
		want                 Viewer
	}{
		{"image", imageContent, ViewerMirador},
		{"book", `<resource sequence="1" type="page"><file id="p1.jpg" mimetype="image/jpeg" size="1"><imageData width="1" height="1"/></file></resource>`, ViewerMirador},
		{"map", `<resource sequence="1" type="image"><file id="m.jpg" mimetype="image/jpeg" size="1"><imageData width="1" height="1"/></file></resource>`, ViewerMirador},
		{"media", `<resource sequence="1" type="audio"><file id="a.mp3" mimetype="audio/mpeg" size="1"><mediaData duration="1.5"/></file></resource><resource sequence="2" type="file"><file id="t.txt" mimetype="text/plain" size="1"/></resource>`, ViewerMedia},
		{"document", `<resource sequence="1" type="document"><file id="r.pdf" mimetype="application/pdf" size="1"/></resource>`, ViewerPDF},
		{"file", `<resource sequence="1" type="file"><file id="d.csv" mimetype="text/csv" size="1"/></resource>`, ViewerFiles},
		{"file", `<resource sequence="1" type="file"><file id="v.mp4" mimetype="video/mp4" size="1"/></resource>`, ViewerMedia},
		{"image", `<resource sequence="1" type="file"><file id="d.zip" mimetype="application/zip" size="1"/></resource>`, ViewerFiles},
		{"file", ``, ViewerFiles},
	} {
		o, err := Parse([]byte(record(tc.contentType, tc.content, "<world/>", "<world/>")), "bb000kk0000", now)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Viewer(); got != tc.want {
			t.Errorf("%s %s: viewer %s, want %s", tc.contentType, tc.content, got, tc.want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for name, rec := range map[string]string{
		"not XML":         "hello",
		"wrong root":      "<mods/>",
		"unclosed":        "<publicObject><contentMetadata></publicObject>",
		"path in file id": record("file", `<resource sequence="1" type="file"><file id="../secret" mimetype="text/plain" size="1"/></resource>`, "<world/>", "<world/>"),
		"entity":          `<!DOCTYPE p [<!ENTITY x SYSTEM "file:///etc/passwd">]><publicObject>&x;</publicObject>`,
		"too big":         "<publicObject>" + strings.Repeat(" ", MaxSize) + "</publicObject>",
	} {
		if _, err := Parse([]byte(rec), "bb000kk0000", now); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err %v, want ErrInvalid", name, err)
		}
	}
}

// TestParseReadsUnclearRightsAsNoAccess: rights the PURL service cannot
// honour are read, through impl/purl/record, as no access (when in doubt,
// deny), never guessed: <cdl/> is not lending, an unreadable release date
// not an endless embargo.
func TestParseReadsUnclearRightsAsNoAccess(t *testing.T) {
	for name, rec := range map[string]string{
		"cdl":                record("image", imageContent, "<cdl/>", "<world/>"),
		"unreadable embargo": record("image", imageContent, "<embargoReleaseDate>someday</embargoReleaseDate><world/>", "<world/>"),
	} {
		o, err := Parse([]byte(rec), "bb000kk0000", now)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if o.Access.Level != CitationOnly {
			t.Errorf("%s: access %+v, want citation only", name, o.Access)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(record("image", imageContent, "<world/>", "<world/>")))
	f.Add([]byte(record("media", `<resource sequence="1" type="audio"><file id="a.mp3" mimetype="audio/mpeg" size="1"><mediaData duration="2"/></file></resource>`, "<embargoReleaseDate>2099-01-01</embargoReleaseDate><world/>", "<world/>")))
	f.Add([]byte("<publicObject/>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := Parse(data, "bb000kk0000", now)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v is not ErrInvalid", err)
			}
			return
		}
		if o.Title == "" {
			t.Fatal("empty title")
		}
		for _, f := range o.Files() {
			if f.Name == "" || strings.ContainsAny(f.Name, "/") || f.Size < 0 {
				t.Fatalf("file %+v", f)
			}
		}
		_ = o.Viewer()
		_ = o.Access.Message()
	})
}

func TestAccessExpiredBy(t *testing.T) {
	release := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		a    Access
		now  time.Time
		want bool
	}{
		{Access{Level: Embargoed, Release: release}, release.Add(-time.Second), false},
		{Access{Level: Embargoed, Release: release}, release, true},
		{Access{Level: Embargoed, Release: release}, time.Date(2026, 3, 1, 20, 0, 0, 0, time.FixedZone("UTC-5", -5*3600)), true}, // 01:00 UTC on the 2nd
		{Access{Level: Embargoed}, release.AddDate(10, 0, 0), false},                                                             // unreadable date: embargo kept
		{Access{Level: World}, release, false},
		{Access{Level: Group, Release: release}, release, false},
	} {
		if got := tc.a.ExpiredBy(tc.now); got != tc.want {
			t.Errorf("%+v at %v: %v, want %v", tc.a, tc.now, got, tc.want)
		}
	}
}

// TestSamplesAgreeWithRecord: every sample object the PURL service serves
// is read, and its access level is what record's rights evaluation says.
func TestSamplesAgreeWithRecord(t *testing.T) {
	levels := map[Level]bool{}
	for _, f := range testkit.Files(t, "../../../samples/purl/*/public.xml") {
		p := f.Path
		rec, err := purlrecord.Parse(f.Data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		o, err := Parse(f.Data, rec.Druid.String(), now)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		levels[o.Access.Level] = true
		r := rec.Rights
		var want Level
		switch {
		case r.Dark():
			want = Dark
		case r.Embargoed(now):
			want = Embargoed
		case r.Read == purlrecord.AccessWorld:
			want = World
		case r.Read == purlrecord.AccessGroup:
			want = Group
		case r.Read == purlrecord.AccessLocation:
			want = Location
		default:
			want = CitationOnly
		}
		if o.Access.Level != want || o.Access.Restricted() == r.WorldReadable(now) {
			t.Errorf("%s: level %s (restricted %v), record says %s (world-readable %v)", p, o.Access.Level, o.Access.Restricted(), want, r.WorldReadable(now))
		}
		if len(o.Files()) != len(rec.Files()) || o.Title != rec.Title() {
			t.Errorf("%s: %d files %q, record %d files %q", p, len(o.Files()), o.Title, len(rec.Files()), rec.Title())
		}
	}
	for _, l := range []Level{World, Group, Location, CitationOnly, Embargoed, Dark} {
		if !levels[l] {
			t.Errorf("no sample of level %s", l)
		}
	}
}

// BenchmarkParse compares the adapter with record.Parse alone, side by
// side: the difference is the cost of building the viewer's view.
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("../../../samples/purl/bb000kk0000/public.xml")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("record.Parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := purlrecord.Parse(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("objectview.Parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := Parse(data, "bb000kk0000", now); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestManifestUnknown: a record with images the PURL service sizes from
// their files, or a virtual object's external images, cannot say alone
// whether there is a manifest; once the PURL service says there is, the
// viewer is Mirador. A record that can say is not asked about.
func TestManifestUnknown(t *testing.T) {
	unsized := `<resource sequence="1" type="image"><file id="a.jp2" mimetype="image/jp2" size="1"/></resource>`
	virtual := `<resource sequence="1" type="image"><label>Sheet</label><externalFile fileId="x.jp2" objectId="druid:cg767mn6478" resourceId="r" mimetype="image/jp2"><imageData width="10" height="20"/></externalFile></resource>`
	for _, tc := range []struct {
		name, contentType, content string
		unknown, external          bool
	}{
		{"sized image", "image", imageContent, false, false},
		{"unsized image", "image", unsized, true, false},
		{"virtual object", "map", virtual, true, true},
		{"virtual object without a content type", "", virtual, true, true},
		{"a data file", "file", `<resource sequence="1" type="file"><file id="d.csv" mimetype="text/csv" size="1"/></resource>`, false, false},
	} {
		o, err := Parse([]byte(record(tc.contentType, tc.content, "<world/>", "<world/>")), "bb000kk0000", now)
		if err != nil {
			t.Fatal(err)
		}
		if o.ManifestUnknown != tc.unknown || o.ExternalImages != tc.external {
			t.Errorf("%s: ManifestUnknown %v, ExternalImages %v; want %v, %v", tc.name, o.ManifestUnknown, o.ExternalImages, tc.unknown, tc.external)
		}
		if !tc.unknown {
			continue
		}
		if v := o.Viewer(); v == ViewerMirador {
			t.Errorf("%s: Mirador before the PURL service says there is a manifest", tc.name)
		}
		o.HasManifest = true
		if v := o.Viewer(); v != ViewerMirador {
			t.Errorf("%s: viewer %s with a manifest, want mirador", tc.name, v)
		}
	}
}

// TestSizeFromManifest: an image without a pixel size takes the size its
// manifest paints it at; a sized image and other objects' files keep
// theirs.
func TestSizeFromManifest(t *testing.T) {
	content := imageContent + `<resource sequence="2" type="image"><file id="b c.jp2" mimetype="image/jp2" size="1"/></resource>`
	o, err := Parse([]byte(record("image", content, "<world/>", "<world/>")), "bb000kk0000", now)
	if err != nil {
		t.Fatal(err)
	}
	const purl = "https://purl.example.org/bb000kk0000"
	manifest := `{"items":[
	 {"items":[{"items":[{"body":{"id":"` + purl + `/file/a.png","width":1,"height":2}}]}]},
	 {"items":[{"items":[{"body":{"id":"` + purl + `/file/b%20c.jp2","width":300,"height":200}}]}]},
	 {"items":[{"items":[{"body":{"id":"https://purl.example.org/bc123df5678/file/a.png","width":5,"height":5}}]}]}]}`
	if err := o.SizeFromManifest([]byte(manifest), purl); err != nil {
		t.Fatal(err)
	}
	files := o.Files()
	if len(files) != 2 || files[0].Width != 640 || files[0].Height != 480 || files[1].Width != 300 || files[1].Height != 200 {
		t.Errorf("files %+v: want a.png 640×480 (its record's), b c.jp2 300×200 (the manifest's)", files)
	}
	if err := o.SizeFromManifest([]byte("{not json"), purl); err == nil {
		t.Error("no error for a manifest that is not JSON")
	}
}
