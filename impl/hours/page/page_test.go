package page

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// parsed is parse(s) for an s the test knows to be valid.
func parsed[T any](t testing.TB, parse func(string) (T, error), s string) T {
	t.Helper()
	v, err := parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func zone(t testing.TB) *time.Location {
	t.Helper()
	return parsed(t, time.LoadLocation, "America/Los_Angeles")
}

func date(t testing.TB, s string) schedule.Date {
	t.Helper()
	return parsed(t, schedule.ParseDate, s)
}

func period(t testing.TB, s string) schedule.Period {
	t.Helper()
	return parsed(t, schedule.ParsePeriod, s)
}

// rules is a location open daily with periods, and exceptions.
func rules(t testing.TB, periods string, exceptions map[string]schedule.Rule) *schedule.LocationRules {
	t.Helper()
	lr := &schedule.LocationRules{
		Terms:      []schedule.Term{{ID: 1, First: date(t, "2026-01-01"), Last: date(t, "2026-12-31")}},
		Schedules:  map[int64]*schedule.WeeklyRules{1: {}},
		Exceptions: map[schedule.Date]schedule.Rule{},
	}
	for wd := range 7 {
		var ps []schedule.Period
		for _, s := range strings.Split(periods, ",") {
			ps = append(ps, period(t, s))
		}
		lr.Schedules[1][wd] = schedule.Rule{ID: int64(wd + 1), Kind: schedule.Hours, Periods: ps, Type: schedule.TypeRegular}
	}
	for d, r := range exceptions {
		lr.Exceptions[date(t, d)] = r
	}
	return lr
}

func location(t testing.TB, name string, primary bool, lr *schedule.LocationRules, from schedule.Date, now time.Time) Location {
	t.Helper()
	z := zone(t)
	today := schedule.Today(now, z)
	return Location{
		Name: name, Primary: primary,
		JSONURL:    "https://h.test/hours/libraries/green/locations/" + strings.ToLower(strings.Fields(name)[0]) + ".json",
		ICSURL:     "https://h.test/hours/libraries/green/locations/" + strings.ToLower(strings.Fields(name)[0]) + ".ics",
		Days:       lr.Days(schedule.Range{From: from, To: from.AddDays(7*WeeksShown - 1)}, z),
		StatusDays: lr.Days(schedule.Range{From: today.AddDays(-1), To: today.AddDays(7)}, z),
	}
}

// testPage is Green Library on Wednesday 4 March 2026 at now: Main open
// 9–17 (closed on the 9th for a holiday, with a note holding markup),
// Stacks open 8–22.
func testPage(t testing.TB, now time.Time) Page {
	t.Helper()
	from := date(t, "2026-03-01")
	main := rules(t, "09:00-17:00", map[string]schedule.Rule{
		"2026-03-09": {ID: 50, Kind: schedule.Closed, Type: schedule.TypeHoliday, Notes: `Staff day <script>alert(1)</script> & "quotes"`},
	})
	stacks := rules(t, "08:00-22:00", nil)
	return Page{
		Title:    "Green Library hours",
		Now:      now,
		From:     from,
		PrevURL:  "https://h.test/hours/libraries/green.html?from=2026-02-22",
		NextURL:  "https://h.test/hours/libraries/green.html?from=2026-03-08",
		JSONURL:  "https://h.test/hours/libraries/green.json",
		ICSURL:   "https://h.test/hours/libraries/green.ics",
		IndexURL: "https://h.test/hours/",
		Libraries: []Library{{
			Name: "Green Library", URL: "https://h.test/hours/libraries/green.html",
			JSONURL: "https://h.test/hours/libraries/green.json", ICSURL: "https://h.test/hours/libraries/green.ics",
			Zone: zone(t),
			Locations: []Location{
				location(t, "Main Library", true, main, from, now),
				location(t, "Stacks Reading Room", false, stacks, from, now),
			},
		}},
	}
}

// render is the week page of p; renderOverview its overview page.
func render(t testing.TB, p Page) string { return rendered(t, Render, p) }

func renderOverview(t testing.TB, p Page) string { return rendered(t, RenderOverview, p) }

func rendered(t testing.TB, write func(io.Writer, Page) error, p Page) string {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// expectContains fails the test for each of wants the rendered page (what
// names it in the failure) does not contain.
func expectContains(t testing.TB, what, html string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(html, want) {
			t.Errorf("%s lacks %s", what, want)
		}
	}
}

// decodeJSONLD decodes the page's JSON-LD script into into and returns the
// script's text.
func decodeJSONLD(t testing.TB, html string, into any) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/ld\+json">(.*?)</script>`).FindStringSubmatch(html)
	if m == nil {
		t.Fatal("no JSON-LD")
	}
	if err := json.Unmarshal([]byte(m[1]), into); err != nil {
		t.Fatalf("JSON-LD does not parse: %v\n%s", err, m[1])
	}
	return m[1]
}

