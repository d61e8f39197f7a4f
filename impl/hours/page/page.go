package page

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// ContentType is the media type of a page.
const ContentType = "text/html; charset=utf-8"

// WeeksShown is how many Sunday–Saturday weeks a page shows.
const WeeksShown = 2

// Page is what a page shows: one library (its own page) or every library
// (the index).
type Page struct {
	Title string
	// Now is the current instant; "today" and "open now" are read from it
	// in each library's zone.
	Now time.Time
	// From is the Sunday of the first week shown.
	From schedule.Date
	// PrevURL, NextURL and ThisWeekURL page through the weeks (plain
	// links, no script); ThisWeekURL is "" when the weeks shown are the
	// current ones.
	PrevURL, NextURL, ThisWeekURL string
	// JSONURL is the same resource as JSON:API (a link rel=alternate).
	JSONURL string
	// ICSURL is the page's iCalendar feed ("" on the index, where each
	// library links its own).
	ICSURL string
	// IndexURL links back to every library ("" on the index).
	IndexURL string
	// EditorURL is the staff editor (linked from the overview's footer).
	EditorURL string
	Libraries []Library
}

// Library is one library on a page.
type Library struct {
	Name    string
	URL     string // its own page
	JSONURL string
	ICSURL  string
	// AboutURL is the library's own web page ("" for none): an http or
	// https URL, checked when it was written.
	AboutURL string
	Zone     *time.Location
	// Locations, primary first.
	Locations []Location
}

// Location is one location of a library.
type Location struct {
	Name    string
	JSONURL string
	ICSURL  string
	// AboutURL is the location's own web page ("" for none), checked like
	// the library's when it was written.
	AboutURL string
	Primary  bool
	// SameAsPrimary is a location that keeps no hours of its own (it
	// shows the primary location's): it is named, not given a table.
	SameAsPrimary bool
	// Days are the days shown: WeeksShown weeks from Page.From.
	Days []schedule.Day
	// StatusDays are the days around now (from the day before today to a
	// week later) that decide "open now" and the next opening.
	StatusDays []schedule.Day
}

//go:embed page.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("page").Parse(pageTemplate))

// Render writes the page. The same input gives the same bytes.
func Render(w io.Writer, p Page) error {
	m, err := model(p)
	if err != nil {
		return err
	}
	return execute(w, tmpl, m, strconv.Quote(p.Title))
}

