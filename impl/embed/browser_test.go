package embed_test

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// The sample objects (samples/purl) the browser tests look at.
const (
	sampleImage      = "bb000kk0000"
	sampleBook       = "bd111gh1111"
	sampleMap        = "bf222jk2222"
	sampleCollection = "bc000df0001"
	sampleMedia      = "bg333mn3333"
	samplePDF        = "bh444pq4444"
	sampleFiles      = "bj555rs5555"
	sampleCitation   = "bk666tv6666"
	sampleEmbargo    = "bm777wx7777"
	sampleGroup      = "bn888yz8888"
	sampleLocation   = "bq121cd1212"
)

// drawLimit bounds the wait for a viewer to draw what it shows (a
// canvas with its tiles, a pasted frame): generous, as it only decides
// how long a hang takes to fail, and a loaded machine draws slowly.
const drawLimit = 90 * time.Second

// browser starts headless Chromium (testkit.Browser) and returns a context
// driving one tab.
func browser(t *testing.T) context.Context {
	t.Helper()
	return browserFor(t, 5*time.Minute)
}

// browserFor is browser with a time limit of its own for the whole test.
// Media may play without a click (the viewer's audio and video checks).
func browserFor(t *testing.T, limit time.Duration) context.Context {
	t.Helper()
	return testkit.Browser(t, limit, chromedp.WindowSize(1024, 768),
		chromedp.Flag("autoplay-policy", "no-user-gesture-required"))
}

// viewerServer starts the binary serving the Mirador bundle for a browser
// test.
func viewerServer(t *testing.T) *testkit.Server {
	t.Helper()
	return testkit.StartServer(t, "--viewer-dir", viewerDir(t))
}

// viewerDir is the Mirador bundle the browser tests serve with
// --viewer-dir: the pinned npm package scripts/build-viewer.sh installs.
func viewerDir(t *testing.T) string {
	t.Helper()
	return filepath.Dir(testkit.Installed(t, "impl/embed/viewer/node_modules/mirador/dist/mirador.min.js", "scripts/build-viewer.sh"))
}

func evalString(ctx context.Context, t *testing.T, expr string) string {
	t.Helper()
	var s string
	if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &s)); err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return s
}

