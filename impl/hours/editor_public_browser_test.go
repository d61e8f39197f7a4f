package hours_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/hours/page/browsercheck"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// editorPlace is what TestEditorPublicAndNote reads of a library or
// location through the JSON:API.
type editorPlace struct {
	Data struct {
		Attributes struct {
			AboutURL *string `json:"about_url"`
			Public   bool    `json:"public"`
			Note     *string `json:"note"`
		} `json:"attributes"`
	} `json:"data"`
}

// TestEditorPublicAndNote: the library and location forms have the about
// URL, public and note fields (issue 19.3) and write them through the
// JSON:API; a library made not public leaves the public list but stays in
// an admin's picker (marked) and in its editor's editor; a bad URL is
// refused with the API's reason and changes nothing.
func TestEditorPublicAndNote(t *testing.T) {
	t.Parallel()
	e := newBrowserEditorEnv(t)
	ctx := testkit.Browser(t, 120*time.Second, chromedp.WindowSize(1280, 900))
	e.openEditor(t, ctx, auth.Principal{Name: "ada", Roles: []string{auth.RoleAdmin}}, "#library=green&view=library")
	waitText(t, ctx, "#view-title", "Library and locations")
	testkit.Axe(t, ctx, "editor: library form with about, public, note")

	// The library: about URL, note, not public.
	if err := chromedp.Run(ctx,
		chromedp.SetValue(`#lib-about`, "https://library.example.edu/green", chromedp.ByID),
		chromedp.SetValue(`#lib-note`, "Closed to visitors during the June renovation.", chromedp.ByID),
		chromedp.Click(`#lib-public`, chromedp.ByID), // was ticked
		chromedp.Click(`//button[normalize-space()="Save library"]`, chromedp.BySearch),
	); err != nil {
		t.Fatal(err)
	}
	if err := testkit.WaitJS(ctx, `(o => o && o.textContent === "Green Library (not public)")(document.querySelector('#library-pick option[value="green"]'))`, 10*time.Second); err != nil {
		t.Fatalf("the picker does not mark green not public: %v", err)
	}
	var green editorPlace
	e.get(t, "/libraries/green.json", &green)
	if a := green.Data.Attributes; a.Public || a.AboutURL == nil || *a.AboutURL != "https://library.example.edu/green" || a.Note == nil || !strings.Contains(*a.Note, "June") {
		t.Errorf("green after the form: %+v", a)
	}
	var list listDoc
	e.get(t, "/libraries.json", &list)
	for _, l := range list.Data {
		if l.ID == "green" {
			t.Error("green, not public, is in the public list")
		}
	}

	// A fresh page still offers green to the admin, with its fields.
	actThenWait(t, ctx, "#view-title", "Library and locations", chromedp.Reload())
	var options, about string
	var ticked bool
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#library-pick option")).map(o => o.value).join(",")`, &options),
		chromedp.Value(`#lib-about`, &about, chromedp.ByID),
		chromedp.Evaluate(`document.querySelector("#lib-public").checked`, &ticked),
	); err != nil {
		t.Fatal(err)
	}
	if options != "capital,east-asia,engineering,green,law,medical,music" || about != "https://library.example.edu/green" || ticked {
		t.Errorf("reopened: libraries %q, about %q, public ticked %v", options, about, ticked)
	}

	// A bad URL: the API's reason, nothing changed.
	actThenWait(t, ctx, "form .status", "http or https",
		chromedp.SetValue(`#lib-about`, "javascript:alert(1)", chromedp.ByID),
		chromedp.Click(`//button[normalize-space()="Save library"]`, chromedp.BySearch),
	)
	e.get(t, "/libraries/green.json", &green)
	if a := green.Data.Attributes; a.AboutURL == nil || *a.AboutURL != "https://library.example.edu/green" {
		t.Errorf("green after a refused URL: %+v", a)
	}

	// A location: note and not public.
	actThenWait(t, ctx, "#announce", "Location saved",
		chromedp.SetValue(`#loc-reference-note`, "Staffed by volunteers", chromedp.ByID),
		chromedp.Click(`#loc-reference-public`, chromedp.ByID),
		chromedp.Click(`form[aria-label="Location Reference Desk"] button[type=submit]`, chromedp.ByQuery),
	)
	var ref editorPlace
	e.get(t, "/libraries/green/locations/reference.json", &ref)
	if a := ref.Data.Attributes; a.Public || a.Note == nil || *a.Note != "Staffed by volunteers" {
		t.Errorf("reference after the form: %+v", a)
	}
	testkit.Screenshot(t, ctx, "hours-editor-library-form")

	// The library's editor still edits it (a new page: a new session).
	if err := chromedp.Run(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	e.openEditor(t, ctx, auth.Principal{Name: "gina", Roles: []string{"editor:green"}}, "")
	var title string
	if err := chromedp.Run(ctx, chromedp.Text(`#view-title`, &title, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(title, "Green Library") {
		t.Errorf("green's editor, green not public, sees %q", title)
	}
}

// TestEditorPhoneWeek: at 390×844 the week shows one location at a time,
// its days as rows, with nothing wider than the screen (no sideways
// scrolling, of the page or inside a box); another location is picked
// and a day of it edited in place, and the JSON:API shows the change.
func TestEditorPhoneWeek(t *testing.T) {
	t.Parallel()
	e := newBrowserEditorEnv(t)
	phone := browsercheck.Phone(t)
	e.openEditor(t, phone, auth.Principal{Name: "gina", Roles: []string{"editor:green"}}, "#library=green&view=week")
	if err := testkit.WaitJS(phone, `!!document.querySelector("button.cell")`, 10*time.Second); err != nil {
		var text string
		_ = chromedp.Run(phone, chromedp.Evaluate(`document.body.innerText`, &text))
		t.Fatalf("no cell in the week: %v\n%s", err, text)
	}
	// Nothing sticks out: the page, and every element of the editor.
	overflow := `(() => {
		const w = document.documentElement.clientWidth;
		const out = [];
		if (document.documentElement.scrollWidth > w) out.push("page " + document.documentElement.scrollWidth);
		for (const n of document.querySelectorAll("#app *")) {
			if (n.closest(".visually-hidden")) continue; // clipped on purpose
			const r = n.getBoundingClientRect();
			if (r.width > 0 && (r.right > w + 0.5 || r.left < -0.5)) out.push(n.tagName + "." + n.className + " " + Math.round(r.left) + ".." + Math.round(r.right));
			if (n.scrollWidth > n.clientWidth + 1 && getComputedStyle(n).overflowX !== "visible") out.push("scrolls: " + n.tagName + "." + n.className);
		}
		return out.join("; ");
	})()`
	var sticking string
	if err := chromedp.Run(phone, chromedp.Evaluate(overflow, &sticking)); err != nil {
		t.Fatal(err)
	}
	if sticking != "" {
		t.Errorf("at 390 px, wider than the screen: %s", sticking)
	}
	var cells, rows int
	if err := chromedp.Run(phone,
		chromedp.Evaluate(`document.querySelectorAll("button.cell").length`, &cells),
		chromedp.Evaluate(`document.querySelectorAll("table.grid tbody tr").length`, &rows),
	); err != nil {
		t.Fatal(err)
	}
	if cells != 7 || rows != 7 {
		t.Errorf("the phone week shows %d cells in %d rows, want one location's 7 days", cells, rows)
	}
	testkit.Axe(t, phone, "editor week at 390 px")
	testkit.Screenshot(t, phone, "hours-editor-week-390")

	// Another location, then a day of it.
	if err := chromedp.Run(phone,
		chromedp.SetValue(`#week-loc`, "reference", chromedp.ByID),
		chromedp.Evaluate(`document.querySelector("#week-loc").dispatchEvent(new Event("change"))`, nil),
	); err != nil {
		t.Fatal(err)
	}
	if err := testkit.WaitJS(phone, `!!document.querySelector('button.cell[data-location="reference"][data-day="2026-03-03"]') && !document.querySelector('button.cell[data-location="stacks"]')`, 10*time.Second); err != nil {
		t.Fatalf("picking the Reference Desk: %v", err)
	}
	editCellShown(t, phone, "reference", "2026-03-03", "10a-4p", "the edited cell: %v")
	e.wantDay(t, "green", "reference", "2026-03-03", "10:00-16:00 special", "Reference Desk on Tuesday after the phone edit: %s")
	if err := chromedp.Run(phone, chromedp.Evaluate(overflow, &sticking)); err != nil {
		t.Fatal(err)
	}
	if sticking != "" {
		t.Errorf("after the edit, wider than the screen: %s", sticking)
	}
	testkit.Screenshot(t, phone, "hours-editor-week-390-edited")
}
