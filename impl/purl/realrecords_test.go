package purl

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestRealRecords publishes every record of record/testdata/real (real
// public XML from other public repositories than the shared corpus's:
// record/testdata/real/README.md) the way TestCorpus publishes the shared
// corpus, with `purl publish` and PUT through the real server, and checks
// what is served for each: .xml in the seed's shape and namespace-well-formed
// (xmllint), .mods valid MODS 3.6, the page, the manifest when there is
// something to paint, oEmbed and the embed iframe. Every file the record
// names is in the served .xml. A dark record is published and then 404
// everywhere. None of these records may be refused: each is well-formed
// and is published under the druid its file is named for.
func TestRealRecords(t *testing.T) {
	xmllint := testkit.RequireTool(t, "xmllint")
	dir := filepath.Join("record", "testdata", "real")
	files, err := filepath.Glob(filepath.Join(dir, "*.public.xml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no records in %s: %v", dir, err)
	}
	sort.Strings(files)
	srv := testkit.StartServer(t)
	bin := testkit.Binary(t)
	token := testkit.AddToken(t, srv.DataDir, "publisher", "real")
	work := t.TempDir()
	iiif := iiifPresentation(t)
	mods := map[string][]byte{}
	manifests := map[string][]byte{}
	for _, p := range files {
		stem := strings.TrimSuffix(filepath.Base(p), ".public.xml")
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		id, err := druid.Parse(stem)
		if err != nil {
			t.Fatalf("%s: the file is not named for a druid: %v", p, err)
		}
		in, err := record.IngestWith(context.Background(), raw, record.IngestOptions{ID: id})
		if err != nil {
			t.Errorf("%s: refused: %v", stem, err)
			continue
		}
		var outcome string
		var served []byte
		if in.Record.Rights.Dark() {
			outcome, err = darkRecord(srv, bin, token, filepath.Join(work, stem), raw, id)
		} else {
			var manifest []byte
			outcome, served, manifest, err = corpusRecord(t, srv, bin, token, filepath.Join(work, stem), raw, nil, iiif)
			if manifest != nil {
				manifests[stem] = manifest
			}
			if err == nil {
				err = servedTruthfully(srv, xmllint, stem, raw)
			}
		}
		if err != nil {
			t.Errorf("%s: %v", stem, err)
			continue
		}
		if served != nil {
			mods[stem] = served
		}
		t.Logf("%s: %s", stem, outcome)
	}
	validateMODS36(t, mods)
	t.Logf("%d real records served", len(files))
	t.Run("as-meant", func(t *testing.T) { realRecordsAsMeant(t, srv, token) })
	t.Run("iiif-parser", func(t *testing.T) { parseWithIIIFParser(t, manifests) })
}

// servedTruthfully checks the served .xml of id against the raw record:
// namespace-well-formed, and naming every file the raw record names.
func servedTruthfully(srv *testkit.Server, xmllint, id string, raw []byte) error {
	body, err := corpusGet(srv, "/purl/"+id+".xml", http.StatusOK)
	if err != nil {
		return err
	}
	f, err := os.CreateTemp("", "served-*.xml")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(body); err != nil {
		return err
	}
	f.Close()
	if out, err := exec.Command(xmllint, "--noout", f.Name()).CombinedOutput(); err != nil || len(out) > 0 {
		return fmt.Errorf("the served .xml is not namespace-well-formed: %v: %s", err, out)
	}
	rec, err := record.Parse(body)
	if err != nil {
		return err
	}
	unshelved := unshelvedFiles(raw)
	for _, d := range declaredFiles(raw) {
		if _, ok := rec.File(d.name); !ok && !unshelved[d.name] {
			return fmt.Errorf("file %q of the record is not in the served record", d.name)
		}
	}
	return nil
}

// unshelvedFiles are the files raw marks publish="no" or shelve="no":
// kept in the served record, but not files the object serves
// (docs/purl.md, "Files the repository did not shelve").
func unshelvedFiles(raw []byte) map[string]bool {
	out := map[string]bool{}
	dec := xml.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			return out
		}
		if e, ok := tok.(xml.StartElement); ok && strings.EqualFold(e.Name.Local, "file") {
			var id string
			no := false
			for _, a := range e.Attr {
				switch strings.ToLower(a.Name.Local) {
				case "id":
					id = a.Value
				case "publish", "shelve":
					no = no || strings.EqualFold(strings.TrimSpace(a.Value), "no")
				}
			}
			if no {
				out[id] = true
			}
		}
	}
}

