package record

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// realRecords lists the records of testdata/real (docs/purl.md, "Ingest"):
// real public XML from public repositories other than the one the shared
// corpus comes from, each named <druid>.public.xml (README.md says where
// each comes from).
func realRecords(t testing.TB) []testkit.File {
	t.Helper()
	return testkit.Files(t, filepath.Join("testdata", "real", "*.public.xml"))
}

// TestIngestRealRecords: every record of testdata/real is accepted as the
// object its file is named for, its served form is stable, and what it
// says of the object (files, rights, title) is read from it.
func TestIngestRealRecords(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	for _, f := range realRecords(t) {
		name := filepath.Base(f.Path)
		id, err := druid.Parse(strings.TrimSuffix(name, ".public.xml"))
		if err != nil {
			t.Fatalf("%s: the file is not named for a druid: %v", name, err)
		}
		in, err := IngestWith(ctx, f.Data, IngestOptions{Schema: schema, ID: id})
		if err != nil {
			t.Errorf("%s: refused: %v", name, err)
			continue
		}
		if in.Record.Druid != id {
			t.Errorf("%s: ingested as %s", name, in.Record.Druid)
		}
		again, err := IngestWith(ctx, in.Data, IngestOptions{Schema: schema, ID: id})
		if err != nil || string(again.Data) != string(in.Data) {
			t.Errorf("%s: the served record is not stable: %v", name, err)
		}
		if check := realExpectations[strings.TrimSuffix(name, ".public.xml")]; check != nil {
			if err := check(in.Record); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		t.Logf("%s: %s, %d files, rights %s; warnings: %q", name, in.Record.ContentType, len(in.Record.Files()), in.Record.Rights.Read, in.Warnings)
	}
}

// realExpectations says what some real records mean, as the repository
// meant it (what TestIngestRealRecords checks beyond their being served).
var realExpectations = map[string]func(r *Record) error{
	// The thumbnail named in the top-level thumb, as <druid>/<file>.
	"bc390xk2647": func(r *Record) error { return expect("thumb", r.Thumb, "00007845_005.jp2") },
	// The thumbnail's resource marked thumb="yes".
	"zz000bb0029": func(r *Record) error { return expect("thumb", r.Thumb, "thumb.jp2") },
	// audioData in ISO 8601.
	"zz000bb0027": func(r *Record) error {
		f, _ := r.File("abc_123.mp3")
		return expect("duration", fmt.Sprint(f.Duration), "43")
	},
	// Releases from identityMetadata and releaseData, once each.
	"dc235vd9662": func(r *Record) error {
		var got []string
		for _, rel := range r.Releases {
			got = append(got, fmt.Sprintf("%s=%v", rel.To, rel.Released))
		}
		return expect("releases", strings.Join(got, " "), "Kurita=true Atago=false Mogami=true")
	},
	"nj770kg7809": func(r *Record) error { return expect("object type", r.ObjectType, "collection") },
	// A collection whose identityMetadata/objectId is a placeholder
	// (druid:oo000oo0000) beside its real @id.
	"yg867hg1375": func(r *Record) error { return expect("object type", r.ObjectType, "collection") },
	// A Rumsey virtual object (externalFile images of two constituents);
	// its licence is the code by-nc-sa in a second use element.
	"hj097bm8879": func(r *Record) error {
		if len(r.Files()) != 0 {
			return fmt.Errorf("files %v, want none of its own", r.Files())
		}
		return expect("licence", r.Rights.License, "https://creativecommons.org/licenses/by-nc-sa/3.0/legalcode")
	},
	// Two use elements: the statement in the first.
	"cg160px5426": func(r *Record) error {
		if !strings.HasPrefix(r.Rights.UseStatement, "Property rights reside with the repository.") {
			return fmt.Errorf("use statement %q", r.Rights.UseStatement)
		}
		return expect("collection", fmt.Sprint(r.Collections), "[cj445qq4021]")
	},
	// A statement ending in an HTML link: read with the link's text.
	"bg210vm0680": func(r *Record) error {
		if !strings.HasSuffix(r.Rights.UseStatement, "Librarian at speccollref@stanford.edu.") {
			return fmt.Errorf("use statement %q", r.Rights.UseStatement)
		}
		return expect("read group", r.Rights.ReadName, "stanford")
	},
	// The current publisher's book read right to left: <bookData
	// readingOrder="rtl"/>; resources that share one id (the spec's
	// stubbed UUID); transcriptions not shelved.
	"bc123df5678": func(r *Record) error {
		if err := expect("reading order", r.ReadingOrder, "rtl"); err != nil {
			return err
		}
		if len(r.Files()) != 3 {
			return fmt.Errorf("files %v, want the two images and checksum.txt", r.Files())
		}
		return nil
	},
	// The copyright's &#xA9; is the character.
	"ys174nw6600": func(r *Record) error {
		if !strings.HasPrefix(r.Rights.Copyright, "Copyright © 1976") {
			return fmt.Errorf("copyright %q", r.Rights.Copyright)
		}
		return nil
	},
	// No identifier, a transcription file with no size and one of 100 GiB.
	"zz000bb0038": func(r *Record) error {
		if len(r.Files()) != 2 {
			return fmt.Errorf("files %v", r.Files())
		}
		return nil
	},
	// A dark record named by a placeholder (druid:1234).
	"zz000bb0037": func(r *Record) error {
		if !r.Rights.Dark() {
			return fmt.Errorf("not dark")
		}
		return nil
	},
	// Dark; its rdf:Description is about another object, so it names no
	// collection of this one.
	"mk420bs7601": func(r *Record) error {
		if !r.Rights.Dark() || len(r.Collections) != 0 {
			return fmt.Errorf("dark %v, collections %v; want dark and none", r.Rights.Dark(), r.Collections)
		}
		return nil
	},
	"zz000bb0018": func(r *Record) error {
		return expect("licence", r.Rights.License, "https://creativecommons.org/licenses/by-nc/3.0/legalcode")
	},
	// World may view but not download; the transcript is world's.
	"zz000bb0013": func(r *Record) error {
		if err := expect("read rule", r.Rights.ReadRule, "no-download"); err != nil {
			return err
		}
		a := r.Rights.ForFile("zr649jg5679_script.pdf")
		if len(a.Grants) != 1 || a.Grants[0].Kind != AccessWorld || a.Grants[0].Rule != "" {
			return fmt.Errorf("the transcript's rights are %+v, want world", a)
		}
		return nil
	},
}

func expect(what, got, want string) error {
	if got != want {
		return fmt.Errorf("%s %q, want %q", what, got, want)
	}
	return nil
}

// TestUndeclaredPrefix: a record that uses a prefix it never declares
// (real: a MODS accessCondition with xlink:href and no xmlns:xlink) is
// accepted; the prefix is declared as its conventional namespace (an
// unknown one as a namespace saying it was undeclared), with a warning,
// and the served record is namespace-well-formed: read with namespaces,
// the attribute is in the XLink namespace.
func TestUndeclaredPrefix(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	doc := []byte(`<publicObject objectId="druid:bc123df4567" published="2020-01-01T00:00:00Z">
  <identityMetadata><objectLabel>L</objectLabel><foo:note>kept</foo:note></identityMetadata>
  <mods xmlns="http://www.loc.gov/mods/v3"><titleInfo><title>T</title></titleInfo>
    <accessCondition type="license" xlink:href="https://www.apache.org/licenses/LICENSE-2.0">Apache 2.0</accessCondition></mods>
</publicObject>`)
	in, err := IngestWith(ctx, doc, IngestOptions{Schema: schema})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	for _, want := range []string{`prefix "xlink" without declaring it: it is declared as ` + NSXLink, `prefix "foo" without declaring it: it is declared as ` + undeclaredNamespace + "foo"} {
		if !containsWarning(in.Warnings, want) {
			t.Errorf("no warning %q in %q", want, in.Warnings)
		}
	}
	var href, note xml.Name
	dec := xml.NewDecoder(bytes.NewReader(in.Data))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok {
			for _, a := range se.Attr {
				if a.Name.Local == "href" {
					href = a.Name
				}
			}
			if se.Name.Local == "note" {
				note = se.Name
			}
		}
	}
	if href.Space != NSXLink || note.Space != undeclaredNamespace+"foo" {
		t.Errorf("served names: href in %q, note in %q", href.Space, note.Space)
	}
	// The embedded MODS is served as valid MODS 3.6 with its xlink:href.
	out, _, err := PrepareMODS(ctx, in.Record.MODS, schema)
	if err != nil || !bytes.Contains(out, []byte(`xlink:href="https://www.apache.org/licenses/LICENSE-2.0"`)) {
		t.Errorf("served MODS: %v\n%s", err, out)
	}
	again, err := IngestWith(ctx, in.Data, IngestOptions{Schema: schema})
	if err != nil || !bytes.Equal(again.Data, in.Data) {
		t.Errorf("the served record is not stable: %v", err)
	}
}

