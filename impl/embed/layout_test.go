package embed_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/jpeg" // the sample images' tiles
	"image/png"
	"net/http"
	"os"
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
	{"300x200", 300, 200, 0.70},
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
	t.Parallel()
	srv := viewerServer(t)
	// The groups below run in parallel, each with a browser of its own
	// (a tab's viewport is set per page), against the one server.
	druids := []string{sampleImage, sampleBook, sampleMap}
	if largeSamples(t, srv) {
		druids = append(druids, sampleLarge)
	}
	for _, druid := range druids {
		t.Run(druid, func(t *testing.T) {
			t.Parallel()
			ctx := browserFor(t, 5*time.Minute)
			for _, vp := range viewports {
				t.Run(vp.name, func(t *testing.T) {
					if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(vp.width, vp.height, 1, false)); err != nil {
						t.Fatal(err)
					}
					u := srv.EmbedIframe(druid)
					checkImageShown(ctx, t, srv, u, druid, druid+"-"+vp.name, float64(vp.width*vp.height), vp.minShare)
				})
			}
		})
	}
	t.Run("frames", func(t *testing.T) {
		t.Parallel()
		viewerFrames(browserFor(t, 5*time.Minute), t, srv)
	})
	t.Run("controls", func(t *testing.T) {
		t.Parallel()
		viewerControls(browserFor(t, 5*time.Minute), t, srv)
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
		t.Run(k.druid, func(t *testing.T) {
			t.Parallel()
			ctx := browserFor(t, 5*time.Minute)
			for _, vp := range viewports {
				t.Run(vp.name, func(t *testing.T) {
					checkViewerFills(ctx, t, srv, k.druid, k.selector, vp.width, vp.height, vp.name)
				})
			}
		})
	}
}

// viewerFrames checks the image is fitted in frames other than a plain
// iframe: without a title, shown after loading hidden, in the PURL page.
func viewerFrames(ctx context.Context, t *testing.T, srv *testkit.Server) {
	// The frame of issue 13 that had no image area at all: no title, 300 px.
	t.Run("hide_title maxheight=300", func(t *testing.T) {
		if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(640, 300, 1, false)); err != nil {
			t.Fatal(err)
		}
		u := srv.EmbedIframe(sampleMap) + "&hide_title=true&maxheight=300"
		// The image area is the frame but the canvas controls' strip.
		checkImageShown(ctx, t, srv, u, sampleMap, "hide-title-300", 640*300, 0.8)
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
		u := srv.EmbedIframe(sampleImage)
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
}

// openViewer shows druid's iframe document in a width×height viewport and
// waits until the viewer has drawn its image.
func openViewer(ctx context.Context, t *testing.T, srv *testkit.Server, druid string, width, height int64) {
	t.Helper()
	if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(width, height, 1, false),
		chromedp.Navigate(srv.EmbedIframe(druid))); err != nil {
		t.Fatal(err)
	}
	if err := testkit.WaitJS(ctx, drawnJS, drawLimit); err != nil {
		t.Fatalf("the image was never drawn: %v", err)
	}
}

