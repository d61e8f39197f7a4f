package purl

import (
	"context"
	"image"
	_ "image/jpeg" // the image service's JPEGs
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestPageImagesInBrowser opens an image object's page in headless
// Chromium, as a reader and as a link preview would use it: the image is
// shown once (by the viewer; no thumbnail above it), og:image and the
// JSON-LD thumbnail are JPEGs of the image service of the size they state,
// every download by size answers a JPEG of the size it names, the original
// is named with its format and size, the favicon loads, and the page
// writes its dates one way (a preferred citation is quoted as catalogued).
func TestPageImagesInBrowser(t *testing.T) {
	t.Parallel()
	srv, ctx := chromiumSite(t, 2*time.Minute)
	if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(1280, 900, 1, false),
		chromedp.Navigate(srv.URL+"/purl/bb000kk0000")); err != nil {
		t.Fatal(err)
	}
	if err := testkit.WaitJS(ctx, `document.getElementById('viewer').getAttribute('data-state') === 'oembed'`, 20*time.Second); err != nil {
		t.Fatalf("viewer: %v", err)
	}
	var p struct {
		Images               int
		OG, OGW, OGH, LD     string
		Sizes                []struct{ Text, Href, Line string }
		IconW                float64
		Text                 string
		ViewerTop, FrameHigh float64
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`new Promise(function (done) {
		var meta = function (p) { var m = document.querySelector('meta[property="' + p + '"]'); return m ? m.content : ''; };
		var ld = JSON.parse(document.querySelector('script[type="application/ld+json"]').textContent);
		var icon = new Image();
		var out = {
			Images: document.querySelectorAll('main img').length,
			OG: meta('og:image'), OGW: meta('og:image:width'), OGH: meta('og:image:height'), LD: ld.thumbnailUrl || '',
			Sizes: Array.from(document.querySelectorAll('.sizes a')).map(function (a) { return {Text: a.textContent, Href: a.href, Line: a.parentElement.textContent}; }),
			Text: document.body.innerText.replace(document.getElementById('citation').innerText, ''), // a preferred citation is quoted as catalogued
			ViewerTop: document.getElementById('viewer').getBoundingClientRect().top,
			FrameHigh: document.querySelector('#viewer iframe').getBoundingClientRect().height
		};
		icon.onload = function () { out.IconW = icon.naturalWidth; done(out); };
		icon.onerror = function () { out.IconW = -1; done(out); };
		icon.src = document.querySelector('link[rel="icon"]').href;
	})`, &p, func(ep *cdpruntime.EvaluateParams) *cdpruntime.EvaluateParams { return ep.WithAwaitPromise(true) })); err != nil {
		t.Fatal(err)
	}
	testkit.Screenshot(t, ctx, "purl-page-full")
	// Shown once: no image above the viewer, which starts high on the
	// page with its full height.
	if p.Images != 0 || p.ViewerTop > 200 || p.FrameHigh < 400 {
		t.Errorf("%d images in the page, viewer at %.0f px, %.0f px high: want the viewer alone, near the top", p.Images, p.ViewerTop, p.FrameHigh)
	}
	jpeg := func(what, u string) image.Config {
		t.Helper()
		if !strings.Contains(u, "/iiif/image/") {
			t.Errorf("%s %q is not from the image service", what, u)
		}
		resp, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		cfg, format, err := image.DecodeConfig(resp.Body)
		if resp.StatusCode != 200 || err != nil || format != "jpeg" {
			t.Errorf("%s %s: %d %s %v", what, u, resp.StatusCode, format, err)
		}
		return cfg
	}
	og := jpeg("og:image", p.OG)
	if strconv.Itoa(og.Width) != p.OGW || strconv.Itoa(og.Height) != p.OGH {
		t.Errorf("og:image is %dx%d, the page says %sx%s", og.Width, og.Height, p.OGW, p.OGH)
	}
	if th := jpeg("JSON-LD thumbnailUrl", p.LD); max(th.Width, th.Height) != 256 {
		t.Errorf("JSON-LD thumbnail %dx%d, want 256 px on its longer side", th.Width, th.Height)
	}
	sizeRE := regexp.MustCompile(`JPEG, (\d+) × (\d+) px`)
	originals := 0
	for _, s := range p.Sizes {
		if s.Text == "Original" {
			originals++
			if !regexp.MustCompile(`^Original: (PNG|JPEG|JPEG 2000|TIFF), \d+ × \d+ px, [0-9.]+ [KM]?B$`).MatchString(s.Line) {
				t.Errorf("original named %q", s.Line)
			}
			continue
		}
		m := sizeRE.FindStringSubmatch(s.Line)
		cfg := jpeg(s.Text, s.Href)
		if m == nil || m[1] != strconv.Itoa(cfg.Width) || m[2] != strconv.Itoa(cfg.Height) {
			t.Errorf("%q answers a %dx%d JPEG", s.Line, cfg.Width, cfg.Height)
		}
	}
	if originals != 2 || len(p.Sizes) < 4 {
		t.Errorf("downloads by size: %+v", p.Sizes)
	}
	if p.IconW <= 0 {
		t.Errorf("the favicon does not load")
	}
	if iso := regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`).FindAllString(p.Text, -1); len(iso) > 0 {
		t.Errorf("dates written as %v beside %q", iso, regexp.MustCompile(`[A-Z][a-z]+ \d{1,2}, \d{4}`).FindAllString(p.Text, -1))
	}
}

// TestCopyButtonsInChromium: with JavaScript the page's copy buttons are
// shown, and "Copy citation" puts the citation on the clipboard.
func TestCopyButtonsInChromium(t *testing.T) {
	t.Parallel()
	srv, ctx := chromiumSite(t, 60*time.Second)
	var shown int
	var citation, copied, status string
	err := chromedp.Run(ctx,
		browser.GrantPermissions([]browser.PermissionType{browser.PermissionTypeClipboardReadWrite, browser.PermissionTypeClipboardSanitizedWrite}).WithOrigin(srv.URL),
		chromedp.Navigate(srv.URL+"/purl/bb000kk0000"),
		chromedp.WaitReady("body", chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("button[data-copy]")).filter(function (b) { return !b.hidden; }).length`, &shown),
		chromedp.Text(`#citation`, &citation, chromedp.ByQuery),
		chromedp.Click(`button[data-copy="citation"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`.copied`, chromedp.ByQuery),
		chromedp.Text(`.copied`, &status, chromedp.ByQuery),
		chromedp.Evaluate(`navigator.clipboard.readText()`, &copied, func(p *cdpruntime.EvaluateParams) *cdpruntime.EvaluateParams { return p.WithAwaitPromise(true) }),
	)
	if err != nil {
		t.Fatalf("chromium: %v", err)
	}
	if shown != 3 {
		t.Errorf("%d copy buttons shown, want 3 (citation, embed code, oEmbed URL)", shown)
	}
	if copied != citation || citation == "" || status != "Copied" {
		t.Errorf("clipboard %q after copying the citation %q (status %q)", copied, citation, status)
	}
}

// chromiumSite starts the real server (with args) and headless Chromium, for
// a browser test (which go test -short skips, as testkit does).
func chromiumSite(t *testing.T, limit time.Duration, args ...string) (*testkit.Server, context.Context) {
	t.Helper()
	return testkit.StartServer(t, args...), testkit.Browser(t, limit)
}

// TestPageInChromium loads a sample page from the real binary in headless
// Chromium, with JavaScript (the viewer comes through oEmbed, or the
// script's iframe fallback when the embed service cannot answer) and
// without (the noscript iframe).
func TestPageInChromium(t *testing.T) {
	t.Parallel()
	srv, browser := chromiumSite(t, 3*time.Minute)
	pageURL := srv.URL + "/purl/bb000kk0000"
	wantIframe := srv.EmbedIframe("bb000kk0000")

	for _, js := range []bool{true, false} {
		name := "javascript"
		if !js {
			name = "noscript"
		}
		t.Run(name, func(t *testing.T) {
			ctx, cancel := chromedp.NewContext(browser)
			defer cancel()
			ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
			defer cancelTimeout()
			var title, state, src string
			var iframes int
			actions := []chromedp.Action{}
			if !js {
				actions = append(actions, emulation.SetScriptExecutionDisabled(true))
			}
			actions = append(actions, chromedp.Navigate(pageURL), chromedp.Title(&title))
			if js {
				actions = append(actions,
					chromedp.WaitVisible(`#viewer[data-state] iframe`, chromedp.ByQuery),
					chromedp.AttributeValue(`#viewer`, "data-state", &state, nil, chromedp.ByQuery),
				)
			}
			actions = append(actions,
				chromedp.Evaluate(`document.querySelectorAll("#viewer iframe").length`, &iframes),
				chromedp.Evaluate(`document.querySelector("#viewer iframe").src`, &src),
			)
			if err := chromedp.Run(ctx, actions...); err != nil {
				t.Fatalf("chromium: %v\nserver logs:\n%s", err, srv.Logs())
			}
			if title != "Two views of the reading room" {
				t.Errorf("title %q", title)
			}
			if js && state != "oembed" {
				t.Errorf("viewer state %q: the page did not load the viewer through the embed service's oEmbed", state)
			}
			if iframes != 1 || !strings.HasPrefix(src, wantIframe) {
				t.Errorf("viewer: %d iframes, src %q, want %q", iframes, src, wantIframe)
			}
		})
	}
}
