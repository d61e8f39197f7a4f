package purl

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/publish"
	"github.com/sitelib/sitesvc/impl/purl/store"
)

// TestRequestValidation: requests are checked against api/purl.yaml by the
// validator before a handler runs, and its refusals are rendered in the
// service's error form.
func TestRequestValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// A query parameter of the wrong type is the validator's 400, naming it.
	resp, body := f.get(t, "/bb000kk0000/file/reading-room-north.png?download=maybe")
	expect(t, resp, body, http.StatusBadRequest, typeText)
	if !strings.HasPrefix(string(body), `bad request: query parameter "download"`) {
		t.Errorf("400 body %q", body)
	}
	resp, body = f.get(t, "/bb000kk0000/file/reading-room-north.png?download=false")
	expect(t, resp, body, http.StatusOK, "image/png")
	if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "inline;") {
		t.Errorf("download=false: Content-Disposition %q", cd)
	}

	doc := f.sample(t, "bb000kk0000", "public.xml")
	// Security is checked before the body: no token and a JSON body is 401.
	resp, body = f.do(t, http.MethodPut, "/bb000kk0000.xml", doc, "Content-Type: application/json")
	expect(t, resp, body, http.StatusUnauthorized, typeText)
	// No body at all.
	resp, body = f.do(t, http.MethodPut, "/bb000kk0000.xml", []byte{}, xmlType, bearer("pub"))
	expect(t, resp, body, http.StatusBadRequest, typeText)
	if !strings.Contains(string(body), "no body") {
		t.Errorf("empty PUT: %q", body)
	}
	// text/xml is application/xml.
	resp, body = f.do(t, http.MethodPut, "/bb000kk0000.xml", doc, "Content-Type: text/xml; charset=utf-8", bearer("pub"))
	expect(t, resp, body, http.StatusOK, "application/json")
	if resp.Header.Get("Location") != base+"/bb000kk0000" {
		t.Errorf("PUT Location %q", resp.Header.Get("Location"))
	}
	// A body without a length that runs past the limit is refused while
	// it is read, before the validator or the handler hold all of it.
	req, _ := http.NewRequest(http.MethodPut, f.srv.URL+"/bb000kk0000.xml", io.MultiReader(bytes.NewReader(doc), strings.NewReader(strings.Repeat(" ", 9<<20))))
	req.ContentLength = -1
	req.Header.Set("Content-Type", "application/xml")
	req.Header.Set("Authorization", "Bearer pub")
	r413, err := f.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b413, _ := io.ReadAll(r413.Body)
	r413.Body.Close()
	if r413.StatusCode != http.StatusRequestEntityTooLarge || !strings.HasPrefix(string(b413), "too large:") {
		t.Errorf("chunked oversize PUT: %d %q", r413.StatusCode, b413)
	}

	// The contract documents: HEAD as GET without a body, other methods 405.
	head, hb := f.raw(t, http.MethodHead, "/openapi.yaml")
	if head.StatusCode != http.StatusOK || len(hb) != 0 || !strings.HasPrefix(head.Header.Get("Content-Type"), "application/yaml") {
		t.Errorf("HEAD /openapi.yaml: %d %q %d bytes", head.StatusCode, head.Header.Get("Content-Type"), len(hb))
	}
	post, pb := f.raw(t, http.MethodPost, "/openapi.json")
	if post.StatusCode != http.StatusMethodNotAllowed || post.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /openapi.json: %d Allow %q %s", post.StatusCode, post.Header.Get("Allow"), pb)
	}
	// A path the service does not have is a browser's HTML 404 too.
	resp, body = f.raw(t, http.MethodGet, "/", "Accept: text/html")
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != typeHTML || !strings.Contains(string(body), "is not a PURL") {
		t.Errorf("GET / from a browser: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

// TestEscapedFileNames: file names with characters that must be escaped
// in a URL reach the handler exactly once unescaped, whether or not the
// request path uses the default escaping (echo then has a RawPath).
func TestEscapedFileNames(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const name = "coast map 100%.png"
	dir := filepath.Join(t.TempDir(), "obj")
	src := filepath.Join(f.samples, "bf222jk2222")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	png, err := os.ReadFile(filepath.Join(src, "coast-map.png"))
	if err != nil {
		t.Fatal(err)
	}
	rec := strings.ReplaceAll(string(f.sample(t, "bf222jk2222", "public.xml")), "coast-map.png", name)
	rec = strings.ReplaceAll(rec, "bf222jk2222", "bw123xy4567")
	for file, data := range map[string][]byte{"public.xml": []byte(rec), name: png} {
		if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := publish.Tree(context.Background(), f.svc.store, dir); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		"/bw123xy4567/file/coast%20map%20100%25.png",
		"/bw123xy4567/file/coast%20map%20100%25%2Epng", // not the default escaping: RawPath is set
		"/druid%3Abw123xy4567/file/coast%20map%20100%25.png",
	} {
		resp, body := f.get(t, p)
		expect(t, resp, body, http.StatusOK, "image/png")
		if !bytes.Equal(body, png) {
			t.Errorf("%s: wrong bytes", p)
		}
	}
	resp, body := f.get(t, "/bw123xy4567/file/coast%20map%20100%2525.png")
	expect(t, resp, body, http.StatusNotFound, typeText)
}

// TestStoreChangesByAnotherProcess: a record written to the store behind
// the service's back (sitesvc purl publish against a running server) is
// served once the cached object is rechecked, and until then the cached
// one is; writes through the service are served at once either way.
func TestStoreChangesByAnotherProcess(t *testing.T) {
	t.Parallel()
	const id = "bb000kk0000"
	for _, c := range []struct {
		name    string
		recheck time.Duration
		seen    bool
	}{
		{"recheck every time", time.Nanosecond, true},
		{"recheck hourly", time.Hour, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, func(cfg *Config) { cfg.Recheck = c.recheck })
			orig := f.sample(t, id, "public.xml")
			resp, body := f.get(t, "/"+id+".xml")
			expect(t, resp, body, http.StatusOK, typeXML)
			outside := bytes.Replace(orig, []byte("<objectLabel>Two views"), []byte("<objectLabel>Outside views"), 1)
			if _, err := f.svc.store.Write(context.Background(), druid.Druid(id), store.PublicXML, bytes.NewReader(outside)); err != nil {
				t.Fatal(err)
			}
			_, body = f.get(t, "/"+id+".xml")
			if got := bytes.Equal(body, outside); got != c.seen {
				t.Errorf("write by another process served: %v, want %v", got, c.seen)
			}
			through := bytes.Replace(orig, []byte("<objectLabel>Two views"), []byte("<objectLabel>HTTP views"), 1)
			resp, body = f.do(t, http.MethodPut, "/"+id+".xml", through, xmlType, bearer("pub"))
			expect(t, resp, body, http.StatusOK, "application/json")
			_, body = f.get(t, "/"+id+".xml")
			if !bytes.Equal(body, through) {
				t.Error("write through the service not served at once")
			}
			// Withdrawn behind the service's back.
			if err := f.svc.store.Delete(context.Background(), druid.Druid(id)); err != nil {
				t.Fatal(err)
			}
			resp, _ = f.get(t, "/"+id+".xml")
			if gone := resp.StatusCode == http.StatusNotFound; gone != c.seen {
				t.Errorf("withdrawal by another process: status %d", resp.StatusCode)
			}
		})
	}
}