// viewerControls checks the viewer's own controls: focus rings, the
// download panel, the thumbnail strip's labels, keyboard use.
func viewerControls(ctx context.Context, t *testing.T, srv *testkit.Server) {
	// The focus ring of every control of the bar, and of the title link,
	// is drawn whole: a ring-coloured pixel in the middle of each of its
	// four sides on the screen (the bar touches the frame's edge, and the
	// title clips its overflow).
	t.Run("focus rings", func(t *testing.T) {
		openViewer(ctx, t, srv, sampleBook, 640, 400)
		evalString(ctx, t, `(function(){if (document.activeElement) { document.activeElement.blur(); } return 'ok';})()`)
		ring := color.RGBA{0x1a, 0x4f, 0x8b, 255}
		n := int(evalString(ctx, t, `String(document.querySelectorAll('.sitesvc-embed-controls > *').length)`)[0] - '0')
		for i := 0; i <= n; i++ {
			// Reached with the keyboard, as a keyboard user does: the title
			// link first, then each control.
			if err := chromedp.Run(ctx, chromedp.KeyEvent("\t")); err != nil {
				t.Fatal(err)
			}
			var r struct {
				Name                     string
				Left, Top, Right, Bottom float64
			}
			var shot []byte
			if err := chromedp.Run(ctx, chromedp.Evaluate(`(function(){var a = document.activeElement, b = a.getBoundingClientRect(); return {Name: a.getAttribute('aria-label') || a.textContent, Left: b.left, Top: b.top, Right: b.right, Bottom: b.bottom};})()`, &r),
				chromedp.CaptureScreenshot(&shot)); err != nil {
				t.Fatal(err)
			}
			screen, err := png.Decode(bytes.NewReader(shot))
			if err != nil {
				t.Fatal(err)
			}
			if i == 2 {
				testkit.KeepScreenshot(t, "focus-ring", shot)
			}
			cx, cy := (r.Left+r.Right)/2, (r.Top+r.Bottom)/2
			for side, p := range map[string][2]float64{"left": {r.Left + 1.5, cy}, "right": {r.Right - 1.5, cy}, "top": {cx, r.Top + 1.5}, "bottom": {cx, r.Bottom - 1.5}} {
				if got := mean(screen, p[0], p[1], 0); !close(got, ring, 40) {
					t.Errorf("focus on %q: the ring's %s side at %.0f,%.0f shows %v, not the ring colour", r.Name, side, p[0], p[1], got)
				}
			}
		}
	})
	// The download panel offers the image shown by size (JPEGs of the
	// image service) and as its original, and the whole object as a zip.
	t.Run("download panel", func(t *testing.T) {
		openViewer(ctx, t, srv, sampleImage, 640, 400)
		// The image area's end follows the canvas controls' measured height.
		if got := evalString(ctx, t, `(function(){var m = document.getElementById('sitesvc-mirador'), n = m.querySelector('.mirador-canvas-nav'); return m.style.getPropertyValue('--sitesvc-nav') + ' ' + n.offsetHeight + 'px';})()`); len(strings.Fields(got)) != 2 || strings.Fields(got)[0] != strings.Fields(got)[1] {
			t.Errorf("--sitesvc-nav and the controls' height: %q", got)
		}
		if err := chromedp.Run(ctx, chromedp.Click(`button[aria-label="Download"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		var links []struct{ Text, Href, Line string }
		if err := chromedp.Run(ctx, chromedp.Evaluate(`Array.from(document.querySelectorAll('#sitesvc-download a')).map(function(a){return {Text: a.textContent, Href: a.href, Line: a.parentElement.textContent};})`, &links)); err != nil {
			t.Fatal(err)
		}
		testkit.Screenshot(t, ctx, "download-panel")
		got := map[string]string{}
		for _, l := range links {
			got[l.Text] = l.Line
			resp, body := testkit.Get(t, l.Href)
			ct := resp.Header.Get("Content-Type")
			var cfg image.Config
			var err error
			if strings.HasPrefix(ct, "image/") {
				cfg, _, err = image.DecodeConfig(bytes.NewReader(body))
			}
			switch {
			case resp.StatusCode != http.StatusOK:
				t.Errorf("%s (%s) answers %d", l.Text, l.Href, resp.StatusCode)
			case l.Text == "Small" && (ct != "image/jpeg" || err != nil || cfg.Width != 512 || cfg.Height != 384):
				t.Errorf("Small is %s %dx%d (%v), want a 512x384 JPEG", ct, cfg.Width, cfg.Height, err)
			case l.Text == "Original" && ct != "image/png":
				t.Errorf("Original is %s", ct)
			case strings.Contains(l.Text, "zip") && ct != "application/zip":
				t.Errorf("zip is %s", ct)
			}
		}
		if !strings.Contains(got["Small"], "JPEG, 512 × 384 px") || !strings.Contains(got["Original"], "PNG, 640 × 480 px, 2.1 kB") {
			t.Errorf("download panel %+v", links)
		}
		if _, ok := got["All files of this item (zip)"]; !ok {
			t.Errorf("no zip in the download panel: %+v", links)
		}
	})
	// The thumbnail strip's labels are readable: each is the canvas's
	// whole label, every line of its text inside its thumbnail (no
	// "Pa…").
	t.Run("thumbnail labels", func(t *testing.T) {
		for _, c := range []struct {
			druid  string
			w, h   int64
			labels []string
		}{
			{sampleBook, 1280, 900, []string{"Page 1", "Page 2", "Page 3", "Page 4", "Page 5", "Page 6", "Page 7", "Page 8", "Page 9", "Page 10", "Page 11", "Page 12"}},
			{sampleImage, 390, 844, []string{"Facing north", "Facing south"}},
		} {
			openViewer(ctx, t, srv, c.druid, c.w, c.h)
			var labels []struct {
				Text     string
				Inside   bool
				Ellipsis bool
				Lines    int
			}
			if err := chromedp.Run(ctx, chromedp.Evaluate(`Array.from(document.querySelectorAll('.mirador-thumbnail-nav-canvas')).map(function (thumb) {
				var cap = thumb.querySelector('.MuiTypography-caption'), box = thumb.getBoundingClientRect();
				var range = document.createRange(); range.selectNodeContents(cap);
				var rects = Array.from(range.getClientRects());
				var inside = rects.every(function (r) { return r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5 && r.bottom <= box.bottom + 0.5; });
				var tops = {}; rects.forEach(function (r) { tops[Math.round(r.top)] = true; });
				var cs = getComputedStyle(cap);
				return {Text: cap.textContent, Inside: inside && cap.scrollWidth <= cap.clientWidth + 1, Ellipsis: cs.textOverflow === 'ellipsis' && cap.scrollWidth > cap.clientWidth, Lines: Object.keys(tops).length};
			})`, &labels)); err != nil {
				t.Fatal(err)
			}
			if len(labels) != len(c.labels) {
				t.Fatalf("%s: %d thumbnails in the strip, want %d", c.druid, len(labels), len(c.labels))
			}
			for i, l := range labels {
				// Whole, inside its thumbnail, and no word broken across lines.
				if l.Text != c.labels[i] || !l.Inside || l.Ellipsis || l.Lines > len(strings.Fields(l.Text)) {
					t.Errorf("%s thumbnail %d: label %+v, want %q wholly inside its thumbnail, one word a line at most", c.druid, i+1, l, c.labels[i])
				}
			}
		}
	})
	// The download panel follows the page Mirador shows.
	t.Run("download follows the page", func(t *testing.T) {
		openViewer(ctx, t, srv, sampleBook, 640, 400)
		if err := chromedp.Run(ctx, chromedp.Click(`button[aria-label="Next item"]`, chromedp.ByQuery), chromedp.Sleep(800*time.Millisecond),
			chromedp.Click(`button[aria-label="Download"]`, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		got := evalString(ctx, t, `(function(){var p = document.getElementById('sitesvc-download'); return p.hidden ? 'hidden' : p.innerText;})()`)
		if !strings.Contains(got, "page-002.png") || strings.Contains(got, "page-001.png") || !strings.Contains(got, "Original: PNG") {
			t.Errorf("after turning the page the download panel says %q, want page-002.png", got)
		}
	})
	// Every control is a named button or link, reachable with the keyboard,
	// with a visible focus ring.
	t.Run("controls", func(t *testing.T) {
		openViewer(ctx, t, srv, sampleBook, 640, 400)
		names := evalString(ctx, t, `Array.from(document.querySelectorAll('.sitesvc-embed-controls > *')).map(function(b){return (b.tagName === 'BUTTON' || (b.tagName === 'A' && b.href) ? '' : 'NOT-A-CONTROL ') + (b.getAttribute('aria-label') || 'UNNAMED');}).join('|')`)
		for _, want := range []string{"Show page thumbnails", "Download", "Share", "Rights and license"} {
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
		testkit.Screenshot(t, ctx, "controls")
	})
}

// checkViewerFills opens the iframe of druid, a sample shown by another
// viewer than Mirador (its element selector), at width × height: the
// element fills the frame, a sound recording's cover at its own size.
func checkViewerFills(ctx context.Context, t *testing.T, srv *testkit.Server, druid, selector string, width, height int64, vpName string) {
	t.Helper()
	if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(width, height, 1, false),
		chromedp.Navigate(srv.EmbedIframe(druid))); err != nil {
		t.Fatal(err)
	}
	if err := testkit.WaitJS(ctx, `(function(){var e = document.querySelector('`+selector+`'); return !!e && e.getBoundingClientRect().height > 0 && (!e.complete === false || e.tagName !== 'IMG') && (e.tagName !== 'VIDEO' || e.readyState >= 2);})()`, 20*time.Second); err != nil {
		t.Fatalf("%s never appeared: %v", selector, err)
	}
	var r struct{ W, H float64 }
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(function(){var b = document.querySelector('`+selector+`').getBoundingClientRect(); return {W: b.width, H: b.height};})()`, &r)); err != nil {
		t.Fatal(err)
	}
	if druid == sampleMedia {
		// A sound recording's cover is shown at most at its own
		// size (never upscaled), at it where the frame has room,
		// and the player and its caption stay in the frame.
		var m struct{ W, H, NW, NH, Room, PlayerBottom, CaptionBottom float64 }
		if err := chromedp.Run(ctx, chromedp.Evaluate(`(function(){
				var c = document.querySelector('.sitesvc-media-cover'), b = c.getBoundingClientRect();
				var a = document.querySelector('.sitesvc-media audio').getBoundingClientRect();
				var f = document.querySelector('.sitesvc-media figcaption').getBoundingClientRect();
				var v = document.querySelector('.sitesvc-viewer').getBoundingClientRect();
				return {W: b.width, H: b.height, NW: c.naturalWidth, NH: c.naturalHeight,
					Room: v.height - (a.height + f.height + 40), PlayerBottom: a.bottom, CaptionBottom: f.bottom};
			})()`, &m)); err != nil {
			t.Fatal(err)
		}
		if m.W > m.NW+0.5 || m.H > m.NH+0.5 {
			t.Errorf("the cover is upscaled: %.0f×%.0f, its own size %.0f×%.0f", m.W, m.H, m.NW, m.NH)
		}
		if m.Room >= m.NH && (m.W < m.NW-0.5 || m.H < m.NH-0.5) {
			t.Errorf("the cover is %.0f×%.0f with room for its own size %.0f×%.0f", m.W, m.H, m.NW, m.NH)
		}
		if m.H < min(m.NH, m.Room)*0.8 {
			t.Errorf("the cover is %.0f px high, with room for %.0f", m.H, min(m.NH, m.Room))
		}
		if m.PlayerBottom > float64(height) || m.CaptionBottom > float64(height)+1 {
			t.Errorf("the player (bottom %.0f) or its caption (bottom %.0f) leaves the %d px frame", m.PlayerBottom, m.CaptionBottom, height)
		}
	} else if share := r.W * r.H / float64(width*height); share < 0.5 {
		// A PDF or a video has the frame nearly all.
		t.Errorf("%s covers %.0f%% of the viewport, want at least 50%%", selector, 100*share)
	}
	testkit.Screenshot(t, ctx, druid+"-"+vpName)

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
	t.Parallel()
	srv := viewerServer(t)
	if !largeSamples(t, srv) {
		t.Skip("no large samples")
	}
	ctx := browserFor(t, 5*time.Minute)
	openViewer(ctx, t, srv, sampleLarge, 1280, 900)
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
	if err := testkit.WaitJS(ctx, drawnJS, drawLimit); err != nil {
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
	testkit.KeepScreenshot(t, "deep-zoom", shot)
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
	if err := testkit.WaitJS(ctx, drawnIn(win), drawLimit); err != nil {
		var dbg string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`(function(){try{var c = document.querySelector('.openseadragon-canvas canvas'); if(!c) return 'no canvas'; var px = c.getContext('2d').getImageData(c.width >> 1, c.height >> 1, 1, 1).data; return c.width+'x'+c.height+' '+Array.from(px).join(',')}catch(e){return String(e)}})()`, &dbg))
		t.Logf("debug: %s", dbg)
		testkit.Screenshot(t, ctx, name+"-failed")
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
	// Nothing covers the image at first paint: the fitted image's box
	// (centred in the image area) meets no visible control, bar, strip or
	// panel.
	var covered string
	if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(coveredJS, win, offset, area.SrcW, area.SrcH), &covered)); err != nil {
		t.Fatal(err)
	}
	if covered != "" {
		t.Errorf("at first paint the image is covered: %s", covered)
	}
	var shot []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&shot)); err != nil {
		t.Fatal(err)
	}
	testkit.KeepScreenshot(t, name, shot)
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
	// Points around the middle and near the bottom edge, where Mirador's
	// canvas controls used to cover the image.
	for _, d := range [][2]float64{{0, 0}, {-0.25, -0.25}, {0.25, -0.25}, {-0.3, 0.1}, {0.3, 0.1}, {0, -0.35}, {0.4, 0}, {0, 0.44}, {-0.38, 0.44}, {0.38, 0.44}} {
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

// coveredJS lists what covers the fitted image (window %s, frame offset
// %s, image size %f × %f): each visible control, bar, thumbnail strip or
// panel whose box overlaps the image's by more than a pixel each way.
const coveredJS = `(function(){
	var w = %s, o = %s, d = w.document;
	var c = d.querySelector('.openseadragon-canvas').getBoundingClientRect();
	var sw = %f, sh = %f, s = Math.min(c.width / sw, c.height / sh);
	var img = {l: c.left + (c.width - sw * s) / 2, t: c.top + (c.height - sh * s) / 2};
	img.r = img.l + sw * s; img.b = img.t + sh * s;
	var out = [];
	d.querySelectorAll('.mirador-canvas-nav, .sitesvc-embed-bar, .mirador-thumb-navigation, .sitesvc-panel, .sitesvc-control').forEach(function (e) {
		var r = e.getBoundingClientRect(), cs = w.getComputedStyle(e), op = 1;
		for (var p = e; p && p.nodeType === 1; p = p.parentElement) { op *= parseFloat(w.getComputedStyle(p).opacity); }
		if (!r.width || !r.height || cs.visibility === 'hidden' || cs.display === 'none' || op < 0.05) { return; }
		var ox = Math.min(r.right, img.r) - Math.max(r.left, img.l), oy = Math.min(r.bottom, img.b) - Math.max(r.top, img.t);
		if (ox > 1 && oy > 1) { out.push(String(e.className).split(' ').filter(function (n) { return /^(mirador|sitesvc)-/.test(n); }).join('.') + ' covers ' + Math.round(ox) + 'x' + Math.round(oy) + ' px of the image'); }
	});
	return out.join('; ');
})()`

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
	_, body := testkit.Get(t, u)
	img, _, err := image.Decode(bytes.NewReader(body))
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
