package record

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/druid"
)

// The forms below come from the second gathering of real records
// (testdata/real/README.md); each test states the general rule the form
// showed, with the smallest records that show it (written for the test).

// TestMODSCollectionOfOne: a modsCollection holding one mods record is
// that record, published alone (PUT /{id}.mods) or embedded in public XML;
// a collection of none or several is not one object's record: refused
// alone, kept unread when embedded.
func TestMODSCollectionOfOne(t *testing.T) {
	ctx := context.Background()
	schema := testSchema(t)
	const one = `<modsCollection xmlns="http://www.loc.gov/mods/v3" xmlns:xlink="http://www.w3.org/1999/xlink"><mods ID="x"><titleInfo><title>Only one</title></titleInfo><accessCondition type="license" xlink:href="https://creativecommons.org/licenses/by/4.0/">CC BY</accessCondition></mods></modsCollection>`
	for name, doc := range map[string]string{
		"default namespace": one,
		"prefixed":          `<mods:modsCollection xmlns:mods="http://www.loc.gov/mods/v3"><mods:mods version="3.3"><mods:titleInfo><mods:title>Only one</mods:title></mods:titleInfo></mods:mods></mods:modsCollection>`,
		"no namespace":      `<modsCollection><mods><titleInfo><title>Only one</title></titleInfo></mods></modsCollection>`,
	} {
		out, warnings, err := PrepareMODS(ctx, []byte(doc), schema)
		if err != nil {
			t.Errorf("%s: refused: %v", name, err)
			continue
		}
		m, err := ParseMODS(out)
		if err != nil || m.Title != "Only one" || m.Version != "3.6" {
			t.Errorf("%s: served %v %+v:\n%s", name, err, m, out)
		}
		if !strings.Contains(strings.Join(warnings, "\n"), "holds one mods record") {
			t.Errorf("%s: no warning of the collection: %q", name, warnings)
		}
	}
	if out, _, err := PrepareMODS(ctx, []byte(one), schema); err == nil && !strings.Contains(string(out), `xlink:href="https://creativecommons.org/licenses/by/4.0/"`) {
		t.Errorf("the collection's xlink declaration was lost:\n%s", out)
	}
	for name, doc := range map[string]string{
		"two records": `<modsCollection xmlns="http://www.loc.gov/mods/v3"><mods><titleInfo><title>A</title></titleInfo></mods><mods><titleInfo><title>B</title></titleInfo></mods></modsCollection>`,
		"no record":   `<modsCollection xmlns="http://www.loc.gov/mods/v3"/>`,
	} {
		if _, _, err := PrepareMODS(ctx, []byte(doc), schema); !errors.Is(err, ErrUnacceptable) || !strings.Contains(err.Error(), "modsCollection of") {
			t.Errorf("%s: got %v, want a refusal naming the modsCollection", name, err)
		}
	}
	// Unwrapping comes after the checks every document passes: a DTD is
	// still refused.
	withDTD := `<!DOCTYPE modsCollection [<!ENTITY x "y">]>` + one
	if _, _, err := PrepareMODS(ctx, []byte(withDTD), schema); err == nil || !strings.Contains(err.Error(), "DOCTYPE") {
		t.Errorf("a modsCollection with a DTD: got %v, want a refusal naming the DOCTYPE", err)
	}
	id, _ := druid.Parse("bc123df4567")
	embedded := `<publicObject objectId="druid:bc123df4567" published="2020-01-01T00:00:00Z"><identityMetadata><objectLabel>L</objectLabel></identityMetadata>` + one + `</publicObject>`
	in, err := IngestWith(ctx, []byte(embedded), IngestOptions{Schema: schema, ID: id})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := ParseMODS(in.Record.MODS); err != nil || m.Title != "Only one" || in.Record.Title() != "Only one" {
		t.Errorf("the embedded collection's record is not the record's MODS: %v %+v, title %q", err, m, in.Record.Title())
	}
	if again, err := IngestWith(ctx, in.Data, IngestOptions{Schema: schema, ID: id}); err != nil || string(again.Data) != string(in.Data) {
		t.Errorf("not stable: %v", err)
	}
}