// TestMODSWithoutNamespace: MODS written with no namespace at all (real:
// an embedded <mods> of a geo record; also as a document of its own) is
// read as MODS, with a warning: the page's title comes from it, and it is
// served as valid MODS 3.6 keeping what it says.
func TestMODSWithoutNamespace(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	doc := []byte(`<publicObject id="druid:bc123df4567" published="2018-07-20T20:56:19Z">
  <MODS><titleInfo><title>Rivers of Uganda</title></titleInfo><extension displayLabel="geo"><x:y xmlns:x="urn:x">1</x:y></extension></MODS>
</publicObject>`)
	in, err := IngestWith(ctx, doc, IngestOptions{Schema: schema})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if !containsWarning(in.Warnings, "publicObject/mods (spelled MODS) has no namespace") {
		t.Errorf("no warning of the namespace: %q", in.Warnings)
	}
	if in.Record.Title() != "Rivers of Uganda" || in.Record.MODS == nil {
		t.Errorf("title %q, MODS %q", in.Record.Title(), in.Record.MODS)
	}
	// xmlns="" (no namespace, said outright) is replaced, not repeated.
	undeclared, err := IngestWith(ctx, []byte(`<publicObject id="druid:bc123df4567" published="2018-07-20T20:56:19Z"><mods xmlns=""><titleInfo><title>Rivers of Uganda</title></titleInfo></mods></publicObject>`), IngestOptions{Schema: schema})
	if err != nil || undeclared.Record.Title() != "Rivers of Uganda" || bytes.Count(undeclared.Data, []byte(`xmlns=`)) != 1 {
		t.Errorf("mods xmlns=\"\": %v\n%s", err, undeclared.Data)
	}
	for _, standalone := range [][]byte{in.Record.MODS, []byte(`<mods version="3.4"><titleInfo><title>Rivers of Uganda</title></titleInfo></mods>`)} {
		out, warnings, err := PrepareMODS(ctx, standalone, schema)
		if err != nil {
			t.Fatalf("%s: %v", standalone, err)
		}
		m, err := ParseMODS(out)
		if err != nil || m.Title != "Rivers of Uganda" || m.Version != "3.6" {
			t.Errorf("served MODS %s: %v", out, err)
		}
		if err := schema.Validate(ctx, out); err != nil {
			t.Errorf("served MODS does not validate: %v", err)
		}
		t.Logf("warnings: %q", warnings)
	}
}

// TestMediaDurations: the duration of audio and video comes from the
// seed's mediaData or the older videoData and audioData, in seconds or as
// an ISO 8601 duration; what is not a positive duration is warned of and
// the file is served without one.
func TestMediaDurations(t *testing.T) {
	for _, c := range []struct {
		data string
		want float64
		warn string
	}{
		{`<mediaData duration="12.5"/>`, 12.5, ""},
		{`<videoData duration="P0DT1H2M3S" height="288" width="352"/>`, 3723, ""},
		{`<audioData duration="PT1M30.5S"/>`, 90.5, ""},
		{`<videoData duration="-P1W"/>`, 0, `videoData/@duration "-P1W" is not a positive duration`},
		{`<videoData duration="PDDTMMS"/>`, 0, `videoData/@duration "PDDTMMS" is not a positive duration`},
		{`<mediaData duration="PT"/>`, 0, `mediaData/@duration "PT" is not a positive duration`},
		{`<videoData height="288" width="352"/>`, 0, `has no mediaData duration`},
	} {
		doc := `<publicObject objectId="druid:bc123df4567" published="2020-01-01T00:00:00Z"><contentMetadata type="media">
<resource type="video" sequence="1"><file id="a.mp4" mimetype="video/mp4" size="1">` + c.data + `</file></resource></contentMetadata></publicObject>`
		in, err := Ingest(context.Background(), []byte(doc), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.data, err)
		}
		if f, _ := in.Record.File("a.mp4"); f.Duration != c.want {
			t.Errorf("%s: duration %v, want %v", c.data, f.Duration, c.want)
		}
		if c.warn != "" && !containsWarning(in.Warnings, c.warn) {
			t.Errorf("%s: no warning %q in %q", c.data, c.warn, in.Warnings)
		}
		if c.want > 0 && len(in.Record.Canvases()) != 1 {
			t.Errorf("%s: the video is not a canvas", c.data)
		}
	}
}