// execute renders t with m whole before writing it to w, so that a
// template that fails writes nothing (what names the page, for the
// error).
func execute(w io.Writer, t *template.Template, m any, what string) error {
	var buf bytes.Buffer
	if err := t.Execute(&buf, m); err != nil {
		return fmt.Errorf("page: rendering %s: %w", what, err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// The template's model: every string already worded.

type pageModel struct {
	Page
	WeeksLabel string
	Libraries  []libraryModel
	JSONLD     []any
}

type libraryModel struct {
	Library
	Anchor    string
	Status    string
	IsOpen    bool
	Locations []locationModel
}

type locationModel struct {
	Location
	Anchor string
	Status string
	IsOpen bool
	Weeks  []weekModel
}

type weekModel struct {
	Caption string
	Days    []dayModel
}

type dayModel struct {
	Label    string // "Sun 8 Mar"
	DateTime string // 2026-03-08
	Today    bool
	Closed   bool
	Hours    string
	Kind     string // "Holiday", "Special hours", …; "" for a regular day
	Notes    string
}

func model(p Page) (*pageModel, error) {
	m := &pageModel{Page: p}
	last := p.From.AddDays(7*WeeksShown - 1)
	m.WeeksLabel = rangeLabel(p.From, last)
	for i, lib := range p.Libraries {
		if lib.Zone == nil {
			return nil, fmt.Errorf("page: library %q has no time zone", lib.Name)
		}
		lm := libraryModel{Library: lib, Anchor: fmt.Sprintf("library-%d", i+1)}
		today := schedule.Today(p.Now, lib.Zone)
		var primary *Location
		statuses := make([]Status, len(lib.Locations))
		for j := range lib.Locations {
			loc := lib.Locations[j]
			statuses[j] = StatusAt(loc.StatusDays, p.Now)
			if loc.Primary && primary == nil {
				primary = &lib.Locations[j]
			}
			locM := locationModel{Location: loc, Anchor: fmt.Sprintf("%s-location-%d", lm.Anchor, j+1), IsOpen: statuses[j].Open}
			locM.Status = statusSentence(statuses[j], p.Now, lib.Zone)
			if !loc.SameAsPrimary {
				locM.Weeks = weeks(p.From, loc.Days, today, lib.Zone)
			}
			lm.Locations = append(lm.Locations, locM)
		}
		lm.Status, lm.IsOpen = libraryStatus(lib, primary, statuses, p.Now)
		m.Libraries = append(m.Libraries, lm)
		m.JSONLD = append(m.JSONLD, jsonLD(lib, primary))
	}
	return m, nil
}

// libraryStatus is the library's line: its primary location's status, but
// when that is closed and another location is open, it says so rather
// than "closed".
func libraryStatus(lib Library, primary *Location, statuses []Status, now time.Time) (string, bool) {
	if len(lib.Locations) == 0 {
		return "No hours are published for this library yet.", false
	}
	pi := 0
	for j := range lib.Locations {
		if &lib.Locations[j] == primary {
			pi = j
		}
	}
	ps := statuses[pi]
	if ps.Open {
		return statusSentence(ps, now, lib.Zone), true
	}
	var open []string
	for j, st := range statuses {
		if j != pi && st.Open && !lib.Locations[j].SameAsPrimary {
			if st.Until.IsZero() {
				open = append(open, lib.Locations[j].Name+" is open around the clock")
				continue
			}
			open = append(open, fmt.Sprintf("%s is open until %s", lib.Locations[j].Name, clockOn(st.Until, now, lib.Zone)))
		}
	}
	if len(open) > 0 {
		return fmt.Sprintf("%s is closed now, but %s.", lib.Locations[pi].Name, joinAnd(open)), true
	}
	return statusSentence(ps, now, lib.Zone), false
}

func statusSentence(st Status, now time.Time, zone *time.Location) string {
	switch {
	case st.Open && st.Until.IsZero():
		return "Open now, around the clock."
	case st.Open:
		return "Open now until " + clockOn(st.Until, now, zone) + "."
	case !st.Next.IsZero():
		return "Closed now. Opens " + clockOn(st.Next, now, zone) + "."
	case !st.Known:
		return "No hours are known for today."
	}
	return "Closed now."
}

// clockOn is "5:00 PM" today, "Thu 9:00 AM" on another day.
func clockOn(t, now time.Time, zone *time.Location) string {
	t = t.In(zone)
	c := clock(t)
	if schedule.DateOf(t) == schedule.Today(now, zone) {
		return c
	}
	if schedule.DateOf(t) == schedule.Today(now, zone).AddDays(1) {
		return "tomorrow " + c
	}
	return t.Format("Mon") + " " + c
}

func clock(t time.Time) string {
	if t.Hour() == 0 && t.Minute() == 0 {
		return "midnight"
	}
	if t.Hour() == 12 && t.Minute() == 0 {
		return "noon"
	}
	return t.Format("3:04 PM")
}

func joinAnd(items []string) string {
	switch len(items) {
	case 1:
		return items[0]
	case 2:
		return items[0] + " and " + items[1]
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

func rangeLabel(a, b schedule.Date) string {
	at, bt := dateTime(a), dateTime(b)
	switch {
	case a.Year != b.Year:
		return at.Format("2 January 2006") + " – " + bt.Format("2 January 2006")
	case a.Month != b.Month:
		return at.Format("2 January") + " – " + bt.Format("2 January 2006")
	}
	return at.Format("2") + " – " + bt.Format("2 January 2006")
}

func dateTime(d schedule.Date) time.Time {
	return time.Date(d.Year, d.Month, d.Day, 12, 0, 0, 0, time.UTC)
}

var kindLabels = map[string]string{
	schedule.TypeSpecial:     "Special hours",
	schedule.TypeHoliday:     "Holiday",
	schedule.TypeClosure:     "Closure",
	schedule.TypeUnscheduled: "No hours set",
}

func weeks(from schedule.Date, days []schedule.Day, today schedule.Date, zone *time.Location) []weekModel {
	byDate := map[schedule.Date]schedule.Day{}
	for _, d := range days {
		byDate[d.Date] = d
	}
	out := make([]weekModel, 0, WeeksShown)
	for w := range WeeksShown {
		first := from.AddDays(7 * w)
		wm := weekModel{Caption: "Week of " + rangeLabel(first, first.AddDays(6))}
		for i := range 7 {
			date := first.AddDays(i)
			dm := dayModel{Label: dateTime(date).Format("Mon 2 Jan"), DateTime: date.String(), Today: date == today}
			d, ok := byDate[date]
			switch {
			case !ok:
				dm.Closed, dm.Hours = true, "Not known"
			default:
				dm.Closed, dm.Hours = d.Closed, hoursText(d, zone)
				dm.Kind = kindLabels[d.Type]
				dm.Notes = d.Notes
			}
			wm.Days = append(wm.Days, dm)
		}
		out = append(out, wm)
	}
	return out
}

func hoursText(d schedule.Day, zone *time.Location) string {
	switch {
	case d.Closed:
		return "Closed"
	case d.Open24:
		return "Open 24 hours"
	}
	parts := make([]string, len(d.Openings))
	for i, o := range d.Openings {
		end := clock(o.Closes.In(zone))
		if o.Overnight {
			end += " (next day)"
		}
		parts[i] = clock(o.Opens.In(zone)) + " – " + end
	}
	return strings.Join(parts, ", ")
}
