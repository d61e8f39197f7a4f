package embed_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html"
	"image/color"
	"image/png"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestEmbedCodeWherePasted pastes the embed code the project hands out,
// the oEmbed html and the PURL page's "Embed this" (the same code), into
// an ordinary page of another site, in a 700 px course column and in a
// phone's 390 px column, and measures the frame: the column's width, at
// least 400 px high for images (the oEmbed height, 500 px), a sound
// recording's frame sized to its cover and player, maxheight and maxwidth
// honoured.
func TestEmbedCodeWherePasted(t *testing.T) {
	t.Parallel()
	srv := viewerServer(t)
	ctx := browserFor(t, 5*time.Minute)

	oembed := func(druid string, extra string) (code string, height float64) {
		t.Helper()
		resp, body := srv.Get(t, "/embed/embed?url="+url.QueryEscape(srv.URL+"/purl/"+druid)+extra)
		var o struct{ HTML, Height string }
		if err := json.Unmarshal(body, &o); err != nil || resp.StatusCode != 200 {
			t.Fatalf("oEmbed of %s: %d %v", druid, resp.StatusCode, err)
		}
		rem, err := strconv.ParseFloat(strings.TrimSuffix(o.Height, "rem"), 64)
		if err != nil {
			t.Fatalf("oEmbed height %q", o.Height)
		}
		return o.HTML, rem * 16
	}
	pageCode := func(druid string) string {
		t.Helper()
		_, body := srv.Get(t, "/purl/"+druid)
		m := regexp.MustCompile(`(?s)<textarea id="embed-code" readonly>(.*?)</textarea>`).FindSubmatch(body)
		if m == nil {
			t.Fatalf("the page of %s has no embed code", druid)
		}
		return html.UnescapeString(string(m[1]))
	}
	// The page hands out the oEmbed code, byte for byte.
	for _, druid := range []string{sampleImage, sampleMedia, sampleBook, samplePDF, sampleCollection} {
		if code, _ := oembed(druid, ""); pageCode(druid) != code {
			t.Errorf("%s: the PURL page's embed code\n%s\nis not the oEmbed html\n%s", druid, pageCode(druid), code)
		}
	}

	var pasted string // the code the host page shows
	var columnStyle string
	page := testkit.OtherSite(t, func() string {
		return fmt.Sprintf(`<!DOCTYPE html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Course page</title><script>
window.shown = false;
addEventListener('message', function (e) { if (e.data && e.data.type === 'sitesvc-embed' && e.data.event === 'shown') { window.shown = true; } });
</script></head><body style="margin: 0; font: 16px/1.5 Georgia, serif"><main id="column" style="%s"><h1>Week 3: reading rooms</h1><p>Look closely at the item below.</p>%s<p>Discuss in the forum.</p></main></body></html>`, columnStyle, pasted)
	})

	type frame struct{ X, Y, W, H, Column float64 }
	measure := func(t *testing.T, name string) (frame, []byte) {
		t.Helper()
		if err := chromedp.Run(ctx, chromedp.Navigate(page)); err != nil {
			t.Fatal(err)
		}
		if err := testkit.WaitJS(ctx, `window.shown`, drawLimit); err != nil {
			t.Fatalf("the pasted viewer never showed the object: %v", err)
		}
		var f frame
		var shot []byte
		if err := chromedp.Run(ctx, chromedp.Sleep(1500*time.Millisecond), chromedp.Evaluate(`(function(){
			var r = document.querySelector('iframe').getBoundingClientRect();
			return {X: r.left, Y: r.top, W: r.width, H: r.height, Column: document.getElementById('column').clientWidth};
		})()`, &f), chromedp.CaptureScreenshot(&shot)); err != nil {
			t.Fatal(err)
		}
		testkit.KeepScreenshot(t, "pasted-"+name, shot)
		return f, shot
	}
	columns := []struct {
		name          string
		width, height int64
		style         string
	}{
		{"700px column", 1280, 900, "width: 700px; margin: 0 auto"},
		{"phone column", 390, 844, "margin: 0 12px"},
	}
	for _, col := range columns {
		if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(col.width, col.height, 1, false)); err != nil {
			t.Fatal(err)
		}
		columnStyle = col.style
		for _, druid := range []string{sampleImage, sampleBook} {
			for _, source := range []string{"oEmbed", "PURL page"} {
				t.Run(col.name+" "+druid+" "+source, func(t *testing.T) {
					pasted, _ = oembed(druid, "")
					if source == "PURL page" {
						pasted = pageCode(druid)
					}
					f, _ := measure(t, strings.ReplaceAll(col.name+"-"+druid+"-"+source, " ", "-"))
					if f.W != f.Column || f.H < 400 {
						t.Errorf("the frame is %.0f×%.0f px in a %.0f px column, want the column's width and at least 400 px high", f.W, f.H, f.Column)
					}
				})
			}
		}
		// A sound recording: the frame is as high as the oEmbed says, and
		// holds its cover and player with no empty band: the player's
		// grey bar ends within 48 px of the frame's bottom (its caption
		// and padding) and the cover is right above it.
		t.Run(col.name+" media", func(t *testing.T) {
			var want float64
			pasted, want = oembed(sampleMedia, "")
			f, shot := measure(t, strings.ReplaceAll(col.name, " ", "-")+"-media")
			if f.W != f.Column || f.H != want || want > 480 || want < 300 {
				t.Errorf("the sound recording's frame is %.0f×%.0f px (oEmbed height %.0f) in a %.0f px column", f.W, f.H, want, f.Column)
			}
			screen, err := png.Decode(bytes.NewReader(shot))
			if err != nil {
				t.Fatal(err)
			}
			// Chromium's audio controls are a light grey pill.
			player := color.RGBA{241, 243, 244, 255}
			bottom := -1.0
			for y := f.Y + f.H - 1; y > f.Y; y-- {
				run := 0
				for x := f.X + 20; x < f.X+f.W-20; x++ {
					if close(mean(screen, x, y, 0), player, 6) {
						run++
					}
				}
				if float64(run) > (f.W-40)*0.6 {
					bottom = y
					break
				}
			}
			if bottom < 0 {
				t.Fatalf("no audio player in the frame")
			}
			if gap := f.Y + f.H - bottom; gap > 48 {
				t.Errorf("%.0f px of frame under the player: the frame is not sized to it", gap)
			}
		})
		// maxheight and maxwidth reach the pasted frame.
		t.Run(col.name+" maxheight maxwidth", func(t *testing.T) {
			pasted, _ = oembed(sampleImage, "&maxheight=300&maxwidth=320")
			f, _ := measure(t, strings.ReplaceAll(col.name, " ", "-")+"-max")
			if f.H != 300 || f.W != min(320, f.Column) {
				t.Errorf("with maxheight=300 and maxwidth=320 the frame is %.0f×%.0f px", f.W, f.H)
			}
		})
	}
}

