package page

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/hours/page/browsercheck"
	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// TestPageInBrowser opens the page in headless Chromium at 390 px:
// axe-core finds no serious or critical violation, nothing scrolls
// sideways (a long unbroken note included), the page has no script of its
// own, and the week links page through the weeks.
func TestPageInBrowser(t *testing.T) {
	t.Parallel()
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
	ctx := browsercheck.Phone(t)
	browsercheck.Check(ctx, t, srv.URL+"/")
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
