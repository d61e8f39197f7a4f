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
// occurrence; a time skipped when clocks spring forward is the instant of
// the change (02:30 becomes 03:00), so that times keep their order (dst.go).
func LocalTime(d Date, c Clock, loc *time.Location) time.Time {
	wall, before, after, ok1, ok2 := wallOffsets(d, c, loc)
	u1, u2 := wall-before, wall-after
	switch {
	case ok1 && ok2:
		return time.Unix(min(u1, u2), 0).In(loc)
	case ok1:
		return time.Unix(u1, 0).In(loc)
	case ok2:
		return time.Unix(u2, 0).In(loc)
	default:
		// In the gap: wall read with the new offset is before the change,
		// with the old one after it.
		return time.Unix(transition(min(u1, u2), max(u1, u2), loc), 0).In(loc)
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
		day.Openings = make([]Opening, 0, len(rule.Periods))
		for _, p := range rule.Periods {
			closeDate := d
			if p.Overnight() {
				closeDate = d.AddDays(1)
			}
			o := Opening{
				Opens:     LocalTime(d, p.Opens, loc),
				Closes:    LocalTime(closeDate, p.Closes, loc),
				Overnight: p.Overnight(),
			}
			if !o.Closes.After(o.Opens) {
				continue // wholly inside a spring-forward gap: it lasts no time (dst.go)
			}
			day.Openings = append(day.Openings, o)
			day.Overnight = o.Overnight
		}
		if len(day.Openings) == 0 {
			day.Closed = true
		}
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
