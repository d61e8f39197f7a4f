package schedule

import (
	"errors"
	"fmt"
	"time"
)

// Date is a calendar date with no time zone.
type Date struct {
	Year  int
	Month time.Month
	Day   int
}

// DateOf is the calendar date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// Today is the current date in loc.
func Today(now time.Time, loc *time.Location) Date { return DateOf(now.In(loc)) }

func (d Date) utc() time.Time { return time.Date(d.Year, d.Month, d.Day, 0, 0, 0, 0, time.UTC) }

// String is the date as YYYY-MM-DD.
func (d Date) String() string {
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, int(d.Month), d.Day)
}

// AddDays is the date n days later (earlier when n < 0).
func (d Date) AddDays(n int) Date { return DateOf(d.utc().AddDate(0, 0, n)) }

// AddMonths is the date n months later, normalized like time.AddDate.
func (d Date) AddMonths(n int) Date { return DateOf(d.utc().AddDate(0, n, 0)) }

// AddMonthsClamped is the same day of the month n months later, or the
// last day of that month when it is shorter (2026-08-31 plus 18 months is
// 2028-02-29, not AddMonths' 2028-03-02).
func (d Date) AddMonthsClamped(n int) Date {
	first := Date{d.Year, d.Month, 1}.AddMonths(n)
	last := first.AddMonths(1).AddDays(-1)
	if d.Day > last.Day {
		return last
	}
	return Date{first.Year, first.Month, d.Day}
}

// Weekday is the day of the week of d.
func (d Date) Weekday() time.Weekday { return d.utc().Weekday() }

// Before reports whether d is earlier than e.
func (d Date) Before(e Date) bool { return d.utc().Before(e.utc()) }

// DaysUntil is the number of days from d to e (negative when e is earlier).
func (d Date) DaysUntil(e Date) int { return int(e.utc().Sub(d.utc()).Hours() / 24) }

// ErrDate is wrapped by the errors of ParseDate.
var ErrDate = errors.New("invalid date")

// Years a date may have: hours are about the present, and the bounds keep
// every computed time (a period closing the next day, 18 months later) a
// four-digit year with a modern zone offset.
const (
	MinYear = 1900
	MaxYear = 2999
)

// ParseDate reads an ISO 8601 calendar date YYYY-MM-DD (years MinYear to
// MaxYear) and refuses dates that do not exist (2026-02-30).
func ParseDate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, fmt.Errorf("%w: %q is not YYYY-MM-DD", ErrDate, s)
	}
	num := func(part string) (int, bool) {
		n := 0
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return 0, false
			}
			n = n*10 + int(part[i]-'0')
		}
		return n, true
	}
	y, ok1 := num(s[0:4])
	m, ok2 := num(s[5:7])
	d, ok3 := num(s[8:10])
	if !ok1 || !ok2 || !ok3 {
		return Date{}, fmt.Errorf("%w: %q is not YYYY-MM-DD", ErrDate, s)
	}
	if m < 1 || m > 12 || d < 1 {
		return Date{}, fmt.Errorf("%w: %q does not exist", ErrDate, s)
	}
	if y < MinYear || y > MaxYear {
		return Date{}, fmt.Errorf("%w: %q is outside the years %d to %d", ErrDate, s, MinYear, MaxYear)
	}
	date := Date{y, time.Month(m), d}
	if DateOf(date.utc()) != date {
		return Date{}, fmt.Errorf("%w: %q does not exist", ErrDate, s)
	}
	return date, nil
}

// MaxRangeMonths bounds a requested range: `to` may be at most this many
// months after `from`.
const MaxRangeMonths = 18

// Range is an inclusive span of dates.
type Range struct {
	From, To Date
}

// Days is the number of days in r.
func (r Range) Days() int { return r.From.DaysUntil(r.To) + 1 }

// Week is the Sunday–Saturday week holding day.
func Week(day Date) Range {
	sunday := day.AddDays(-int(day.Weekday()))
	return Range{From: sunday, To: sunday.AddDays(6)}
}

// RangeError is a refused from/to pair; Parameter names the query
// parameter at fault.
type RangeError struct {
	Parameter string
	Reason    string
}

func (e *RangeError) Error() string { return e.Reason }

// ParseRange reads the `from` and `to` query parameters ("" when absent).
// explicit is false when neither is given: the caller then uses the
// current week in each library's zone. `from` alone is that day; `from`
// and `to` are inclusive; `to` alone, bad dates, `to` before `from` and a
// span over MaxRangeMonths are refused.
func ParseRange(from, to string) (r Range, explicit bool, err error) {
	if from == "" && to == "" {
		return Range{}, false, nil
	}
	if from == "" {
		return Range{}, false, &RangeError{Parameter: "to", Reason: `"to" given without "from"`}
	}
	f, err := ParseDate(from)
	if err != nil {
		return Range{}, false, &RangeError{Parameter: "from", Reason: `"from": ` + err.Error()}
	}
	if to == "" {
		return Range{From: f, To: f}, true, nil
	}
	t, err := ParseDate(to)
	if err != nil {
		return Range{}, false, &RangeError{Parameter: "to", Reason: `"to": ` + err.Error()}
	}
	if t.Before(f) {
		return Range{}, false, &RangeError{Parameter: "to", Reason: fmt.Sprintf(`"to" (%s) is before "from" (%s)`, t, f)}
	}
	if limit := f.AddMonthsClamped(MaxRangeMonths); limit.Before(t) {
		// Worded to follow "query parameter " in the service's message.
		return Range{}, false, &RangeError{Parameter: "to", Reason: fmt.Sprintf(`"to" (%s) is more than %d months after "from" (%s): it may be at most %s`, t, MaxRangeMonths, f, limit)}
	}
	return Range{From: f, To: t}, true, nil
}

// ParseWhen reads the legacy `when`: "today" (in loc at now) or a date.
func ParseWhen(when string, now time.Time, loc *time.Location) (Date, error) {
	if when == "today" {
		return Today(now, loc), nil
	}
	return ParseDate(when)
}