// TestSeveralObjectTypes: Fedora-era records say objectType more than
// once (collection and set): the object is of the first type the service
// knows, with a warning naming the other.
func TestSeveralObjectTypes(t *testing.T) {
	for types, want := range map[string]string{
		"collection set":  "collection",
		"set collection":  "collection",
		"set item":        "item",
		"set":             "item",
		"item":            "item",
		"item collection": "item",
	} {
		var b strings.Builder
		for _, ty := range strings.Fields(types) {
			b.WriteString("<objectType>" + ty + "</objectType>")
		}
		doc := `<publicObject objectId="druid:bc123df4567" published="2020-01-01T00:00:00Z"><identityMetadata>` + b.String() + `</identityMetadata></publicObject>`
		r, err := Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if r.ObjectType != want {
			t.Errorf("objectType %s: read as %s, want %s", types, r.ObjectType, want)
		}
		if strings.Contains(types, "set") && !strings.Contains(strings.Join(r.Warnings, "\n"), `"set" is not item or collection`) {
			t.Errorf("objectType %s: no warning of set: %q", types, r.Warnings)
		}
		if types == "item collection" && !strings.Contains(strings.Join(r.Warnings, "\n"), "objectTypes item and collection") {
			t.Errorf("objectType %s: no warning of the two: %q", types, r.Warnings)
		}
	}
}

// TestTitleOneLine: a title written over several lines or with doubled
// spaces is shown as its words, one line (dc:title, and the MODS title or
// label it falls back to).
func TestTitleOneLine(t *testing.T) {
	for doc, want := range map[string]string{
		`<oai_dc:dc xmlns:oai_dc="http://www.openarchives.org/OAI/2.0/oai_dc/" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>
      Two   words
    </dc:title></oai_dc:dc>`: "Two words",
		`<identityMetadata><objectLabel>
      A	label
    </objectLabel></identityMetadata>`: "A label",
	} {
		r, err := Parse([]byte(`<publicObject objectId="druid:bc123df4567" published="2020-01-01T00:00:00Z">` + doc + `</publicObject>`))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Title(); got != want {
			t.Errorf("title %q, want %q", got, want)
		}
	}
}

// TestNamespacedSeedChildren: a seed child written in a namespace of the
// repository's own schemas (dor-services published rightsMetadata in
// hydra-collab's, testdata/real/zz000bb0033) is that child: its rights
// are read, and it is served in no namespace.
func TestNamespacedSeedChildren(t *testing.T) {
	ctx := context.Background()
	id, _ := druid.Parse("bc123df4567")
	for name, rights := range map[string]string{
		"default namespace": `<rightsMetadata xmlns="http://hydra-collab.stanford.edu/schemas/rightsMetadata/v1"><access type="discover"><machine><world/></machine></access><access type="read"><machine><world/></machine></access></rightsMetadata>`,
		"prefixed":          `<rm:rightsMetadata xmlns:rm="http://hydra-collab.stanford.edu/schemas/rightsMetadata/v1"><rm:access rm:type="discover"><rm:machine><rm:world/></rm:machine></rm:access><rm:access type="read"><rm:machine><rm:world/></rm:machine></rm:access></rm:rightsMetadata>`,
	} {
		doc := `<publicObject objectId="druid:bc123df4567" published="2020-01-01T00:00:00Z"><contentMetadata type="file"><resource sequence="1" type="file"><file id="a.txt" mimetype="text/plain" size="1"/></resource></contentMetadata>` + rights + `</publicObject>`
		in, err := IngestWith(ctx, []byte(doc), IngestOptions{ID: id})
		if err != nil {
			t.Errorf("%s: refused: %v", name, err)
			continue
		}
		if r := in.Record.Rights; !r.Discoverable || r.Read != AccessWorld {
			t.Errorf("%s: rights read as discoverable %v, read %s; want world", name, r.Discoverable, r.Read)
		}
		if strings.Contains(string(in.Data), "hydra-collab") || !strings.Contains(string(in.Data), "<rightsMetadata>") {
			t.Errorf("%s: not served in no namespace:\n%s", name, in.Data)
		}
		if again, err := IngestWith(ctx, in.Data, IngestOptions{ID: id}); err != nil || string(again.Data) != string(in.Data) {
			t.Errorf("%s: not stable: %v", name, err)
		}
	}
}

