package purl

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// axeViolation is the part of an axe-core violation the test reports.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Targets []string `json:"targets"`
}

// TestPagesAccessibleAt390 loads every sample page in headless Chromium
// at 390×844 CSS pixels (a phone), checks that it does not scroll
// sideways, and runs axe-core (pinned in impl/purl/webcheck) on it: no
// serious or critical violation. The viewer iframe belongs to the Embed
// service and is not part of the check.
func TestPagesAccessibleAt390(t *testing.T) {
	if testing.Short() {
		t.Skip("headless Chromium test")
	}
	chromium := testkit.RequireTool(t, "chromium") // Debian package chromium
	axeSrc, err := os.ReadFile(filepath.Join(webcheckDir(t, "axe-core"), "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatal(err)
	}
	srv := testkit.StartServer(t,
		"--purl-access-names", "group:sitelib=Members of the university;location:reading-room=the Special Collections reading room",
		"--purl-access-contact", "speccoll@library.test")

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	defer cancelAlloc()
	browser, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	if err := chromedp.Run(browser); err != nil {
		t.Fatalf("chromium: %v", err)
	}

	check := func(t *testing.T, pageURL string, waitViewer bool) (int, int, []axeViolation) {
		t.Helper()
		ctx, cancel := chromedp.NewContext(browser)
		defer cancel()
		ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
		defer cancelTimeout()
		var scrollWidth, innerWidth int
		var out string
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
			chromedp.Evaluate(string(axeSrc), nil),
			chromedp.Evaluate(`axe.run(document, {iframes: false, resultTypes: ["violations"]}).then(function (r) {
  return JSON.stringify(r.violations.map(function (v) {
    return {id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map(function (n) { return String(n.target); })};
  }));
})`, &out, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
		)
		if err := chromedp.Run(ctx, actions...); err != nil {
			t.Fatalf("chromium: %v\nserver logs:\n%s", err, srv.Logs())
		}
		var violations []axeViolation
		if err := json.Unmarshal([]byte(out), &violations); err != nil {
			t.Fatalf("axe-core result %q: %v", out, err)
		}
		return scrollWidth, innerWidth, violations
	}

	// A phone browser widens the layout viewport (innerWidth) to fit
	// content wider than the screen, so a page that holds at 390 px keeps
	// innerWidth 390 and its content within it.
	sideways := func(scrollWidth, innerWidth int) bool { return innerWidth != 390 || scrollWidth > innerWidth }

	// The check finds what it looks for: a page too wide, an image
	// without alternative text.
	t.Run("detects", func(t *testing.T) {
		bad := "data:text/html,<!DOCTYPE html><html lang=en><head><meta name=viewport content='width=device-width'><title>bad</title></head><body><main><img src=x.png><div style='width:900px'>wide</div></main></body></html>"
		scrollWidth, innerWidth, violations := check(t, bad, false)
		if !sideways(scrollWidth, innerWidth) {
			t.Errorf("a 900 px element does not make the page scroll sideways (%d, %d)", scrollWidth, innerWidth)
		}
		found := false
		for _, v := range violations {
			found = found || (v.ID == "image-alt" && (v.Impact == "serious" || v.Impact == "critical"))
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
			scrollWidth, innerWidth, violations := check(t, srv.URL+"/purl/"+s.id, s.rec.ObjectType == "item")
			if sideways(scrollWidth, innerWidth) {
				t.Errorf("at %d px wide the page is %d px wide: it scrolls sideways", innerWidth, scrollWidth)
			}
			for _, v := range violations {
				if v.Impact == "serious" || v.Impact == "critical" {
					t.Errorf("axe-core %s (%s): %s at %s", v.ID, v.Impact, v.Help, strings.Join(v.Targets, "; "))
				} else {
					t.Logf("axe-core %s (%s): %s", v.ID, v.Impact, v.Help)
				}
			}
		})
	}
}
