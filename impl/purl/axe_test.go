package purl

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestPagesAccessibleAt390 loads every sample page in headless Chromium
// at 390×844 CSS pixels (a phone), checks that it does not scroll
// sideways, and runs axe-core (testkit.Axe) on it: no
// serious or critical violation. The viewer iframe belongs to the Embed
// service and is not part of the check.
func TestPagesAccessibleAt390(t *testing.T) {
	t.Parallel()
	srv, browser := chromiumSite(t, 30*time.Minute,
		"--purl-access-names", "group:sitelib=Members of the university;location:reading-room=the Special Collections reading room",
		"--purl-access-contact", "speccoll@library.test")

	// check opens pageURL in a tab of its own at 390 px, returns its widths
	// and hands the tab to axe (testkit.Axe or testkit.AxeViolations).
	check := func(t *testing.T, pageURL string, waitViewer bool, axe func(context.Context)) (int, int) {
		t.Helper()
		ctx, cancel := chromedp.NewContext(browser)
		defer cancel()
		ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
		defer cancelTimeout()
		var scrollWidth, innerWidth int
		actions := []chromedp.Action{
			emulation.SetDeviceMetricsOverride(390, 844, 2, true),
			chromedp.Navigate(pageURL),
			chromedp.WaitReady("body", chromedp.ByQuery),
		}
		if waitViewer {
			// The viewer is in place: the layout is final.
			actions = append(actions, chromedp.WaitVisible(`#viewer[data-state] iframe`, chromedp.ByQuery))
		}
		actions = append(actions,
			chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollWidth),
			chromedp.Evaluate(`window.innerWidth`, &innerWidth),
		)
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("chromium: %v\nserver logs:\n%s", err, srv.Logs())
		}
		axe(ctx)
		return scrollWidth, innerWidth
	}

	// A phone browser widens the layout viewport (innerWidth) to fit
	// content wider than the screen, so a page that holds at 390 px keeps
	// innerWidth 390 and its content within it.
	sideways := func(scrollWidth, innerWidth int) bool { return innerWidth != 390 || scrollWidth > innerWidth }

	// The check finds what it looks for: a page too wide, an image
	// without alternative text.
	t.Run("detects", func(t *testing.T) {
		bad := "data:text/html,<!DOCTYPE html><html lang=en><head><meta name=viewport content='width=device-width'><title>bad</title></head><body><main><img src=x.png><div style='width:900px'>wide</div></main></body></html>"
		var violations []testkit.AxeViolation
		scrollWidth, innerWidth := check(t, bad, false, func(ctx context.Context) { violations = testkit.AxeViolations(t, ctx) })
		if !sideways(scrollWidth, innerWidth) {
			t.Errorf("a 900 px element does not make the page scroll sideways (%d, %d)", scrollWidth, innerWidth)
		}
		found := false
		for _, v := range violations {
			found = found || (v.ID == "image-alt" && v.Serious())
		}
		if !found {
			t.Errorf("axe-core found no image-alt violation: %+v", violations)
		}
	})

	for _, s := range loadSamples(t, filepath.Join(testkit.RepoRoot(t), "samples", "purl")) {
		if s.rec.Rights.Dark() {
			continue
		}
		t.Run(s.id, func(t *testing.T) {
			scrollWidth, innerWidth := check(t, srv.URL+"/purl/"+s.id, s.rec.ObjectType == "item",
				func(ctx context.Context) { testkit.Axe(t, ctx, "/purl/"+s.id) })
			if sideways(scrollWidth, innerWidth) {
				t.Errorf("at %d px wide the page is %d px wide: it scrolls sideways", innerWidth, scrollWidth)
			}
		})
	}
}