// TestViewerInBrowser opens the iframe document of every kind of sample
// object in headless Chromium and checks what a person would see.
func TestViewerInBrowser(t *testing.T) {
	t.Parallel()
	srv := viewerServer(t)
	open := func(ctx context.Context, t *testing.T, druid string) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Navigate(srv.EmbedIframe(druid))); err != nil {
			t.Fatalf("navigate: %v", err)
		}
		// The container starts hidden; the viewer script reveals it.
		if err := testkit.WaitJS(ctx, `(function(){var c=document.getElementById('sitesvc-embed'); return !!c && !c.hidden && c.offsetHeight > 0;})()`, 10*time.Second); err != nil {
			t.Fatalf("container never became visible: %v\n%s", err, srv.Logs())
		}
	}

	// Two browsers in parallel: Mirador's samples, and the other viewers.
	t.Run("mirador", func(t *testing.T) {
		t.Parallel()
		ctx := browser(t)
		for _, druid := range []string{sampleImage, sampleBook, sampleMap} {
			t.Run(druid, func(t *testing.T) {
				open(ctx, t, druid)
				// Mirador draws the image with OpenSeadragon on a canvas.
				if err := testkit.WaitJS(ctx, `(function(){var c=document.querySelector('#sitesvc-mirador .openseadragon-canvas canvas'); return !!c && c.width > 0 && c.height > 0;})()`, drawLimit); err != nil {
					t.Fatalf("no Mirador canvas: %v (document: %s)", err, evalString(ctx, t, `document.body.innerText.slice(0, 500)`))
				}
				// The image really arrived: OpenSeadragon drew at least one tile.
				if err := testkit.WaitJS(ctx, `(function(){var v=document.querySelector('#sitesvc-mirador .openseadragon-container'); return !!v && performance.getEntriesByType('resource').some(function(e){return /\/iiif\/image\/[^/]+\.png\/[^/]+\/[^/]+\/0\/default\.jpg$/.test(e.name);});})()`, drawLimit); err != nil {
					t.Errorf("no image of the IIIF image service was fetched: %v", err)
				}
				testkit.Screenshot(t, ctx, druid)
			})
		}

	})
	t.Run("others", func(t *testing.T) {
		t.Parallel()
		ctx := browser(t)
		t.Run("media", func(t *testing.T) {
			open(ctx, t, sampleMedia)
			if err := testkit.WaitJS(ctx, `(function(){var a=document.querySelector('.sitesvc-viewer audio, .sitesvc-viewer video'); return !!a && a.readyState >= 1 && a.duration > 0;})()`, 20*time.Second); err != nil {
				t.Fatalf("no playable audio/video element: %v", err)
			}
			testkit.Screenshot(t, ctx, sampleMedia)
			if got := evalString(ctx, t, `document.querySelector('.sitesvc-viewer audio source').getAttribute('src')`); !strings.HasSuffix(got, "/purl/"+sampleMedia+"/file/melody.wav") {
				t.Errorf("audio source %q", got)
			}
		})

		t.Run("pdf", func(t *testing.T) {
			open(ctx, t, samplePDF)
			src := evalString(ctx, t, `(document.querySelector('iframe.sitesvc-pdf')||{}).src || ''`)
			// Fitted to the frame's width, without the side panel.
			src, fragment, _ := strings.Cut(src, "#")
			if !strings.HasSuffix(src, "/purl/"+samplePDF+"/file/annual-report.pdf") || fragment != "view=FitH&pagemode=none&navpanes=0" {
				t.Fatalf("no PDF frame (src %q, fragment %q)", src, fragment)
			}
			resp, _ := testkit.Get(t, src)
			if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/pdf" {
				t.Errorf("PDF frame source answers %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		})

		t.Run("files", func(t *testing.T) {
			open(ctx, t, sampleFiles)
			links := evalString(ctx, t, `Array.from(document.querySelectorAll('.sitesvc-files li')).map(function(li){var a=li.querySelector('a'); return (a?a.href:'-')+' '+li.innerText.replace(/\s+/g,' ');}).join('\n')`)
			testkit.Screenshot(t, ctx, sampleFiles)
			lines := strings.Split(links, "\n")
			if len(lines) != 2 {
				t.Fatalf("file list:\n%s", links)
			}
			for _, l := range lines {
				href, text, _ := strings.Cut(l, " ")
				if !strings.Contains(href, "/purl/"+sampleFiles+"/file/") || !strings.ContainsAny(text, "0123456789") || !strings.Contains(text, "B") {
					t.Errorf("file entry %q: want a download link, name and size", l)
				}
				if resp, _ := testkit.Get(t, href); resp.StatusCode != 200 {
					t.Errorf("download link %s answers %d", href, resp.StatusCode)
				}
			}
		})

		// A collection lists its members (from its IIIF Collection), each a
		// link to its page, and links its own page.
		t.Run("collection", func(t *testing.T) {
			open(ctx, t, sampleCollection)
			if err := testkit.WaitJS(ctx, `document.querySelectorAll('.sitesvc-members a').length > 0`, 15*time.Second); err != nil {
				t.Fatalf("no members listed: %v (%s)", err, evalString(ctx, t, `document.body.innerText.slice(0, 300)`))
			}
			testkit.Screenshot(t, ctx, sampleCollection)
			var members []struct{ Href, Text string }
			if err := chromedp.Run(ctx, chromedp.Evaluate(`Array.from(document.querySelectorAll('.sitesvc-members a')).map(function(a){var r = a.getBoundingClientRect(); return {Href: a.href, Text: r.height > 0 ? a.textContent : ''};})`, &members)); err != nil {
				t.Fatal(err)
			}
			resp, body := srv.Get(t, "/purl/"+sampleCollection+"/iiif/manifest")
			var c struct{ Items []json.RawMessage }
			if err := json.Unmarshal(body, &c); err != nil || resp.StatusCode != 200 {
				t.Fatalf("collection manifest: %d %v", resp.StatusCode, err)
			}
			if len(members) != len(c.Items) || len(members) < 5 {
				t.Errorf("%d members listed, the IIIF Collection has %d", len(members), len(c.Items))
			}
			for _, m := range members {
				if m.Text == "" || !regexp.MustCompile(`/purl/[a-z]{2}\d{3}[a-z]{2}\d{4}$`).MatchString(m.Href) {
					t.Errorf("member link %+v: want a visible title linking a PURL page", m)
					continue
				}
				if resp, _ := testkit.Get(t, m.Href); resp.StatusCode != 200 {
					t.Errorf("member link %s answers %d", m.Href, resp.StatusCode)
				}
			}
			if got := evalString(ctx, t, `(document.querySelector('.sitesvc-collection-page a') || {}).href || ''`); got != srv.URL+"/purl/"+sampleCollection {
				t.Errorf("link to the collection's page %q", got)
			}
		})

		for _, tc := range []struct{ druid, says string }{
			{sampleCitation, "citation only"},
			{sampleEmbargo, "embargo until January 1, 2099"},
			// Group and location items run the IIIF Authorization Flow: the
			// probe's words replace the record's message (impl/purl/iiifauth's
			// browser tests follow the flow itself).
			{sampleGroup, "available to sitelib. Sign in"},
			{sampleLocation, "can be viewed on site. Visit reading-room"},
		} {
			t.Run("restricted "+tc.druid, func(t *testing.T) {
				open(ctx, t, tc.druid)
				if tc.druid == sampleGroup || tc.druid == sampleLocation {
					if err := testkit.WaitJS(ctx, `document.getElementById('sitesvc-viewer').getAttribute('data-access') === 'sign-in'`, 20*time.Second); err != nil {
						t.Fatalf("the flow did not finish: %v", err)
					}
				}
				msg := evalString(ctx, t, `(function(){var m=document.querySelector('.sitesvc-access-message'); return m && m.offsetHeight > 0 ? m.innerText : '';})()`)
				if !strings.Contains(msg, tc.says) {
					t.Errorf("access message %q, want it to say %q", msg, tc.says)
				}
				testkit.Screenshot(t, ctx, tc.druid)
				if n := evalString(ctx, t, `String(document.querySelectorAll('#sitesvc-mirador, audio, video, iframe:not(.sitesvc-token-frame), .sitesvc-file-link').length)`); n != "0" {
					t.Errorf("restricted object shows %s content elements", n)
				}
			})
		}

		t.Run("hide_title", func(t *testing.T) {
			if err := chromedp.Run(ctx, chromedp.Navigate(srv.EmbedIframe(sampleFiles)+"&hide_title=true")); err != nil {
				t.Fatal(err)
			}
			if err := testkit.WaitJS(ctx, `!document.getElementById('sitesvc-embed').hidden`, 10*time.Second); err != nil {
				t.Fatal(err)
			}
			if got := evalString(ctx, t, `String(!!document.querySelector('.sitesvc-embed-title') && document.querySelector('.sitesvc-embed-title').offsetHeight > 0)`); got != "false" {
				t.Errorf("title visible with hide_title=true")
			}
		})

		// Without the Mirador bundle the viewer says so and still offers the
		// files.
		t.Run("mirador missing", func(t *testing.T) {
			bare := testkit.StartServer(t, "--viewer-dir", t.TempDir())
			if err := chromedp.Run(ctx, chromedp.Navigate(bare.EmbedIframe(sampleImage))); err != nil {
				t.Fatal(err)
			}
			if err := testkit.WaitJS(ctx, `!!document.querySelector('.sitesvc-error') && document.querySelectorAll('.sitesvc-file-link').length === 2`, 15*time.Second); err != nil {
				t.Fatalf("no fallback: %v (%s)", err, evalString(ctx, t, `document.body.innerText.slice(0, 300)`))
			}
			if msg := evalString(ctx, t, `document.querySelector('.sitesvc-error').innerText`); !strings.Contains(msg, "could not be loaded") {
				t.Errorf("message %q", msg)
			}
		})

		// A page on another site (localhost is not 127.0.0.1 to the browser)
		// places the oEmbed html as a consumer would; the framed viewer runs
		// and tells the page it shows the object. A frame refused by
		// X-Frame-Options or CSP frame-ancestors would never say so.
		t.Run("framed by another site", func(t *testing.T) {
			_, body := srv.Get(t, "/embed/embed?url="+url.QueryEscape(srv.URL+"/purl/"+sampleImage))
			var o struct{ HTML string }
			if err := json.Unmarshal(body, &o); err != nil || !strings.HasPrefix(o.HTML, "<iframe ") {
				t.Fatalf("oEmbed html %q: %v", o.HTML, err)
			}
			page := testkit.OtherSite(t, func() string {
				return `<!DOCTYPE html><html><head><title>A blog</title><script>
window.messages = [];
addEventListener('message', function (e) { window.messages.push({origin: e.origin, data: e.data}); });
</script></head><body><p>An embedded object:</p><div style="width: 800px; height: 500px">` + o.HTML + `</div></body></html>`
			})
			if err := chromedp.Run(ctx, chromedp.Navigate(page)); err != nil {
				t.Fatal(err)
			}
			shown := `window.messages.some(function (m) { return m.origin === ` + strconv.Quote(srv.URL) + ` && m.data && m.data.type === 'sitesvc-embed' && m.data.event === 'shown' && m.data.viewer === 'mirador' && !m.data.restricted && typeof m.data.height === 'number'; })`
			if err := testkit.WaitJS(ctx, shown, 20*time.Second); err != nil {
				t.Fatalf("the viewer framed by %s never said it shows the object: %v (messages: %s)", page, err,
					evalString(ctx, t, `JSON.stringify(window.messages)`))
			}
			testkit.Screenshot(t, ctx, "framed-by-another-site")
		})

		// The PURL page loads the viewer through oEmbed; the iframe it places
		// shows the object.
		t.Run("purl page", func(t *testing.T) {
			if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/purl/"+sampleImage)); err != nil {
				t.Fatal(err)
			}
			if err := testkit.WaitJS(ctx, `document.getElementById('viewer') && document.getElementById('viewer').getAttribute('data-state') === 'oembed'`, 15*time.Second); err != nil {
				t.Fatalf("the PURL page did not embed through oEmbed: %v", err)
			}
			frame := `document.querySelector('#viewer iframe')`
			if got := evalString(ctx, t, frame+`.src`); !strings.HasPrefix(got, srv.URL+"/embed/iframe?url=") {
				t.Fatalf("embedded iframe src %q", got)
			}
			inFrame := `(function(){var d=` + frame + `.contentDocument; if(!d) return false; var c=d.getElementById('sitesvc-embed'); var cv=d.querySelector('#sitesvc-mirador .openseadragon-canvas canvas'); return !!c && !c.hidden && !!cv && cv.width > 0;})()`
			if err := testkit.WaitJS(ctx, inFrame, drawLimit); err != nil {
				t.Fatalf("the embedded viewer does not show the image: %v", err)
			}
			testkit.Screenshot(t, ctx, "purl-page")
		})
	})
}
