package record

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/internal/variants"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// topChildren returns the root's name, its attributes in no namespace
// and its children's names, resolved.
func topChildren(t *testing.T, data []byte) (xml.Name, map[string]string, []xml.Name) {
	t.Helper()
	root, kids, err := testkit.XMLOutline(data)
	if err != nil {
		t.Fatal(err)
	}
	attrs := map[string]string{}
	for _, a := range root.Attr {
		if a.Name.Space == "" {
			attrs[a.Name.Local] = a.Value
		}
	}
	return root.Name, attrs, kids
}

// TestIngestVariants reads every real-world record form and checks the
// served record keeps the seed's shape and the input's meaning.
func TestIngestVariants(t *testing.T) {
	schema := testSchema(t)
	ctx := context.Background()
	for _, v := range variants.All() {
		t.Run(v.Name, func(t *testing.T) {
			in, err := Ingest(ctx, []byte(v.Public), schema)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			root, attrs, kids := topChildren(t, in.Data)
			if root != (xml.Name{Local: "publicObject"}) || attrs["objectId"] != "druid:"+v.Druid || attrs["published"] == "" || len(attrs) != 2 {
				t.Errorf("root %v %v", root, attrs)
			}
			want := seedChildren[:6]
			if v.MODSVersion != "" && !v.MODSDerived {
				want = seedChildren
			}
			if len(kids) != len(want) {
				t.Fatalf("children %v, want %v", kids, want)
			}
			for i := range want {
				if kids[i] != want[i] {
					t.Errorf("child %d is %v, want %v", i+1, kids[i], want[i])
				}
			}
			rec := in.Record
			if rec.Title() != v.Title {
				t.Errorf("title %q, want %q", rec.Title(), v.Title)
			}
			if v.Warning != "" && !strings.Contains(strings.Join(in.Warnings, "\n"), v.Warning) {
				t.Errorf("warnings %q lack %q", in.Warnings, v.Warning)
			}
			if v.Warning == "" && len(in.Warnings) > 0 {
				t.Errorf("unexpected warnings %q", in.Warnings)
			}
			if rec.Thumb != v.Thumb {
				t.Errorf("thumb %q, want %q", rec.Thumb, v.Thumb)
			}
			if len(rec.Releases) != v.Releases {
				t.Errorf("releases %v, want %d", rec.Releases, v.Releases)
			}
			if len(rec.Versions) == 0 {
				t.Error("no version")
			}
			now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			if rec.Rights.Embargoed(now) != v.Embargoed {
				t.Errorf("embargoed %v, want %v", rec.Rights.Embargoed(now), v.Embargoed)
			}
			// The served form is read as it is: stable, no further change.
			n, err := normalize(in.Data, time.Now(), "")
			if err != nil || n.changed {
				t.Errorf("served record not in its final form: %v %v", err, n != nil && n.changed)
			}
			again, err := Ingest(ctx, in.Data, schema)
			if err != nil || !bytes.Equal(again.Data, in.Data) {
				t.Errorf("ingesting the served record changes it: %v", err)
			}
			// The MODS the object serves: embedded, else derived.
			mods := rec.MODS
			if mods != nil {
				if mods, _, err = PrepareMODS(ctx, mods, schema); err != nil {
					t.Fatalf("embedded MODS: %v", err)
				}
			}
			if v.MODSDerived {
				if mods != nil {
					t.Fatal("an embedded MODS record where none was given")
				}
				mods = DeriveMODS(rec, "http://localhost/purl/"+v.Druid)
			}
			m, err := ParseMODS(mods)
			if err != nil {
				t.Fatalf("served MODS: %v", err)
			}
			if m.Version != v.MODSVersion {
				t.Errorf("MODS version %s, want %s", m.Version, v.MODSVersion)
			}
			if m.Version == "3.6" {
				if err := schema.Validate(ctx, mods); err != nil {
					t.Errorf("served MODS 3.6 invalid: %v\n%s", err, mods)
				}
				if !bytes.Contains(mods, []byte(MODS36Location)) {
					t.Errorf("served MODS 3.6 without its schema location")
				}
			}
			if v.MODSDerived && !bytes.Contains(mods, []byte("<recordOrigin>"+DerivedOrigin)) {
				t.Errorf("derived MODS not marked in recordInfo:\n%s", mods)
			}
		})
	}
}

// TestSeedShapeUnchanged: a record already in the seed's shape is stored
// byte for byte.
func TestSeedShapeUnchanged(t *testing.T) {
	for _, dir := range sampleDirs(t) {
		data := read(t, dir+"/public.xml")
		in, err := Ingest(context.Background(), data, nil)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		if !bytes.Equal(in.Data, data) || len(in.Warnings) > 0 {
			t.Errorf("%s: changed or warned: %q", dir, in.Warnings)
		}
	}
}

