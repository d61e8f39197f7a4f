package record

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/internal/variants"
)

func sampleDirs(t testing.TB) []string {
	dirs, err := filepath.Glob("../../../samples/purl/*")
	if err != nil || len(dirs) < 11 {
		t.Fatalf("want at least 11 sample objects, found %d (%v)", len(dirs), err)
	}
	return dirs
}

func read(t testing.TB, path string) []byte {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// parseReal parses the record of testdata/real named name.
func parseReal(t testing.TB, name string) *Record {
	t.Helper()
	rec, err := Parse(read(t, filepath.Join("testdata", "real", name)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return rec
}

func TestParseSamples(t *testing.T) {
	kinds := map[string]bool{}
	for _, dir := range sampleDirs(t) {
		r, err := Parse(read(t, filepath.Join(dir, "public.xml")))
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if string(r.Druid) != filepath.Base(dir) {
			t.Errorf("%s: druid %s", dir, r.Druid)
		}
		m, err := ParseMODS(read(t, filepath.Join(dir, "mods.xml")))
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if m.Title != r.Title() {
			t.Errorf("%s: MODS title %q, DC title %q", dir, m.Title, r.Title())
		}
		// The eight kinds of information the seed lists (docs/purl.md maps
		// them to elements): identity, relationship, content,
		// availability, bibliographic, version, release, thumbnail.
		if r.Label == "" || r.SourceID == "" || r.Published.IsZero() {
			t.Errorf("%s: identity incomplete", dir)
		}
		if r.ObjectType != "collection" && len(r.Collections) == 0 {
			t.Errorf("%s: belongs to no collection", dir)
		}
		if r.ObjectType != "collection" {
			if len(r.Files()) == 0 {
				t.Errorf("%s: no content files", dir)
			}
			for _, f := range r.Files() {
				if f.Name == "" || f.Size <= 0 || f.MimeType == "" {
					t.Errorf("%s: file %+v lacks name, size or mimetype", dir, f)
				}
				if strings.HasPrefix(f.MimeType, "image/") && (f.Width <= 0 || f.Height <= 0) {
					t.Errorf("%s: image %s has no dimensions", dir, f.Name)
				}
			}
			hasImage := false
			for _, f := range r.Files() {
				hasImage = hasImage || f.Width > 0
			}
			// An object without an image (a PDF, a data set) has nothing
			// to show as a thumbnail (docs/purl.md).
			if hasImage {
				if f, ok := r.File(r.Thumb); !ok || f.Width == 0 {
					t.Errorf("%s: thumb %q is not one of its images", dir, r.Thumb)
				}
			}
		}
		if len(r.DC.Title) == 0 || len(r.DC.Creator)+len(r.DC.Publisher) == 0 || len(r.DC.Date) == 0 {
			t.Errorf("%s: Dublin Core lacks title, creator or publisher, date", dir)
		}
		if len(r.Versions) == 0 || len(r.Releases) == 0 {
			t.Errorf("%s: no version or no release information", dir)
		}
		now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
		switch {
		case r.Rights.Dark():
			kinds["dark"] = true
		case r.Rights.Embargoed(now):
			kinds["embargo"] = true
		default:
			kinds[r.Rights.Read.String()] = true
		}
		kinds[r.ContentType] = true
	}
	for _, k := range []string{"dark", "embargo", "world", "group", "location", "none", "image", "book", "map", "media", "document", "file", "collection"} {
		if !kinds[k] {
			t.Errorf("no sample object of kind %q", k)
		}
	}
}

const minimal = `<?xml version="1.0"?>
<publicObject objectId="druid:bb000kk0000" published="2026-01-15T10:00:00Z">
  <identityMetadata><objectType>item</objectType><objectLabel>L</objectLabel></identityMetadata>
  <versionMetadata><version versionId="1"/></versionMetadata>
  <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>
  <contentMetadata type="image"><resource sequence="1" type="image"><file id="a.png" mimetype="image/png" size="3"><imageData width="2" height="1"/></file></resource></contentMetadata>
  <rightsMetadata><access type="discover"><machine><world/></machine></access><access type="read"><machine>READ</machine></access></rightsMetadata>
  <oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>T</dc:title></oai_dc:dc>
</publicObject>`

func doc(read string) string { return strings.Replace(minimal, "READ", read, 1) }

func TestParseRights(t *testing.T) {
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	r, err := Parse([]byte(doc("<embargoReleaseDate>2031-02-03</embargoReleaseDate><group>staff</group>")))
	if err != nil {
		t.Fatal(err)
	}
	if !r.Rights.Embargoed(now) || r.Rights.Embargoed(now.AddDate(2, 0, 0)) || r.Rights.Read != AccessGroup || r.Rights.ReadName != "staff" {
		t.Errorf("rights = %+v", r.Rights)
	}
	// What is unclear is read as no access (when in doubt, deny), never
	// refused.
	for _, unclear := range []string{"", "<world/><none/>", "<group></group>", "<group>a b</group>", "<everyone/>", "<embargoReleaseDate>soon</embargoReleaseDate><world/>"} {
		r, err := Parse([]byte(doc(unclear)))
		if err != nil {
			t.Errorf("read %q: %v", unclear, err)
			continue
		}
		if len(r.Rights.Object.Grants) != 0 || r.Rights.Read != AccessNone || len(r.Rights.Doubts) == 0 && unclear != "" {
			t.Errorf("read %q: %+v, want no access and a doubt", unclear, r.Rights)
		}
	}
}

// TestParseReadRule checks that the rule attribute of the read form is
// kept as given (the Embed viewer reads "no-download" from it) and that it
// does not change who may read the files.
func TestParseReadRule(t *testing.T) {
	for read, want := range map[string]string{
		`<world rule="no-download"/>`: "no-download",
		`<world/>`:                    "",
		`<group rule=" no-download ">staff</group>`: "no-download",
	} {
		r, err := Parse([]byte(doc(read)))
		if err != nil {
			t.Fatalf("read %s: %v", read, err)
		}
		if r.Rights.ReadRule != want {
			t.Errorf("read %s: rule %q, want %q", read, r.Rights.ReadRule, want)
		}
	}
	r, err := Parse([]byte(doc(`<world rule="no-download"/>`)))
	if err != nil || r.Rights.Read != AccessWorld || !r.Rights.WorldReadable(time.Now()) {
		t.Errorf("a rule must not restrict reading: %v %+v", err, r)
	}
}

func TestParseRejects(t *testing.T) {
	ok := doc("<world/>")
	if _, err := Parse([]byte(ok)); err != nil {
		t.Fatalf("minimal record: %v", err)
	}
	cases := map[string]struct {
		doc  string
		want error
	}{
		"truncated":          {ok[:200], ErrMalformed},
		"not xml":            {"hello", ErrMalformed},
		"two roots":          {ok + "<x/>", ErrMalformed},
		"wrong root":         {strings.ReplaceAll(ok, "publicObject", "object"), ErrUnacceptable},
		"not a druid":        {strings.Replace(ok, `"druid:bb000kk0000"`, `"druid:bb000kk000"`, 1), ErrUnacceptable},
		"bad druid":          {strings.Replace(ok, "druid:bb000kk0000", "druid:../../etc", 1), ErrUnacceptable},
		"order":              {strings.Replace(strings.Replace(ok, "<identityMetadata>", "<versionMetadataX>", 1), "<versionMetadata>", "<identityMetadata>", 1), ErrMalformed},
		"doctype":            {strings.Replace(ok, `<?xml version="1.0"?>`, `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]>`, 1), ErrUnacceptable},
		"repeated attribute": {strings.Replace(ok, `id="a.png"`, `id="a.png" id="b.png"`, 1), ErrMalformed},
	}
	for name, c := range cases {
		if _, err := Parse([]byte(c.doc)); !errors.Is(err, c.want) {
			t.Errorf("%s: err = %v, want %v", name, err, c.want)
		}
	}
	// An unknown child is kept, after the seed's children, and reported.
	extra := strings.Replace(ok, "<rightsMetadata>", "<workflowMetadata/><rightsMetadata>", 1)
	if r, err := Parse([]byte(extra)); err != nil || !strings.Contains(strings.Join(r.Warnings, "\n"), "workflowMetadata") {
		t.Errorf("unknown child: %v", err)
	}
	// A file whose name would leave the object's folder is refused.
	for _, name := range []string{"../a.png", "a/../../b", "/etc/passwd", `a\b`, "a//b", "./a", "public.xml"} {
		if _, err := Parse([]byte(strings.Replace(ok, `id="a.png"`, `id="`+name+`"`, 1))); !errors.Is(err, ErrUnacceptable) {
			t.Errorf("file %q: err = %v, want ErrUnacceptable", name, err)
		}
	}
}

func TestParseMODSRejects(t *testing.T) {
	good := `<mods xmlns="http://www.loc.gov/mods/v3" version="3.6"><titleInfo><title>T</title></titleInfo></mods>`
	if m, err := ParseMODS([]byte(good)); err != nil || m.Title != "T" {
		t.Fatalf("good MODS: %v %v", m, err)
	}
	for name, bad := range map[string]string{
		"no namespace": `<mods version="3.6"><titleInfo><title>T</title></titleInfo></mods>`,
		"public xml":   doc("<world/>"),
	} {
		if _, err := ParseMODS([]byte(bad)); !errors.Is(err, ErrUnacceptable) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := ParseMODS([]byte(good[:30])); !errors.Is(err, ErrMalformed) {
		t.Errorf("truncated: %v", err)
	}
}

// FuzzParse checks that publish validation never panics, classifies every
// refusal, and that whatever it accepts is self-consistent and safe.
func FuzzParse(f *testing.F) {
	f.Add([]byte(doc("<world/>")))
	f.Add([]byte(doc("<embargoReleaseDate>2031-02-03</embargoReleaseDate><location>x</location>")))
	for _, dir := range sampleDirs(f)[:3] {
		f.Add(read(f, filepath.Join(dir, "public.xml")))
	}
	for _, v := range variants.All() {
		f.Add([]byte(v.Public))
	}
	// Real records of other repositories (undeclared prefixes, MODS with
	// no namespace, videoData durations, thumb resources).
	f.Add([]byte("\xEF\xBB\xBF" + doc("<world/>")))
	f.Add([]byte(`<?xml version="1.0" encoding="ISO-8859-1"?>` + doc("<group>caf\xe9</group>")))
	for _, r := range realRecords(f) {
		f.Add(r.Data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Parse(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnacceptable) {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		for _, f := range r.Files() {
			if CheckFilePath(f.Name) != nil {
				t.Fatalf("accepted unsafe file name %q", f.Name)
			}
		}
		if r.Rights.Dark() && r.Rights.Read != AccessNone {
			t.Fatalf("dark object readable")
		}
		if r.Druid.Qualified() == "" || r.Title() == "" {
			t.Fatalf("accepted record without id or title")
		}
		// The served form is final: ingesting it again changes nothing.
		in, err := Ingest(context.Background(), data, nil)
		if err != nil {
			t.Fatalf("Parse accepts what Ingest refuses: %v", err)
		}
		again, err := Ingest(context.Background(), in.Data, nil)
		if err != nil || !bytes.Equal(again.Data, in.Data) || again.Record.Title() != in.Record.Title() {
			t.Fatalf("the served form changes when ingested again: %v\n%s\n---\n%s", err, in.Data, again.Data)
		}
	})
}

func FuzzParseMODS(f *testing.F) {
	f.Add([]byte(`<mods xmlns="http://www.loc.gov/mods/v3" version="3.6"><titleInfo><title>T</title></titleInfo></mods>`))
	for _, dir := range sampleDirs(f)[:2] {
		f.Add(read(f, filepath.Join(dir, "mods.xml")))
	}
	f.Add([]byte(`<mods version="3.3"><titleInfo><title>T</title></titleInfo><accessCondition xlink:href="u">x</accessCondition></mods>`))
	f.Add([]byte(`<MODS><foo:bar/></MODS>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Whatever PrepareMODS serves is MODS 3.6 that it serves unchanged.
		if out, _, err := PrepareMODS(context.Background(), data, nil); err == nil {
			if m36, err := ParseMODS(out); err != nil || m36.Version != "3.6" {
				t.Fatalf("prepared MODS is not MODS 3.6: %v\n%s", err, out)
			}
			if again, w, err := PrepareMODS(context.Background(), out, nil); err != nil || !bytes.Equal(again, out) || len(w) != 0 {
				t.Fatalf("preparing the prepared MODS changes it: %v %q\n%s\n---\n%s", err, w, out, again)
			}
		} else if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnacceptable) {
			t.Fatalf("unclassified error: %v", err)
		}
		m, err := ParseMODS(data)
		if err != nil {
			if !errors.Is(err, ErrMalformed) && !errors.Is(err, ErrUnacceptable) {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		// What ParseMODS accepts is served as MODS 3.6.
		out, _, err := PrepareMODS(context.Background(), data, nil)
		if err != nil {
			t.Fatalf("ParseMODS accepts what PrepareMODS refuses: %v", err)
		}
		if m36, err := ParseMODS(out); err != nil || m36.Version != "3.6" || m36.Title != m.Title {
			t.Fatalf("prepared MODS: %v %+v, want version 3.6 and the title %q", err, m36, m.Title)
		}
	})
}

// TestUnsizedImages: the image files a canvas would show but the record
// gives no size are listed, and a size set on one makes it a canvas.
func TestUnsizedImages(t *testing.T) {
	rec := parseReal(t, "bc123df5678.public.xml")
	if got := rec.UnsizedImages(); !slices.Equal(got, []string{"00002.jp2"}) {
		t.Fatalf("unsized images %q, want [00002.jp2]", got)
	}
	if n := len(rec.Canvases()); n != 1 {
		t.Fatalf("%d canvases before the size is known, want 1", n)
	}
	rec.SetImageSize("00002.jp2", 640, 480)
	if got := rec.UnsizedImages(); len(got) != 0 {
		t.Errorf("unsized images %q after SetImageSize", got)
	}
	c := rec.Canvases()
	if len(c) != 2 || c[1].File.Name != "00002.jp2" || c[1].File.Width != 640 || c[1].File.Height != 480 {
		t.Errorf("canvases %+v, want 00002.jp2 640×480 second", c)
	}
	if f, _ := rec.File("00002.jp2"); f.Width != 640 || f.Height != 480 {
		t.Errorf("File: %+v", f)
	}
}

// TestExternalFiles: a virtual object's externalFile elements are read
// with their constituent, file and pixel size, in resource order.
func TestExternalFiles(t *testing.T) {
	rec := parseReal(t, "hj097bm8879.public.xml")
	var got []ExternalFile
	for _, res := range rec.Resources {
		got = append(got, res.External...)
	}
	want := []ExternalFile{
		{Object: "cg767mn6478", ResourceID: "cocina-fileSet-9475bc2c-7552-43d8-b8ab-8cd2212d5873", Name: "2542A.jp2", MimeType: "image/jp2", Width: 6475, Height: 4747},
		{Object: "jw923xn5254", ResourceID: "cocina-fileSet-929604b0-00bc-40b1-af71-5c17f066e2fd", Name: "2542B.jp2", MimeType: "image/jp2", Width: 3139, Height: 4675},
	}
	if !slices.Equal(got, want) {
		t.Errorf("external files\n%+v\nwant\n%+v", got, want)
	}
	virtual := parseReal(t, "ws947mh3822.public.xml")
	if want := (ExternalThumb{Object: "ts786ny5936", Name: "PC0170_s1_E_0204.jp2"}); virtual.ConstituentThumb != want || virtual.Thumb != "" {
		t.Errorf("thumb of a constituent's file: %+v (own %q), want %+v", virtual.ConstituentThumb, virtual.Thumb, want)
	}
	if len(rec.Files()) != 0 || rec.HasManifest() {
		t.Errorf("a virtual object has files %v of its own (manifest %v)", rec.Files(), rec.HasManifest())
	}
}
