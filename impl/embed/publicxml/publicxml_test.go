package publicxml

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)

func record(contentType, content, read, discover string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<publicObject objectId="druid:bb000kk0000" published="2026-01-15T10:00:00Z">
  <identityMetadata><objectType>item</objectType><objectLabel>The label</objectLabel></identityMetadata>
  <versionMetadata objectId="druid:bb000kk0000"/>
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:fedora="info:fedora/fedora-system:def/relations-external#">
    <rdf:Description rdf:about="info:fedora/druid:bb000kk0000">
      <fedora:isMemberOfCollection rdf:resource="info:fedora/druid:bc000df0001"/>
    </rdf:Description>
  </rdf:RDF>
  <contentMetadata objectId="druid:bb000kk0000" type="` + contentType + `">` + content + `</contentMetadata>
  <rightsMetadata>
    <access type="discover"><machine>` + discover + `</machine></access>
    <access type="read"><machine>` + read + `</machine></access>
    <access type="read"><file>other.png</file><machine><none/></machine></access>
    <use><human type="useAndReproduction">Use freely.</human><license>https://creativecommons.org/licenses/by/4.0/</license></use>
    <copyright><human>© 2026 Library</human></copyright>
  </rightsMetadata>
  <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/">
    <dc:title>  The title  </dc:title><dc:title>Second</dc:title>
  </oai_dc:dc>
</publicObject>`
}

const imageContent = `<thumb>a.png</thumb><resource id="r1" sequence="1" type="image"><label>Recto</label>
<file id="a.png" mimetype="image/png" size="20771"><imageData width="640" height="480"/></file>
<file id="master.tif" mimetype="image/tiff" size="99" publish="no"/></resource>`

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

func TestTitleFallbacks(t *testing.T) {
	rec := strings.Replace(record("file", "", "<world/>", "<world/>"), "<dc:title>  The title  </dc:title><dc:title>Second</dc:title>", "", 1)
	o, err := Parse([]byte(rec), "bb000kk0000", now)
	if err != nil || o.Title != "The label" {
		t.Errorf("%v %q", err, o.Title)
	}
	rec = strings.Replace(rec, "<objectLabel>The label</objectLabel>", "", 1)
	o, err = Parse([]byte(rec), "bb000kk0000", now)
	if err != nil || o.Title != "bb000kk0000" {
		t.Errorf("%v %q", err, o.Title)
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
		{"<embargoReleaseDate>2020-01-01</embargoReleaseDate><group>sitelib</group>", "<world/>", Group, "sitelib"},
		{"<embargoReleaseDate>someday</embargoReleaseDate><world/>", "<world/>", Embargoed, "under embargo"},
		{"<cdl/>", "<world/>", CDL, "controlled digital lending"},
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
		{"book", `<resource type="page"><file id="p1.jpg" mimetype="image/jpeg" size="1"/></resource>`, ViewerMirador},
		{"map", `<resource type="image"><file id="m.jpg" mimetype="image/jpeg" size="1"/></resource>`, ViewerMirador},
		{"media", `<resource type="audio"><file id="a.mp3" mimetype="audio/mpeg" size="1"/></resource><resource type="file"><file id="t.txt" mimetype="text/plain" size="1"/></resource>`, ViewerMedia},
		{"document", `<resource type="document"><file id="r.pdf" mimetype="application/pdf" size="1"/></resource>`, ViewerPDF},
		{"file", `<resource type="file"><file id="d.csv" mimetype="text/csv" size="1"/></resource>`, ViewerFiles},
		{"file", `<resource type="file"><file id="v.mp4" mimetype="video/mp4" size="1"/></resource>`, ViewerMedia},
		{"image", `<resource type="file"><file id="d.zip" mimetype="application/zip" size="1"/></resource>`, ViewerFiles},
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
		"path in file id": record("file", `<resource><file id="../secret" mimetype="text/plain" size="1"/></resource>`, "<world/>", "<world/>"),
		"bad size":        record("file", `<resource><file id="a" mimetype="text/plain" size="-1"/></resource>`, "<world/>", "<world/>"),
		"entity":          `<!DOCTYPE p [<!ENTITY x SYSTEM "file:///etc/passwd">]><publicObject>&x;</publicObject>`,
		"too big":         "<publicObject>" + strings.Repeat(" ", MaxSize) + "</publicObject>",
	} {
		if _, err := Parse([]byte(rec), "bb000kk0000", now); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: err %v, want ErrInvalid", name, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(record("image", imageContent, "<world/>", "<world/>")))
	f.Add([]byte(record("media", `<resource><file id="a.mp3" mimetype="audio/mpeg" size="1"/></resource>`, "<embargoReleaseDate>2099-01-01</embargoReleaseDate>", "<world/>")))
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
