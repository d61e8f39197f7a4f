// Package page renders library hours as an HTML page for people: this
// week and next for every library and location, today marked, whether each
// place is open now in its library's zone, notes and exceptions, links to
// the previous and next weeks that work without JavaScript, links to the
// iCalendar feeds, and schema.org openingHoursSpecification JSON-LD for
// search engines. It knows nothing of HTTP or storage: the caller computes
// the days (impl/hours/schedule) and the URLs.
package page

import (
	"time"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// Status is whether a place is open at an instant.
type Status struct {
	Open bool
	// Until is when the current opening ends (Open); zero when it runs
	// on to the end of the days known (a place open around the clock).
	Until time.Time
	// Next is when the place next opens (not Open) — zero when it does
	// not open within the days known.
	Next time.Time
	// Known is false when no day known covers now.
	Known bool
}

// StatusAt is the status of a place with days at now. days are in date
// order and should start the day before today, so that an overnight period
// of yesterday counts, and run on a week, to find the next opening. An
// opening's end is exclusive; an open-24-hours day ends at 23:59:59.999, and
// a run of such days (or a period ending at midnight followed by one
// starting then) counts as one opening.
func StatusAt(days []schedule.Day, now time.Time) Status {
	var st Status
	type span struct{ from, to time.Time }
	var spans []span
	for _, d := range days {
		dayEnd := d.Midnight.AddDate(0, 0, 1)
		if !now.Before(d.Midnight) && now.Before(dayEnd) {
			st.Known = true
		}
		for _, o := range d.Openings {
			to := o.Closes
			if d.Open24 {
				to = to.Add(time.Millisecond) // the next midnight
			}
			if n := len(spans); n > 0 && !o.Opens.After(spans[n-1].to) && o.Opens.After(spans[n-1].from) {
				if to.After(spans[n-1].to) {
					spans[n-1].to = to
				}
				continue
			}
			spans = append(spans, span{o.Opens, to})
		}
	}
	var end time.Time // the end of the last day known
	if n := len(days); n > 0 {
		end = days[n-1].Midnight.AddDate(0, 0, 1)
	}
	for _, s := range spans {
		if !now.Before(s.from) && now.Before(s.to) {
			st.Open, st.Known = true, true
			if s.to.Before(end) {
				st.Until = s.to
			}
			return st
		}
		if s.from.After(now) && st.Next.IsZero() {
			st.Next = s.from
		}
	}
	return st
}
