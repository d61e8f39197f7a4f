package signin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestBrowserSignIn: in headless Chromium a librarian starts at the
// sign-in, fills in the provider's login page, lands back on the page
// she asked for, and the site shows her signed in; Sign out ends the
// session (here and at the provider) and the site offers sign-in again,
// which shows the provider's login page anew. The status page passes
// axe-core.
func TestBrowserSignIn(t *testing.T) {
	s := startSite(t, testkit.OIDCProviderConfig{})
	ctx := testkit.Browser(t, 120*time.Second, chromedp.WindowSize(1280, 900))
	returnTo := s.srv.URL + "/hours/"
	if err := chromedp.Run(ctx,
		chromedp.Navigate(s.srv.URL+auth.LoginPath+"?return=/hours/"),
		chromedp.WaitVisible("#username", chromedp.ByQuery),
	); err != nil {
		t.Fatalf("the provider's login page: %v", err)
	}
	var at string
	if err := chromedp.Run(ctx, chromedp.Location(&at)); err != nil || !strings.HasPrefix(at, s.provider.Issuer+"/login") {
		t.Fatalf("the sign-in is at %q, not the provider's login page: %v", at, err)
	}
	testkit.Screenshot(t, ctx, "signin-provider-form")
	fillProviderLogin(t, ctx, "ann", "ann-pw")
	if at = waitLocation(ctx, returnTo); at != returnTo {
		t.Fatalf("after the provider's form the browser is at %q, want %s", at, returnTo)
	}

	var state string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(s.srv.URL+"/auth/"),
		chromedp.Text("#signin-state", &state, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if state != "Signed in as ann." {
		t.Errorf("the status page says %q", state)
	}
	testkit.Screenshot(t, ctx, "signin-status-1280")
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(390, 844)); err == nil {
		testkit.Screenshot(t, ctx, "signin-status-390")
		_ = chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900))
	}

	if err := chromedp.Run(ctx, chromedp.Click(`button[type="submit"]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.WaitVisible(`a.button[href$="/auth/login"]`, chromedp.ByQuery), chromedp.Location(&at), chromedp.Text("#signin-state", &state, chromedp.ByQuery)); err != nil || at != s.srv.URL+"/auth/" || state != "Not signed in." {
		t.Fatalf("after Sign out the browser is at %q, which says %q (%v)", at, state, err)
	}
	testkit.Screenshot(t, ctx, "signin-signed-out")
	if ended := s.provider.EndedSessions(); len(ended) != 1 || ended[0] != "ann" {
		t.Errorf("the provider's sessions ended: %q", ended)
	}
	// Sign in again: the provider asks again (its session ended too).
	if err := chromedp.Run(ctx,
		chromedp.Click(`a.button`, chromedp.ByQuery),
		chromedp.WaitVisible("#password", chromedp.ByQuery),
	); err != nil {
		t.Fatalf("signing in again does not show the provider's form: %v", err)
	}
	fillProviderLogin(t, ctx, "ann", "ann-pw")
	if at = waitLocation(ctx, s.srv.URL+"/"); at != s.srv.URL+"/" {
		t.Fatalf("signing in again from the status page lands at %q", at)
	}
	// Last, as it skips without axe-core (make test installs it).
	if err := chromedp.Run(ctx, chromedp.Navigate(s.srv.URL+"/auth/"), chromedp.Text("#signin-state", &state, chromedp.ByQuery)); err != nil || state != "Signed in as ann." {
		t.Fatalf("signed in again: %q %v", state, err)
	}
	testkit.Axe(t, ctx, "/auth/ signed in")
}

// waitLocation waits up to 20 s for the browser to be at want (through
// redirects and navigations) and returns where it is.
func waitLocation(ctx context.Context, want string) string {
	var at string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if err := chromedp.Run(ctx, chromedp.Location(&at)); err == nil && at == want {
			var ready string
			if chromedp.Run(ctx, chromedp.Evaluate(`document.readyState`, &ready)) == nil && ready == "complete" {
				return at
			}
		}
	}
	return at
}

// fillProviderLogin signs in on the provider's login page the browser shows.
func fillProviderLogin(t *testing.T, ctx context.Context, username, password string) {
	t.Helper()
	if err := chromedp.Run(ctx,
		chromedp.SendKeys("#username", username, chromedp.ByQuery),
		chromedp.SendKeys("#password", password, chromedp.ByQuery),
		chromedp.Click("#submit", chromedp.ByQuery),
	); err != nil {
		t.Fatalf("the provider's login form: %v", err)
	}
}
