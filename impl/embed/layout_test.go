package embed_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	_ "image/jpeg" // the sample images' tiles
	"image/png"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// viewports of issue 13: a desktop window, an iframe in a course page and
// a phone.
var viewports = []struct {
	name          string
	width, height int64
	// minShare is the least part of the viewport the image must cover.
	minShare float64
}{
	{"1280x900", 1280, 900, 0.70},
	{"640x400", 640, 400, 0.70},
	{"390x844", 390, 844, 0.30},
	{"390x300", 390, 300, 0.70},
}

// imageArea is where the viewer draws the image (the OpenSeadragon
// canvas) and the object's source image, fetched from the PURL service.
type imageArea struct {
	X, Y, W, H float64
	Src        string
	SrcW, SrcH float64
}

// TestViewerShowsTheImage opens the iframe of every image, book and map
// sample at three viewport sizes and checks what a person sees once it has
// loaded: the image area covers most of the viewport and, in its middle,
// shows the colours of the source image there (the image is fitted, not
// zoomed into a corner).
func TestViewerShowsTheImage(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	srv := testkit.StartServer(t, "--viewer-dir", viewerDir(t))
	ctx := browserFor(t, 10*time.Minute)
	druids := []string{sampleImage, sampleBook, sampleMap}
	if largeSamples(t, srv) {
		druids = append(druids, sampleLarge)
	}
	for _, druid := range druids {
		for _, vp := range viewports {
			t.Run(druid+" "+vp.name, func(t *testing.T) {
				if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(vp.width, vp.height, 1, false)); err != nil {
					t.Fatal(err)
				}
				u := srv.URL + "/embed/iframe?url=" + url.QueryEscape(srv.URL+"/purl/"+druid)
				checkImageShown(ctx, t, srv, u, druid, druid+"-"+vp.name, float64(vp.width*vp.height), vp.minShare)
			})
		}
	}
	// The frame of issue 13 that had no image area at all: no title, 300 px.
	t.Run("hide_title maxheight=300", func(t *testing.T) {
		if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(640, 300, 1, false)); err != nil {
			t.Fatal(err)
		}
		u := srv.URL + "/embed/iframe?url=" + url.QueryEscape(srv.URL+"/purl/"+sampleMap) + "&hide_title=true&maxheight=300"
		checkImageShown(ctx, t, srv, u, sampleMap, "hide-title-300", 640*300, 0.9)
		if got := evalString(ctx, t, `String(document.querySelectorAll('.sitesvc-embed-title').length)`); got != "0" {
			t.Errorf("a title with hide_title=true")
		}
	})
	// A frame that is hidden when the viewer loads (display: none, zero
	// size) and shown later: the image is fitted once it is shown.
	t.Run("shown later", func(t *testing.T) {
		var scriptID page.ScriptIdentifier
		if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(640, 400, 1, false),
			chromedp.ActionFunc(func(ctx context.Context) error {
				var err error
				scriptID, err = page.AddScriptToEvaluateOnNewDocument(`(function(){
					var root = document.documentElement;
					root.style.display = 'none';
					setTimeout(function(){ root.style.display = ''; }, 2500);
				})()`).Do(ctx)
				return err
			})); err != nil {
			t.Fatal(err)
		}
		defer func() {
			_ = chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
				return page.RemoveScriptToEvaluateOnNewDocument(scriptID).Do(ctx)
			}))
		}()
		u := srv.URL + "/embed/iframe?url=" + url.QueryEscape(srv.URL+"/purl/"+sampleImage)
		checkImageShown(ctx, t, srv, u, sampleImage, "shown-later", 640*400, 0.7)
	})
	// The PURL page embeds the same viewer through oEmbed: fitted there too.
	for _, druid := range []string{sampleImage, sampleBook, sampleMap} {
		t.Run("purl page "+druid, func(t *testing.T) {
			if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(1280, 900, 1, false)); err != nil {
				t.Fatal(err)
			}
			// The share is of the frame's area, which the page sizes (500 px high).
			checkImageShownIn(ctx, t, srv, srv.URL+"/purl/"+druid, "#viewer iframe", druid, "purl-page-"+druid, 1280*900, 0.25)
		})
	}
	// Every control is a named button or link, reachable with the keyboard,
	// with a visible focus ring.
	t.Run("controls", func(t *testing.T) {
		if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(640, 400, 1, false),
			chromedp.Navigate(srv.URL+"/embed/iframe?url="+url.QueryEscape(srv.URL+"/purl/"+sampleBook))); err != nil {
			t.Fatal(err)
		}
		if err := waitDrawn(ctx, drawnJS, 40*time.Second); err != nil {
			t.Fatal(err)
		}
		names := evalString(ctx, t, `Array.from(document.querySelectorAll('.sitesvc-embed-controls > *')).map(function(b){return (b.tagName === 'BUTTON' || (b.tagName === 'A' && b.href) ? '' : 'NOT-A-CONTROL ') + (b.getAttribute('aria-label') || 'UNNAMED');}).join('|')`)
		for _, want := range []string{"Show page thumbnails", "Download page-001.png", "Share", "Rights and license"} {
			if !strings.Contains(names, want) {
				t.Errorf("controls %q lack %q", names, want)
			}
		}
		if strings.Contains(names, "UNNAMED") || strings.Contains(names, "NOT-A-CONTROL") {
			t.Errorf("controls %q", names)
		}
		// Tab from the title link reaches the first control, which shows a focus ring.
		evalString(ctx, t, `(function(){document.querySelector('.sitesvc-embed-title a').focus(); return 'ok';})()`)
		if err := chromedp.Run(ctx, chromedp.KeyEvent("\t")); err != nil {
			t.Fatal(err)
		}
		focus := evalString(ctx, t, `(function(){var a = document.activeElement; var cs = getComputedStyle(a); return (a.getAttribute('aria-label') || a.tagName) + ' ' + cs.outlineStyle + ' ' + cs.outlineWidth;})()`)
		if !strings.HasPrefix(focus, "Show page thumbnails solid 3px") {
			t.Errorf("after Tab the focus is %q, want the thumbnails button with a 3px outline", focus)
		}
		// The thumbnails strip opens and folds; the rights panel opens and Escape closes it.
		if err := chromedp.Run(ctx, chromedp.KeyEvent("\r"), chromedp.Sleep(500*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if got := evalString(ctx, t, `String(!!document.querySelector('.mirador-thumb-navigation') && document.querySelector('.mirador-thumb-navigation').offsetHeight > 0)`); got != "true" {
			t.Errorf("the thumbnail strip did not open")
		}
		if err := chromedp.Run(ctx, chromedp.Click(`button[aria-label="Rights and license"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		if got := evalString(ctx, t, `document.getElementById('sitesvc-info').hidden ? 'hidden' : document.getElementById('sitesvc-info').innerText`); !strings.Contains(got, "License") {
			t.Errorf("rights panel: %q", got)
		}
		if err := chromedp.Run(ctx, chromedp.KeyEvent(kb.Escape)); err != nil {
			t.Fatal(err)
		}
		if got := evalString(ctx, t, `String(document.getElementById('sitesvc-info').hidden) + ' ' + document.activeElement.getAttribute('aria-label')`); got != "true Rights and license" {
			t.Errorf("after Escape: %q", got)
		}
		if dir := os.Getenv("SITESVC_SCREENSHOTS"); dir != "" {
			var shot []byte
			if chromedp.Run(ctx, chromedp.CaptureScreenshot(&shot)) == nil {
				_ = os.WriteFile(filepath.Join(dir, "controls.png"), shot, 0o644)
			}
		}
	})
	// The other viewers fill the frame too.
	kinds := []struct{ druid, selector string }{
		{sampleMedia, ".sitesvc-media-cover"},
		{samplePDF, "iframe.sitesvc-pdf"},
	}
	if largeSamples(t, srv) {
		kinds = append(kinds, struct{ druid, selector string }{sampleVideo, "video"})
	}
	for _, k := range kinds {
		for _, vp := range viewports {
			t.Run(k.druid+" "+vp.name, func(t *testing.T) {
				if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(vp.width, vp.height, 1, false),
					chromedp.Navigate(srv.URL+"/embed/iframe?url="+url.QueryEscape(srv.URL+"/purl/"+k.druid))); err != nil {
					t.Fatal(err)
				}
				if err := waitDrawn(ctx, `(function(){var e = document.querySelector('`+k.selector+`'); return !!e && e.getBoundingClientRect().height > 0 && (!e.complete === false || e.tagName !== 'IMG') && (e.tagName !== 'VIDEO' || e.readyState >= 2);})()`, 20*time.Second); err != nil {
					t.Fatalf("%s never appeared: %v", k.selector, err)
				}
				var r struct{ W, H float64 }
				if err := chromedp.Run(ctx, chromedp.Evaluate(`(function(){var b = document.querySelector('`+k.selector+`').getBoundingClientRect(); return {W: b.width, H: b.height};})()`, &r)); err != nil {
					t.Fatal(err)
				}
				// A sound recording's cover shares the frame with the player and
				// its caption; a PDF or a video has it nearly all.
				min := 0.5
				if k.druid == sampleMedia {
					min = 0.3
				}
				if share := r.W * r.H / float64(vp.width*vp.height); share < min {
					t.Errorf("%s covers %.0f%% of the viewport, want at least %.0f%%", k.selector, 100*share, 100*min)
				}
				if dir := os.Getenv("SITESVC_SCREENSHOTS"); dir != "" {
					var shot []byte
					if chromedp.Run(ctx, chromedp.CaptureScreenshot(&shot)) == nil {
						_ = os.WriteFile(filepath.Join(dir, k.druid+"-"+vp.name+".png"), shot, 0o644)
					}
				}
			})
		}
	}
}

// sampleLarge is the large sample (make samples-large): a 24-megapixel
// JPEG whose quadrants are red, green, blue and yellow, and a JPEG 2000.
const sampleLarge = "bs100xy1000"

// sampleVideo is the large samples' video clip.
const sampleVideo = "bt200vw2000"

// largeSamples reports whether the server has the large samples; they are
// required when SITESVC_REQUIRE_TOOLS is set (make test builds them).
func largeSamples(t *testing.T, srv *testkit.Server) bool {
	t.Helper()
	resp, _ := srv.Get(t, "/purl/"+sampleLarge+".xml")
	if resp.StatusCode == http.StatusOK {
		return true
	}
	if os.Getenv("SITESVC_REQUIRE_TOOLS") != "" {
		t.Fatalf("the large samples are missing (make samples-large): %d", resp.StatusCode)
	}
	t.Logf("the large samples are missing (make samples-large); not testing them")
	return false
}

// imageRequests lists the IIIF image requests the page made: scale
// factor (region width ÷ size width), bytes transferred, finished.
const imageRequestsJS = `performance.getEntriesByType('resource').filter(function (e) {
	return /\/iiif\/image\/[^/]+\/[^/]+\/[^/]+\/0\/default\.jpg$/.test(e.name);
}).map(function (e) {
	var p = e.name.split('/');
	var region = decodeURIComponent(p[p.length - 4]).split(','), size = decodeURIComponent(p[p.length - 3]).split(',');
	var sf = region.length === 4 && size[0] ? Math.round(region[2] / size[0]) : 0;
	return {URL: e.name, Scale: sf, Bytes: e.transferSize || e.encodedBodySize || 0, Done: e.responseEnd > 0};
})`

type imageRequest struct {
	URL   string
	Scale int
	Bytes float64
	Done  bool
}

// TestDeepZoom opens the 24-megapixel sample, checks that its first view
// transfers less than 2 MB of images, zooms in twice with the viewer's
// own button and checks that tiles of a finer scale were requested and
// drawn (the middle of the view shows the quadrant there).
func TestDeepZoom(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	srv := testkit.StartServer(t, "--viewer-dir", viewerDir(t))
	if !largeSamples(t, srv) {
		t.Skip("no large samples")
	}
	ctx := browserFor(t, 3*time.Minute)
	if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(1280, 900, 1, false),
		chromedp.Navigate(srv.URL+"/embed/iframe?url="+url.QueryEscape(srv.URL+"/purl/"+sampleLarge))); err != nil {
		t.Fatal(err)
	}
	if err := waitDrawn(ctx, drawnJS, 60*time.Second); err != nil {
		t.Fatalf("the image was never drawn: %v", err)
	}
	var first []imageRequest
	if err := chromedp.Run(ctx, chromedp.Evaluate(imageRequestsJS, &first)); err != nil {
		t.Fatal(err)
	}
	total, finest := 0.0, 1<<30
	for _, r := range first {
		total += r.Bytes
		if r.Scale > 0 {
			finest = min(finest, r.Scale)
		}
	}
	t.Logf("first view: %d image requests, %.0f kB, finest scale factor %d", len(first), total/1000, finest)
	if len(first) == 0 || total >= 2e6 {
		t.Errorf("first view of the 24 MP image transferred %.0f bytes in %d image requests, want < 2 MB", total, len(first))
	}
	if finest <= 1 {
		t.Errorf("the first view already loaded full-resolution tiles")
	}
	for i := 0; i < 2; i++ {
		if err := chromedp.Run(ctx, chromedp.Click(`button[aria-label="Zoom in"]`, chromedp.ByQuery), chromedp.Sleep(1500*time.Millisecond)); err != nil {
			t.Fatalf("zoom in: %v", err)
		}
	}
	if err := waitDrawn(ctx, drawnJS, 30*time.Second); err != nil {
		t.Fatalf("the zoomed view was never drawn: %v", err)
	}
	var after []imageRequest
	if err := chromedp.Run(ctx, chromedp.Evaluate(imageRequestsJS, &after)); err != nil {
		t.Fatal(err)
	}
	finer := 0
	for _, r := range after[len(first):] {
		if r.Scale > 0 && r.Scale < finest && r.Done {
			finer++
		}
	}
	if finer == 0 {
		t.Fatalf("zooming in twice fetched no tiles finer than scale factor %d: %+v", finest, after[len(first):])
	}
	var area imageArea
	var shot []byte
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(function(){var r = document.querySelector('.openseadragon-canvas').getBoundingClientRect(); return {X: r.left, Y: r.top, W: r.width, H: r.height};})()`, &area),
		chromedp.CaptureScreenshot(&shot)); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("SITESVC_SCREENSHOTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, "deep-zoom.png"), shot, 0o644)
	}
	screen, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	// Zoomed into the middle: right of and below the centre is the yellow
	// quadrant, left of and above it the red one (thin grid lines aside).
	cx, cy := area.X+area.W/2, area.Y+area.H/2
	if got := mean(screen, cx+40, cy+40, 12); !close(got, color.RGBA{220, 200, 30, 255}, 60) {
		t.Errorf("below right of the centre the zoomed view shows %v, want yellow", got)
	}
	if got := mean(screen, cx-40, cy-40, 12); !close(got, color.RGBA{200, 30, 30, 255}, 60) {
		t.Errorf("above left of the centre the zoomed view shows %v, want red", got)
	}
	t.Logf("zoomed: %d tiles of a finer scale than %d", finer, finest)
}

// waitDrawn is waitJS that survives the page's execution context being
// replaced while it polls (a navigation still settling, a frame reloading),
// which chromedp reports as an error rather than as false.
func waitDrawn(ctx context.Context, expr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := testkit.WaitJS(ctx, expr, time.Until(deadline))
		if err == nil || time.Now().After(deadline) || ctx.Err() != nil ||
			!(strings.Contains(err.Error(), "Cannot find context") || strings.Contains(err.Error(), "context was destroyed")) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// drawnJS is true once OpenSeadragon has drawn something in the middle of
// its canvas and no image request has started for a second (the opening
// zoom animation is over and the tiles of the fitted view are in).
var drawnJS = drawnIn("window")

// drawnIn is drawnJS for the viewer in the window win (a JS expression:
// "window", or a same-origin iframe's contentWindow).
func drawnIn(win string) string {
	return `(function(w){
	if (!w || !w.document) { return false; }
	var c = w.document.querySelector('.openseadragon-canvas canvas');
	if (!c || !c.width || !c.height) { return false; }
	var px = c.getContext('2d').getImageData(c.width >> 1, c.height >> 1, 1, 1).data;
	if (px[3] === 0) { return false; }
	var last = 0;
	w.performance.getEntriesByType('resource').forEach(function (e) {
		if (/\/iiif\/image\/|\/file\//.test(e.name)) { last = Math.max(last, e.responseEnd); }
	});
	return w.performance.now() - last > 1000;
})(` + win + `)`
}

func checkImageShown(ctx context.Context, t *testing.T, srv *testkit.Server, pageURL, druid, name string, viewport, minShare float64) {
	t.Helper()
	checkImageShownIn(ctx, t, srv, pageURL, "", druid, name, viewport, minShare)
}

// checkImageShownIn is checkImageShown for a viewer in the page's iframe
// frame (a CSS selector; "" for the page itself). The image area is
// measured in the page's coordinates, the share against viewport.
func checkImageShownIn(ctx context.Context, t *testing.T, srv *testkit.Server, pageURL, frame, druid, name string, viewport, minShare float64) {
	t.Helper()
	win, offset := "window", "{left: 0, top: 0}"
	if frame != "" {
		win = "(document.querySelector('" + frame + "') || {}).contentWindow"
		offset = "document.querySelector('" + frame + "').getBoundingClientRect()"
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(pageURL)); err != nil {
		t.Fatalf("navigate: %v", err)
	}
	if frame != "" {
		if err := chromedp.Run(ctx, chromedp.Evaluate("(function(){var f = document.querySelector('"+frame+"'); if (f) { f.scrollIntoView(); } return true;})()", nil)); err != nil {
			t.Fatal(err)
		}
	}
	if err := waitDrawn(ctx, drawnIn(win), 40*time.Second); err != nil {
		var dbg string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`(function(){try{var c = document.querySelector('.openseadragon-canvas canvas'); if(!c) return 'no canvas'; var px = c.getContext('2d').getImageData(c.width >> 1, c.height >> 1, 1, 1).data; return c.width+'x'+c.height+' '+Array.from(px).join(',')}catch(e){return String(e)}})()`, &dbg))
		t.Logf("debug: %s", dbg)
		var shot []byte
		if chromedp.Run(ctx, chromedp.CaptureScreenshot(&shot)) == nil && os.Getenv("SITESVC_SCREENSHOTS") != "" {
			_ = os.WriteFile(filepath.Join(os.Getenv("SITESVC_SCREENSHOTS"), name+"-failed.png"), shot, 0o644)
		}
		t.Fatalf("the image was never drawn: %v (document: %s)", err, evalString(ctx, t, `document.body.innerText.slice(0, 300)`))
	}
	var area imageArea
	if frame != "" {
		// The frame may have been scrolled into view after it was drawn.
		if err := chromedp.Run(ctx, chromedp.Evaluate("(function(){document.querySelector('"+frame+"').scrollIntoView(); return true;})()", nil), chromedp.Sleep(300*time.Millisecond)); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(function(){
		var o = `+offset+`;
		var r = `+win+`.document.querySelector('.openseadragon-canvas').getBoundingClientRect();
		return {X: o.left + r.left, Y: o.top + r.top, W: r.width, H: r.height};
	})()`, &area)); err != nil {
		t.Fatal(err)
	}
	area.Src, area.SrcW, area.SrcH = firstImage(t, srv, druid)
	var shot []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&shot)); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("SITESVC_SCREENSHOTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, name+".png"), shot, 0o644)
	}
	if share := area.W * area.H / viewport; share < minShare {
		t.Errorf("the image area is %.0f%% of the viewport (%+v), want at least %.0f%%", 100*share, area, 100*minShare)
	}
	if area.Src == "" || area.SrcW == 0 {
		t.Fatalf("the viewer does not say which image it shows: %+v", area)
	}
	screen, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	src := fetchImage(t, area.Src)
	// Fitted: the whole image is visible and centred in the image area.
	scale := min(area.W/area.SrcW, area.H/area.SrcH)
	sw, sh := float64(src.Bounds().Dx())/area.SrcW, float64(src.Bounds().Dy())/area.SrcH
	cx, cy := area.X+area.W/2, area.Y+area.H/2
	// Points around the middle; the lower part of the image area carries
	// Mirador's translucent canvas controls, so no point is taken there.
	for _, d := range [][2]float64{{0, 0}, {-0.25, -0.25}, {0.25, -0.25}, {-0.3, 0.1}, {0.3, 0.1}, {0, -0.35}, {0.4, 0}} {
		// A point of the image (fractions of its size from its centre) and
		// where a fitted image puts it on the screen.
		ix, iy := (0.5+d[0])*area.SrcW, (0.5+d[1])*area.SrcH
		px, py := cx+d[0]*area.SrcW*scale, cy+d[1]*area.SrcH*scale
		radius := max(2, 3*scale)
		got := mean(screen, px, py, 3)
		want := mean(src, ix*sw, iy*sh, 3/scale*sw)
		if !close(got, want, 48) {
			t.Errorf("at %.0f%%,%.0f%% of the image (screen %.0f,%.0f) the viewer shows %v, the image has %v (radius %.1f)", 100*(0.5+d[0]), 100*(0.5+d[1]), px, py, got, want, radius)
		}
	}
}

// firstImage is the file URL and size of the first canvas's image, which
// the viewer opens on.
func firstImage(t *testing.T, srv *testkit.Server, druid string) (string, float64, float64) {
	t.Helper()
	_, body := srv.Get(t, "/purl/"+druid+"/iiif/manifest")
	var m struct {
		Items []struct {
			Items []struct {
				Items []struct {
					Body struct {
						ID            string
						Width, Height float64
					}
				}
			}
		}
	}
	if err := json.Unmarshal(body, &m); err != nil || len(m.Items) == 0 {
		t.Fatalf("manifest of %s: %v", druid, err)
	}
	b := m.Items[0].Items[0].Items[0].Body
	return b.ID, b.Width, b.Height
}

func fetchImage(t *testing.T, u string) image.Image {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	img, _, err := image.Decode(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	return img
}

// mean is the average colour of the square of half-side r around x,y.
func mean(img image.Image, x, y, r float64) color.RGBA {
	var sr, sg, sb, n float64
	b := img.Bounds()
	for yy := int(y - r); yy <= int(y+r); yy++ {
		for xx := int(x - r); xx <= int(x+r); xx++ {
			if !image.Pt(xx, yy).In(b) {
				continue
			}
			cr, cg, cb, _ := img.At(xx, yy).RGBA()
			sr, sg, sb, n = sr+float64(cr>>8), sg+float64(cg>>8), sb+float64(cb>>8), n+1
		}
	}
	if n == 0 {
		return color.RGBA{}
	}
	return color.RGBA{uint8(sr / n), uint8(sg / n), uint8(sb / n), 255}
}

func close(a, b color.RGBA, tol int) bool {
	d := func(x, y uint8) bool { return int(x)-int(y) <= tol && int(y)-int(x) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B)
}
