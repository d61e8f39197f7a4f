package hours_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/hours"
	"github.com/sitelib/sitesvc/impl/hours/admin/admintest"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// editorEnv is the Hours service on a real listener at /hours (so the
// editor's script reads and writes its own origin), with test sessions.
type editorEnv struct {
	url      string // the site, "http://127.0.0.1:…"
	base     string // the Hours base URL, url + "/hours"
	sessions *admintest.Sessions
	writes   atomic.Int64 // JSON:API writes the service was sent
}

func newEditorEnv(t *testing.T, sessions *admintest.Sessions) *editorEnv {
	t.Helper()
	e := &editorEnv{sessions: sessions}
	var handler atomic.Pointer[http.Handler]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, ok := strings.CutPrefix(r.URL.Path, "/hours")
		if !ok {
			http.NotFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			e.writes.Add(1)
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path, r2.URL.RawPath = rest, ""
		(*handler.Load()).ServeHTTP(w, r2)
	}))
	t.Cleanup(srv.Close)
	e.url, e.base = srv.URL, srv.URL+"/hours"
	cfg := hours.Config{BaseURL: e.base, DB: storetestSQLite(t), SampleData: true, Now: func() time.Time { return testNow }}
	if sessions != nil {
		cfg.Sessions = sessions
	}
	svc, err := hours.New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	h := svc.Handler()
	handler.Store(&h)
	return e
}

// get reads a JSON:API document of the service.
func (e *editorEnv) get(t *testing.T, path string, into any) {
	t.Helper()
	resp, err := http.Get(e.base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}

// editorDay is one day of a location as the JSON:API gives it.
type editorDay struct {
	Closed  bool   `json:"closed"`
	Open24  bool   `json:"open_24h"`
	Type    string `json:"type"`
	Periods []struct {
		Opens  string `json:"opens_at"`
		Closes string `json:"closes_at"`
	} `json:"periods"`
}

func (e *editorEnv) day(t *testing.T, lib, loc, date string) editorDay {
	t.Helper()
	var doc struct {
		Data struct {
			Attributes struct {
				Hours []editorDay `json:"hours"`
			} `json:"attributes"`
		} `json:"data"`
	}
	e.get(t, "/libraries/"+lib+"/locations/"+loc+".json?from="+date, &doc)
	if len(doc.Data.Attributes.Hours) != 1 {
		t.Fatalf("%s/%s on %s: %d days", lib, loc, date, len(doc.Data.Attributes.Hours))
	}
	return doc.Data.Attributes.Hours[0]
}

func (d editorDay) String() string {
	switch {
	case d.Closed:
		return "closed " + d.Type
	case d.Open24:
		return "24h " + d.Type
	}
	var parts []string
	for _, p := range d.Periods {
		parts = append(parts, p.Opens[11:16]+"-"+p.Closes[11:16])
	}
	return strings.Join(parts, ",") + " " + d.Type
}

// openEditor signs p in and opens the editor in ctx at hash.
func (e *editorEnv) openEditor(t *testing.T, ctx context.Context, p auth.Principal, hash string) (cookie, csrf string) {
	t.Helper()
	cookie, csrf = e.sessions.Add(p)
	if err := admintest.SignIn(ctx, e.url, cookie); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(e.base+"/admin/"+hash)); err != nil {
		t.Fatal(err)
	}
	if err := testkit.WaitJS(ctx, `!!document.querySelector("#view-title")`, 20*time.Second); err != nil {
		var text string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`document.body.innerText`, &text))
		t.Fatalf("the editor did not show a view: %v\n%s", err, text)
	}
	return cookie, csrf
}

// editCell opens the cell of loc on date with the keyboard, types text
// and presses Enter.
func editCell(t *testing.T, ctx context.Context, loc, date, text string) {
	t.Helper()
	sel := `button.cell[data-location="` + loc + `"][data-day="` + date + `"]`
	if err := chromedp.Run(ctx,
		chromedp.Focus(sel, chromedp.ByQuery),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(`td input[type=text]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.activeElement.value = ""`, nil),
		chromedp.SendKeys(`td input[type=text]`, text, chromedp.ByQuery),
		chromedp.ActionFunc(func(ctx context.Context) error {
			return input.DispatchKeyEvent(input.KeyDown).WithKey("Enter").WithCode("Enter").WithWindowsVirtualKeyCode(13).Do(ctx)
		}),
	); err != nil {
		t.Fatalf("editing %s %s: %v", loc, date, err)
	}
}