// TestLicenseCodes: the licence of older records, a code in
// use/machine[@type] with no uri, is read as the licence's URI; a uri
// given wins; an unknown code is warned of and no licence is read.
func TestLicenseCodes(t *testing.T) {
	for _, c := range []struct{ use, want, warn string }{
		{`<machine type="creativeCommons">by-nc</machine>`, "https://creativecommons.org/licenses/by-nc/3.0/legalcode", ""},
		{`<machine type="creativeCommons">BY-NC-SA</machine><human type="creativeCommons">CC BY-NC-SA</human>`, "https://creativecommons.org/licenses/by-nc-sa/3.0/legalcode", ""},
		{`<machine type="creativeCommons">by_sa</machine>`, "https://creativecommons.org/licenses/by-sa/3.0/legalcode", ""},
		{`<machine type="creativeCommons" uri="https://creativecommons.org/publicdomain/mark/1.0/">pdm</machine>`, "https://creativecommons.org/publicdomain/mark/1.0/", ""},
		{`<machine type="openDataCommons">odc-by</machine>`, "https://opendatacommons.org/licenses/by/1-0/", ""},
		{`<machine type="openDataCommons">pddl</machine>`, "https://opendatacommons.org/licenses/pddl/1-0/", ""},
		{`<machine type="creativeCommons">none</machine>`, "", ""},
		{`<machine type="creativeCommons"/>`, "", ""},
		{`<machine type="creativeCommons">by-nc-i</machine>`, "", `licence code "by-nc-i" (type "creativeCommons") is not one the service knows`},
		{`<license>https://creativecommons.org/licenses/by/4.0/legalcode</license>`, "https://creativecommons.org/licenses/by/4.0/legalcode", ""},
	} {
		doc := `<publicObject objectId="druid:bc123df4567" published="2020-01-01T00:00:00Z"><rightsMetadata><use>` + c.use + `</use></rightsMetadata></publicObject>`
		in, err := Ingest(context.Background(), []byte(doc), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.use, err)
		}
		if in.Record.Rights.License != c.want {
			t.Errorf("%s: licence %q, want %q", c.use, in.Record.Rights.License, c.want)
		}
		if c.warn != "" && !containsWarning(in.Warnings, c.warn) {
			t.Errorf("%s: no warning %q in %q", c.use, c.warn, in.Warnings)
		}
	}
}

func containsWarning(warnings []string, part string) bool {
	for _, w := range warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}

// TestRightsRealForms reads the rightsMetadata forms the repository's
// publishing code writes (sul-dlss/dor-services-app, Publish::RightsMetadata
// and its spec: Cocina access mapped to rightsMetadata; sul-dlss/sul-embed's
// fixtures) with the repository's semantics: several grants, any one
// admits; a file's own read access overrides the object's; rules are kept;
// a location code with '&' is a location; lending and doubts grant nothing.
func TestRightsRealForms(t *testing.T) {
	const dw = `<access type="discover"><machine><world/></machine></access>`
	type grant = string // kind:name/rule
	grants := func(a Access) []grant {
		var out []grant
		for _, g := range a.Grants {
			s := g.Kind.String()
			if g.Name != "" {
				s += ":" + g.Name
			}
			if g.Rule != "" {
				s += "/" + g.Rule
			}
			out = append(out, s)
		}
		return out
	}
	for _, c := range []struct {
		name, rights string
		dark         bool
		object       []grant
		file         []grant // of placeholder.jp2 (nil: the object's)
		embargo      string
		doubt        string
	}{
		{name: "world no-download, stanford download", rights: dw + `<access type="read"><machine><group>stanford</group></machine></access><access type="read"><machine><world rule="no-download" /></machine></access>`,
			object: []grant{"group:stanford", "world/no-download"}},
		{name: "location no-download", rights: dw + `<access type="read"><machine><location rule="no-download">art</location></machine></access>`,
			object: []grant{"location:art/no-download"}},
		{name: "stanford view, location download", rights: dw + `<access type="read"><machine><location>art</location></machine></access><access type="read"><machine><group rule="no-download">stanford</group></machine></access>`,
			object: []grant{"location:art", "group:stanford/no-download"}},
		{name: "embargo with world no-download", rights: dw + `<access type="read"><machine><group>stanford</group></machine></access><access type="read"><machine><world rule="no-download" /><embargoReleaseDate>2020-02-26T00:00:00+00:00</embargoReleaseDate></machine></access>`,
			object: []grant{"group:stanford", "world/no-download"}, embargo: "2020-02-26"},
		{name: "dark", rights: `<access type="discover"><machine><none /></machine></access><access type="read"><machine><none /></machine></access>`, dark: true},
		{name: "citation only", rights: dw + `<access type="read"><machine><none /></machine></access>`},
		{name: "controlled digital lending", rights: dw + `<access type="read"><machine><cdl><group rule="no-download">stanford</group></cdl></machine></access>`,
			doubt: "controlled digital lending"},
		{name: "file no-download in a world object", rights: dw + `<access type="read"><machine><world /></machine></access><access type="read"><file>placeholder.jp2</file><machine><world rule="no-download"/></machine></access>`,
			object: []grant{"world"}, file: []grant{"world/no-download"}},
		{name: "file location and stanford in two machines", rights: dw + `<access type="read"><machine><world /></machine></access><access type="read"><file>placeholder.jp2</file><machine><location>art</location></machine><machine><group rule="no-download">stanford</group></machine></access>`,
			object: []grant{"world"}, file: []grant{"location:art", "group:stanford/no-download"}},
		{name: "file at the location m&m", rights: dw + `<access type="read"><machine><world /></machine></access><access type="read"><file>placeholder.jp2</file><machine><location>m&amp;m</location></machine><machine><world rule="no-download" /></machine></access>`,
			object: []grant{"world"}, file: []grant{"location:m&m", "world/no-download"}},
		{name: "embargo before the group (older order), copyright first", rights: `<copyright><human>(c) Copyright [conferral year] by [student name]</human></copyright>` + dw + `<access type="read"><machine><group>stanford</group><embargoReleaseDate>2011-10-08</embargoReleaseDate></machine></access>`,
			object: []grant{"group:stanford"}, embargo: "2011-10-08"},
		{name: "group spelled Stanford", rights: dw + `<access type="read"><machine><group>Stanford</group></machine></access>`,
			object: []grant{"group:Stanford"}},
		{name: "object none, one file stanford", rights: `<access type="read"><file>placeholder.jp2</file><machine><group>stanford</group></machine></access>`,
			file: []grant{"group:stanford"}},
	} {
		doc := `<publicObject objectId="druid:wf816pb3072" published="2020-01-01T00:00:00Z"><contentMetadata type="file">
<resource type="file" sequence="1"><file id="placeholder.jp2" mimetype="image/jp2" size="1"/></resource></contentMetadata><rightsMetadata>` + c.rights + `</rightsMetadata></publicObject>`
		in, err := Ingest(context.Background(), []byte(doc), nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		r := in.Record.Rights
		if r.Dark() != c.dark {
			t.Errorf("%s: dark %v", c.name, r.Dark())
		}
		if got := grants(r.Object); strings.Join(got, " ") != strings.Join(c.object, " ") {
			t.Errorf("%s: object grants %q, want %q", c.name, got, c.object)
		}
		wantFile := c.file
		if wantFile == nil {
			wantFile = c.object
		}
		if got := grants(r.ForFile("placeholder.jp2")); strings.Join(got, " ") != strings.Join(wantFile, " ") {
			t.Errorf("%s: file grants %q, want %q", c.name, got, wantFile)
		}
		if got := r.EmbargoUntil; (c.embargo == "" && !got.IsZero()) || (c.embargo != "" && got.Format("2006-01-02") != c.embargo) {
			t.Errorf("%s: embargo %v, want %q", c.name, got, c.embargo)
		}
		if c.doubt != "" && !containsWarning(r.Doubts, c.doubt) {
			t.Errorf("%s: no doubt %q in %q", c.name, c.doubt, r.Doubts)
		}
		if c.doubt == "" && len(r.Doubts) > 0 {
			t.Errorf("%s: doubts %q", c.name, r.Doubts)
		}
	}
}

// TestPrepareRealMODS: MODS records of other repositories and eras
// (testdata/real/mods: 3.0 with the mods: prefix and an extension in
// another namespace, 3.8) are served as MODS 3.6 that validates, keeping
// their title; preparing that again changes nothing.
// prepareServed prepares the MODS record doc (named name) as the service
// serves it and checks the result: valid against schema, MODS 3.6, and
// stable (prepared again, unchanged and without warnings). It returns the
// served record, read, and the warnings; a nil record when doc was refused
// (the test failed).
func prepareServed(t *testing.T, ctx context.Context, schema *MODSSchema, name string, doc []byte) ([]byte, *MODS, []string) {
	t.Helper()
	out, warnings, err := PrepareMODS(ctx, doc, schema)
	if err != nil {
		t.Errorf("%s: refused: %v", name, err)
		return nil, nil, nil
	}
	if err := schema.Validate(ctx, out); err != nil {
		t.Errorf("%s: served MODS does not validate: %v", name, err)
	}
	served, err := ParseMODS(out)
	if err != nil || served.Version != "3.6" {
		t.Errorf("%s: served MODS is not MODS 3.6: %+v %v", name, served, err)
		return nil, nil, nil
	}
	again, w, err := PrepareMODS(ctx, out, schema)
	if err != nil || !bytes.Equal(again, out) || len(w) != 0 {
		t.Errorf("%s: preparing the served MODS again changes it: %v %q", name, err, w)
	}
	return out, served, warnings
}

func TestPrepareRealMODS(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	for _, f := range testkit.Files(t, filepath.Join("testdata", "real", "mods", "*.mods.xml")) {
		p, data := f.Path, f.Data
		m, err := ParseMODS(data)
		if title, wrapped := modsCollectionTitles[filepath.Base(p)]; wrapped {
			m, err = &MODS{Title: title}, nil
		}
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		out, served, warnings := prepareServed(t, ctx, schema, p, data)
		if out == nil {
			continue
		}
		if served.Title != m.Title || m.Title == "" {
			t.Errorf("%s: served the title %q, want %q", p, served.Title, m.Title)
		}
		t.Logf("%s: MODS %q served as 3.6; warnings %q", filepath.Base(p), m.Version, warnings)
	}
}

// TestDocumentEncodings: a record is well-formed XML in any encoding XML
// allows. One with a byte order mark, in UTF-16, or declaring ISO-8859-1,
// windows-1252 or US-ASCII is read as what it says and served in UTF-8
// (with a warning), stably; an encoding the service cannot decode is
// refused, saying which.
func TestDocumentEncodings(t *testing.T) {
	ctx := context.Background()
	body := func(label string) string {
		return `<publicObject objectId="druid:bc123df4567" published="2020-01-01T00:00:00Z"><identityMetadata><objectLabel>` + label + `</objectLabel></identityMetadata></publicObject>`
	}
	utf16le := func(s string) []byte {
		out := []byte{0xFF, 0xFE}
		for _, r := range s {
			out = append(out, byte(r), byte(r>>8))
		}
		return out
	}
	utf16be := func(s string) []byte {
		var out []byte
		for _, r := range s {
			out = append(out, byte(r>>8), byte(r))
		}
		return out
	}
	for _, c := range []struct {
		name  string
		doc   []byte
		label string
	}{
		{"UTF-8 byte order mark", append([]byte("\xEF\xBB\xBF"), `<?xml version="1.0" encoding="UTF-8"?>`+body("Café")...), "Café"},
		{"ISO-8859-1", []byte(`<?xml version="1.0" encoding="ISO-8859-1"?>` + body("Caf\xe9 \xa9 1976")), "Café © 1976"},
		{"windows-1252", []byte(`<?xml version='1.0' encoding='windows-1252'?>` + body("\x93Trumpet\x94")), "“Trumpet”"},
		{"US-ASCII", []byte(`<?xml version="1.0" encoding="US-ASCII"?>` + body("Plain")), "Plain"},
		{"UTF-16 with a byte order mark", utf16le(`<?xml version="1.0" encoding="UTF-16"?>` + body("Café")), "Café"},
		// Labels of the WHATWG Encoding Standard the IANA registry does
		// not name, as tools write them.
		{"iso8859-1 (a WHATWG label)", []byte(`<?xml version="1.0" encoding="iso8859-1"?>` + body("Caf\xe9")), "Café"},
		// UTF-16 without its byte order mark, known by its first "<".
		{"UTF-16LE without a byte order mark", utf16le(`<?xml version="1.0" encoding="UTF-16"?>` + body("Café"))[2:], "Café"},
		{"UTF-16BE without a byte order mark", utf16be(`<?xml version="1.0" encoding="UTF-16"?>` + body("Café")), "Café"},
		// A blank line before the declaration (templates write one).
		{"a blank line, then ISO-8859-1", []byte("\n<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n" + body("Caf\xe9")), "Café"},
		{"cp1252 (a WHATWG label)", []byte(`<?xml version="1.0" encoding="cp1252"?>` + body("\x93Trumpet\x94")), "“Trumpet”"},
	} {
		in, err := Ingest(ctx, c.doc, nil)
		if err != nil {
			t.Errorf("%s: refused: %v", c.name, err)
			continue
		}
		if in.Record.Label != c.label {
			t.Errorf("%s: label %q, want %q", c.name, in.Record.Label, c.label)
		}
		if !containsWarning(in.Warnings, "it is read and served as UTF-8") {
			t.Errorf("%s: no warning of the encoding: %q", c.name, in.Warnings)
		}
		if !utf8.Valid(in.Data) || bytes.HasPrefix(in.Data, []byte("\xEF\xBB\xBF")) || bytes.Contains(in.Data[:min(len(in.Data), 60)], []byte("encoding=\"ISO")) {
			t.Errorf("%s: the served record is not plain UTF-8: %q", c.name, in.Data[:min(len(in.Data), 80)])
		}
		again, err := Ingest(ctx, in.Data, nil)
		if err != nil || !bytes.Equal(again.Data, in.Data) {
			t.Errorf("%s: the served record is not stable: %v", c.name, err)
		}
	}
	for _, label := range []string{"x-unheard-of", "iso-2022-kr"} {
		// iso-2022-kr is a WHATWG label of its "replacement" encoding,
		// which reads nothing: not read either.
		_, err := Ingest(ctx, []byte(`<?xml version="1.0" encoding="`+label+`"?>`+body("X")), nil)
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), `encoding "`+label+`" is not one the service can read`) {
			t.Errorf("an encoding the service cannot read (%s): %v", label, err)
		}
	}
	// XML 1.1 declared: read and served as 1.0, with a warning; a
	// character only 1.1 allows is refused as malformed.
	in, err := Ingest(ctx, []byte(`<?xml version="1.1" encoding="UTF-8"?>`+body("Café")), nil)
	if err != nil || in.Record.Label != "Café" || !containsWarning(in.Warnings, "the document declares XML 1.1: it is read and served as XML 1.0") || bytes.Contains(in.Data, []byte(`version="1.1"`)) {
		t.Errorf("XML 1.1: %v %q\n%s", err, in.Warnings, in.Data)
	}
	if _, err := Ingest(ctx, []byte(`<?xml version='1.1'?>`+body("bell &#x7;")), nil); !errors.Is(err, ErrMalformed) {
		t.Errorf("XML 1.1 with a control character 1.0 does not allow: %v, want refused as malformed", err)
	}
	// A MODS record of its own, in ISO-8859-1.
	schema := testSchema(t)
	out, _, err := PrepareMODS(ctx, []byte(`<?xml version="1.0" encoding="ISO-8859-1"?><mods xmlns="http://www.loc.gov/mods/v3" version="3.3"><titleInfo><title>Caf`+"\xe9"+`</title></titleInfo></mods>`), schema)
	if m, perr := ParseMODS(out); err != nil || perr != nil || m.Title != "Café" {
		t.Errorf("ISO-8859-1 MODS: %v %v %s", err, perr, out)
	}
}

