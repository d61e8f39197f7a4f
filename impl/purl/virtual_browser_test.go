package purl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestConstituentsAndUnsizedImagesInMirador: in Chromium, the Embed
// viewer (the page's viewer) of a virtual object draws its constituent's
// image from the constituent's image service, and that of an object whose
// JPEG 2000 has no imageData draws it from its own.
func TestConstituentsAndUnsizedImagesInMirador(t *testing.T) {
	t.Parallel()
	requireVips(t)
	srv, ctx := chromiumSite(t, 4*time.Minute)
	srv.RequireViewer(t)
	const constituent, virtual, unsized = "bz611cd6111", "bz622cd6222", "bz633cd6333"
	dir := t.TempDir()
	images := []unsizedImage{{name: "sheet.png", mimetype: "image/png", data: encodedPNG(t, 800, 600), width: 800, height: 600}}
	unsizedObject(t, filepath.Join(dir, "c"), constituent, images)
	pub := filepath.Join(dir, "c", constituent, "public.xml")
	raw, err := os.ReadFile(pub)
	if err != nil {
		t.Fatal(err)
	}
	sized := strings.Replace(string(raw), fmt.Sprintf(`size="%d"/>`, len(images[0].data)), fmt.Sprintf(`size="%d"><imageData width="800" height="600"/></file>`, len(images[0].data)), 1)
	if sized == string(raw) {
		t.Fatal("the constituent's file entry changed; update the test")
	}
	raw = []byte(sized)
	if err := os.WriteFile(pub, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	vdir := filepath.Join(dir, "v", virtual)
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vdir, "public.xml"), virtualRecord(t, virtual, []externalImage{{object: constituent, file: "sheet.png", mimetype: "image/png", label: "The sheet", width: 800, height: 600}}), 0o644); err != nil {
		t.Fatal(err)
	}
	jp2 := unsizedImage{name: "page.jp2", mimetype: "image/jp2", width: 700, height: 500}
	if !vipsReadsJP2(t) {
		jp2 = unsizedImage{name: "page.tif", mimetype: "image/tiff", width: 700, height: 500}
		t.Log("this libvips has no JPEG 2000 loader: the unsized image is a TIFF")
	}
	jp2.data = vipsConverted(t, 700, 500, filepath.Ext(jp2.name))
	unsizedObject(t, filepath.Join(dir, "u"), unsized, []unsizedImage{jp2})
	for _, d := range []string{filepath.Join(dir, "c", constituent), vdir, filepath.Join(dir, "u", unsized)} {
		if out, err := runPublish(t, srv.DataDir, d); err != nil {
			t.Fatalf("publish %s: %v\n%s", d, err, out)
		}
	}
	for _, tc := range []struct{ id, imageService string }{
		{virtual, "/purl/" + constituent + "/iiif/image/sheet.png/"},
		{unsized, "/purl/" + unsized + "/iiif/image/" + jp2.name + "/"},
	} {
		if err := chromedp.Run(ctx, chromedp.Navigate(srv.EmbedIframe(tc.id))); err != nil {
			t.Fatalf("navigate: %v", err)
		}
		// OpenSeadragon drew on its canvas, with an image of the service.
		draw := fmt.Sprintf(`(function(){var c=document.querySelector('#sitesvc-mirador .openseadragon-canvas canvas'); return !!c && c.width > 0 && performance.getEntriesByType('resource').some(function(e){return e.name.indexOf(%q) >= 0 && /default\.jpg$/.test(e.name);});})()`, tc.imageService)
		if err := testkit.WaitJS(ctx, draw, 90*time.Second); err != nil {
			var text string
			_ = chromedp.Run(ctx, chromedp.Evaluate(`document.body.innerText.slice(0, 500)`, &text))
			t.Errorf("%s: Mirador drew no image of %s: %v (document: %s)", tc.id, tc.imageService, err, text)
			continue
		}
		testkit.Screenshot(t, ctx, "mirador-"+tc.id)
	}
}
