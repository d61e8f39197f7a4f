package hours_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/hours/schedule"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestEditorWithRealSignIn runs the editor against the binary signing in
// at a real OpenID Connect provider (testkit.StartOIDCProvider): a
// librarian opens /hours/admin/, signs in at the provider's login page,
// is sent back to the editor, changes Tuesday's hours of a location in
// the week grid, and the public page, the JSON:API and the iCalendar
// feed show the change; an editor of another library is given only that
// library and the API refuses her a write to this one.
func TestEditorWithRealSignIn(t *testing.T) {
	t.Parallel()
	users := []testkit.OIDCUser{
		{Username: "lena", Password: "lena-pw", Name: "Lena Librarian", Groups: []string{"green-hours"}},
		{Username: "omar", Password: "omar-pw", Name: "Omar Lawyer", Groups: []string{"law-hours"}},
	}
	p := testkit.StartOIDCProvider(t, testkit.OIDCProviderConfig{Users: users, ClientID: "sitesvc-test", ClientSecret: "test-secret-0123456789"})
	srv := testkit.StartServer(t, "--services", "hours",
		"--oidc-issuer", p.Issuer, "--oidc-client-id", "sitesvc-test", "--oidc-client-secret", "test-secret-0123456789",
		"--group-map", "green-hours=editor:green; law-hours=editor:law")
	p.AllowRedirect(srv.URL+auth.CallbackPath, srv.URL+"/auth/")
	base := srv.URL + "/hours"

	ctx := desktopBrowser(t, 120*time.Second)
	signIn := func(user, password string) {
		t.Helper()
		if err := chromedp.Run(ctx,
			chromedp.Navigate(base+"/admin/"),
			chromedp.Click(`a.button`, chromedp.ByQuery), // Sign in
			chromedp.WaitVisible(`#username`, chromedp.ByQuery),
			chromedp.SendKeys(`#username`, user, chromedp.ByQuery),
			chromedp.SendKeys(`#password`, password, chromedp.ByQuery),
			chromedp.Click(`#submit`, chromedp.ByQuery),
		); err != nil {
			t.Fatalf("signing in as %s: %v", user, err)
		}
		// The browser goes through the provider and the callback: poll
		// across those navigations until the editor's grid is there.
		deadline := time.Now().Add(20 * time.Second)
		for {
			var ready bool
			err := chromedp.Run(ctx, chromedp.Evaluate(`location.pathname === "/hours/admin/" && !!document.querySelector("button.cell")`, &ready))
			if err == nil && ready {
				break
			}
			if time.Now().After(deadline) {
				var at, text string
				_ = chromedp.Run(ctx, chromedp.Location(&at), chromedp.Evaluate(`document.body.innerText`, &text))
				t.Fatalf("after signing in as %s the browser is at %s (%v):\n%s", user, at, err, text)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	signIn("lena", "lena-pw")
	testkit.Axe(t, ctx, "editor after a real sign-in")

	// Tuesday of this week in Los Angeles (the binary's clock is real).
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatal(err)
	}
	tuesday := schedule.Week(schedule.Today(time.Now(), la)).From.AddDays(2).String()
	editCellShown(t, ctx, "reference", tuesday, "10a-4p", "the saved cell: %v")
	read := func(path string) string {
		t.Helper()
		resp, body := testkit.Get(t, base+path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		return string(body)
	}
	if doc := read("/libraries/green/locations/reference.json?from=" + tuesday); !strings.Contains(doc, `"opens_at":"`+tuesday+`T10:00:00.000`) || !strings.Contains(doc, `"type":"special"`) {
		t.Errorf("the JSON:API after the edit: %.600s", doc)
	}
	if html := read("/libraries/green.html?from=" + tuesday); !strings.Contains(html, "10:00 AM – 4:00 PM") {
		t.Error("the public page does not show 10:00 AM – 4:00 PM")
	}
	compact := strings.ReplaceAll(tuesday, "-", "")
	if feed := read("/libraries/green/locations/reference.ics"); !strings.Contains(feed, "DTSTART;TZID=America/Los_Angeles:"+compact+"T100000") || !strings.Contains(feed, "DTEND;TZID=America/Los_Angeles:"+compact+"T160000") {
		t.Error("the calendar feed does not have the 10:00–16:00 opening")
	}
	var changes string
	if err := chromedp.Run(ctx,
		chromedp.Click(`//nav//button[normalize-space()="Changes"]`, chromedp.BySearch),
		chromedp.WaitVisible(`.changes`, chromedp.ByQuery),
		chromedp.Text(`.changes tbody tr`, &changes, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(changes, "lena") || !strings.Contains(changes, "exceptions") {
		t.Errorf("the newest change: %q", changes)
	}

	// Sign out (the sign-in's confirmation), then Omar, an editor of Law.
	if err := chromedp.Run(ctx,
		chromedp.Navigate(srv.URL+auth.LogoutPath),
		chromedp.Click(`button[type="submit"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`a.button`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	signIn("omar", "omar-pw")
	var title, status string
	if err := chromedp.Run(ctx, chromedp.Text(`#view-title`, &title, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(title, "Law Library") {
		t.Errorf("Omar's editor shows %q", title)
	}
	js := `(() => { const csrf = document.querySelector('meta[name="csrf-token"]').content;
	  return fetch("` + base + `/libraries/green/locations/reference/exceptions", {method: "POST", credentials: "same-origin",
	    headers: {"Content-Type": "application/vnd.api+json", "X-CSRF-Token": csrf},
	    body: JSON.stringify({data: {type: "exceptions", attributes: {day: "` + tuesday + `", closed: true}}})}).then(r => String(r.status)); })()`
	if err := chromedp.Run(ctx, chromedp.Evaluate(js, &status, awaitPromise)); err != nil {
		t.Fatal(err)
	}
	if status != "403" {
		t.Errorf("Omar's session writing Green Library: %s, want 403", status)
	}
}

func awaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }
