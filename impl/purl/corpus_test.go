package purl

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// deliberateRefusals names the records of the corpus the service refuses on
// purpose (docs/purl.md, "What is refused"), by file stem, with the words
// the refusal must contain. Every other record must be served.
var deliberateRefusals = map[string]string{}

// corpusDir is ../shared/data/purl-records ("" when absent).
func corpusDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(testkit.RepoRoot(t)), "shared", "data", "purl-records")
	if _, err := os.Stat(filepath.Join(dir, "README.md")); err != nil {
		return ""
	}
	return dir
}

// TestCorpus publishes every real record of ../shared/data/purl-records
// (docs/purl.md, "Tests") with `sitesvc purl publish` (stand-in content
// files: the declared media type, the declared pixel size of PNG and JPEG
// images, a few bytes) and again with PUT (the record alone, which keeps
// the files), through the real server, and checks what is served for each:
// .xml in the seed's shape, .mods valid MODS 3.6, the page, the manifest
// when there is something to paint (else 404), oEmbed and the embed iframe.
// It lists each record's outcome; at least 98% must pass and each that does
// not must be a deliberate refusal.
func TestCorpus(t *testing.T) {
	t.Parallel()
	dir := corpusDir(t)
	if dir == "" {
		t.Skip("../shared/data/purl-records is absent: the real-record corpus cannot be published")
	}
	testkit.RequireTool(t, "xmllint")
	stems := corpusStems(t, dir)
	srv := testkit.StartServer(t)
	bin := testkit.Binary(t)
	token := testkit.AddToken(t, srv.DataDir, "publisher", "corpus")
	work := t.TempDir()

	iiif := iiifPresentation(t)

	var mu sync.Mutex // guards the results below
	outcomes := map[string]string{}
	var failed []string
	mods := map[string][]byte{}
	manifests := map[string][]byte{}
	passed := 0
	// The objects are published in parallel, as several publishers would;
	// the versions of one object in order (<druid>.1, then <druid>.2).
	t.Run("objects", func(t *testing.T) {
		for id, versions := range corpusObjects(stems) {
			t.Run(id, func(t *testing.T) {
				t.Parallel()
				for _, stem := range versions {
					raw, err := os.ReadFile(filepath.Join(dir, stem+".public.xml"))
					if err != nil {
						t.Fatal(err)
					}
					modsDoc, err := os.ReadFile(filepath.Join(dir, stem+".mods.xml"))
					if err != nil {
						modsDoc = nil
					}
					outcome, served, manifest, err := corpusRecord(t, srv, bin, token, filepath.Join(work, stem), raw, modsDoc, iiif)
					mu.Lock()
					switch {
					case err == nil:
						passed++
						outcomes[stem] = outcome
						mods[stem] = served
						if manifest != nil {
							manifests[stem] = manifest
						}
					case deliberateRefusals[stem] != "" && strings.Contains(err.Error(), deliberateRefusals[stem]):
						outcomes[stem] = "refused (deliberately): " + err.Error()
					default:
						outcomes[stem] = "FAILED: " + err.Error()
						failed = append(failed, stem)
					}
					mu.Unlock()
				}
			})
		}
	})
	sort.Strings(failed)
	for _, stem := range stems {
		t.Logf("%s: %s", stem, outcomes[stem])
	}
	validateMODS36(t, mods)
	for _, stem := range failed {
		t.Errorf("%s is neither served nor a deliberate refusal: %s", stem, outcomes[stem])
	}
	if share := float64(passed) / float64(len(stems)); share < 0.98 {
		t.Errorf("%d of %d real records served (%.1f%%), want at least 98%%", passed, len(stems), 100*share)
	}
	t.Logf("%d of %d real records served", passed, len(stems))
	// Read by a IIIF viewer's parser too (skipped without the pinned
	// @iiif/parser of scripts/build-webcheck.sh).
	t.Run("iiif-parser", func(t *testing.T) { parseWithIIIFParser(t, manifests) })
}