func TestStatusAt(t *testing.T) {
	t.Parallel()
	z := zone(t)
	lr := rules(t, "09:00-17:00", map[string]schedule.Rule{
		"2026-03-03": {Kind: schedule.Hours, Periods: []schedule.Period{period(t, "20:00-02:00")}, Type: schedule.TypeSpecial},
		"2026-03-05": {Kind: schedule.Open24, Type: schedule.TypeSpecial},
		"2026-03-06": {Kind: schedule.Open24, Type: schedule.TypeSpecial},
	})
	days := lr.Days(schedule.Range{From: date(t, "2026-03-02"), To: date(t, "2026-03-10")}, z)
	at := func(s string) time.Time {
		tm, err := time.ParseInLocation("2006-01-02 15:04", s, z)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, tc := range []struct {
		now         string
		open        bool
		until, next string
	}{
		{"2026-03-04 12:00", true, "2026-03-04 17:00", ""},
		{"2026-03-04 17:00", false, "", "2026-03-05 00:00"}, // closing time is exclusive
		{"2026-03-04 08:59", false, "", "2026-03-04 09:00"},
		{"2026-03-04 01:30", true, "2026-03-04 02:00", ""}, // yesterday's overnight period
		{"2026-03-05 10:00", true, "2026-03-07 00:00", ""}, // two open-24h days are one opening
	} {
		st := StatusAt(days, at(tc.now))
		if st.Open != tc.open || !st.Known {
			t.Errorf("%s: open=%v known=%v, want open=%v", tc.now, st.Open, st.Known, tc.open)
			continue
		}
		if tc.until != "" && !st.Until.Equal(at(tc.until)) {
			t.Errorf("%s: until %s, want %s", tc.now, st.Until.In(z), tc.until)
		}
		if tc.next != "" && !st.Next.Equal(at(tc.next)) {
			t.Errorf("%s: next %s, want %s", tc.now, st.Next.In(z), tc.next)
		}
	}
	// Open 24 hours to the end of the days known: no closing time.
	allDay := (&schedule.LocationRules{Terms: lr.Terms, Schedules: map[int64]*schedule.WeeklyRules{1: {}}}).Days(schedule.Range{From: date(t, "2026-03-02"), To: date(t, "2026-03-04")}, z)
	for i := range allDay {
		allDay[i] = schedule.Compute(allDay[i].Date, z, schedule.Rule{Kind: schedule.Open24})
	}
	if st := StatusAt(allDay, at("2026-03-03 12:00")); !st.Open || !st.Until.IsZero() {
		t.Errorf("around the clock: %+v", st)
	}
	if st := StatusAt(days, at("2026-04-01 12:00")); st.Known || st.Open {
		t.Errorf("a day outside the days known: %+v", st)
	}
}

func TestPageContent(t *testing.T) {
	t.Parallel()
	// Wednesday 4 March 2026, 12:00 in Los Angeles.
	now := time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC)
	html := render(t, testPage(t, now))
	expectContains(t, "page", html,
		`<html lang="en">`,
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		`<p>Opening hours for 1 – 14 March 2026.</p>`,
		`<a rel="prev" href="https://h.test/hours/libraries/green.html?from=2026-02-22">`,
		`<a rel="next" href="https://h.test/hours/libraries/green.html?from=2026-03-08">`,
		`<link rel="alternate" type="text/calendar" title="Green Library hours (calendar)" href="https://h.test/hours/libraries/green.ics">`,
		`<p class="status open">Open now until 5:00 PM.</p>`,
		`<tr class="today" aria-current="date"><th scope="row" class="day"><time datetime="2026-03-04">Wed 4 Mar</time> <span class="today-label">(today)</span></th><td class="hours">9:00 AM – 5:00 PM</td>`,
		`<td class="hours closed">Closed</td><td><span class="kind">Holiday</span>: Staff day &lt;script&gt;alert(1)&lt;/script&gt; &amp; &#34;quotes&#34;</td>`,
		`<caption>Week of 8 – 14 March 2026</caption>`,
		`<a href="https://h.test/hours/libraries/green/locations/stacks.ics">Calendar feed for Stacks Reading Room</a>`,
	)
	if n := strings.Count(html, `aria-current="date"`); n != 2 { // one per location
		t.Errorf("today marked %d times, want 2", n)
	}
	if strings.Contains(html, "<script>alert") {
		t.Error("a note's markup reached the page unescaped")
	}
}

