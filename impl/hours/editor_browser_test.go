package hours_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/hours"
	"github.com/sitelib/sitesvc/impl/hours/admin/admintest"
	"github.com/sitelib/sitesvc/impl/hours/page/browsercheck"
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
	resp, body := testkit.Get(t, e.base+path)
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

// day reads lib/loc's hours on date.
func (e *editorEnv) day(t *testing.T, lib, loc, date string) editorDay {
	t.Helper()
	return hoursOn[editorDay](t, func(path string, into any) { e.get(t, path, into) }, lib+"/locations/"+loc, date)
}

// wantDay fails the test unless the API gives lib/loc on date as want
// (editorDay.String); failure is the message, its %s the day's hours.
func (e *editorEnv) wantDay(t *testing.T, lib, loc, date, want, failure string) {
	t.Helper()
	if got := e.day(t, lib, loc, date).String(); got != want {
		t.Errorf(failure+" (want %s)", got, want)
	}
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

// desktopBrowser is a browser showing pages on a 1280×900 screen, for at
// most limit.
func desktopBrowser(t *testing.T, limit time.Duration) context.Context {
	t.Helper()
	ctx := testkit.Browser(t, limit, chromedp.WindowSize(1280, 900))
	if err := chromedp.Run(ctx, emulation.SetDeviceMetricsOverride(1280, 900, 1, false)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// previewCSV pastes csv into the editor's import box and asks for the
// preview, which must say preview.
func previewCSV(t *testing.T, ctx context.Context, csv, preview string) {
	t.Helper()
	actThenWait(t, ctx, "#csv-preview", preview,
		chromedp.Evaluate(`document.querySelector("#csv-text").value = `+jsString(csv), nil),
		chromedp.Click(`//button[normalize-space()="Preview import"]`, chromedp.BySearch),
	)
}

// writeCSV writes the previewed import, whose status must then say status.
func writeCSV(t *testing.T, ctx context.Context, status string) {
	t.Helper()
	actThenWait(t, ctx, "#csv-preview .status", status, chromedp.Click(`#csv-preview p button`, chromedp.ByQuery))
}

// newBrowserEditorEnv is the editor with test sessions (e.sessions) for a
// browser test.
func newBrowserEditorEnv(t *testing.T) *editorEnv {
	t.Helper()
	return newEditorEnv(t, admintest.NewSessions())
}

// editCellShown is editCell, then waits for the cell to show text (saved);
// failure says what failed, its %v the wait's error.
func editCellShown(t *testing.T, ctx context.Context, loc, date, text, failure string) {
	t.Helper()
	editCell(t, ctx, loc, date, text)
	cell := `document.querySelector('button.cell[data-location="` + loc + `"][data-day="` + date + `"]')`
	if err := testkit.WaitJS(ctx, `(b => b && b.querySelector(".hours").textContent === `+jsString(text)+`)(`+cell+`)`, 10*time.Second); err != nil {
		t.Fatalf(failure, err)
	}
}

// editCell opens the cell of loc on date with the keyboard, types text
// and presses Enter.
func editCell(t *testing.T, ctx context.Context, loc, date, text string) {
	t.Helper()
	sel := `button.cell[data-location="` + loc + `"][data-day="` + date + `"]`
	// The grid may be drawn again (its data arriving) between finding the
	// cell and pressing Enter on it: the node the browser found is then
	// gone, and the cell of the new grid is opened instead.
	for attempt := 1; ; attempt++ {
		err := chromedp.Run(ctx,
			chromedp.Focus(sel, chromedp.ByQuery),
			chromedp.KeyEvent("\r"),
			chromedp.WaitVisible(`td input[type=text]`, chromedp.ByQuery),
		)
		if err == nil {
			break
		}
		if attempt == 3 || !strings.Contains(err.Error(), "Could not find node") {
			t.Fatalf("opening %s %s: %v", loc, date, err)
		}
	}
	if err := chromedp.Run(ctx,
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
	t.Parallel()
	e := newBrowserEditorEnv(t)
	ctx := desktopBrowser(t, 120*time.Second)
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
	editCellShown(t, ctx, "reference", "2026-03-03", "9a-5p", "the cell does not show the saved hours: %v")
	e.wantDay(t, "green", "reference", "2026-03-03", "09:00-17:00 special", "after 9a-5p the API says %s")
	testkit.Screenshot(t, ctx, "hours-editor-week-1280")
	// Back to the regular hours: the exception is deleted.
	if err := chromedp.Run(ctx,
		chromedp.Click(`button.cell[data-location="reference"][data-day="2026-03-03"]`, chromedp.ByQuery),
		chromedp.Click(`//button[normalize-space()="Regular hours"]`, chromedp.BySearch),
	); err != nil {
		t.Fatal(err)
	}
	if err := testkit.WaitJS(ctx, `(b => b && b.querySelector(".hours").textContent === "9a-12p, 1p-5p")(document.querySelector('button.cell[data-location="reference"][data-day="2026-03-03"]'))`, 10*time.Second); err != nil {
		t.Fatalf("after Regular hours: %v", err)
	}
	e.wantDay(t, "green", "reference", "2026-03-03", "09:00-12:00,13:00-17:00 regular", "after Regular hours the API says %s")

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
	var cellText string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector("td input[type=text]").closest("td").innerText`, &cellText)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(cellText, "null") {
		t.Errorf("the cell being edited shows %q", cellText)
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
	editCellShown(t, ctx, "stacks", "2026-03-06", "10p-2a", "overnight not shown: %v")
	e.wantDay(t, "green", "stacks", "2026-03-06", "22:00-02:00 special", "after 10p-2a the API says %s")
	editCellShown(t, ctx, "stacks", "2026-03-06", "closed", "closed not shown: %v")
	e.wantDay(t, "green", "stacks", "2026-03-06", "closed holiday", "after closed the API says %s")

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

	// The session ends (signed out in another tab): the next edit says so
	// at the cell and offers to sign in again; nothing is saved.
	e.sessions.End(cookie)
	if err := chromedp.Run(ctx,
		chromedp.Click(`//button[normalize-space()="This week"]`, chromedp.BySearch),
		chromedp.Poll(`(h => h && h.textContent.startsWith("Week of Sunday 1 Mar"))(document.querySelector("#view-title"))`, nil),
	); err != nil {
		t.Fatal(err)
	}
	editCell(t, ctx, "special-collections", "2026-03-05", "9a-1p")
	waitText(t, ctx, ".cell-error", "You are no longer signed in, so nothing was saved")
	var login string
	if err := chromedp.Run(ctx, chromedp.AttributeValue(`#signed-out a`, "href", &login, nil, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if login != e.url+"/auth/login?return="+url.QueryEscape(e.base+"/admin/") {
		t.Errorf("sign in again at %q", login)
	}
	e.wantDay(t, "green", "special-collections", "2026-03-05", "10:00-17:00 regular", "an edit after the session ended changed the day: %s")
}

// TestEditorParser runs the editor's hours parser (admin.js, in the page)
// over what people type: each accepted text gives the periods the
// JSON:API takes, each refused one a reason.
func TestEditorParser(t *testing.T) {
	t.Parallel()
	e := newBrowserEditorEnv(t)
	ctx := testkit.Browser(t, 60*time.Second)
	e.openEditor(t, ctx, auth.Principal{Name: "ada", Roles: []string{auth.RoleAdmin}}, "")
	for text, want := range map[string]string{
		"9a-5p":               "09:00-17:00",
		"9:30am-1pm, 2pm-6pm": "09:30-13:00,14:00-18:00",
		"9:30AM – 1PM; 2-6pm": "09:30-13:00,14:00-18:00",
		"closed":              "closed",
		"Closed":              "closed",
		"24h":                 "24h",
		"24 hours":            "24h",
		"10p-2a":              "22:00-02:00",
		"10pm-2":              "22:00-02:00",
		"9-5":                 "09:00-17:00",
		"9-5p":                "09:00-17:00",
		"1-5pm":               "13:00-17:00",
		"12-1p":               "12:00-13:00",
		"noon-midnight":       "12:00-00:00",
		"09:00-17:00":         "09:00-17:00",
		"8 to 22":             "08:00-22:00",
		"7a-9a, 6p-2a":        "07:00-09:00,18:00-02:00",
		"":                    `error:type the hours`,
		"9a-5x":               `error:"5x" is not a time`,
		"9a":                  `error:"9a" is not a range of hours`,
		"8-10":                `error:could be morning or evening`,
		"9a-9a":               `error:opens and closes at the same time`,
		"10p-2a, 9a-5p":       `error:only the last opening of a day may run past midnight`,
		"9a-1p, 12p-5p":       `error:starts before "9a-1p" ends`,
		"25:00-26:00":         `error:the hour is 0 to 23`,
		"13pm-2pm":            `error:with am or pm the hour is 1 to 12`,
		"9:75a-5p":            `error:minutes go up to 59`,
		"6a-7a,8a-9a,10a-11a,12p-1p,2p-3p,4p-5p,6p-7p": `error:at most 6 openings`,
		"4a-10a, 8p-6a": `error:past this day's first opening`,
	} {
		var got string
		js := `(() => { try { const h = HoursEditor.parseHours(` + jsString(text) + `); return h.closed ? "closed" : h.open24 ? "24h" : h.periods.join(","); } catch (e) { return "error:" + e.message; } })()`
		if err := chromedp.Run(ctx, chromedp.Evaluate(js, &got)); err != nil {
			t.Fatal(err)
		}
		if got != want && !(strings.HasPrefix(want, "error:") && strings.HasPrefix(got, "error:") && strings.Contains(got, strings.TrimPrefix(want, "error:"))) {
			t.Errorf("parseHours(%q) = %q, want %q", text, got, want)
		}
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// showView clicks the editor's section button and waits for its heading.
func showView(t *testing.T, ctx context.Context, button, heading string) {
	t.Helper()
	if err := chromedp.Run(ctx,
		chromedp.Click(`//nav//button[normalize-space()="`+button+`"]`, chromedp.BySearch),
	); err != nil {
		t.Fatalf("opening %s: %v", button, err)
	}
	if err := testkit.WaitJS(ctx, `(h => h && h.textContent === `+jsString(heading)+`)(document.querySelector("#view-title"))`, 10*time.Second); err != nil {
		t.Fatalf("%s: no heading %q: %v", button, heading, err)
	}
	testkit.Axe(t, ctx, "editor: "+button)
}

// actThenWait runs actions (a step in a form) and waits until the element
// sel holds text containing want (the step's outcome).
func actThenWait(t *testing.T, ctx context.Context, sel, want string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, sel, want)
}

// waitText waits until the element sel holds text containing want.
func waitText(t *testing.T, ctx context.Context, sel, want string) {
	t.Helper()
	if err := testkit.WaitJS(ctx, `Array.from(document.querySelectorAll(`+jsString(sel)+`)).some(n => n.textContent.includes(`+jsString(want)+`))`, 10*time.Second); err != nil {
		var text string
		_ = chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector("main").innerText`, &text))
		t.Fatalf("no %q in %s: %v\n%s", want, sel, err, text)
	}
}

// TestEditorSections drives the editor's other sections as an admin:
// term hours (a bad weekday refused where it is typed, nothing sent),
// terms, a holiday for every location, the library and location forms,
// CSV import (a file with a bad row previews every row and writes
// nothing; a good one writes every change) and the changes list; each
// section is checked with axe-core, and the page at 390 px.
func TestEditorSections(t *testing.T) {
	t.Parallel()
	e := newBrowserEditorEnv(t)
	ctx := desktopBrowser(t, 180*time.Second)
	e.openEditor(t, ctx, auth.Principal{Name: "ada", Roles: []string{auth.RoleAdmin}}, "#library=green&view=week")
	var options string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`Array.from(document.querySelectorAll("#library-pick option")).map(o => o.value).join(",")`, &options)); err != nil {
		t.Fatal(err)
	}
	if options != "capital,east-asia,engineering,green,law,medical,music" {
		t.Errorf("an admin is offered %q", options)
	}

	// Term hours: Tuesday 24h, Monday mistyped first.
	showView(t, ctx, "Term hours", "Term hours")
	if err := chromedp.Run(ctx,
		chromedp.WaitVisible(`#wd-Monday`, chromedp.ByID),
		chromedp.SetValue(`#loc-pick`, "stacks", chromedp.ByID),
		chromedp.Evaluate(`document.querySelector("#loc-pick").dispatchEvent(new Event("change"))`, nil),
		chromedp.Sleep(300*time.Millisecond),
		chromedp.WaitVisible(`#wd-Monday`, chromedp.ByID),
		chromedp.SetValue(`#wd-Tuesday`, "24h", chromedp.ByID),
		chromedp.SetValue(`#wd-Monday`, "8a-8x", chromedp.ByID),
	); err != nil {
		t.Fatal(err)
	}
	before := e.writes.Load()
	actThenWait(t, ctx, "#wd-Monday-err", `"8x" is not a time`, chromedp.Click(`form.weekly button[type=submit]`, chromedp.ByQuery))
	var described string
	if err := chromedp.Run(ctx, chromedp.AttributeValue(`#wd-Monday`, "aria-describedby", &described, nil, chromedp.ByID)); err != nil {
		t.Fatal(err)
	}
	if described != "wd-Monday-err" {
		t.Errorf("Monday's input is described by %q, not its error", described)
	}
	if e.writes.Load() != before {
		t.Error("term hours with a bad weekday were sent")
	}
	testkit.Screenshot(t, ctx, "hours-editor-term")
	actThenWait(t, ctx, "form.weekly .status", "Saved.",
		chromedp.SetValue(`#wd-Monday`, "8a-8p", chromedp.ByID),
		chromedp.Click(`form.weekly button[type=submit]`, chromedp.ByQuery),
	)
	e.wantDay(t, "green", "stacks", "2026-03-10", "24h regular", "Tuesday after term hours: %s")
	e.wantDay(t, "green", "stacks", "2026-03-09", "08:00-20:00 regular", "Monday after term hours: %s")

	// Terms and a holiday for every location.
	showView(t, ctx, "Terms and holidays", "Terms and holidays")
	actThenWait(t, ctx, ".list td", "Summer 2026",
		chromedp.SendKeys(`#term-name`, "Summer 2026", chromedp.ByID),
		chromedp.SetValue(`#term-first`, "2026-06-20", chromedp.ByID),
		chromedp.SetValue(`#term-last`, "2026-09-20", chromedp.ByID),
		chromedp.Click(`//button[normalize-space()="Add term"]`, chromedp.BySearch),
	)
	actThenWait(t, ctx, ".list td", "Independence Day",
		chromedp.SetValue(`#ex-day`, "2026-07-04", chromedp.ByID),
		chromedp.SendKeys(`#ex-notes`, "Independence Day", chromedp.ByID),
		chromedp.Click(`//button[normalize-space()="Add"]`, chromedp.BySearch),
	)
	for _, loc := range []string{"stacks", "lobby", "reference", "special-collections"} {
		if got := e.day(t, "green", loc, "2026-07-04").String(); got != "closed holiday" {
			t.Errorf("%s on 4 July: %s", loc, got)
		}
	}
	testkit.Screenshot(t, ctx, "hours-editor-terms")

	// The library and a new location.
	showView(t, ctx, "Library and locations", "Library and locations")
	if err := chromedp.Run(ctx,
		chromedp.SetValue(`#lib-name`, "Cecil H. Green Library", chromedp.ByID),
		chromedp.Click(`//button[normalize-space()="Save library"]`, chromedp.BySearch),
	); err != nil {
		t.Fatal(err)
	}
	if err := testkit.WaitJS(ctx, `(o => o && o.textContent === "Cecil H. Green Library")(document.querySelector('#library-pick option[value="green"]'))`, 10*time.Second); err != nil {
		t.Fatalf("renamed library not shown: %v", err)
	}
	showView(t, ctx, "Library and locations", "Library and locations")
	if err := chromedp.Run(ctx,
		chromedp.SendKeys(`#loc-name-new`, "Media Lab", chromedp.ByID),
		chromedp.SendKeys(`#loc-slug-new`, "media-lab", chromedp.ByID),
		chromedp.Click(`//button[normalize-space()="Add location"]`, chromedp.BySearch),
	); err != nil {
		t.Fatal(err)
	}
	if err := testkit.WaitJS(ctx, `!!document.querySelector("#loc-name-media-lab")`, 10*time.Second); err != nil {
		t.Fatalf("new location not listed: %v", err)
	}
	var lib struct {
		Data struct {
			Attributes struct{ Name string } `json:"attributes"`
		} `json:"data"`
		Included []struct{ ID string } `json:"included"`
	}
	e.get(t, "/libraries/green.json", &lib)
	if lib.Data.Attributes.Name != "Cecil H. Green Library" || len(lib.Included) != 5 {
		t.Errorf("after the forms: %+v", lib)
	}

	// CSV: a file with a bad row writes nothing; then a good one.
	showView(t, ctx, "CSV", "CSV export and import")
	bad := "location,date,hours,type,notes\r\nstacks,2026-03-12,9a-1p,,Short day\r\nnowhere,2026-03-12,9a-5p,,\r\nreference,2026-03-13,9a-5x,,\r\n"
	previewCSV(t, ctx, bad, "2 of 3 rows have errors")
	var rows, disabled string
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#csv-preview tbody tr")).map(r => r.lastChild.textContent).join(" | ")`, &rows),
		chromedp.Evaluate(`String(document.querySelector("#csv-preview p button").disabled)`, &disabled),
	); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(rows, "Change | Error: no location \"nowhere\"") || !strings.Contains(rows, `Error: "5x" is not a time`) || disabled != "true" {
		t.Errorf("preview of a bad file: %q, write disabled %s", rows, disabled)
	}
	testkit.Screenshot(t, ctx, "hours-editor-csv-preview")
	good := "location,date,hours,type,notes\r\nstacks,2026-03-12,9a-1p,,Short day\r\nreference,2026-03-13,closed,closure,\"Inventory, all day\"\r\nlobby,2026-03-12,24h,regular,\r\n"
	previewCSV(t, ctx, good, "2 of 3 rows change hours; 1 change nothing.")
	writeCSV(t, ctx, "Written: 2 changes.")
	e.wantDay(t, "green", "stacks", "2026-03-12", "09:00-13:00 special", "stacks after the import: %s")
	e.wantDay(t, "green", "reference", "2026-03-13", "closed closure", "reference after the import: %s")

	// Changes: the audit log names the admin's writes, newest first.
	showView(t, ctx, "Changes", "Changes")
	waitText(t, ctx, ".changes td", "ada")
	var first string
	if err := chromedp.Run(ctx, chromedp.Text(`.changes tbody tr td:nth-child(4)`, &first, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first, "exceptions ") {
		t.Errorf("newest change is %q, want the import's exception", first)
	}
	testkit.Screenshot(t, ctx, "hours-editor-changes")

	// At 390 px: no sideways scrolling of the page (the week shows one
	// location, days as rows: TestEditorPhoneWeek), axe-core.
	phone := browsercheck.Phone(t)
	cookie, _ := e.sessions.Add(auth.Principal{Name: "gina", Roles: []string{"editor:green"}})
	if err := admintest.SignIn(phone, e.url, cookie); err != nil {
		t.Fatal(err)
	}
	browsercheck.CheckScripted(phone, t, e.base+"/admin/")
	if err := testkit.WaitJS(phone, `!!document.querySelector("button.cell")`, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	var scrollWidth int
	if err := chromedp.Run(phone, chromedp.Evaluate(`document.documentElement.scrollWidth`, &scrollWidth)); err != nil {
		t.Fatal(err)
	}
	if scrollWidth > browsercheck.Width {
		t.Errorf("the editor is %d px wide at %d px", scrollWidth, browsercheck.Width)
	}
	testkit.Axe(t, phone, "editor at 390 px")
	testkit.Screenshot(t, phone, "hours-editor-390")
}

// TestEditorPageStates: without sign-in configured, signed out, signed in
// without an hours role, and signed in; the page is private and carries
// the session's CSRF token only when signed in.
func TestEditorPageStates(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, e *editorEnv, cookie string, status int, wants ...string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, e.base+"/admin/", nil)
		if cookie != "" {
			admintest.Request(req, cookie, "")
		}
		resp, body := testkit.Do(t, nil, req)
		if resp.StatusCode != status || resp.Header.Get("Cache-Control") != "private, no-store" || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("GET /admin/: %d %q %q, want %d", resp.StatusCode, resp.Header.Get("Cache-Control"), resp.Header.Get("Content-Security-Policy"), status)
		}
		for _, want := range wants {
			if !strings.Contains(string(body), want) {
				t.Errorf("GET /admin/ lacks %s:\n%s", want, body)
			}
		}
	}
	t.Run("not configured", func(t *testing.T) {
		e := newEditorEnv(t, nil)
		check(t, e, "", http.StatusOK, "Sign-in is not configured", `href="https://github.com/sitelib/sitesvc/blob/main/docs/hours.md#staff-editor"`)
	})
	sessions := admintest.NewSessions()
	e := newEditorEnv(t, sessions)
	t.Run("signed out", func(t *testing.T) {
		check(t, e, "", http.StatusUnauthorized, `href="`+e.url+`/auth/login?return=`+url.QueryEscape(e.base+"/admin/")+`"`)
	})
	t.Run("no role", func(t *testing.T) {
		cookie, _ := sessions.Add(auth.Principal{Name: "pat", Roles: []string{"group:staff"}})
		check(t, e, cookie, http.StatusForbidden, "You may not edit hours", "Signed in as <strong>pat</strong>")
	})
	t.Run("editor", func(t *testing.T) {
		cookie, csrf := sessions.Add(auth.Principal{Name: "gina", Roles: []string{"editor:green"}})
		check(t, e, cookie, http.StatusOK, `<meta name="csrf-token" content="`+csrf+`">`, `data-libraries="green"`, `<script src="admin.js"></script>`)
	})
	t.Run("redirect and assets", func(t *testing.T) {
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := client.Get(e.base + "/admin")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != e.base+"/admin/" {
			t.Errorf("GET /admin: %d %q", resp.StatusCode, resp.Header.Get("Location"))
		}
		for path, ct := range map[string]string{"/admin/admin.js": "text/javascript; charset=utf-8", "/admin/admin.css": "text/css; charset=utf-8"} {
			if resp, _ := testkit.Get(t, e.base+path); resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != ct {
				t.Errorf("GET %s: %d %q", path, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
		}
		resp, err = http.Post(e.base+"/admin/", "text/plain", strings.NewReader("x"))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("POST /admin/: %d", resp.StatusCode)
		}
	})
}

// TestEditorImportAllOrNothing: an exported CSV imported back changes
// nothing; a CSV whose rows all pass the preview but
// one of which the API refuses (a time skipped by the spring-forward)
// writes nothing (the rows go in one JSON:API Atomic Operations request,
// one transaction); the good rows alone are then written together.
func TestEditorImportAllOrNothing(t *testing.T) {
	t.Parallel()
	e := newBrowserEditorEnv(t)
	ctx := testkit.Browser(t, 60*time.Second)
	e.openEditor(t, ctx, auth.Principal{Name: "gina", Roles: []string{"editor:green"}}, "#view=csv")
	// Export four weeks, then import the file unchanged: every row
	// previews as no change.
	downloads := t.TempDir()
	if err := chromedp.Run(ctx,
		browser.SetDownloadBehavior(browser.SetDownloadBehaviorBehaviorAllow).WithDownloadPath(downloads),
		chromedp.Click(`//button[normalize-space()="Export CSV"]`, chromedp.BySearch),
		chromedp.WaitVisible(`a[download]`, chromedp.ByQuery),
		chromedp.Click(`a[download]`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(downloads, "green-hours-2026-03-01-2026-03-28.csv")
	var exported string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if b, err := os.ReadFile(file); err == nil && len(b) > 0 {
			exported = string(b)
			break
		}
		if time.Now().After(deadline) {
			entries, _ := os.ReadDir(downloads)
			t.Fatalf("no %s downloaded (%v)", file, entries)
		}
	}
	lines := strings.Split(strings.TrimSpace(exported), "\r\n")
	// 4 locations keeping hours × 28 days, and the header.
	if len(lines) != 1+4*28 || lines[0] != "location,date,hours,type,notes" || !slices.Contains(lines, "stacks,2026-03-11,closed,closure,Closed for staff training") || !slices.Contains(lines, "reference,2026-03-02,\"9a-12p, 1p-5p\",regular,") {
		t.Errorf("exported %d lines:\n%.500s", len(lines), exported)
	}
	previewCSV(t, ctx, exported, "0 of 112 rows change hours; 112 change nothing.")

	before := e.day(t, "green", "stacks", "2026-03-12").String()
	csv := "location,date,hours\nstacks,2026-03-12,9a-1p\nstacks,2026-03-08,2:30a-5p\n"
	previewCSV(t, ctx, csv, "2 of 2 rows change hours")
	writeCSV(t, ctx, "Nothing was written: line 3:")
	if got := e.day(t, "green", "stacks", "2026-03-12").String(); got != before {
		t.Errorf("after a refused import stacks on 12 March is %s, was %s", got, before)
	}
	var exceptions struct {
		Data []struct {
			Attributes struct{ Day string } `json:"attributes"`
		} `json:"data"`
	}
	e.get(t, "/libraries/green/locations/stacks/exceptions.json", &exceptions)
	for _, x := range exceptions.Data {
		if x.Attributes.Day == "2026-03-12" || x.Attributes.Day == "2026-03-08" {
			t.Errorf("a refused import left an exception on %s", x.Attributes.Day)
		}
	}
	// The same rows without the refused one are written, together.
	csv = "location,date,hours\nstacks,2026-03-12,9a-1p\nreference,2026-03-13,closed\n"
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`document.querySelector("#csv-text").value = `+jsString(csv), nil),
		chromedp.Click(`//button[normalize-space()="Preview import"]`, chromedp.BySearch),
	); err != nil {
		t.Fatal(err)
	}
	// the refused preview also said "2 of 2 rows": wait for this one's own
	// row, and click its button (the old one was left disabled)
	waitText(t, ctx, "#csv-preview", "2026-03-13")
	actThenWait(t, ctx, "#csv-preview .status", "Written: 2 changes.", chromedp.Click(`#csv-preview p button:not([disabled])`, chromedp.ByQuery))
	if got := e.day(t, "green", "stacks", "2026-03-12").String(); got == before {
		t.Errorf("after a good import stacks on 12 March is still %s", got)
	}
	if got := e.day(t, "green", "reference", "2026-03-13"); !got.Closed {
		t.Errorf("after a good import reference on 13 March is %s, want closed", got.String())
	}
}

// TestEditorFormerSlugRole: a role naming a library's former slug still
// authorises it (docs: Legacy API), so the editor offers that library
// under its new slug and its edits are accepted.
func TestEditorFormerSlugRole(t *testing.T) {
	t.Parallel()
	e := newBrowserEditorEnv(t)
	admin, csrf := e.sessions.Add(auth.Principal{Name: "ada", Roles: []string{auth.RoleAdmin}})
	req, _ := http.NewRequest(http.MethodPatch, e.base+"/libraries/green", strings.NewReader(`{"data":{"type":"libraries","id":"green","attributes":{"slug":"cecil-green"}}}`))
	req.Header.Set("Content-Type", "application/vnd.api+json")
	resp, err := http.DefaultClient.Do(admintest.Request(req, admin, csrf))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("renaming green by a session write: %d", resp.StatusCode)
	}
	ctx := testkit.Browser(t, 60*time.Second)
	e.openEditor(t, ctx, auth.Principal{Name: "gina", Roles: []string{"editor:green"}}, "")
	var title string
	if err := chromedp.Run(ctx, chromedp.Text(`#view-title`, &title, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if title != "Week of Sunday 1 Mar 2026 — Green Library" {
		t.Errorf("an editor:green after the rename sees %q", title)
	}
	editCellShown(t, ctx, "stacks", "2026-03-05", "9a-1p", "the edit under the new slug: %v")
	e.wantDay(t, "cecil-green", "stacks", "2026-03-05", "09:00-13:00 special", "after the edit: %s")
}