// TestIngestRefusals: only what cannot be served truthfully or safely is
// refused, naming why.
func TestIngestRefusals(t *testing.T) {
	v := variants.All()[0].Public
	for name, c := range map[string]struct{ doc, names string }{
		"not a druid":      {strings.Replace(v, `objectId="druid:bt101cd1001"`, `objectId="druid:xx"`, 1), "publicObject/@objectId"},
		"no identifier":    {strings.NewReplacer(`objectId="druid:bt101cd1001"`, ``, `objectId="druid:bt101cd1001"`, ``, `rdf:about="info:fedora/druid:bt101cd1001"`, ``).Replace(v), "no identifier"},
		"two identifiers":  {strings.Replace(v, `objectId="druid:bt101cd1001"`, `objectId="druid:bt101cd1001" id="druid:bt102cd1002"`, 1), "publicObject/@id"},
		"other content id": {strings.Replace(v, `contentMetadata objectId="druid:bt101cd1001"`, `contentMetadata objectId="bt102cd1002"`, 1), "contentMetadata/@objectId"},
		"file outside":     {strings.Replace(v, `id="image1.png"`, `id="../image1.png"`, 1), "cannot be in the object folder"},
		"reserved name":    {strings.Replace(v, `id="image1.png"`, `id="public.xml"`, 1), "reserved"},
		"not a record":     {strings.ReplaceAll(v, "publicObject", "object"), "not a public XML record"},
	} {
		_, err := Ingest(context.Background(), []byte(c.doc), nil)
		if !errors.Is(err, ErrUnacceptable) || !strings.Contains(err.Error(), c.names) {
			t.Errorf("%s: err = %v, want one naming %q", name, err, c.names)
		}
	}
	for name, c := range map[string]struct{ doc, names string }{
		"doctype": {strings.Replace(v, "<publicObject", `<!DOCTYPE publicObject [<!ENTITY a "b">]><publicObject`, 1), "DOCTYPE"},
	} {
		if _, err := Ingest(context.Background(), []byte(c.doc), nil); err == nil || !strings.Contains(err.Error(), c.names) {
			t.Errorf("%s: err = %v, want one naming %q", name, err, c.names)
		}
	}
}

// TestIngestTolerates: what the service does not know, or a record lacks,
// is kept and reported, never refused (docs/purl.md, "Ingest").
func TestIngestTolerates(t *testing.T) {
	v := variants.All()[0].Public
	for name, c := range map[string]struct{ doc, warning string }{
		"unknown child":       {strings.Replace(v, "</publicObject>", "<adminMetadata><x/></adminMetadata></publicObject>", 1), "publicObject/adminMetadata is not an element the service knows"},
		"case variant":        {strings.Replace(v, "</publicObject>", `<ReleaseData><release to="Earthworks">true</release></ReleaseData></publicObject>`, 1), "ReleaseData is read as releaseData"},
		"two thumbs":          {strings.Replace(v, "</publicObject>", "<thumb>image1.png</thumb><thumb>b</thumb></publicObject>", 1), "more than one thumb"},
		"thumb not a file":    {strings.Replace(v, "</publicObject>", "<thumb>bt101cd1001/other.png</thumb></publicObject>", 1), "no thumbnail"},
		"bad releaseData":     {strings.Replace(v, "</publicObject>", "<releaseData><x/></releaseData></publicObject>", 1), "releaseData/x is not an element"},
		"no rightsMetadata":   {strings.Replace(strings.Replace(v, "<rightsMetadata>", "<!--", 1), "</rightsMetadata>", "-->", 1), "no rightsMetadata"},
		"no contentMetadata":  {strings.Replace(strings.Replace(v, "<contentMetadata", "<!--", 1), "</contentMetadata>", "-->", 1), "no contentMetadata"},
		"no identityMetadata": {strings.Replace(strings.Replace(v, "<identityMetadata>", "<!--", 1), "</identityMetadata>", "-->", 1), "no identityMetadata"},
		"mods 3.2":            {strings.Replace(v, "</publicObject>", `<mods xmlns="http://www.loc.gov/mods/v3" version="3.2"><titleInfo><title>T</title></titleInfo></mods></publicObject>`, 1), "MODS 3.2 is served as MODS 3.6"},
		"text":                {strings.Replace(v, "</publicObject>", "stray</publicObject>", 1), "text"},
		"resource type":       {strings.Replace(v, `sequence="1" type="image">`, `sequence="1" type="object">`, 1), `resource/@type "object"`},
		"content type":        {strings.Replace(v, `contentMetadata objectId="druid:bt101cd1001" type="image"`, `contentMetadata objectId="druid:bt101cd1001" type="3d"`, 1), `contentMetadata/@type "3d"`},
		"unknown attribute":   {strings.Replace(v, `<file id="image1.png"`, `<file checked="yes" id="image1.png"`, 1), "file/@checked is not an attribute"},
		"no published":        {strings.Replace(v, `published="2015-06-01T08:00:00Z"`, ``, 1), "no @published"},
		"both spellings":      {strings.Replace(v, `<file id="image1.png"`, `<file mimeType="text/plain" id="image1.png"`, 1), "@mimeType is kept as it is beside @mimetype"},
		"second content":      {strings.Replace(v, "</publicObject>", `<contentMetadata type="file"><resource sequence="1" type="file"><file id="other.txt" mimetype="text/plain" size="1"/></resource></contentMetadata></publicObject>`, 1), "more than one contentMetadata"},
	} {
		in, err := Ingest(context.Background(), []byte(c.doc), nil)
		if err != nil {
			t.Errorf("%s: refused: %v", name, err)
			continue
		}
		if !strings.Contains(strings.Join(in.Warnings, "\n"), c.warning) {
			t.Errorf("%s: warnings %q lack %q", name, in.Warnings, c.warning)
		}
		again, err := Ingest(context.Background(), in.Data, nil)
		if err != nil || !bytes.Equal(again.Data, in.Data) {
			t.Errorf("%s: the served record is not stable: %v", name, err)
		}
		// Only the first of a repeated child is read.
		if _, other := in.Record.File("other.txt"); other {
			t.Errorf("%s: a second contentMetadata was read", name)
		}
	}
}

