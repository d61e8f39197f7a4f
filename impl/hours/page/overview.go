package page

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// The overview (/hours/, issue 19.4) is what a student reads at a glance:
// one card per library with whether it is open now and today's hours, its
// other locations under it, the time zone where libraries differ, a
// filter box, and a link to each library's week page. It is the same Page
// as a library's (the JSON-LD still carries the weeks shown); only the
// body differs.

//go:embed overview.html.tmpl
var overviewTemplate string

var overviewTmpl = template.Must(template.New("overview").Parse(overviewTemplate))

// RenderOverview writes the overview of every library in p. The same input
// gives the same bytes.
func RenderOverview(w io.Writer, p Page) error {
	m, err := overviewOf(p)
	if err != nil {
		return err
	}
	return execute(w, overviewTmpl, m, "the overview")
}

type overviewModel struct {
	Page
	// Zones is true when the libraries are not all in one time zone: each
	// card then names its zone.
	Zones bool
	// AsOf is "Wednesday 4 March, 7:00 PM" in the first library's zone.
	AsOf      string
	Libraries []overviewLibrary
	JSONLD    []any
}

type overviewLibrary struct {
	Name, URL string
	Anchor    string
	// Zone is "New York time (EST)", shown when Zones.
	Zone string
	// Search is the lower-case text the filter box matches: the library's
	// and its locations' names.
	Search    string
	State     overviewState
	Today     string
	Locations []overviewLocation
	NoHours   bool
}

type overviewLocation struct {
	Name  string
	State overviewState
	Today string
	// SameAsMain keeps no hours of its own.
	SameAsMain bool
}

// overviewState is a place's state now in a few words: "Open until 10:00
// PM", "Opens at 1:00 PM", "Closed today".
type overviewState struct {
	Text string
	Open bool
}

func overviewOf(p Page) (*overviewModel, error) {
	m := &overviewModel{Page: p}
	// "As of" is told in the zone most libraries share (the first of
	// those tied), named when they do not all share it.
	perZone := map[string]int{}
	var common *time.Location
	for _, lib := range p.Libraries {
		if lib.Zone == nil {
			return nil, fmt.Errorf("page: library %q has no time zone", lib.Name)
		}
		perZone[lib.Zone.String()]++
		if common == nil || perZone[lib.Zone.String()] > perZone[common.String()] {
			common = lib.Zone
		}
	}
	if common != nil {
		m.Zones = len(perZone) > 1
		now := p.Now.In(common)
		m.AsOf = now.Format("Monday 2 January, ") + shortClock(now)
		if m.Zones {
			m.AsOf += " " + zoneLabel(common, p.Now)
		}
	}
	for i, lib := range p.Libraries {
		lm := overviewLibrary{Name: lib.Name, URL: lib.URL, Anchor: fmt.Sprintf("library-%d", i+1), Zone: zoneLabel(lib.Zone, p.Now)}
		search := []string{lib.Name}
		var primary *Location
		for j := range lib.Locations {
			if lib.Locations[j].Primary && primary == nil {
				primary = &lib.Locations[j]
			}
		}
		if primary == nil && len(lib.Locations) > 0 {
			primary = &lib.Locations[0]
		}
		if primary == nil {
			lm.NoHours = true
			lm.State = overviewState{Text: "No hours published"}
		} else {
			lm.State, lm.Today = placeNow(*primary, p.Now, lib.Zone)
		}
		for j := range lib.Locations {
			loc := lib.Locations[j]
			search = append(search, loc.Name)
			if &lib.Locations[j] == primary {
				continue
			}
			lo := overviewLocation{Name: loc.Name, SameAsMain: loc.SameAsPrimary}
			if loc.SameAsPrimary {
				lo.State, lo.Today = lm.State, "Same hours as the library"
			} else {
				lo.State, lo.Today = placeNow(loc, p.Now, lib.Zone)
			}
			lm.Locations = append(lm.Locations, lo)
		}
		lm.Search = strings.ToLower(strings.Join(search, " "))
		m.Libraries = append(m.Libraries, lm)
		m.JSONLD = append(m.JSONLD, jsonLD(lib, primary))
	}
	return m, nil
}