// TestNotShelvedFiles: a file the record marks publish="no" or
// shelve="no" is not in the digital stacks (real: the permission document
// of an EEMS deposit, mr497sx5638 of the shared corpus): publishing does
// not require it, it is not served or listed, and the record keeps it.
func TestNotShelvedFiles(t *testing.T) {
	var data []byte
	for _, f := range corpusRecords(t, ".public.xml") {
		if filepath.Base(f.Path) == "mr497sx5638.1.public.xml" {
			data = f.Data
		}
	}
	if data == nil {
		t.Fatal("mr497sx5638.1.public.xml is not in the corpus")
	}
	var asked []string
	in, err := IngestWith(context.Background(), data, IngestOptions{Files: func(name string) (int64, error) {
		asked = append(asked, name)
		if name != "statewide-water-action-plan-web-version.pdf" {
			return 0, fmt.Errorf("%s: no such file", name)
		}
		return 706331, nil
	}})
	if err != nil {
		t.Fatalf("refused without the permission document: %v", err)
	}
	if len(asked) != 1 {
		t.Errorf("files required: %q, want only the shelved one", asked)
	}
	if _, ok := in.Record.File("ACWA_WaterPublications.pdf"); ok || len(in.Record.Files()) != 1 {
		t.Errorf("the unshelved file is served: %v", in.Record.Files())
	}
	if !bytes.Contains(in.Data, []byte(`id="ACWA_WaterPublications.pdf"`)) {
		t.Errorf("the served record lost the unshelved file's entry")
	}
	if !containsWarning(in.Warnings, `file "ACWA_WaterPublications.pdf" is marked publish="yes" shelve="no"`) {
		t.Errorf("no warning of the unshelved file: %q", in.Warnings)
	}
}

// TestUnservableFileNames: a file entry with no name, or a hidden file
// (.DS_Store, a name in a hidden folder), is not served, with a warning,
// and the record is accepted without it; a name that would leave the
// object's folder is still refused.
func TestUnservableFileNames(t *testing.T) {
	doc := func(files string) []byte {
		return []byte(`<publicObject objectId="druid:bc123df4567" published="2020-01-01T00:00:00Z"><contentMetadata type="file"><resource type="file" sequence="1">` +
			`<file id="a.pdf" mimetype="application/pdf" size="1"/>` + files + `</resource></contentMetadata></publicObject>`)
	}
	var asked []string
	in, err := IngestWith(context.Background(), doc(`<file id=".DS_Store" size="6148"/><file id="data/.thumbs/b.png" mimetype="image/png"/><file mimetype="image/jp2" size="3"/><file id="" size="1"/>`), IngestOptions{
		Files: func(name string) (int64, error) { asked = append(asked, name); return 1, nil },
	})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if len(in.Record.Files()) != 1 || strings.Join(asked, " ") != "a.pdf" {
		t.Errorf("files served %v, required %q; want only a.pdf", in.Record.Files(), asked)
	}
	for _, w := range []string{`".DS_Store" has an element starting with a dot`, `"data/.thumbs/b.png" has an element starting with a dot`, "empty file name: not served"} {
		if !containsWarning(in.Warnings, w) {
			t.Errorf("no warning %q in %q", w, in.Warnings)
		}
	}
	for _, bad := range []string{`<file id="../b.pdf"/>`, `<file id="a/../../b.pdf"/>`, `<file id="./b.pdf"/>`, `<file id="public.xml"/>`} {
		if _, err := Ingest(context.Background(), doc(bad), nil); !errors.Is(err, ErrUnacceptable) || !strings.Contains(err.Error(), "cannot be in the object folder") {
			t.Errorf("%s: %v, want a refusal", bad, err)
		}
	}
}