// corpusStems lists the records of the corpus (<druid>.<n>), sorted.
func corpusStems(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.public.xml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no records in %s: %v", dir, err)
	}
	var stems []string
	for _, f := range files {
		stems = append(stems, strings.TrimSuffix(filepath.Base(f), ".public.xml"))
	}
	sort.Strings(stems)
	return stems
}

// corpusObjects groups the stems (<druid>.<n>, sorted) by object: each
// object's versions in order.
func corpusObjects(stems []string) map[string][]string {
	objects := map[string][]string{}
	for _, stem := range stems {
		id, _, _ := strings.Cut(stem, ".")
		objects[id] = append(objects[id], stem)
	}
	return objects
}

// corpusRecord publishes one record both ways and checks what is served,
// its manifest against the IIIF schema iiif. It returns a one-line outcome,
// the served .mods and the manifest (nil when there is none), or why it
// failed.
func corpusRecord(t *testing.T, srv *testkit.Server, bin, token, dir string, raw, modsDoc []byte, iiif *testkit.JSONSchema) (string, []byte, []byte, error) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "public.xml"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if modsDoc != nil {
		if err := os.WriteFile(filepath.Join(dir, "mods.xml"), modsDoc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range declaredFiles(raw) {
		p := filepath.Join(dir, filepath.FromSlash(f.name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			continue // a name that leaves the folder: the record must be refused
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, standIn(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}

	out, err := publishCmd(bin, srv.DataDir, dir).CombinedOutput()
	if err != nil {
		return "", nil, nil, fmt.Errorf("purl publish: %v: %s", err, strings.TrimSpace(string(out)))
	}
	publishWarnings := strings.Count(string(out), "  warning: ")
	first := strings.SplitN(string(out), "\n", 2)[0]
	idText := strings.TrimPrefix(strings.Fields(first + " x x")[1], "druid:")
	if !strings.HasPrefix(first, "published druid:") {
		return "", nil, nil, fmt.Errorf("purl publish said %q", first)
	}
	id := idText
	published, err := corpusGet(srv, "/purl/"+id+".xml", http.StatusOK)
	if err != nil {
		return "", nil, nil, fmt.Errorf("after purl publish: %w", err)
	}
	if err := seedShape(published, id); err != nil {
		return "", nil, nil, fmt.Errorf("after purl publish: .xml: %w", err)
	}

	// PUT the record alone (the files stay), then its MODS.
	putWarnings, err := corpusPut(srv, token, "/purl/"+id+".xml", raw)
	if err != nil {
		return "", nil, nil, err
	}
	if modsDoc != nil {
		if _, err := corpusPut(srv, token, "/purl/"+id+".mods", modsDoc); err != nil {
			return "", nil, nil, err
		}
	}
	served, err := corpusGet(srv, "/purl/"+id+".xml", http.StatusOK)
	if err != nil {
		return "", nil, nil, fmt.Errorf("after PUT: %w", err)
	}
	if err := seedShape(served, id); err != nil {
		return "", nil, nil, fmt.Errorf("after PUT: .xml: %w", err)
	}
	rec, err := record.Parse(served)
	if err != nil {
		return "", nil, nil, fmt.Errorf("served .xml: %w", err)
	}
	if rec.Rights.Dark() {
		if _, err := corpusGet(srv, "/purl/"+id, http.StatusNotFound); err != nil {
			return "", nil, nil, fmt.Errorf("dark object: %w", err)
		}
		return fmt.Sprintf("served as dark (404); %d warnings from purl publish, %d from PUT", publishWarnings, putWarnings), nil, nil, nil
	}
	modsBody, err := corpusGet(srv, "/purl/"+id+".mods", http.StatusOK)
	if err != nil {
		return "", nil, nil, err
	}
	if m, err := record.ParseMODS(modsBody); err != nil || m.Version != "3.6" || !bytes.Contains(modsBody, []byte(record.MODS36Location)) {
		return "", nil, nil, fmt.Errorf(".mods is not declared MODS 3.6: %v", err)
	}
	page, err := corpusGet(srv, "/purl/"+id, http.StatusOK)
	if err != nil {
		return "", nil, nil, err
	}
	if !bytes.Contains(page, []byte("<title>")) {
		return "", nil, nil, fmt.Errorf("the page has no title")
	}
	manifest, manifestBody := "no manifest (nothing to paint)", []byte(nil)
	external := servedConstituentImages(srv, rec)
	if rec.HasManifest() || external > 0 {
		body, err := corpusGet(srv, "/purl/"+id+"/iiif/manifest", http.StatusOK)
		if err != nil {
			return "", nil, nil, err
		}
		if err := iiif.Validate(body); err != nil {
			return "", nil, nil, fmt.Errorf("manifest is not valid IIIF 3.0: %w", err)
		}
		manifest = fmt.Sprintf("manifest of %d canvases", len(rec.Canvases())+external)
		manifestBody = body
	} else if _, err := corpusGet(srv, "/purl/"+id+"/iiif/manifest", http.StatusNotFound); err != nil {
		return "", nil, nil, err
	}
	body, err := corpusGet(srv, "/embed/embed?url="+url.QueryEscape(srv.URL+"/purl/"+id), http.StatusOK)
	if err != nil {
		return "", nil, nil, fmt.Errorf("oEmbed: %w", err)
	}
	var oembed struct {
		Type, HTML string
	}
	if err := json.Unmarshal(body, &oembed); err != nil || oembed.Type != "rich" || !strings.Contains(oembed.HTML, "<iframe") {
		return "", nil, nil, fmt.Errorf("oEmbed: %v %s", err, body)
	}
	if _, err := corpusGet(srv, "/embed/iframe?url="+url.QueryEscape(srv.URL+"/purl/"+id), http.StatusOK); err != nil {
		return "", nil, nil, fmt.Errorf("the embed iframe: %w", err)
	}
	kind := rec.ContentType
	if kind == "" {
		kind = "no content type"
	}
	return fmt.Sprintf("served: %s, %d files, %s, rights %s; %d warnings from purl publish, %d from PUT",
		kind, len(rec.Files()), manifest, rec.Rights.Read, publishWarnings, putWarnings), modsBody, manifestBody, nil
}

func corpusGet(srv *testkit.Server, path string, want int) ([]byte, error) {
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, fmt.Errorf("GET %s: %d, want %d: %s", path, resp.StatusCode, want, strings.TrimSpace(b.String()))
	}
	return b.Bytes(), nil
}

// corpusPut publishes a document and returns how many warnings it drew.
func corpusPut(srv *testkit.Server, token, path string, doc []byte) (int, error) {
	req, err := http.NewRequest(http.MethodPut, srv.URL+path, bytes.NewReader(doc))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/xml")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var res struct{ Warnings []string }
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return 0, fmt.Errorf("PUT %s: %d: %s", path, resp.StatusCode, strings.TrimSpace(b.String()))
	}
	if err := json.Unmarshal(b.Bytes(), &res); err != nil {
		return 0, fmt.Errorf("PUT %s: %v", path, err)
	}
	return len(res.Warnings), nil
}

// publicXMLShape reads a served public XML's outline: its root element's
// name and attributes (namespace declarations aside) and the names of the
// root's children, in order.
func publicXMLShape(data []byte) (root string, attrs map[string]string, children []string, err error) {
	start, kids, err := testkit.XMLOutline(data)
	attrs = map[string]string{}
	for _, a := range start.Attr {
		if a.Name.Space != "xmlns" && a.Name.Local != "xmlns" {
			attrs[a.Name.Local] = a.Value
		}
	}
	for _, k := range kids {
		children = append(children, k.Local)
	}
	return start.Name.Local, attrs, children, err
}

// seedShape checks a served record: root publicObject with objectId and
// published only, the seed's six children first and in order.
func seedShape(data []byte, id string) error {
	root, attrs, kids, err := publicXMLShape(data)
	if err != nil {
		return err
	}
	if root != "publicObject" || attrs["objectId"] != "druid:"+id || len(attrs) != 2 {
		return fmt.Errorf("root %s %v", root, attrs)
	}
	if _, err := time.Parse(time.RFC3339, attrs["published"]); err != nil {
		return fmt.Errorf("published %q", attrs["published"])
	}
	if len(kids) < len(seedChildren) || !slices.Equal(kids[:len(seedChildren)], seedChildren) {
		return fmt.Errorf("children %v, want %v first", kids, seedChildren)
	}
	return nil
}

// seedChildren are the children of the seed's public XML, in order.
var seedChildren = []string{"identityMetadata", "versionMetadata", "RDF", "contentMetadata", "rightsMetadata", "dc"}

// declared is a file a raw record names.
type declared struct {
	name, mimetype string
	width, height  int
}

// declaredFiles reads the files contentMetadata names from a raw record,
// whatever else the record holds (the stand-ins are made before the
// service reads it).
func declaredFiles(raw []byte) []declared {
	var out []declared
	dec := xml.NewDecoder(bytes.NewReader(raw))
	var cur *declared
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch e := tok.(type) {
		case xml.StartElement:
			switch strings.ToLower(e.Name.Local) {
			case "file":
				d := declared{}
				for _, a := range e.Attr {
					switch strings.ToLower(a.Name.Local) {
					case "id":
						d.name = a.Value
					case "mimetype":
						d.mimetype = a.Value
					}
				}
				if d.name != "" {
					out = append(out, d)
					cur = &out[len(out)-1]
				}
			case "imagedata":
				if cur != nil {
					for _, a := range e.Attr {
						v, _ := strconv.Atoi(a.Value)
						switch strings.ToLower(a.Name.Local) {
						case "width":
							cur.width = v
						case "height":
							cur.height = v
						}
					}
				}
			}
		case xml.EndElement:
			if strings.EqualFold(e.Name.Local, "file") {
				cur = nil
			}
		}
	}
	return out
}

// standIn is a small file of the declared media type: a PNG or JPEG header
// with the declared pixel size (all the publisher reads of it), else the
// type's signature, then a line naming it.
func standIn(f declared) []byte {
	var b bytes.Buffer
	switch strings.ToLower(f.mimetype) {
	case "image/png":
		b.WriteString("\x89PNG\r\n\x1a\n")
		ihdr := make([]byte, 13)
		binary.BigEndian.PutUint32(ihdr[0:], uint32(max(f.width, 1)))
		binary.BigEndian.PutUint32(ihdr[4:], uint32(max(f.height, 1)))
		copy(ihdr[8:], []byte{8, 2, 0, 0, 0})
		binary.Write(&b, binary.BigEndian, uint32(len(ihdr)))
		b.WriteString("IHDR")
		b.Write(ihdr)
		b.Write([]byte{0, 0, 0, 0}) // the CRC is not checked by a size reader
	case "image/jpeg":
		b.Write([]byte{0xFF, 0xD8, 0xFF, 0xC0, 0, 17, 8})
		binary.Write(&b, binary.BigEndian, uint16(max(f.height, 1)))
		binary.Write(&b, binary.BigEndian, uint16(max(f.width, 1)))
		b.Write([]byte{3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1})
	case "image/jp2":
		b.Write([]byte{0, 0, 0, 0x0C, 'j', 'P', ' ', ' ', 0x0D, 0x0A, 0x87, 0x0A})
	case "application/pdf":
		b.WriteString("%PDF-1.4\n")
	}
	fmt.Fprintf(&b, "\nstand-in for %s (%s)\n", f.name, f.mimetype)
	return b.Bytes()
}

// servedConstituentImages counts a virtual object's external images whose
// constituent the server publishes, listing the file as an image with a
// pixel size (its own or the virtual object's): each is a canvas of the
// virtual object's manifest (docs/purl.md, "Virtual objects").
func servedConstituentImages(srv *testkit.Server, rec *record.Record) int {
	n := 0
	for _, res := range rec.Resources {
		for _, ext := range res.External {
			body, err := corpusGet(srv, "/purl/"+ext.Object.String()+".xml", http.StatusOK)
			if err != nil {
				continue
			}
			crec, err := record.Parse(body)
			if err != nil {
				continue
			}
			f, ok := crec.File(ext.Name)
			if ok && strings.HasPrefix(strings.ToLower(f.MimeType), "image/") && (f.Width > 0 || ext.Width > 0) {
				n++
			}
		}
	}
	return n
}