func TestPrimaryClosedOtherOpen(t *testing.T) {
	t.Parallel()
	// 19:00 on Wednesday: Main (9–17) is closed, Stacks (8–22) is open.
	now := time.Date(2026, 3, 5, 3, 0, 0, 0, time.UTC)
	html := render(t, testPage(t, now))
	expectContains(t, "page", html, `<p class="status open">Main Library is closed now, but Stacks Reading Room is open until 10:00 PM.</p>`)
	// 23:00: both closed; Main opens tomorrow.
	now = time.Date(2026, 3, 5, 7, 0, 0, 0, time.UTC)
	html = render(t, testPage(t, now))
	expectContains(t, "page", html, `<p class="status">Closed now. Opens tomorrow 9:00 AM.</p>`)
}

func TestJSONLD(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC)
	html := render(t, testPage(t, now))
	var ld []struct {
		Context string `json:"@context"`
		Type    string `json:"@type"`
		Name    string `json:"name"`
		Hours   []struct {
			Type, DayOfWeek, Opens, Closes, ValidFrom, ValidThrough, Description string
		} `json:"openingHoursSpecification"`
		Department []struct {
			Name  string                           `json:"name"`
			Hours []struct{ Opens, Closes string } `json:"openingHoursSpecification"`
		} `json:"department"`
	}
	script := decodeJSONLD(t, html, &ld)
	if len(ld) != 1 || ld[0].Context != "https://schema.org" || ld[0].Type != "Library" || ld[0].Name != "Green Library" {
		t.Fatalf("JSON-LD: %+v", ld)
	}
	if got := len(ld[0].Hours); got != 14 {
		t.Errorf("%d opening hours specifications, want 14 (one a day)", got)
	}
	var holiday bool
	for _, h := range ld[0].Hours {
		if h.ValidFrom == "2026-03-09" {
			holiday = h.Opens == "00:00" && h.Closes == "00:00" && h.DayOfWeek == "https://schema.org/Monday" && strings.HasPrefix(h.Description, "Staff day <script>")
		}
		if h.ValidFrom == "2026-03-04" && (h.Opens != "09:00" || h.Closes != "17:00" || h.ValidThrough != "2026-03-04") {
			t.Errorf("4 March: %+v", h)
		}
	}
	if !holiday {
		t.Error("the holiday is not closed (00:00–00:00) in the JSON-LD")
	}
	if len(ld[0].Department) != 1 || ld[0].Department[0].Name != "Stacks Reading Room" || ld[0].Department[0].Hours[0].Closes != "22:00" {
		t.Errorf("departments: %+v", ld[0].Department)
	}
	if strings.Contains(script, "</script") || strings.Contains(script, "<script") {
		t.Error("a note's markup is not escaped inside the JSON-LD script")
	}
}

func TestRenderIsStable(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC)
	p := testPage(t, now)
	if a, b := render(t, p), render(t, p); a != b {
		t.Error("two renders of the same page differ")
	}
}

func TestNoZoneRefused(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := Render(&b, Page{Libraries: []Library{{Name: "x"}}}); err == nil {
		t.Error("a library without a zone was rendered")
	}
}

// TestAboutLinks: a library's and a location's own web page (about_url) are
// linked on the week page, and are their sameAs in the JSON-LD (url stays
// this page); a place without one has neither.
func TestAboutLinks(t *testing.T) {
	now := time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC)
	p := testPage(t, now)
	p.Libraries[0].AboutURL = "https://library.example.edu/green?x=1&y=2"
	p.Libraries[0].Locations[1].AboutURL = "https://library.example.edu/green/stacks"
	html := render(t, p)
	expectContains(t, "page", html,
		`<a href="https://library.example.edu/green?x=1&amp;y=2">About Green Library</a>`,
		`<a href="https://library.example.edu/green/stacks">About Stacks Reading Room</a>`,
	)
	if n := strings.Count(html, ">About "); n != 2 {
		t.Errorf("%d about links, want 2 (Main Library has no page of its own)", n)
	}
	var ld []struct {
		URL        string `json:"url"`
		SameAs     string `json:"sameAs"`
		Department []struct {
			Name   string `json:"name"`
			SameAs string `json:"sameAs"`
		} `json:"department"`
	}
	decodeJSONLD(t, html, &ld)
	if len(ld) != 1 || ld[0].URL != "https://h.test/hours/libraries/green.html" || ld[0].SameAs != "https://library.example.edu/green?x=1&y=2" {
		t.Errorf("library url/sameAs: %+v", ld)
	}
	if len(ld[0].Department) != 1 || ld[0].Department[0].SameAs != "https://library.example.edu/green/stacks" {
		t.Errorf("department sameAs: %+v", ld[0].Department)
	}
	if strings.Contains(render(t, testPage(t, now)), "sameAs") {
		t.Error("sameAs without an about URL")
	}
}