// modsCollectionTitles are the titles of the MODS documents of
// testdata/real/mods that ParseMODS cannot read as they are: one record
// wrapped in a modsCollection, or a mods root in no namespace (ParseMODS
// reads a mods root in the MODS namespace only; PrepareMODS unwraps the
// collection and puts the record in the namespace).
var modsCollectionTitles = map[string]string{
	"acl-modsCollection.mods.xml":                   "Word-level Translation Quality Estimation Based on Optimal Transport",
	"marc4j-summerland-dlc-3.0.mods.xml":            "Summerland",
	"lcwa-slate-no-namespace.mods.xml":              "Slate Magazine",
	"hydrus-devel-no-namespace.mods.xml":            "How Couples Meet and Stay Together",
	"tapas-loc-minerva-modsCollection-3.3.mods.xml": "FranUlmer.com -- Home Page",
}

// TestIdentityObjectID: identityMetadata/objectId names the object in its
// text. A placeholder that is not a druid (real: a sul-dlss indexer's
// collection fixture, @id druid:yg867hg1375 with identityMetadata/objectId
// druid:oo000oo0000) is served as the object's druid, with a warning; a
// bare druid of the object is written druid:<id>; one naming another druid
// is refused, as contentMetadata/@objectId naming another is.
func TestIdentityObjectID(t *testing.T) {
	ctx := context.Background()
	doc := func(objectID string) []byte {
		return []byte(`<publicObject id="druid:bc123df4567" published="2015-02-26T10:50:07-08:00"><identityMetadata><objectId>` + objectID + `</objectId><objectType>collection</objectType></identityMetadata></publicObject>`)
	}
	for _, c := range []struct {
		objectID, warning string
	}{
		{"druid:oo000oo0000", `identityMetadata/objectId "druid:oo000oo0000" is not a druid: served as druid:bc123df4567`},
		{"bc123df4567", ""},
		{"druid:bc123df4567", ""},
	} {
		in, err := Ingest(ctx, doc(c.objectID), nil)
		if err != nil {
			t.Errorf("%s: refused: %v", c.objectID, err)
			continue
		}
		if !bytes.Contains(in.Data, []byte("<objectId>druid:bc123df4567</objectId>")) || bytes.Contains(in.Data, []byte("oo000oo0000")) {
			t.Errorf("%s: served identityMetadata does not name the object:\n%s", c.objectID, in.Data)
		}
		if c.warning != "" && !containsWarning(in.Warnings, c.warning) {
			t.Errorf("%s: no warning %q in %q", c.objectID, c.warning, in.Warnings)
		}
		if in.Record.ObjectType != "collection" {
			t.Errorf("%s: object type %q", c.objectID, in.Record.ObjectType)
		}
	}
	_, err := Ingest(ctx, doc("druid:bt102cd1002"), nil)
	if !errors.Is(err, ErrUnacceptable) || err == nil || !strings.Contains(err.Error(), `identityMetadata/objectId "druid:bt102cd1002" names another object than druid:bc123df4567`) {
		t.Errorf("identityMetadata/objectId naming another object: %v, want refused naming it", err)
	}
}

// TestMODSNameCase: a MODS name written in another case than the schema
// declares (real: keydate="yes" on a dateCreated, in a Stanford special
// collections record of sul-dlss-deprecated/colligo) is served in the
// schema's spelling, with a warning, not dropped; so is an element
// (dateissued, TitleInfo). A respelled attribute the element still does
// not allow is dropped, as any attribute the schema rejects.
func TestMODSNameCase(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	doc := []byte(`<mods xmlns="http://www.loc.gov/mods/v3" version="3.3">
<TitleInfo><title>Letter of Pius VI</title></TitleInfo>
<originInfo><dateCreated keydate="yes">June 1781</dateCreated><dateissued encoding="w3cdtf">1781</dateissued></originInfo>
<note KeyDate="yes">Purchased, 2011.</note>
</mods>`)
	out, served, warnings := prepareServed(t, ctx, schema, "case variants", doc)
	if out == nil {
		return
	}
	for _, want := range []string{
		`<dateCreated keyDate="yes">June 1781</dateCreated>`,
		`<dateIssued encoding="w3cdtf">1781</dateIssued>`,
		`<note>Purchased, 2011.</note>`,
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("served MODS has no %s:\n%s", want, out)
		}
	}
	if served.Title != "Letter of Pius VI" {
		t.Errorf("title %q", served.Title)
	}
	for _, want := range []string{
		"mods/originInfo/dateCreated/@keydate is not a MODS 3.6 name: served as @keyDate",
		"mods/originInfo/dateissued is not a MODS 3.6 name: served as dateIssued",
		"mods/TitleInfo is not a MODS 3.6 name: served as titleInfo",
		`mods/note/@keyDate "yes" is not allowed by MODS 3.6`,
	} {
		if !containsWarning(warnings, want) {
			t.Errorf("no warning %q in %q", want, warnings)
		}
	}
	// The root in another case, in the MODS namespace, and a fixed value
	// in another case (keyDate="Yes"): the record is read, not refused.
	root := []byte(`<mods:MODS xmlns:mods="http://www.loc.gov/mods/v3"><mods:titleInfo><mods:title>Letter of Pius VI</mods:title></mods:titleInfo><mods:originInfo><mods:dateIssued keyDate="Yes">1781</mods:dateIssued></mods:originInfo></mods:MODS>`)
	out, served, warnings = prepareServed(t, ctx, schema, "root MODS", root)
	if out == nil {
		return
	}
	if served.Title != "Letter of Pius VI" || !bytes.Contains(out, []byte(`keyDate="yes"`)) {
		t.Errorf("served MODS:\n%s", out)
	}
	for _, want := range []string{"the root element MODS is read as mods", `@keyDate "Yes" is not a MODS 3.6 value: served as "yes"`} {
		if !containsWarning(warnings, want) {
			t.Errorf("no warning %q in %q", want, warnings)
		}
	}
}

// TestNamespacedChildCase: an embedded MODS record (or Dublin Core, RDF)
// in its namespace but named in another case (<MODS xmlns=MODS>,
// <mods:Mods>, <oai_dc:DC>) is read as that child, with a warning, as a
// case variant of a child in no namespace is: the title comes from it and
// .mods serves it. Before, it was an unknown element and the object's
// MODS was derived from Dublin Core.
func TestNamespacedChildCase(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ child, warning string }{
		{`<MODS xmlns="http://www.loc.gov/mods/v3"><titleInfo><title>T</title></titleInfo></MODS>`, "publicObject/MODS is read as mods (in http://www.loc.gov/mods/v3)"},
		{`<mods:Mods xmlns:mods="http://www.loc.gov/mods/v3"><mods:titleInfo><mods:title>T</mods:title></mods:titleInfo></mods:Mods>`, "publicObject/Mods is read as mods"},
		{`<oai_dc:DC xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T</dc:title></oai_dc:DC>`, "publicObject/DC is read as dc"},
	} {
		in, err := Ingest(ctx, []byte(`<publicObject objectId="druid:bc123df4567" published="2015-01-01T00:00:00Z">`+c.child+`</publicObject>`), nil)
		if err != nil {
			t.Errorf("%s: refused: %v", c.child, err)
			continue
		}
		if in.Record.Title() != "T" || !containsWarning(in.Warnings, c.warning) {
			t.Errorf("%s: title %q, warnings %q", c.child, in.Record.Title(), in.Warnings)
		}
		if strings.Contains(c.child, "mods") && in.Record.MODS == nil {
			t.Errorf("%s: no MODS read", c.child)
		}
		again, err := Ingest(ctx, in.Data, nil)
		if err != nil || !bytes.Equal(again.Data, in.Data) {
			t.Errorf("%s: the served record is not stable: %v", c.child, err)
		}
	}
}

// TestStatementMarkup: a rights statement with markup inside it (real: a
// 2015 record's useAndReproduction ending "at <a
// href="mailto:speccollref@stanford.edu">speccollref@stanford.edu</a>.",
// in sul-dlss-deprecated/discovery-indexer's fixtures) is read with the
// markup's text in its place; the served record keeps the markup.
func TestStatementMarkup(t *testing.T) {
	ctx := context.Background()
	doc := []byte(`<publicObject objectId="druid:bc123df4567" published="2015-02-06T11:21:51-08:00"><rightsMetadata>
<copyright><human type="copyright">© <b>Stanford</b> University</human></copyright>
<use><human type="useAndReproduction">Please contact the Librarian at
<a href="mailto:speccollref@stanford.edu">speccollref@stanford.edu</a>
.</human></use></rightsMetadata></publicObject>`)
	in, err := Ingest(ctx, doc, nil)
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if want := "Please contact the Librarian at\nspeccollref@stanford.edu\n."; in.Record.Rights.UseStatement != want {
		t.Errorf("use statement %q, want %q", in.Record.Rights.UseStatement, want)
	}
	if want := "© Stanford University"; in.Record.Rights.Copyright != want {
		t.Errorf("copyright %q, want %q", in.Record.Rights.Copyright, want)
	}
	if !bytes.Contains(in.Data, []byte(`<a href="mailto:speccollref@stanford.edu">speccollref@stanford.edu</a>`)) {
		t.Errorf("the served record lost the markup:\n%s", in.Data)
	}
}

// TestMODSUndeclaredNames: names no place in the MODS 3.6 schema allows
// (local elements, an element of another namespace outside extension, an
// attribute MODS does not have) are dropped in one pass, however many
// there are; what is inside extension or accessCondition (open content)
// is kept. Repaired one xmllint round at a time, a record with more than
// a dozen of them was refused when the rounds ran out.
func TestMODSUndeclaredNames(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	var b strings.Builder
	b.WriteString(`<mods xmlns="http://www.loc.gov/mods/v3" xmlns:local="urn:local" xmlns:xlink="http://www.w3.org/1999/xlink" ID="m1" version="3.4"><titleInfo ID="t1" xml:lang="en"><title>Many local fields</title></titleInfo><name ID="n1" xlink:href="http://example.org/n1"><namePart>N</namePart></name>`)
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&b, `<localField n="%d">x</localField><local:note>y</local:note><note localType="z">n%d</note>`, i, i)
	}
	b.WriteString(`<extension><localField>kept</localField><local:note>kept too</local:note></extension></mods>`)
	out, served, warnings := prepareServed(t, ctx, schema, "local fields", []byte(b.String()))
	if out == nil {
		return
	}
	// MODS's own ID, and the attributes of the schemas it imports (xml:,
	// xlink:), are kept.
	for _, kept := range []string{`ID="m1"`, `<titleInfo ID="t1" xml:lang="en">`, `<name ID="n1" xlink:href="http://example.org/n1">`} {
		if !bytes.Contains(out, []byte(kept)) {
			t.Errorf("served MODS lost %s:\n%s", kept, out)
		}
	}
	if served.Title != "Many local fields" || bytes.Count(out, []byte("<note>")) != 30 || !bytes.Contains(out, []byte("<localField>kept</localField>")) || !bytes.Contains(out, []byte("<local:note>kept too</local:note>")) {
		t.Errorf("served MODS:\n%s", out)
	}
	for _, want := range []string{
		`mods/localField "x" is not allowed by MODS 3.6 (no MODS element has this name): dropped`,
		`mods/note "y" is not allowed by MODS 3.6 (an element of another namespace, outside extension): dropped`,
		`mods/note/@localType "z" is not allowed by MODS 3.6 (no MODS attribute has this name): dropped`,
	} {
		if !containsWarning(warnings, want) {
			t.Errorf("no warning %q in %q", want, warnings)
		}
	}
}