// TestEditorWeekGrid is issue 19.3's week grid in headless Chromium: an
// editor of Green Library signs in, edits cells in place with the
// keyboard (a day's hours, overnight hours, closed), sees a bad entry
// refused at the cell with nothing sent, and the JSON:API shows every
// change; the editor offers only Green Library and the API refuses its
// session a write to another library and a write without the CSRF token.
func TestEditorWeekGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("browser test")
	}
	sessions := admintest.NewSessions()
	e := newEditorEnv(t, sessions)
	ctx := testkit.Browser(t, 120*time.Second, chromedp.WindowSize(1280, 900))
	if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(1280, 900, 1, false)); err != nil {
		t.Fatal(err)
	}
	cookie, csrf := e.openEditor(t, ctx, auth.Principal{Name: "gina", Roles: []string{"editor:green"}}, "")
	testkit.Axe(t, ctx, "editor week grid")

	var title, options, todayHead string
	if err := chromedp.Run(ctx,
		chromedp.Text(`#view-title`, &title, chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#library-pick option")).map(o => o.value).join(",")`, &options),
		chromedp.Text(`th[aria-current="date"]`, &todayHead, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	// testNow is Wednesday 4 March 2026 in Los Angeles.
	if title != "Week of Sunday 1 Mar 2026 — Green Library" || todayHead != "Wed 4 Mar (today)" {
		t.Errorf("grid title %q, today's column %q", title, todayHead)
	}
	if options != "" {
		t.Errorf("an editor of one library is offered a library picker: %q", options)
	}

	// Tuesday: 9a-5p for the Reference Desk (a lunch break normally).
	editCell(t, ctx, "reference", "2026-03-03", "9a-5p")
	if err := testkit.WaitJS(ctx, `(b => b && b.textContent.startsWith("9a-5p"))(document.querySelector('button.cell[data-location="reference"][data-day="2026-03-03"]'))`, 10*time.Second); err != nil {
		t.Fatalf("the cell does not show the saved hours: %v", err)
	}
	if got := e.day(t, "green", "reference", "2026-03-03").String(); got != "09:00-17:00 special" {
		t.Errorf("after 9a-5p the API says %s", got)
	}
	testkit.Screenshot(t, ctx, "hours-editor-week-1280")

	// A bad entry: the reason at the cell, nothing sent.
	before := e.writes.Load()
	editCell(t, ctx, "stacks", "2026-03-05", "9a-5x")
	var errText, invalid string
	if err := chromedp.Run(ctx,
		chromedp.WaitVisible(`.cell-error`, chromedp.ByQuery),
		chromedp.Text(`.cell-error`, &errText, chromedp.ByQuery),
		chromedp.AttributeValue(`td input[type=text]`, "aria-invalid", &invalid, nil, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errText, `"5x" is not a time`) || invalid != "true" {
		t.Errorf("bad entry: error %q, aria-invalid %q", errText, invalid)
	}
	if e.writes.Load() != before {
		t.Error("a bad entry was sent to the API")
	}
	testkit.Screenshot(t, ctx, "hours-editor-bad-entry")
	// Escape leaves the cell as it was.
	if err := chromedp.Run(ctx, chromedp.KeyEvent("\x1b")); err != nil {
		t.Fatal(err)
	}

	// Overnight, then closed; the API checks what the parser cannot
	// (an exception may not overlap itself).
	editCell(t, ctx, "stacks", "2026-03-06", "10p-2a")
	if err := testkit.WaitJS(ctx, `(b => b && b.textContent.startsWith("10p-2a"))(document.querySelector('button.cell[data-location="stacks"][data-day="2026-03-06"]'))`, 10*time.Second); err != nil {
		t.Fatalf("overnight not shown: %v", err)
	}
	if got := e.day(t, "green", "stacks", "2026-03-06").String(); got != "22:00-02:00 special" {
		t.Errorf("after 10p-2a the API says %s", got)
	}
	editCell(t, ctx, "stacks", "2026-03-06", "closed")
	if err := testkit.WaitJS(ctx, `(b => b && b.textContent.startsWith("closed"))(document.querySelector('button.cell[data-location="stacks"][data-day="2026-03-06"]'))`, 10*time.Second); err != nil {
		t.Fatalf("closed not shown: %v", err)
	}
	if got := e.day(t, "green", "stacks", "2026-03-06").String(); got != "closed holiday" {
		t.Errorf("after closed the API says %s", got)
	}

	// Next week and back with the buttons; a date far away by the jump box.
	var title2 string
	if err := chromedp.Run(ctx,
		chromedp.Click(`//button[normalize-space()="Next week →"]`, chromedp.BySearch),
		chromedp.Poll(`(h => h && h.textContent.startsWith("Week of Sunday 8 Mar"))(document.querySelector("#view-title"))`, nil),
		chromedp.SetValue(`#jump`, "2026-12-24", chromedp.ByID),
		chromedp.Click(`.jump button`, chromedp.ByQuery),
		chromedp.Poll(`(h => h && h.textContent.startsWith("Week of Sunday 20 Dec"))(document.querySelector("#view-title"))`, nil),
		chromedp.Text(`#view-title`, &title2, chromedp.ByQuery),
	); err != nil {
		t.Fatalf("week navigation: %v", err)
	}

	// The session may not write another library, nor write without the
	// page's CSRF token: the same edge as bearer tokens.
	var status int
	script := func(path, token string) string {
		return `fetch("` + e.base + path + `", {method: "POST", credentials: "same-origin", headers: {"Content-Type": "application/vnd.api+json", "X-CSRF-Token": "` + token + `"},
			body: JSON.stringify({data: {type: "exceptions", attributes: {day: "2026-03-10", closed: true}}})}).then(r => r.status)`
	}
	for _, c := range []struct {
		path, token string
		want        int
	}{
		{"/libraries/law/locations/main/exceptions", csrf, http.StatusForbidden},
		{"/libraries/green/locations/stacks/exceptions", "", http.StatusForbidden},
		{"/libraries/green/locations/stacks/exceptions", "wrong", http.StatusForbidden},
	} {
		if err := chromedp.Run(ctx, chromedp.Evaluate(script(c.path, c.token), &status, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })); err != nil {
			t.Fatal(err)
		}
		if status != c.want {
			t.Errorf("session POST %s with CSRF %q: %d, want %d", c.path, c.token, status, c.want)
		}
	}
	if got := e.day(t, "law", "main", "2026-03-10").String(); strings.HasPrefix(got, "closed") {
		t.Errorf("a refused write changed law/main: %s", got)
	}
	_ = cookie
}