// TestPrepareMODSWithoutSchema: without a schema a record is served as
// MODS 3.6 with a warning that it was not checked.
func TestPrepareMODSWithoutSchema(t *testing.T) {
	in := []byte(`<mods xmlns="http://www.loc.gov/mods/v3" version="3.7"><titleInfo><title>T</title></titleInfo></mods>`)
	out, w, err := PrepareMODS(context.Background(), in, nil)
	if err != nil || !strings.Contains(strings.Join(w, "\n"), "not checked") {
		t.Errorf("got %s %q %v", out, w, err)
	}
	m, err := ParseMODS(out)
	if err != nil || m.Version != "3.6" || !bytes.Contains(out, []byte(`xsi:schemaLocation="http://www.loc.gov/mods/v3 `+MODS36Location+`"`)) {
		t.Errorf("converted: %s %v", out, err)
	}
}

// TestPrepareMODS36AddsSchemaLocation: MODS 3.6 without a schema location
// is served with the 3.6 one; with it, byte for byte.
func TestPrepareMODS36AddsSchemaLocation(t *testing.T) {
	bare := []byte(`<mods xmlns="http://www.loc.gov/mods/v3" version="3.6"><titleInfo><title>T</title></titleInfo></mods>`)
	out, w, err := PrepareMODS(context.Background(), bare, nil)
	if err != nil || len(w) != 0 || !bytes.Contains(out, []byte(`xsi:schemaLocation="http://www.loc.gov/mods/v3 `+MODS36Location+`"`)) {
		t.Errorf("%s %q %v", out, w, err)
	}
	again, _, err := PrepareMODS(context.Background(), out, nil)
	if err != nil || !bytes.Equal(again, out) {
		t.Errorf("a record with the location changed: %s", again)
	}
}

// TestIngestCaseVariants: names and values the service knows are read in
// any case spelling; the names are served in the known spelling.
func TestIngestCaseVariants(t *testing.T) {
	v := variants.All()[0].Public
	doc := strings.NewReplacer(
		"<rightsMetadata>", "<RightsMetadata>", "</rightsMetadata>", "</RightsMetadata>",
		`type="discover"`, `TYPE="Discover"`, `type="read"`, `type="READ"`, "<world/>", "<World/>",
		`mimetype="image/png"`, `mimeType="image/PNG"`, `type="image">`, `type="Image">`,
		"<objectType>item</objectType>", "<objectType>Item</objectType>",
	).Replace(v)
	if doc == v {
		t.Fatal("the variant changed: update the replacements")
	}
	in, err := Ingest(context.Background(), []byte(doc), nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := in.Record
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if !rec.Rights.WorldReadable(now) || rec.ObjectType != "item" || rec.ContentType != "image" || len(rec.Canvases()) != 1 {
		t.Errorf("case variants not read: rights %+v, object %q, content %q, canvases %d", rec.Rights, rec.ObjectType, rec.ContentType, len(rec.Canvases()))
	}
	for _, want := range []string{"<rightsMetadata>", `type="Discover"`, `mimetype="image/PNG"`} {
		if !strings.Contains(string(in.Data), want) {
			t.Errorf("served record lacks %s", want)
		}
	}
	if !strings.Contains(strings.Join(in.Warnings, "\n"), "RightsMetadata is read as rightsMetadata") {
		t.Errorf("warnings %q do not report the respelling", in.Warnings)
	}
}
