package purl

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// activeFiles are published files of every kind a browser might run, each carrying a
// script that reports to the test's recorder when it runs: name, declared media type and
// body (%s is the script's text).
var activeFiles = []struct{ name, mimetype, body string }{
	{"page.html", "text/html", `<!doctype html><title>x</title><script>%s</script>`},
	{"upper.html", "TEXT/HTML; charset=utf-8", `<!doctype html><script>%s</script>`},
	{"page.xhtml", "application/xhtml+xml", `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body><script>%s</script></body></html>`},
	{"image.svg", "image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>%s</script></svg>`},
	{"style.xsl", "text/xsl", `<?xml version="1.0"?><xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><html xmlns="http://www.w3.org/1999/xhtml"><script>%s</script></html></xsl:stylesheet>`},
	{"data.xml", "application/xml", `<?xml version="1.0"?><root><script xmlns="http://www.w3.org/1999/xhtml">%s</script></root>`},
	{"feed.rss", "application/rss+xml", `<?xml version="1.0"?><rss><script xmlns="http://www.w3.org/1999/xhtml">%s</script></rss>`},
	{"made-up.bin", "application/x-made-up", `<!doctype html><script>%s</script>`},
	{"notes.txt", "text/plain", `<!doctype html><script>%s</script>`},
	{"table.csv", "text/csv", `<script>%s</script>,1`},
	{"fake.png", "image/png", `<!doctype html><script>%s</script>`},
	{"fake.pdf", "application/pdf", `<!doctype html><script>%s</script>`},
	{"code.js", "text/javascript", `%s`},
	{"message.eml", "message/rfc822", "Content-Type: text/html\r\n\r\n<script>%s</script>"},
}

// No published file of any type can run script on the service's origin: every file of an
// object holding HTML, XHTML, SVG, XSL, XML, RSS, JavaScript and HTML under harmless or
// invented types is opened in headless Chromium straight from its URL, and none of their
// scripts runs. The same script served by a plain server runs (the check can fail).
func TestNoPublishedFileRunsScript(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	ran := map[string]bool{}
	recorder := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hit" {
			mu.Lock()
			ran[r.URL.Query().Get("f")] = true
			mu.Unlock()
			return
		}
		// the control: the same kind of page from an origin that does nothing against it
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><script>%s</script>`, beacon("http://"+r.Host, "control"))
	}))
	defer recorder.Close()

	srv := testkit.StartServer(t)
	tree := t.TempDir()
	obj := copySample(t, "bj555rs5555", tree)
	var resources strings.Builder
	for i, f := range activeFiles {
		body := fmt.Sprintf(f.body, beacon(recorder.URL, f.name))
		if err := os.WriteFile(filepath.Join(obj, f.name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&resources, `<resource id="bj555rs5555_%d" sequence="%d" type="file"><label>%s</label><file id="%s" mimetype="%s" size="%d"></file></resource>`,
			i+3, i+3, f.name, f.name, f.mimetype, len(body))
	}
	pub, err := os.ReadFile(filepath.Join(obj, "public.xml"))
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Replace(string(pub), "  </contentMetadata>", resources.String()+"</contentMetadata>", 1)
	if err := os.WriteFile(filepath.Join(obj, "public.xml"), []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := runPublish(t, srv.DataDir, tree); err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	time.Sleep(1100 * time.Millisecond) // the server looks at the store again after 1 s

	ctx := testkit.Browser(t, 120*time.Second)
	visit := func(url string) {
		nav, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		// Attachments end the navigation with an error (a download): that is the point.
		_ = chromedp.Run(nav, chromedp.Navigate(url), chromedp.Sleep(300*time.Millisecond))
	}
	visit(recorder.URL + "/control")
	for _, f := range activeFiles {
		resp, _ := srv.Get(t, "/purl/bj555rs5555/file/"+f.name)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Security-Policy") != "sandbox" {
			t.Errorf("%s: %d, Content-Security-Policy %q", f.name, resp.StatusCode, resp.Header.Get("Content-Security-Policy"))
		}
		// only the allow-list is inline
		want := "attachment"
		if f.name == "notes.txt" || f.name == "table.csv" || f.name == "fake.png" || f.name == "fake.pdf" {
			want = "inline"
		}
		if d := resp.Header.Get("Content-Disposition"); !strings.HasPrefix(d, want+";") {
			t.Errorf("%s (%s): Content-Disposition %q, want %s", f.name, f.mimetype, d, want)
		}
		visit(srv.URL + "/purl/bj555rs5555/file/" + f.name)
	}
	time.Sleep(500 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if !ran["control"] {
		t.Fatal("the control page's script did not run: the check cannot see a script run")
	}
	for _, f := range activeFiles {
		if ran[f.name] {
			t.Errorf("%s (%s) ran script on the service's origin", f.name, f.mimetype)
		}
	}
}

// beacon is a script that tells the recorder it ran, with what it could reach of the
// origin (document.cookie throws in a sandboxed document).
func beacon(recorder, name string) string {
	return fmt.Sprintf(`new Image().src=%q+"/hit?f=%s&origin="+encodeURIComponent(location.origin);`, recorder, name)
}