// pausingStore pauses the first load that opens a MODS record (after it
// has read the public XML) until the test releases it.
type pausingStore struct {
	store.Store
	armed   atomic.Bool
	paused  chan struct{}
	release chan struct{}
}

func (p *pausingStore) Open(ctx context.Context, id druid.Druid, name string) (store.Blob, error) {
	b, err := p.Store.Open(ctx, id, name)
	p.pause(name)
	return b, err
}

// OpenAt is how the service reads an object's records (all from one version).
func (p *pausingStore) OpenAt(ctx context.Context, id druid.Druid, version, name string) (store.Blob, error) {
	b, err := p.Store.OpenAt(ctx, id, version, name)
	p.pause(name)
	return b, err
}

func (p *pausingStore) pause(name string) {
	if name == store.ModsXML && p.armed.CompareAndSwap(true, false) {
		p.paused <- struct{}{}
		<-p.release
	}
}

// TestLoadRacingAWrite: a load that read the old record before a PUT
// finished must not cache it after the PUT dropped the object, or the
// old record would be served after the PUT answered.
func TestLoadRacingAWrite(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	const id = "bb000kk0000"
	ps := &pausingStore{Store: f.svc.store, paused: make(chan struct{}), release: make(chan struct{})}
	f.svc.store = ps
	ps.armed.Store(true)
	done := make(chan []byte)
	go func() {
		resp, err := http.Get(f.srv.URL + "/" + id + ".xml")
		if err != nil {
			done <- nil
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- b
	}()
	<-ps.paused
	newer := bytes.Replace(f.sample(t, id, "public.xml"), []byte("<objectLabel>Two views"), []byte("<objectLabel>Newer views"), 1)
	resp, body := f.do(t, http.MethodPut, "/"+id+".xml", newer, xmlType, bearer("pub"))
	expect(t, resp, body, http.StatusOK, "application/json")
	close(ps.release)
	if racing := <-done; racing == nil {
		t.Fatal("the racing GET failed")
	}
	if _, got := f.get(t, "/"+id+".xml"); !bytes.Equal(got, newer) {
		t.Error("after the PUT answered, the record a racing load read is served")
	}
}

// TestActiveContentIsDownloaded: a published file a browser would run as a
// page of the PURL origin (HTML, SVG, XML) is served as an attachment, and
// no file is type-sniffed.
func TestActiveContentIsDownloaded(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	dir := filepath.Join(t.TempDir(), "obj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"notes.html": "<script>alert(document.cookie)</script>",
		"figure.svg": `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
		"data.csv":   "a,b\n1,2\n",
	}
	types := map[string]string{"notes.html": "text/html", "figure.svg": "image/svg+xml", "data.csv": "text/csv"}
	var content strings.Builder
	content.WriteString(`<contentMetadata objectId="druid:bz321xy4321" type="file">`)
	i := 0
	for _, name := range []string{"notes.html", "figure.svg", "data.csv"} {
		i++
		if err := os.WriteFile(filepath.Join(dir, name), []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		content.WriteString(fmt.Sprintf(`<resource id="r%d" sequence="%d" type="file"><file id="%s" mimetype="%s" size="%d"/></resource>`, i, i, name, types[name], len(files[name])))
	}
	content.WriteString(`</contentMetadata>`)
	rec := strings.Replace(citationRecord("bz321xy4321"), `<contentMetadata objectId="druid:bz321xy4321" type="file"/>`, content.String(), 1)
	rec = strings.Replace(rec, "<none/></machine></access>\n    <use>", "<world/></machine></access>\n    <use>", 1)
	if err := os.WriteFile(filepath.Join(dir, "public.xml"), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := publish.Tree(context.Background(), f.svc.store, dir); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"notes.html": "attachment", "figure.svg": "attachment", "data.csv": "inline"} {
		resp, body := f.get(t, "/bz321xy4321/file/"+name)
		expect(t, resp, body, http.StatusOK, types[name])
		if cd := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, want+";") {
			t.Errorf("%s: Content-Disposition %q, want %s", name, cd, want)
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: sniffable", name)
		}
	}
	// The records are data too: nothing in them runs.
	for _, p := range []string{".xml", ".mods", "/iiif/manifest"} {
		resp, body := f.get(t, "/bb000kk0000"+p)
		expect(t, resp, body, http.StatusOK, "")
		if resp.Header.Get("Content-Security-Policy") != "default-src 'none'; sandbox" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: CSP %q", p, resp.Header.Get("Content-Security-Policy"))
		}
	}
}
