package page

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// axeSource is axe-core from the pinned npm packages of the Hours tests
// (scripts/hours-npm.sh install; make test runs it).
func axeSource(t *testing.T) string {
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

// phone starts headless Chromium with a 390 px wide viewport (an iPhone
// 12–15's CSS width).
func phone(t *testing.T) context.Context {
	t.Helper()
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
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(390, 844),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(allocCtx)
	t.Cleanup(cancel)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(cancelTimeout)
	if err := chromedp.Run(ctx,
		emulation.SetDeviceMetricsOverride(390, 844, 3, true),
	); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return ctx
}

type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target []any `json:"target"`
	} `json:"nodes"`
}

// runAxe injects axe-core and returns its violations on the current page.
func runAxe(ctx context.Context, t *testing.T, axe string) []axeViolation {
	t.Helper()
	var js string
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(axe, nil),
		chromedp.Evaluate(`axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations))`, &js, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
	); err != nil {
		t.Fatalf("running axe-core: %v", err)
	}
	var v []axeViolation
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatalf("axe-core's result: %v: %s", err, js)
	}
	return v
}

// TestPageInBrowser opens the page in headless Chromium at 390 px:
// axe-core finds no serious or critical violation, nothing scrolls
// sideways, the page has no script of its own (so it works without
// JavaScript), and the week links page through the weeks.
func TestPageInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	axe := axeSource(t)
	now := time.Date(2026, 3, 5, 3, 0, 0, 0, time.UTC)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := testPage(t, now)
		if from := r.URL.Query().Get("from"); from != "" {
			d, err := schedule.ParseDate(from)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			p.From = schedule.Week(d).From
		}
		base := "http://" + r.Host + "/?from="
		p.PrevURL, p.NextURL = base+p.From.AddDays(-7).String(), base+p.From.AddDays(7).String()
		// A long note: the page must wrap it, not scroll.
		p.Libraries[0].Locations[1].Days[2].Notes = strings.Repeat("Supercalifragilisticexpialidocious-", 6)
		var b bytes.Buffer
		if err := Render(&b, p); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", ContentType)
		_, _ = w.Write(b.Bytes())
	}))
	t.Cleanup(srv.Close)
	ctx := phone(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/"), chromedp.WaitReady("main")); err != nil {
		t.Fatal(err)
	}
	for _, v := range runAxe(ctx, t, axe) {
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Errorf("axe-core: %s (%s): %s at %v", v.ID, v.Impact, v.Help, v.Nodes)
		} else {
			t.Logf("axe-core, %s: %s: %s", v.Impact, v.ID, v.Help)
		}
	}
	var scrollWidth, innerWidth int
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollWidth),
		chromedp.Evaluate(`window.innerWidth`, &innerWidth),
	); err != nil {
		t.Fatal(err)
	}
	if innerWidth != 390 || scrollWidth > innerWidth {
		t.Errorf("at %d px the page is %d px wide: it scrolls sideways", innerWidth, scrollWidth)
	}
	var scripts int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelectorAll('script:not([type="application/ld+json"]), [onclick], [onload], noscript').length`, &scripts)); err != nil {
		t.Fatal(err)
	}
	if scripts != 0 {
		t.Errorf("the page has %d scripts or handlers: it must work without JavaScript", scripts)
	}
	// Next week, by following the plain link.
	var caption string
	if err := chromedp.Run(ctx,
		chromedp.Click(`a[rel="next"]`, chromedp.ByQuery),
		chromedp.WaitReady(`main`),
		chromedp.Poll(`location.search === "?from=2026-03-08"`, nil),
		chromedp.Text(`caption`, &caption, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("following the next-week link: %v", err)
	}
	if caption != "Week of 8 – 14 March 2026" {
		t.Errorf("after next week the first week is %q", caption)
	}
}
