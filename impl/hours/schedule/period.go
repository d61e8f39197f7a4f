// Package schedule turns stored hours rules (weekly schedules, per-date
// exceptions) into the opening times of calendar days in a library's time
// zone. It knows nothing of HTTP or storage.
package schedule

import (
	"errors"
	"fmt"
	"strings"
)

// MaxPeriods bounds the periods of one day.
const MaxPeriods = 6

// Clock is a local wall-clock time of day in minutes after midnight (0..1439).
type Clock int

// String is the clock as "HH:MM".
func (c Clock) String() string { return fmt.Sprintf("%02d:%02d", int(c)/60, int(c)%60) }

// Period is one opening period in local wall-clock time. A period whose
// closing time is not after its opening time closes the next day.
type Period struct {
	Opens  Clock
	Closes Clock
}

// Overnight reports whether the period closes on the next calendar day.
func (p Period) Overnight() bool { return p.Closes <= p.Opens }

// String is the period as "HH:MM-HH:MM", the form ParsePeriod reads.
func (p Period) String() string { return p.Opens.String() + "-" + p.Closes.String() }

// length is the period's duration in minutes.
func (p Period) length() int {
	if p.Overnight() {
		return 24*60 - int(p.Opens) + int(p.Closes)
	}
	return int(p.Closes - p.Opens)
}

// ErrPeriod is wrapped by every error of ParsePeriod and ParsePeriods.
var ErrPeriod = errors.New("invalid period")

// PeriodError tells which period of a list is wrong.
type PeriodError struct {
	Index  int // index in the list
	Period string
	Reason string
}

func (e *PeriodError) Error() string {
	return fmt.Sprintf("period %q: %s", e.Period, e.Reason)
}

func (e *PeriodError) Unwrap() error { return ErrPeriod }

// ParseClock reads "HH:MM" (00:00..23:59).
func ParseClock(s string) (Clock, error) {
	if len(s) != 5 || s[2] != ':' {
		return 0, fmt.Errorf("%w: time %q is not HH:MM", ErrPeriod, s)
	}
	for _, i := range []int{0, 1, 3, 4} {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%w: time %q is not HH:MM", ErrPeriod, s)
		}
	}
	h := int(s[0]-'0')*10 + int(s[1]-'0')
	m := int(s[3]-'0')*10 + int(s[4]-'0')
	if h > 23 {
		return 0, fmt.Errorf("%w: time %q: hour out of range", ErrPeriod, s)
	}
	if m > 59 {
		return 0, fmt.Errorf("%w: time %q: minute out of range", ErrPeriod, s)
	}
	return Clock(h*60 + m), nil
}

// ParsePeriod reads "HH:MM-HH:MM". Equal opening and closing times are
// refused: a day open around the clock is stored as open 24 hours.
func ParsePeriod(s string) (Period, error) {
	opens, closes, ok := strings.Cut(s, "-")
	if !ok {
		return Period{}, &PeriodError{Period: s, Reason: "not HH:MM-HH:MM"}
	}
	o, err := ParseClock(opens)
	if err != nil {
		return Period{}, &PeriodError{Period: s, Reason: strings.TrimPrefix(err.Error(), ErrPeriod.Error()+": ")}
	}
	c, err := ParseClock(closes)
	if err != nil {
		return Period{}, &PeriodError{Period: s, Reason: strings.TrimPrefix(err.Error(), ErrPeriod.Error()+": ")}
	}
	if o == c {
		return Period{}, &PeriodError{Period: s, Reason: "opens and closes at the same time (use open_24h for a day open around the clock)"}
	}
	return Period{Opens: o, Closes: c}, nil
}

// ParsePeriods reads a day's periods. They must be in order, must not
// overlap, only the last may close after midnight, and it must close by
// the time the first opens (a day spans at most 24 hours).
func ParsePeriods(list []string) ([]Period, error) {
	if len(list) > MaxPeriods {
		return nil, &PeriodError{Index: MaxPeriods, Period: list[MaxPeriods], Reason: fmt.Sprintf("more than %d periods in a day", MaxPeriods)}
	}
	out := make([]Period, 0, len(list))
	for i, s := range list {
		p, err := ParsePeriod(s)
		if err != nil {
			var pe *PeriodError
			if errors.As(err, &pe) {
				pe.Index = i
			}
			return nil, err
		}
		if i > 0 {
			prev := out[i-1]
			if prev.Overnight() {
				return nil, &PeriodError{Index: i, Period: s, Reason: "follows a period that closes after midnight"}
			}
			if p.Opens < prev.Closes {
				return nil, &PeriodError{Index: i, Period: s, Reason: fmt.Sprintf("opens before the previous period (%s) closes", prev)}
			}
		}
		out = append(out, p)
	}
	// A day's hours span at most 24 hours: a last period running past
	// midnight closes before the day's first period would open again
	// ("00:00-10:00,18:00-10:00" would be 26 hours in one day).
	if n := len(out); n > 1 && out[n-1].Overnight() && out[n-1].Closes > out[0].Opens {
		return nil, &PeriodError{Index: n - 1, Period: list[n-1], Reason: fmt.Sprintf("closes the next day after %s, when the day's first period opens: a day's hours span at most 24 hours", out[0].Opens)}
	}
	return out, nil
}

// FormatPeriods is the inverse of ParsePeriods, joined by commas (the
// stored form).
func FormatPeriods(ps []Period) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = p.String()
	}
	return strings.Join(parts, ",")
}

// SplitStored splits the stored comma-joined form into period strings.
func SplitStored(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