// realRecordsAsMeant checks, through HTTP, what some of the real records
// published by TestRealRecords mean beyond being served: the forms the
// service learnt from them (docs/purl.md, "Ingest").
func realRecordsAsMeant(t *testing.T, srv *testkit.Server, token string) {
	get := func(path string) string {
		t.Helper()
		body, err := corpusGet(srv, path, http.StatusOK)
		if err != nil {
			t.Fatal(err)
		}
		return string(body)
	}
	// An undeclared xlink prefix: declared, and the licence link kept.
	if m := get("/purl/zz000bb0002.mods"); !strings.Contains(m, `xlink:href="https://www.apache.org/licenses/LICENSE-2.0"`) {
		t.Errorf("zz000bb0002.mods lost its xlink:href:\n%s", m)
	}
	if x := get("/purl/zz000bb0002.xml"); !strings.Contains(x, `xmlns:xlink="http://www.w3.org/1999/xlink"`) {
		t.Errorf("zz000bb0002.xml does not declare xlink:\n%s", x)
	}
	// MODS embedded with no namespace is the record's MODS, not one
	// derived from Dublin Core.
	if m := get("/purl/cz128vq0535.mods"); !strings.Contains(m, `displayLabel="geo"`) || strings.Contains(m, record.DerivedOrigin) {
		t.Errorf("cz128vq0535.mods is not the embedded MODS:\n%s", m)
	}
	// videoData durations (ISO 8601) make the videos canvases.
	var manifest struct {
		Items []struct {
			Duration float64 `json:"duration"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(get("/purl/zz000bb0023/iiif/manifest")), &manifest); err != nil {
		t.Fatal(err)
	}
	if len(manifest.Items) != 2 || manifest.Items[0].Duration != 3723 {
		t.Errorf("zz000bb0023 manifest canvases: %+v, want two of 3723 s (the third video's duration is -P1W)", manifest.Items)
	}
	// Licence codes of older records are shown as the licence.
	for id, licence := range map[string]string{
		"zz000bb0018": "https://creativecommons.org/licenses/by-nc/3.0/legalcode",
		"zz000bb0017": "https://opendatacommons.org/licenses/by/1-0/",
	} {
		if page := get("/purl/" + id); !strings.Contains(page, `href="`+licence+`"`) {
			t.Errorf("the page of %s does not link its licence %s", id, licence)
		}
	}
	newRealFormsAsMeant(t, srv, get)
	fourthGatheringAsMeant(t, srv, token, get)
	// Real records saved by other tools: with a byte order mark, and in
	// ISO-8859-1. Both are read as what they say and served in UTF-8.
	bom, err := os.ReadFile(filepath.Join("record", "testdata", "real", "bc390xk2647.public.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := corpusPut(srv, token, "/purl/bc390xk2647.xml", append([]byte("\xEF\xBB\xBF"), bom...)); err != nil {
		t.Errorf("a record with a byte order mark: %v", err)
	}
	if x := get("/purl/bc390xk2647.xml"); !strings.HasPrefix(x, "<?xml") || !strings.Contains(x, "Lake Lagunita") {
		t.Errorf("bc390xk2647.xml after a PUT with a byte order mark:\n%.200s", x)
	}
	utf8Doc, err := os.ReadFile(filepath.Join("record", "testdata", "real", "zz000bb0003.public.xml"))
	if err != nil {
		t.Fatal(err)
	}
	latin1 := []byte(`<?xml version="1.0" encoding="ISO-8859-1"?>` + "\n")
	for _, r := range string(utf8Doc) {
		if r > 0xFF {
			t.Fatalf("zz000bb0003 has %q, not in ISO-8859-1", r)
		}
		latin1 = append(latin1, byte(r))
	}
	if _, err := corpusPut(srv, token, "/purl/zz000bb0003.xml", latin1); err != nil {
		t.Errorf("a record in ISO-8859-1: %v", err)
	}
	if x := get("/purl/zz000bb0003.xml"); !strings.Contains(x, "Copyright © 1976") || strings.Contains(x, "ISO-8859-1") {
		t.Errorf("zz000bb0003.xml after a PUT in ISO-8859-1 is not the record in UTF-8:\n%s", x)
	}
	if page := get("/purl/zz000bb0003"); !strings.Contains(page, "Copyright © 1976") {
		t.Errorf("the page of zz000bb0003 does not show its copyright statement in UTF-8")
	}

	// A file the record marks shelve="no" (an EEMS deposit's permission
	// document, shared corpus mr497sx5638) is not in the stacks: the
	// object is published from a folder without it, and it is not served.
	if dir := corpusDir(t); dir != "" {
		raw, err := os.ReadFile(filepath.Join(dir, "mr497sx5638.1.public.xml"))
		if err != nil {
			t.Fatal(err)
		}
		obj := filepath.Join(t.TempDir(), "mr497sx5638")
		if err := os.MkdirAll(obj, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, data := range map[string][]byte{"public.xml": raw, "statewide-water-action-plan-web-version.pdf": standIn(declared{name: "statewide-water-action-plan-web-version.pdf", mimetype: "application/pdf"})} {
			if err := os.WriteFile(filepath.Join(obj, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if out, err := publishCmd(testkit.Binary(t), srv.DataDir, obj).CombinedOutput(); err != nil {
			t.Errorf("publishing without the unshelved file: %v: %s", err, out)
		}
		if _, err := corpusGet(srv, "/purl/mr497sx5638/file/ACWA_WaterPublications.pdf", http.StatusNotFound); err != nil {
			t.Errorf("the unshelved file: %v", err)
		}
		if page := get("/purl/mr497sx5638"); strings.Contains(page, "ACWA_WaterPublications.pdf") || !strings.Contains(page, "statewide-water-action-plan-web-version.pdf") {
			t.Errorf("the page lists the unshelved file, or not the shelved one")
		}
	}

	// A MODS document of its own with no namespace, PUT: served as MODS 3.6.
	doc := []byte(`<mods version="3.4"><titleInfo><title>Put without a namespace</title></titleInfo></mods>`)
	if _, err := corpusPut(srv, token, "/purl/zz000bb0001.mods", doc); err != nil {
		t.Fatal(err)
	}
	m := get("/purl/zz000bb0001.mods")
	if parsed, err := record.ParseMODS([]byte(m)); err != nil || parsed.Version != "3.6" || parsed.Title != "Put without a namespace" {
		t.Errorf("zz000bb0001.mods after PUT: %v\n%s", err, m)
	}
	served := map[string][]byte{"zz000bb0001-put": []byte(m)}
	// MODS of other repositories and eras (3.0 with the mods: prefix, 3.8),
	// PUT: served as valid MODS 3.6 with their titles.
	for _, f := range testkit.Files(t, filepath.Join("record", "testdata", "real", "mods", "*.mods.xml")) {
		p, doc := f.Path, f.Data
		// The title is the one of the record as prepared (a record wrapped
		// in a modsCollection unwrapped, one in no namespace put in MODS's:
		// record's TestPrepareRealMODS holds their titles).
		prepared, _, err := record.PrepareMODS(context.Background(), doc, nil)
		if err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		want, err := record.ParseMODS(prepared)
		if err != nil {
			t.Fatalf("%s prepared: %v", filepath.Base(p), err)
		}
		if _, err := corpusPut(srv, token, "/purl/zz000bb0003.mods", doc); err != nil {
			t.Fatalf("%s: %v", filepath.Base(p), err)
		}
		body := get("/purl/zz000bb0003.mods")
		if got, err := record.ParseMODS([]byte(body)); err != nil || got.Version != "3.6" || got.Title != want.Title {
			t.Errorf("%s after PUT: %v\n%s", filepath.Base(p), err, body)
		}
		if page := get("/purl/zz000bb0003"); !strings.Contains(page, htmlEscaped(want.Title)) {
			t.Errorf("%s after PUT: the page does not show the title %q", filepath.Base(p), want.Title)
		}
		if title, ok := realMODSTitles[filepath.Base(p)]; ok && want.Title != title {
			t.Errorf("%s: the title shown is %q, want %q", filepath.Base(p), want.Title, title)
		}
		served[filepath.Base(p)] = []byte(body)
	}
	validateMODS36(t, served)
	// A real fixture that is not well-formed (sul-dlss's MODS fixture
	// mods_001: <tableOfContents> closed by </contents>): 400 naming the
	// error, and the MODS served before stays.
	refusedMODS := func(what string, doc []byte, status int, naming string) {
		t.Helper()
		before := get("/purl/zz000bb0003.mods")
		if _, err := corpusPut(srv, token, "/purl/zz000bb0003.mods", doc); err == nil || !strings.Contains(err.Error(), fmt.Sprintf(": %d: ", status)) || !strings.Contains(err.Error(), naming) {
			t.Errorf("PUT of %s: %v, want %d naming %q", what, err, status, naming)
		}
		if after := get("/purl/zz000bb0003.mods"); after != before {
			t.Errorf("the refused PUT of %s changed the served MODS", what)
		}
	}
	refusedMODS("a MODS document that is not well-formed (the mismatched end tag)", readRefused(t, "sul-mods-001-not-well-formed.mods.xml"), http.StatusBadRequest, "contents")
	// Two more real documents that are not acceptable: sul-dlss/harvestdor's
	// spec record (</oai_dc:title not closed: not well-formed) is refused
	// (400) and publishes nothing; Argo's bulk upload of several objects'
	// descMetadata (an xmlDocs of mods records) is not a MODS record
	// (422), and the MODS served before stays.
	{
		bad := readRefused(t, "harvestdor-bb375wb8869-not-well-formed.public.xml")
		if _, err := corpusPut(srv, token, "/purl/bb375wb8869.xml", bad); err == nil || !strings.Contains(err.Error(), ": 400: ") {
			t.Errorf("PUT of harvestdor's record that is not well-formed: %v, want 400", err)
		}
		if _, err := corpusGet(srv, "/purl/bb375wb8869", http.StatusNotFound); err != nil {
			t.Errorf("a refused PUT published something: %v", err)
		}
		refusedMODS("Argo's xmlDocs batch (the root)", readRefused(t, "argo-xmldocs-several-mods.mods.xml"), http.StatusUnprocessableEntity, "xmlDocs")
	}
	// A modsCollection of two records is not one object's description:
	// refused (422, naming the collection), and the MODS served before stays.
	two := []byte(`<modsCollection xmlns="http://www.loc.gov/mods/v3"><mods><titleInfo><title>A</title></titleInfo></mods><mods><titleInfo><title>B</title></titleInfo></mods></modsCollection>`)
	refusedMODS("a modsCollection of two records (the collection)", two, http.StatusUnprocessableEntity, "modsCollection of 2 mods records")
	if page := get("/purl/zz000bb0001"); !strings.Contains(page, "Put without a namespace") {
		t.Errorf("the page does not show the PUT MODS's title")
	}
}

// readRefused reads a real document of record/testdata/real/refused.
func readRefused(t *testing.T, name string) []byte {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("record", "testdata", "real", "refused", name))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// darkRecord publishes a dark record (discover none) with purl publish and
// PUT: both accept it, and everything of the object is 404, as if it were
// not published (docs/purl.md, "Rights").
func darkRecord(srv *testkit.Server, bin, token, dir string, raw []byte, id druid.Druid) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "public.xml"), raw, 0o644); err != nil {
		return "", err
	}
	if out, err := publishCmd(bin, srv.DataDir, dir).CombinedOutput(); err != nil {
		return "", fmt.Errorf("purl publish: %v: %s", err, out)
	}
	if _, err := corpusPut(srv, token, "/purl/"+id.String()+".xml", raw); err != nil {
		return "", err
	}
	for _, path := range []string{"", ".xml", ".mods", "/iiif/manifest"} {
		if _, err := corpusGet(srv, "/purl/"+id.String()+path, http.StatusNotFound); err != nil {
			return "", fmt.Errorf("dark object: %w", err)
		}
	}
	if _, err := corpusGet(srv, "/embed/embed?url="+url.QueryEscape(srv.URL+"/purl/"+id.String()), http.StatusNotFound); err != nil {
		return "", fmt.Errorf("dark object, oEmbed: %w", err)
	}
	return "dark: published, and 404 everywhere", nil
}

// realMODSTitles are the titles some MODS documents of testdata/real/mods
// are shown with, written out: nonSort before the title, partNumber and
// partName after it (docs/purl.md, "Ingest").
var realMODSTitles = map[string]string{
	"henry-george-mods-prefix-3.3.mods.xml":    "The complete works of Henry George",
	"mapper-full-mods-3.4.mods.xml":            "é. 1 Test. part #1. 1",
	"covher-volpa-from-mets.mods.xml":          "Volpa Synagogue (1929–1941)",
	"cuhk-chinese-host-part.mods.xml":          "版權、稿約及稿例、目錄",
	"xmlfixtures-item-book-3.5.mods.xml":       "People's Computer Company. 5:3",
	"colligo-m1814-keydate-3.3.mods.xml":       "Stanford University Libraries, M1814. Half Box 1, Folder 30",
	"common-accessioning-comment-3.3.mods.xml": "A first book in Latin",
	"common-accessioning-thesis-3.3.mods.xml":  "Writing lessons: case studies of beginning teachers",
}

// newRealFormsAsMeant checks, through HTTP, what the forms learnt from the
// second gathering of real records (record/testdata/real/README.md) mean:
// the collection that says so beside another objectType, titles written
// over several lines or with a doubled space, a location-only item, a
// virtual object, and licences in the page and manifest.
func newRealFormsAsMeant(t *testing.T, srv *testkit.Server, get func(string) string) {
	t.Helper()
	type manifestView struct {
		Type   string              `json:"type"`
		Label  map[string][]string `json:"label"`
		Rights string              `json:"rights"`
	}
	manifestOf := func(id string) manifestView {
		t.Helper()
		var m manifestView
		if err := json.Unmarshal([]byte(get("/purl/"+id+"/iiif/manifest")), &m); err != nil {
			t.Fatalf("%s manifest: %v", id, err)
		}
		return m
	}
	oembedTitle := func(id string) string {
		t.Helper()
		var o struct {
			Title string `json:"title"`
		}
		if err := json.Unmarshal([]byte(get("/embed/embed?url="+url.QueryEscape(srv.URL+"/purl/"+id))), &o); err != nil {
			t.Fatalf("%s oEmbed: %v", id, err)
		}
		return o.Title
	}
	// objectType collection beside objectType set: a collection.
	for id, title := range map[string]string{
		"dx969tv9730": "Parker Manuscripts",
		"hn730ks3626": "Stanford University Libraries staff publications and research",
	} {
		if m := manifestOf(id); m.Type != "Collection" || strings.Join(m.Label["none"], "") != title {
			t.Errorf("%s (objectType collection and set) is served as %s %q, want the Collection %s", id, m.Type, m.Label, title)
		}
	}
	// Titles are one line: a doubled space, and a dc:title written over
	// three lines, are shown as the words they are.
	for id, want := range map[string]string{
		"kj040zn0537": "Le Dauphin enlevè à sa mere: après le decret du Comité de sureté publique le 1, Juillet 1793 les Commissaires en exercice viennent le notifier a la Reine, et la somment de s'y conformer : [estampe]",
		"cc842mn9348": "CE-SPSC Final Decisions/2001/04b-2001 Sabino Gouveia Leite Judgment.pdf",
	} {
		if got := strings.Join(manifestOf(id).Label["none"], ""); got != want {
			t.Errorf("%s manifest label %q, want %q", id, got, want)
		}
		if got := oembedTitle(id); got != want {
			t.Errorf("%s oEmbed title %q, want %q", id, got, want)
		}
		if page := get("/purl/" + id); !strings.Contains(page, htmlEscaped(want)) {
			t.Errorf("the page of %s does not show the title %q", id, want)
		}
	}
	// A reading-room item (location spec): its page and manifest are
	// public, its files are not served to an anonymous reader.
	if _, err := corpusGet(srv, "/purl/bb099mt5053/file/bb099mt5053_img_1.jp2", http.StatusUnauthorized); err != nil {
		t.Errorf("bb099mt5053 (location spec), anonymous file: %v", err)
	}
	if _, err := corpusGet(srv, "/purl/pq479rm6462/file/Rextag_Oil_and_Gas_Wells.gdb.zip", http.StatusUnauthorized); err != nil {
		t.Errorf("pq479rm6462 (group Stanford), anonymous file: %v", err)
	}
	if page := get("/purl/bb099mt5053"); !strings.Contains(page, "Fractal Music") || !strings.Contains(page, "spec") {
		t.Errorf("the page of bb099mt5053 does not show its title and the location its files are read at")
	}
	// Licences by URI: in the manifest's rights and linked from the page.
	for id, licence := range map[string]string{
		"xy581jd9710": "http://creativecommons.org/licenses/by/3.0/",
		"qy240vt8937": "http://creativecommons.org/publicdomain/mark/1.0/",
	} {
		if m := manifestOf(id); m.Rights != licence {
			t.Errorf("%s manifest rights %q, want %q", id, m.Rights, licence)
		}
	}
	if page := get("/purl/zc193vn8689"); !strings.Contains(page, `href="https://opendatacommons.org/licenses/pddl/1-0/"`) {
		t.Errorf("the page of zc193vn8689 does not link its licence (code pddl)")
	}
	if page := get("/purl/ws947mh3822"); !strings.Contains(page, `href="https://creativecommons.org/licenses/by-nc-nd/3.0/legalcode"`) {
		t.Errorf("the page of ws947mh3822 does not link its licence (code by-nc-nd)")
	}
	// Third gathering. A record naming itself by a placeholder that is not
	// a druid (druid:oo000oo0000) is served as the druid it is published at.
	if x := get("/purl/zz000bb0034.xml"); !strings.Contains(x, `objectId="druid:zz000bb0034"`) || strings.Contains(x, `"druid:oo000oo0000"`) {
		t.Errorf("zz000bb0034.xml is not served as druid:zz000bb0034:\n%.400s", x)
	}
	// A title's partName is part of the title shown: the MODS title agrees
	// with the dc:title the repository derived from it.
	const issue = "Annual report of the Council of the Corporation of Foreign Bondholders. 1988"
	if got := oembedTitle("xt162pg0437"); got != issue {
		t.Errorf("xt162pg0437 oEmbed title %q, want %q", got, issue)
	}
	if page := get("/purl/xt162pg0437"); !strings.Contains(page, htmlEscaped(issue)) {
		t.Errorf("the page of xt162pg0437 does not show the title %q", issue)
	}
	// A Dublin Core-only image record (dor-services 4.x): its title, and
	// its copyright statement in the page and the manifest.
	if m := manifestOf("bp778zp8790"); strings.Join(m.Label["none"], "") != "Roman Imperial denarius" {
		t.Errorf("bp778zp8790 manifest label %q", m.Label)
	}
	if page := get("/purl/bp778zp8790"); !strings.Contains(page, "(c) 2009 by Jasper Wilcox. All rights reserved.") {
		t.Errorf("the page of bp778zp8790 does not show its copyright statement")
	}
	// A virtual object (its images are files of its constituents): served,
	// with no file of its own and no manifest.
	if _, err := corpusGet(srv, "/purl/ws947mh3822/iiif/manifest", http.StatusNotFound); err != nil {
		t.Errorf("ws947mh3822 (virtual object) manifest: %v", err)
	}
}

// fourthGatheringAsMeant checks, through HTTP, what the fourth gathering
// of real records (record/testdata/real/README.md) means: the forms the
// service learnt from them (docs/purl.md, "Ingest").
func fourthGatheringAsMeant(t *testing.T, srv *testkit.Server, token string, get func(string) string) {
	t.Helper()
	// A collection whose identityMetadata/objectId is a placeholder
	// (druid:oo000oo0000) beside its @id: served naming itself, as a
	// IIIF Collection.
	if x := get("/purl/yg867hg1375.xml"); !strings.Contains(x, "<objectId>druid:yg867hg1375</objectId>") || strings.Contains(x, "oo000oo0000</objectId>") {
		t.Errorf("yg867hg1375.xml does not name itself in identityMetadata:\n%.600s", x)
	}
	var collection struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal([]byte(get("/purl/yg867hg1375/iiif/manifest")), &collection); err != nil || collection.Type != "Collection" {
		t.Errorf("yg867hg1375 manifest type %q (%v), want Collection", collection.Type, err)
	}
	// A statement with an HTML link inside: the page shows the link's
	// text; the files of a group-only item are not served anonymously.
	if page := get("/purl/bg210vm0680"); !strings.Contains(page, "Public Services Librarian at speccollref@stanford.edu.") {
		t.Errorf("the page of bg210vm0680 does not show its whole use statement")
	}
	if _, err := corpusGet(srv, "/purl/bg210vm0680/file/bookCover.jp2", http.StatusUnauthorized); err != nil {
		t.Errorf("bg210vm0680 (group stanford), anonymous file: %v", err)
	}
	// A Rumsey virtual object: no files of its own (no manifest), its
	// licence (code by-nc-sa, in a second use element) linked.
	if _, err := corpusGet(srv, "/purl/hj097bm8879/iiif/manifest", http.StatusNotFound); err != nil {
		t.Errorf("hj097bm8879 (virtual object) manifest: %v", err)
	}
	if page := get("/purl/hj097bm8879"); !strings.Contains(page, `href="https://creativecommons.org/licenses/by-nc-sa/3.0/legalcode"`) {
		t.Errorf("the page of hj097bm8879 does not link its licence (code by-nc-sa)")
	}
	// A 2015 book of page resources (a PDF and a JP2 each): five canvases.
	var book struct {
		Items []json.RawMessage   `json:"items"`
		Label map[string][]string `json:"label"`
	}
	if err := json.Unmarshal([]byte(get("/purl/cg160px5426/iiif/manifest")), &book); err != nil || len(book.Items) != 5 || strings.Join(book.Label["none"], "") != "People's Computer Company. 5:3" {
		t.Errorf("cg160px5426 manifest: %d canvases, label %q (%v); want 5, the dc:title", len(book.Items), book.Label, err)
	}
	// A book the current publisher (purl-fetcher) writes as read right to
	// left: the manifest says so. (Its second page's image has no
	// imageData in the record and its stand-in is no readable JPEG 2000:
	// served as a file, not painted; one canvas.)
	var rtl struct {
		ViewingDirection string            `json:"viewingDirection"`
		Items            []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(get("/purl/bc123df5678/iiif/manifest")), &rtl); err != nil || rtl.ViewingDirection != "right-to-left" || len(rtl.Items) != 1 {
		t.Errorf("bc123df5678 manifest: viewingDirection %q, %d canvases (%v); want right-to-left, 1", rtl.ViewingDirection, len(rtl.Items), err)
	}
	// Japanese titles in Dublin Core: the first is the title shown.
	if page := get("/purl/vs298kg2555"); !strings.Contains(page, "Kūchū shashin sokuzu yōzu Seibu Papua jūmanbun no ichi") || !strings.Contains(page, "参謀本部") {
		t.Errorf("the page of vs298kg2555 does not show its romanized title and its Japanese publisher")
	}
	// putMODS PUTs the real MODS document name as zz000bb0004's MODS and
	// returns the MODS served then.
	putMODS := func(name string) string {
		t.Helper()
		doc, err := os.ReadFile(filepath.Join("record", "testdata", "real", "mods", name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := corpusPut(srv, token, "/purl/zz000bb0004.mods", doc); err != nil {
			t.Fatalf("PUT of %s: %v", name, err)
		}
		return get("/purl/zz000bb0004.mods")
	}
	// A MODS name in another case (keydate): served as keyDate.
	if m := putMODS("colligo-m1814-keydate-3.3.mods.xml"); !strings.Contains(m, `<dateCreated keyDate="yes">June 1781</dateCreated>`) {
		t.Errorf("zz000bb0004.mods after a PUT with keydate=\"yes\": the date is not a key date:\n%s", m)
	}
	// purl.stanford.edu's 2015 MODS of tn629pk3948 wrote a placeTerm
	// directly in originInfo: served inside a place, not lost.
	if m := putMODS("purl-2015-tn629pk3948-prefixed-3.4.mods.xml"); !strings.Contains(m, `<mods:place><mods:placeTerm type="text">Stanford (Calif.)</mods:placeTerm></mods:place>`) {
		t.Errorf("zz000bb0004.mods after a PUT of the 2015 purl MODS lost its place:\n%s", m)
	}
	// Columbia's record keeps what MODS 3.6 allows as it was written: a
	// name's ID, an identifier type of its own, dates written its way.
	m := putMODS("cul-ac4-looping-genomes.mods.xml")
	for _, kept := range []string{`<name type="personal" ID="ge2027">`, `<identifier type="CDRS doi">`, `<recordCreationDate encoding="w3cdtf">2016-04-06 15:40:17 -0400</recordCreationDate>`} {
		if !strings.Contains(m, kept) {
			t.Errorf("zz000bb0004.mods after a PUT of Columbia's record lost %s:\n%s", kept, m)
		}
	}
}
