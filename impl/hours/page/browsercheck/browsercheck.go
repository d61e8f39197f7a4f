// Package browsercheck opens an hours page in headless Chromium at a phone's
// width and checks it as a person would meet it: axe-core (the pinned npm
// package of the Hours tests) finds no serious or critical accessibility
// violation, nothing scrolls sideways, and the page runs no script of its
// own. For tests only.
package browsercheck

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// Width is the viewport width checked: 390 CSS px, an iPhone 12–15.
const Width = 390

// AxeSource is axe-core from scripts/hours-npm (scripts/hours-npm.sh
// install; make test runs it). Missing, the test is skipped — or fails when
// SITESVC_REQUIRE_TOOLS is set, as in CI.
func AxeSource(t testing.TB) string {
	t.Helper()
	path := filepath.Join(testkit.RepoRoot(t), "scripts", "hours-npm", "node_modules", "axe-core", "axe.min.js")
	b, err := os.ReadFile(path)
	if err != nil {
		if os.Getenv("SITESVC_REQUIRE_TOOLS") != "" {
			t.Fatalf("axe-core is required (run scripts/hours-npm.sh install): %v", err)
		}
		t.Skipf("axe-core not installed (scripts/hours-npm.sh install): %v", err)
	}
	return string(b)
}

// Phone starts headless Chromium with a Width-wide viewport.
func Phone(t testing.TB) context.Context {
	t.Helper()
	// Chromium's helper processes can still be writing to the profile
	// when the browser has exited, so the directory is removed with
	// retries after the browser is stopped (t.TempDir's removal would fail
	// the test).
	profile, err := os.MkdirTemp("", "hours-browsercheck-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 20 {
			if os.RemoveAll(profile) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove the browser profile %s", profile)
	})
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(testkit.RequireTool(t, "chromium")),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(Width, 844),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancelTimeout)
	if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(Width, 844, 3, true)); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

// Violation is one axe-core rule a page breaks.
type Violation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// Axe injects axe-core into the current page and returns its violations.
func Axe(ctx context.Context, t testing.TB, axe string) []Violation {
	t.Helper()
	var js string
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(axe, nil),
		chromedp.Evaluate(`axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations))`, &js,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	); err != nil {
		t.Fatalf("running axe-core: %v", err)
	}
	var v []Violation
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatalf("axe-core's result: %v: %s", err, js)
	}
	return v
}

// Check navigates ctx to url and reports, as test errors, serious or
// critical axe-core violations, sideways scrolling at Width and any script
// or event handler of the page's own (the JSON-LD block is data).
func Check(ctx context.Context, t testing.TB, axe, url string) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Navigate(url), chromedp.WaitReady("main")); err != nil {
		t.Fatalf("opening %s: %v", url, err)
	}
	for _, v := range Axe(ctx, t, axe) {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("%s: axe-core: %s (%s): %s at %v", url, v.ID, v.Impact, v.Help, v.Nodes)
		} else {
			t.Logf("%s: axe-core, %s: %s: %s", url, v.Impact, v.ID, v.Help)
		}
	}
	var scrollWidth, innerWidth, scripts int
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollWidth),
		chromedp.Evaluate(`window.innerWidth`, &innerWidth),
		chromedp.Evaluate(`document.querySelectorAll('script:not([type="application/ld+json"]), [onclick], [onload], noscript').length`, &scripts),
	); err != nil {
		t.Fatal(err)
	}
	if innerWidth != Width || scrollWidth > innerWidth {
		t.Errorf("%s: at %d px the page is %d px wide: it scrolls sideways", url, innerWidth, scrollWidth)
	}
	if scripts != 0 {
		t.Errorf("%s: %d scripts or handlers: the page must work without JavaScript", url, scripts)
	}
}
