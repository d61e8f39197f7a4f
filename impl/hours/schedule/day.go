package schedule

import (
	"time"
)

// Kind is how a rule opens a day.
type Kind int

const (
	// Closed: not open that day.
	Closed Kind = iota
	// Open24: open the whole local day, 00:00:00.000–23:59:59.999.
	Open24
	// Hours: open during Periods.
	Hours
)

// Hours types (the `type` of a day).
const (
	TypeRegular     = "regular"
	TypeSpecial     = "special"
	TypeHoliday     = "holiday"
	TypeClosure     = "closure"
	TypeUnscheduled = "unscheduled"
)

// Rule is a stored rule for one day: a weekday of a weekly schedule or a
// per-date exception.
type Rule struct {
	ID      int64 // 0: no stored rule (an unscheduled day)
	Kind    Kind
	Periods []Period
	Type    string
	Notes   string
}

// Unscheduled is the rule of a day no term or schedule covers: closed.
var Unscheduled = Rule{Kind: Closed, Type: TypeUnscheduled}

// Opening is one period of a day as instants.
type Opening struct {
	Opens, Closes time.Time
	Overnight     bool
}

// Day is the hours of one location on one date.
type Day struct {
	Date      Date
	Closed    bool
	Open24    bool
	Overnight bool // the last period closes on a later date
	Openings  []Opening
	Type      string
	Notes     string
	RuleID    int64
	// Midnight is the local start of the day (the legacy API's opening and
	// closing time of a closed day).
	Midnight time.Time
}

// LocalTime is the instant at wall-clock time c on date d in loc. A time
// that occurs twice (the hour repeated when clocks fall back) is the first
// occurrence; a time skipped when clocks spring forward is moved forward by
// the length of the gap (02:30 becomes 03:30).
func LocalTime(d Date, c Clock, loc *time.Location) time.Time {
	wall := time.Date(d.Year, d.Month, d.Day, int(c)/60, int(c)%60, 0, 0, time.UTC).Unix()
	offsetAt := func(unix int64) int64 {
		_, off := time.Unix(unix, 0).In(loc).Zone()
		return int64(off)
	}
	before := offsetAt(wall - 12*3600) // offset in force before any transition near wall
	after := offsetAt(wall + 12*3600)
	valid := func(off int64) (int64, bool) {
		u := wall - off
		return u, offsetAt(u) == off
	}
	u1, ok1 := valid(before)
	u2, ok2 := valid(after)
	switch {
	case ok1 && ok2:
		return time.Unix(min(u1, u2), 0).In(loc)
	case ok1:
		return time.Unix(u1, 0).In(loc)
	case ok2:
		return time.Unix(u2, 0).In(loc)
	default:
		// In the gap: read the wall time with the offset before the change.
		return time.Unix(wall-before, 0).In(loc)
	}
}

// Compute applies rule to date d in loc.
func Compute(d Date, loc *time.Location, rule Rule) Day {
	day := Day{
		Date:     d,
		Type:     rule.Type,
		Notes:    rule.Notes,
		RuleID:   rule.ID,
		Midnight: LocalTime(d, 0, loc),
	}
	switch {
	case rule.Kind == Open24:
		day.Open24 = true
		end := LocalTime(d.AddDays(1), 0, loc).Add(-time.Millisecond)
		day.Openings = []Opening{{Opens: day.Midnight, Closes: end}}
	case rule.Kind == Hours && len(rule.Periods) > 0:
		day.Openings = make([]Opening, len(rule.Periods))
		for i, p := range rule.Periods {
			closeDate := d
			if p.Overnight() {
				closeDate = d.AddDays(1)
			}
			day.Openings[i] = Opening{
				Opens:     LocalTime(d, p.Opens, loc),
				Closes:    LocalTime(closeDate, p.Closes, loc),
				Overnight: p.Overnight(),
			}
		}
		day.Overnight = rule.Periods[len(rule.Periods)-1].Overnight()
	default:
		day.Closed = true
	}
	return day
}

// TimeLayout is ISO 8601 with milliseconds and the UTC offset.
const TimeLayout = "2006-01-02T15:04:05.000-07:00"

// FormatTime writes t in TimeLayout.
func FormatTime(t time.Time) string { return t.Format(TimeLayout) }

// Term is a named span of dates of a library.
type Term struct {
	ID          int64
	First, Last Date
}

// Covers reports whether d falls in the term.
func (t Term) Covers(d Date) bool { return !d.Before(t.First) && !t.Last.Before(d) }

// WeeklyRules is a weekly schedule: one rule per weekday (index time.Weekday).
type WeeklyRules [7]Rule

// LocationRules is everything that decides one location's days.
type LocationRules struct {
	Terms      []Term                 // the library's terms
	Schedules  map[int64]*WeeklyRules // by term id
	Exceptions map[Date]Rule
}

// RuleFor picks the rule of date d: an exception on that date, else the
// weekly schedule of the most specific term covering d that has a schedule
// for the location (latest first day, then earliest last day, then lowest
// id), else Unscheduled.
func (lr *LocationRules) RuleFor(d Date) Rule {
	if r, ok := lr.Exceptions[d]; ok {
		return r
	}
	var best *Term
	for i := range lr.Terms {
		t := &lr.Terms[i]
		if !t.Covers(d) || lr.Schedules[t.ID] == nil {
			continue
		}
		if best == nil || moreSpecific(t, best) {
			best = t
		}
	}
	if best == nil {
		return Unscheduled
	}
	return lr.Schedules[best.ID][d.Weekday()]
}

func moreSpecific(a, b *Term) bool {
	if a.First != b.First {
		return b.First.Before(a.First)
	}
	if a.Last != b.Last {
		return a.Last.Before(b.Last)
	}
	return a.ID < b.ID
}

// Days computes every day of r.
func (lr *LocationRules) Days(r Range, loc *time.Location) []Day {
	n := r.Days()
	out := make([]Day, 0, n)
	for d, i := r.From, 0; i < n; d, i = d.AddDays(1), i+1 {
		out = append(out, Compute(d, loc, lr.RuleFor(d)))
	}
	return out
}
