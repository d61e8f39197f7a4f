package hours_test

import (
	"testing"

	"github.com/sitelib/sitesvc/impl/hours/page/browsercheck"
)

// TestPagesInBrowser checks the service's real pages (the sample data:
// seven libraries, long names, 24-hour rooms, lunch breaks) in headless
// Chromium at 390 px with axe-core. (The overview, which has a script for
// its filter box, is TestOverviewAtAGlance's.)
func TestPagesInBrowser(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("browser test")
	}
	e := newEnv(t, storetestSQLite(t), testNow)
	ctx := browsercheck.Phone(t)
	for _, path := range []string{"/libraries/green.html", "/libraries/law.html?from=2026-12-24"} {
		browsercheck.Check(ctx, t, e.srv.URL+path)
	}
}