// TestMODSMisplacedElements: an element written a level too high (real:
// a placeTerm directly in originInfo, in purl.stanford.edu's 2015 MODS of
// tn629pk3948) is served inside the one element the schema lets hold it
// there (place; a loose title in a titleInfo, a roleTerm in a role), not
// dropped. In a record written on one line, the repair falls on the
// element complained of, not on a valid one of the same name earlier on
// the line: xmllint names elements by line, and the record is checked in
// a form where each start tag ends on a line of its own.
func TestMODSMisplacedElements(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	doc := []byte(`<mods:mods xmlns:mods="http://www.loc.gov/mods/v3"><mods:titleInfo><mods:title>Lecture 1</mods:title></mods:titleInfo><mods:originInfo><mods:dateCreated>2003-01-27</mods:dateCreated><mods:placeTerm type="text">Stanford (Calif.)</mods:placeTerm></mods:originInfo><mods:title>Loose title</mods:title><mods:name><mods:namePart>Frantz, Marge</mods:namePart><mods:roleTerm type="text">Speaker</mods:roleTerm></mods:name><mods:bogus>x</mods:bogus><mods:note>kept</mods:note></mods:mods>`)
	out, served, warnings := prepareServed(t, ctx, schema, "misplaced", doc)
	if out == nil {
		return
	}
	for _, want := range []string{
		`<mods:titleInfo><mods:title>Lecture 1</mods:title></mods:titleInfo>`,
		`<mods:place><mods:placeTerm type="text">Stanford (Calif.)</mods:placeTerm></mods:place>`,
		`<mods:titleInfo><mods:title>Loose title</mods:title></mods:titleInfo>`,
		`<mods:role><mods:roleTerm type="text">Speaker</mods:roleTerm></mods:role>`,
		`<mods:note>kept</mods:note>`,
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("served MODS has no %s:\n%s", want, out)
		}
	}
	if served.Title != "Lecture 1" || bytes.Contains(out, []byte("bogus")) {
		t.Errorf("title %q; served MODS:\n%s", served.Title, out)
	}
	if !containsWarning(warnings, "mods/originInfo/placeTerm is not allowed where it stands by MODS 3.6: served inside a new place") {
		t.Errorf("no warning of the placeTerm in %q", warnings)
	}
	// Twenty placeTerms in one originInfo, and twenty languageTerms
	// directly in a titleInfo (which no element there may hold): all are
	// repaired, though the schema check names one per parent and round.
	var b strings.Builder
	b.WriteString(`<mods xmlns="http://www.loc.gov/mods/v3"><titleInfo><title>Many</title>`)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, `<languageTerm>x%d</languageTerm>`, i)
	}
	b.WriteString(`</titleInfo><originInfo>`)
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, `<placeTerm type="text">Place %d</placeTerm>`, i)
	}
	b.WriteString(`</originInfo></mods>`)
	out, served, _ = prepareServed(t, ctx, schema, "many misplaced", []byte(b.String()))
	if out == nil {
		return
	}
	if served.Title != "Many" || bytes.Count(out, []byte("<place><placeTerm")) != 20 || bytes.Contains(out, []byte("languageTerm")) {
		t.Errorf("served MODS:\n%s", out)
	}
}

// TestMODSUnqualifiedChildren: a mods in the MODS namespace whose
// children are written in none (<mods:mods xmlns:mods="…"><titleInfo>…,
// no default namespace) is read as MODS, with a warning, as a record
// document and embedded in a public XML record; elements in no namespace
// inside extension stay another vocabulary's. Before, every child was
// dropped and the document refused as empty MODS.
func TestMODSUnqualifiedChildren(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	mods := `<mods:mods xmlns:mods="http://www.loc.gov/mods/v3" version="3.4"><titleInfo><title>Unprefixed children</title></titleInfo><originInfo><dateIssued>1901</dateIssued></originInfo><mods:extension><local>kept</local></mods:extension></mods:mods>`
	out, served, warnings := prepareServed(t, ctx, schema, "unqualified children", []byte(mods))
	if out == nil {
		return
	}
	if served.Title != "Unprefixed children" || !bytes.Contains(out, []byte("<dateIssued>1901</dateIssued>")) || !bytes.Contains(out, []byte("<local>kept</local>")) {
		t.Errorf("served MODS:\n%s", out)
	}
	if !containsWarning(warnings, "mods has 2 child elements in no namespace") {
		t.Errorf("no warning in %q", warnings)
	}
	in, err := Ingest(ctx, []byte(`<publicObject objectId="druid:bc123df4567" published="2015-01-01T00:00:00Z">`+mods+`</publicObject>`), schema)
	if err != nil {
		t.Fatalf("embedded: refused: %v", err)
	}
	if in.Record.Title() != "Unprefixed children" {
		t.Errorf("embedded: title %q, warnings %q", in.Record.Title(), in.Warnings)
	}
	again, err := Ingest(ctx, in.Data, schema)
	if err != nil || !bytes.Equal(again.Data, in.Data) {
		t.Errorf("embedded: the served record is not stable: %v", err)
	}
}

// TestSchemaLocationNotPairs: an xsi:schemaLocation that is not a list of
// namespace and location pairs (the MODS schema's location alone) is
// served as the one MODS 3.6 pair; before, the MODS pair was appended to
// the lone location, pairing the wrong tokens.
func TestSchemaLocationNotPairs(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	doc := []byte(`<mods xmlns="http://www.loc.gov/mods/v3" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://www.loc.gov/standards/mods/v3/mods-3-4.xsd" version="3.4"><titleInfo><title>t</title></titleInfo></mods>`)
	out, _, _ := prepareServed(t, ctx, schema, "schemaLocation alone", doc)
	if want := `xsi:schemaLocation="` + NSMODS + ` ` + MODS36Location + `"`; out != nil && !bytes.Contains(out, []byte(want)) {
		t.Errorf("served MODS has no %s:\n%s", want, out)
	}
	// Pairs keep their other namespaces.
	if got := replaceLocation("http://www.loc.gov/mods/v3 mods-3-4.xsd http://www.w3.org/1999/xlink xlink.xsd", NSMODS, MODS36Location); got != NSMODS+" "+MODS36Location+" http://www.w3.org/1999/xlink xlink.xsd" {
		t.Errorf("pairs: %q", got)
	}
}

// TestReadingOrder: contentMetadata/bookData/@readingOrder (the current
// publisher writes <bookData readingOrder="rtl"/> for a book read right
// to left; real: sul-dlss/purl-fetcher's contentMetadata generator) is
// read in any case and in its long form; another value is warned of and
// the book read left to right.
func TestReadingOrder(t *testing.T) {
	ctx := context.Background()
	for order, want := range map[string]string{"rtl": "rtl", "RTL": "rtl", "right-to-left": "rtl", "ltr": "ltr", "": "", "sideways": ""} {
		in, err := Ingest(ctx, []byte(`<publicObject objectId="druid:bc123df5678" published="2024-06-04T17:00:00Z"><contentMetadata objectId="druid:bc123df5678" type="book"><bookData readingOrder="`+order+`"/></contentMetadata></publicObject>`), nil)
		if err != nil {
			t.Fatalf("%q: refused: %v", order, err)
		}
		if in.Record.ReadingOrder != want {
			t.Errorf("%q: reading order %q, want %q", order, in.Record.ReadingOrder, want)
		}
		if order == "sideways" && !containsWarning(in.Warnings, `bookData/@readingOrder "sideways" is not one the service knows`) {
			t.Errorf("no warning of the unknown order: %q", in.Warnings)
		}
	}
}