// TestNoticesInTheFrame pastes the viewer of a mistyped, an unknown and a
// dark object's URL into a page of another site, as an embed that stopped
// working looks to a reader, and checks that the frame shows a notice in
// words: a heading and a sentence, drawn in readable text (dark pixels on
// a light box, at least 14 px type) in a 640×400 and a 300×200 frame, not
// raw JSON.
func TestNoticesInTheFrame(t *testing.T) {
	t.Parallel()
	srv := viewerServer(t)
	ctx := browserFor(t, 5*time.Minute)
	cases := []struct{ name, url, heading string }{
		{"mistyped", srv.URL + "/purl/bb000kk000", "This link does not lead to an item"},
		{"unknown", srv.URL + "/purl/zz999zz9999", "This item is not available"},
		{"dark", srv.URL + "/purl/bp999bc9999", "This item is not available"},
	}
	for _, c := range cases {
		resp, body := srv.Get(t, "/embed/iframe?url="+url.QueryEscape(c.url))
		if resp.StatusCode != http.StatusNotFound || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Fatalf("%s: %d %s: %s", c.name, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		resp, body = srv.Get(t, "/embed/embed?url="+url.QueryEscape(c.url))
		if resp.StatusCode != http.StatusNotFound || resp.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s: oEmbed answers %d %s, want a JSON 404: %s", c.name, resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
	}
	var src string
	var w, h int
	page := testkit.OtherSite(t, func() string {
		return fmt.Sprintf(`<!DOCTYPE html><html><head><title>Blog</title></head><body style="margin:0"><iframe src="%s" style="display:block;width:%dpx;height:%dpx;border:0" title="Viewer" onload="window.framed = true"></iframe></body></html>`, src, w, h)
	})
	for _, c := range cases {
		for _, size := range [][2]int{{640, 400}, {300, 200}} {
			t.Run(fmt.Sprintf("%s %dx%d", c.name, size[0], size[1]), func(t *testing.T) {
				src, w, h = srv.URL+"/embed/iframe?url="+url.QueryEscape(c.url), size[0], size[1]
				if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(int64(w), int64(h), 1, false),
					chromedp.Navigate(page)); err != nil {
					t.Fatal(err)
				}
				// The notice is a static page (no script, no web font).
				if err := testkit.WaitJS(ctx, `window.framed === true`, 20*time.Second); err != nil {
					t.Fatalf("the frame never loaded: %v", err)
				}
				// Loaded is not yet drawn: the frame is another site's,
				// painted by its own renderer process, which on a busy
				// machine may not have handed its first frame to the
				// page's yet. So the picture is taken until the notice is
				// in it, for up to 20 s, as a person would look again.
				var shot []byte
				var dark, light int
				for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
					if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&shot)); err != nil {
						t.Fatal(err)
					}
					dark, light = noticePixels(t, shot)
					if (dark >= 300 && light >= w*h/3) || time.Now().After(deadline) {
						break
					}
				}
				testkit.KeepScreenshot(t, fmt.Sprintf("notice-%s-%dx%d", c.name, w, h), shot)
				// The frame is cross-origin: read it as a reader does, from
				// its own document in a tab of its own, and from the pixels.
				var text string
				var fontPx, headingTop float64
				if err := chromedp.Run(ctx, chromedp.Navigate(src), chromedp.Evaluate(`document.body.innerText`, &text),
					chromedp.Evaluate(`parseFloat(getComputedStyle(document.querySelector('p')).fontSize)`, &fontPx),
					chromedp.Evaluate(`document.querySelector('h1').getBoundingClientRect().top`, &headingTop)); err != nil {
					t.Fatal(err)
				}
				if headingTop < 0 {
					t.Errorf("the heading starts %.0f px above the frame", -headingTop)
				}
				if !strings.HasPrefix(strings.TrimSpace(text), c.heading) || strings.Contains(text, `"status"`) || fontPx < 14 {
					t.Errorf("the frame says %q (text %.0f px), want the heading %q in readable text", text, fontPx, c.heading)
				}
				if dark < 300 || light < w*h/3 {
					t.Errorf("the frame shows %d dark and %d light pixels: no readable notice", dark, light)
				}
			})
		}
	}
}

// noticePixels counts a screenshot's dark (text) and light (background)
// pixels.
func noticePixels(t *testing.T, shot []byte) (dark, light int) {
	t.Helper()
	screen, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	b := screen.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bb, _ := screen.At(x, y).RGBA()
			switch l := (r + g + bb) / 3 >> 8; {
			case l < 80:
				dark++
			case l > 230:
				light++
			}
		}
	}
	return dark, light
}
