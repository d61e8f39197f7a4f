package hours_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/hours/page/browsercheck"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestOverviewAtAGlance is issue 19.4: the overview of the sample data
// (seven libraries, seventeen locations, two time zones) fits one screen
// at 1280×900 with every library's state now and today's hours, names the
// zones, links every library's week page; at 390×844 it does not scroll
// sideways, axe-core finds no serious or critical violation, and the
// filter box narrows the cards.
func TestOverviewAtAGlance(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetestSQLite(t), testNow)
	ctx := desktopBrowser(t, 90*time.Second)
	var height, contentHeight, cards, links, states, todays int
	var zones, text string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(e.srv.URL+"/"),
		chromedp.WaitReady("main"),
		chromedp.Evaluate(`document.documentElement.scrollHeight`, &height),
		chromedp.Evaluate(`Math.ceil(document.querySelector("footer").getBoundingClientRect().bottom + window.scrollY)`, &contentHeight),
		chromedp.Evaluate(`document.querySelectorAll(".card").length`, &cards),
		chromedp.Evaluate(`document.querySelectorAll('.card h2 a[href$=".html"]').length`, &links),
		chromedp.Evaluate(`document.querySelectorAll(".card .state").length`, &states),
		chromedp.Evaluate(`document.querySelectorAll(".card .today, .card .hours").length`, &todays),
		chromedp.Evaluate(`Array.from(document.querySelectorAll(".card .zone")).map(z => z.textContent).join("|")`, &zones),
		chromedp.Evaluate(`document.querySelector("main").innerText`, &text),
	); err != nil {
		t.Fatal(err)
	}
	testkit.Screenshot(t, ctx, "hours-overview-1280")
	t.Logf("overview at 1280×900: the page ends at %d px (document %d px)", contentHeight, height)
	if height > 900 || contentHeight > 900 {
		t.Errorf("the overview is %d px tall at 1280×900 (document %d px): it does not fit one screen", contentHeight, height)
	}
	// Late on a Saturday night (closed, opening tomorrow; overnight
	// hours of the day before) the words differ: it still fits.
	e.now = time.Date(2026, 3, 8, 7, 30, 0, 0, time.UTC) // Sat 23:30 in Los Angeles
	var night int
	var nightText string
	if err := chromedp.Run(ctx,
		network.SetCacheDisabled(true), // the page was cached for a minute
		chromedp.Navigate(e.srv.URL+"/"),
		chromedp.WaitReady("main"),
		chromedp.Evaluate(`Math.ceil(document.querySelector("footer").getBoundingClientRect().bottom + window.scrollY)`, &night),
		chromedp.Evaluate(`document.querySelector("main").innerText`, &nightText),
	); err != nil {
		t.Fatal(err)
	}
	testkit.Screenshot(t, ctx, "hours-overview-1280-night")
	t.Logf("overview late on Saturday: the page ends at %d px", night)
	if night > 900 {
		t.Errorf("late on Saturday the overview is %d px tall at 1280×900", night)
	}
	if !strings.Contains(nightText, "Opens tomorrow 10 AM") || !strings.Contains(nightText, "Opens Mon 10 AM") {
		t.Errorf("late on Saturday no library says when it opens:\n%s", nightText)
	}
	e.now = testNow
	// 7 libraries; 17 locations of which 7 are main: 10 listed under them.
	if cards != 7 || links != 7 || states != 17 || todays != 17 {
		t.Errorf("%d cards, %d week links, %d states, %d today lines; want 7, 7, 17, 17", cards, links, states, todays)
	}
	if !strings.Contains(zones, "Los Angeles time (PST)") || !strings.Contains(zones, "New York time (EST)") {
		t.Errorf("zones shown: %q", zones)
	}
	// Noon on Wednesday 4 March in Los Angeles.
	for _, want := range []string{"Open until", "Open 24 hours", "Same hours as the library"} {
		if !strings.Contains(text, want) {
			t.Errorf("the overview never says %q:\n%s", want, text)
		}
	}

	phone := browsercheck.Phone(t)
	browsercheck.CheckScripted(phone, t, e.srv.URL+"/")
	testkit.Screenshot(t, phone, "hours-overview-390")
	var shown int
	var count string
	if err := chromedp.Run(phone,
		chromedp.SendKeys("#filter", "law", chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll(".card:not([hidden])").length`, &shown),
		chromedp.Text("#filter-count", &count, chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	if shown != 1 || count != "1 of 7 libraries shown" {
		t.Errorf("filter \"law\": %d cards shown, count %q", shown, count)
	}
	testkit.Screenshot(t, phone, "hours-overview-390-filtered")
	if err := chromedp.Run(phone,
		chromedp.Evaluate(`document.getElementById("filter").value = ""`, nil),
		chromedp.SendKeys("#filter", "24 hours", chromedp.ByID),
		chromedp.Evaluate(`document.querySelectorAll(".card:not([hidden])").length`, &shown),
	); err != nil {
		t.Fatal(err)
	}
	if shown != 2 {
		t.Errorf("filter \"24 hours\" (two libraries have such a room): %d cards shown", shown)
	}
}
