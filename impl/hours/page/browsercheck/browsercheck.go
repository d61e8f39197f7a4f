// Package browsercheck opens an hours page in headless Chromium at a phone's
// width and checks it as a person would meet it: axe-core (testkit.Axe)
// finds no serious or critical accessibility violation, nothing scrolls
// sideways, and the page runs no script of its own. For tests only.
package browsercheck

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// Width is the viewport width checked: 390 CSS px, an iPhone 12–15.
const Width = 390

// Phone starts headless Chromium (testkit.Browser) with a Width-wide
// viewport.
func Phone(t testing.TB) context.Context {
	t.Helper()
	ctx := testkit.Browser(t, 60*time.Second, chromedp.WindowSize(Width, 844))
	if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(Width, 844, 3, true)); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// Check navigates ctx to url and reports, as test errors, serious or
// critical axe-core violations, sideways scrolling at Width and any script
// or event handler of the page's own (the JSON-LD block is data).
func Check(ctx context.Context, t testing.TB, url string) {
	t.Helper()
	CheckScripted(ctx, t, url)
	var scripts int
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.querySelectorAll('script:not([type="application/ld+json"]), [onclick], [onload], noscript').length`, &scripts),
	); err != nil {
		t.Fatal(err)
	}
	if scripts != 0 {
		t.Errorf("%s: %d scripts or handlers: the page must work without JavaScript", url, scripts)
	}
}

// CheckScripted is Check for a page whose script only adds to it (the
// overview's filter box, the staff editor): axe-core and sideways
// scrolling, with the script run.
func CheckScripted(ctx context.Context, t testing.TB, url string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Navigate(url), chromedp.WaitReady("main")); err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	testkit.Axe(t, ctx, url)
	var scrollWidth, innerWidth int
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollWidth),
		chromedp.Evaluate(`window.innerWidth`, &innerWidth),
	); err != nil {
		t.Fatal(err)
	}
	if innerWidth != Width || scrollWidth > innerWidth {
		t.Errorf("%s: at %d px the page is %d px wide: it scrolls sideways", url, innerWidth, scrollWidth)
	}
}
