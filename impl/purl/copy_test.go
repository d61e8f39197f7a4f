package purl

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestCopyButtonsInChromium: with JavaScript the page's copy buttons are
// shown, and "Copy citation" puts the citation on the clipboard.
func TestCopyButtonsInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("headless Chromium test")
	}
	chromium := testkit.RequireTool(t, "chromium") // Debian package chromium
	srv := testkit.StartServer(t)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromium),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
	)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	defer cancelTimeout()
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
		chromedp.Evaluate(`navigator.clipboard.readText()`, &copied, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }),
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