// placeNow is a place's state now and its hours today ("8:00 AM – 10:00
// PM", "Closed (Holiday)").
func placeNow(loc Location, now time.Time, zone *time.Location) (overviewState, string) {
	today := schedule.Today(now, zone)
	st := StatusAt(loc.StatusDays, now)
	var day *schedule.Day
	for i := range loc.StatusDays {
		if loc.StatusDays[i].Date == today {
			day = &loc.StatusDays[i]
		}
	}
	hours := "Not known"
	if day != nil {
		hours = shortHours(*day, zone)
		if kind := kindLabels[day.Type]; kind != "" && day.Type != schedule.TypeUnscheduled {
			hours += " (" + kind + ")"
		}
	}
	return stateWords(st, day, now, zone), hours
}

func stateWords(st Status, today *schedule.Day, now time.Time, zone *time.Location) overviewState {
	switch {
	case st.Open && st.Until.IsZero():
		return overviewState{Text: "Open 24 hours", Open: true}
	case st.Open:
		return overviewState{Text: "Open until " + shortClockOn(st.Until, now, zone), Open: true}
	case !st.Known:
		return overviewState{Text: "Hours not known"}
	case !st.Next.IsZero() && schedule.DateOf(st.Next.In(zone)) == schedule.Today(now, zone):
		return overviewState{Text: "Opens at " + shortClock(st.Next.In(zone))}
	case today != nil && today.Closed:
		return overviewState{Text: "Closed today"}
	case !st.Next.IsZero():
		return overviewState{Text: "Opens " + shortOpening(st.Next, now, zone)}
	}
	return overviewState{Text: "Closed"}
}

// zoneLabel is "New York time (EST)": the zone's city and its abbreviation
// now.
func zoneLabel(zone *time.Location, now time.Time) string {
	name := zone.String()
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	abbr, _ := now.In(zone).Zone()
	return strings.ReplaceAll(name, "_", " ") + " time (" + abbr + ")"
}

// shortClock is a time as a glance reads it: "9 AM", "9:30 PM", "noon",
// "midnight".
func shortClock(t time.Time) string {
	switch {
	case t.Hour() == 0 && t.Minute() == 0:
		return "midnight"
	case t.Hour() == 12 && t.Minute() == 0:
		return "noon"
	case t.Minute() == 0:
		return t.Format("3 PM")
	}
	return t.Format("3:04 PM")
}

// shortClockOn is shortClock within the next 24 hours (a closing after
// midnight reads "until 2 AM"), with the weekday further on ("Mon 9 AM").
func shortClockOn(t, now time.Time, zone *time.Location) string {
	t = t.In(zone)
	if t.Sub(now) < 24*time.Hour {
		return shortClock(t)
	}
	return t.Format("Mon") + " " + shortClock(t)
}

// shortOpening is when a closed place opens next: "tomorrow 9 AM",
// "Mon 10 AM" (today's next opening is "Opens at …").
func shortOpening(t, now time.Time, zone *time.Location) string {
	t = t.In(zone)
	if schedule.DateOf(t) == schedule.Today(now, zone).AddDays(1) {
		return "tomorrow " + shortClock(t)
	}
	return t.Format("Mon") + " " + shortClock(t)
}

// shortHours is a day's hours in shortClock's words: "8 AM – 10 PM",
// "9 AM – noon, 1 – 5 PM", "7 AM – 2 AM (next day)", "Open 24 hours",
// "Closed".
func shortHours(d schedule.Day, zone *time.Location) string {
	switch {
	case d.Closed:
		return "Closed"
	case d.Open24:
		return "Open 24 hours"
	}
	parts := make([]string, len(d.Openings))
	for i, o := range d.Openings {
		opens, closes := o.Opens.In(zone), o.Closes.In(zone)
		from, to := shortClock(opens), shortClock(closes)
		// "1 – 5 PM": one AM/PM for two whole hours of the same half day.
		if f, ok := strings.CutSuffix(from, opens.Format(" PM")); ok && !o.Overnight && opens.Minute() == 0 && opens.Hour()%12 != 0 && strings.HasSuffix(to, opens.Format(" PM")) && closes.Hour() > opens.Hour() {
			from = f
		}
		if o.Overnight {
			to += " (next day)"
		}
		parts[i] = from + " – " + to
	}
	return strings.Join(parts, ", ")
}