// TestRootIdentifierNotADruid: specifications publish records under
// placeholder identifiers that are not druids (druid:oo000oo0000, a
// sul-dlss indexer spec's, testdata/real/zz000bb0034). Published where a
// druid is given (the PUT path, the object folder's name), such a record is
// served as that druid with a warning; with no druid given it is refused,
// and one that is a path-like string leaves no trace in what is served.
func TestRootIdentifierNotADruid(t *testing.T) {
	ctx := context.Background()
	at := druid.Druid("bc123df4567")
	for _, attr := range []string{"id", "objectId"} {
		doc := []byte(`<publicObject ` + attr + `="druid:oo000oo0000" published="2015-10-17T18:24:08-07:00"><contentMetadata objectId="oo000oo0000" type="file"><resource id="r1" sequence="1" type="file"><file id="a.txt" mimetype="text/plain" size="3"/></resource></contentMetadata></publicObject>`)
		in, err := IngestWith(ctx, doc, IngestOptions{ID: at})
		if err != nil {
			t.Fatalf("@%s placeholder, published at %s: %v", attr, at, err)
		}
		if in.Record.Druid != at || !bytes.Contains(in.Data, []byte(`objectId="druid:bc123df4567"`)) || bytes.Contains(in.Data, []byte("oo000oo0000")) {
			t.Errorf("@%s placeholder: served as %s:\n%s", attr, in.Record.Druid, in.Data)
		}
		want := `publicObject/@` + attr + ` "druid:oo000oo0000" is not a druid: the record is published as druid:bc123df4567`
		if !slices.ContainsFunc(in.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
			t.Errorf("@%s placeholder: warnings %q, want one starting %q", attr, in.Warnings, want)
		}
		if _, err := IngestWith(ctx, doc, IngestOptions{}); !errors.Is(err, ErrUnacceptable) || !strings.Contains(err.Error(), "is not a druid") {
			t.Errorf("@%s placeholder with nowhere to publish it: %v, want refused", attr, err)
		}
	}
	traversal := []byte(`<publicObject id="druid:../../etc" published="2015-10-17T18:24:08-07:00"/>`)
	if in, err := IngestWith(ctx, traversal, IngestOptions{ID: at}); err != nil || bytes.Contains(in.Data, []byte("etc")) || in.Record.Druid != at {
		t.Errorf("a path-like identifier published at %s: %v; it must be served as %s only", at, err, at)
	}
}

// TestTitleParts: the title shown includes the titleInfo's partNumber and
// partName, in their order (issues of a serial, volumes of a set and a
// manuscript's folios share a title and differ only by them: shared corpus
// bh502xm3351 and zm796xp7877, testdata/real xt162pg0437, the MODS
// mapper's document of testdata/real/mods), each after a full stop as in
// the Dublin Core the repository derives from them.
func TestTitleParts(t *testing.T) {
	const ns = `<mods xmlns="http://www.loc.gov/mods/v3">`
	for doc, want := range map[string]string{
		ns + `<titleInfo><title>The Catgut Acoustical Society Newsletter</title><partNumber>Number 20</partNumber><partName>1973-11-01</partName></titleInfo></mods>`: "The Catgut Acoustical Society Newsletter. Number 20. 1973-11-01",
		ns + `<titleInfo usage="primary"><title>Census of India, 1931</title><partNumber>Volume 8, part 2</partNumber></titleInfo></mods>`:                            "Census of India, 1931. Volume 8, part 2",
		ns + `<titleInfo><nonSort>The</nonSort><title>works</title><subTitle>a study</subTitle><partName>  Part
		 one </partName></titleInfo></mods>`: "The works: a study. Part one",
		ns + `<titleInfo><title>Ends with a stop.</title><partNumber>2</partNumber><partNumber></partNumber></titleInfo></mods>`:                                   "Ends with a stop. 2",
		ns + `<titleInfo><title>Only the title</title></titleInfo><titleInfo type="alternative"><title>Other</title><partNumber>9</partNumber></titleInfo></mods>`: "Only the title",
		ns + `<titleInfo><title>Foreign part</title><x:partNumber xmlns:x="urn:x">7</x:partNumber></titleInfo></mods>`:                                             "Foreign part",
	} {
		m, err := ParseMODS([]byte(doc))
		if err != nil {
			t.Fatalf("%v in\n%s", err, doc)
		}
		if m.Title != want {
			t.Errorf("title %q, want %q in\n%s", m.Title, want, doc)
		}
	}
}
