package embed_test

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestNoticesInTheFrame pastes the viewer of a mistyped, an unknown and a
// dark object's URL into a page of another site, as an embed that stopped
// working looks to a reader, and checks that the frame shows a notice in
// words: a heading and a sentence, drawn in readable text (dark pixels on
// a light box, at least 14 px type) in a 640×400 and a 300×200 frame, not
// raw JSON.
func TestNoticesInTheFrame(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	srv := testkit.StartServer(t, "--viewer-dir", viewerDir(t))
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
	host := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(rw, `<!DOCTYPE html><html><head><title>Blog</title></head><body style="margin:0"><iframe src="%s" style="display:block;width:%dpx;height:%dpx;border:0" title="Viewer" onload="window.framed = true"></iframe></body></html>`, src, w, h)
	}))
	defer host.Close()
	page := strings.Replace(host.URL, "127.0.0.1", "localhost", 1)
	for _, c := range cases {
		for _, size := range [][2]int{{640, 400}, {300, 200}} {
			t.Run(fmt.Sprintf("%s %dx%d", c.name, size[0], size[1]), func(t *testing.T) {
				src, w, h = srv.URL+"/embed/iframe?url="+url.QueryEscape(c.url), size[0], size[1]
				if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(int64(w), int64(h), 1, false),
					chromedp.Navigate(page)); err != nil {
					t.Fatal(err)
				}
				// The notice is a static page (no script, no web font):
				// loaded, it is drawn.
				if err := testkit.WaitJS(ctx, `window.framed === true`, 20*time.Second); err != nil {
					t.Fatalf("the frame never loaded: %v", err)
				}
				var shot []byte
				if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&shot)); err != nil {
					t.Fatal(err)
				}
				if dir := os.Getenv("SITESVC_SCREENSHOTS"); dir != "" {
					_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("notice-%s-%dx%d.png", c.name, w, h)), shot, 0o644)
				}
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
				screen, err := png.Decode(bytes.NewReader(shot))
				if err != nil {
					t.Fatal(err)
				}
				// Text was drawn: dark pixels inside the frame, on a light box.
				dark, light := 0, 0
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
				if dark < 300 || light < w*h/3 {
					t.Errorf("the frame shows %d dark and %d light pixels: no readable notice", dark, light)
				}
			})
		}
	}
}
