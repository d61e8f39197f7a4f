package purl

import (
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
	t.Parallel()
	if testing.Short() {
		t.Skip("headless Chromium test")
	}
	srv := testkit.StartServer(t)
	ctx := testkit.Browser(t, 60*time.Second)
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
