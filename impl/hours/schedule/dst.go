package schedule

import (
	"fmt"
	"time"
)

// Daylight-saving transitions. A wall-clock time can be missing on a date (clocks spring
// forward over it: 02:00–02:59 on 2026-03-08 in America/Los_Angeles) or occur twice (clocks
// fall back: 01:00–01:59 on 2026-11-01). The rules:
//
//   - A per-date exception is written for one date, so a period of it whose opening or
//     closing does not exist on its date is refused (CheckTimesExist; a 422 pointing at the
//     period).
//   - A weekly schedule applies to many dates and cannot be refused for the one date a year
//     its times do not exist (a library closing at 02:00 every night is ordinary). On that
//     date a missing time is the instant the clocks jump (03:00 in the example): every time
//     of the gap is the same instant, so times keep their order, and a day's periods never
//     close before they open. A period that lies wholly in the gap lasts no time and is left
//     out of the day (a day left without any is closed).
//   - A repeated time is its first occurrence (daylight time in the fall), for exceptions
//     and schedules alike; a period from 01:30 to 01:45 on the fall-back day lasts 15
//     minutes, one from 00:30 to 03:00 lasts three and a half hours.

// wallOffsets reads wall-clock time c on date d in loc: the instant for each UTC offset in
// force around that date that gives back the same wall time (none in a gap, two in a
// repeated hour), and the offsets before and after any transition near it.
func wallOffsets(d Date, c Clock, loc *time.Location) (wall, before, after int64, okBefore, okAfter bool) {
	wall = time.Date(d.Year, d.Month, d.Day, int(c)/60, int(c)%60, 0, 0, time.UTC).Unix()
	before = offsetAt(wall-12*3600, loc) // offset in force before any transition near wall
	after = offsetAt(wall+12*3600, loc)
	okBefore = offsetAt(wall-before, loc) == before
	okAfter = offsetAt(wall-after, loc) == after
	return
}

func offsetAt(unix int64, loc *time.Location) int64 {
	_, off := time.Unix(unix, 0).In(loc).Zone()
	return int64(off)
}

// Exists reports whether wall-clock time c occurs on date d in loc (false in a gap).
func Exists(d Date, c Clock, loc *time.Location) bool {
	_, _, _, ok1, ok2 := wallOffsets(d, c, loc)
	return ok1 || ok2
}

// transition is the instant the offset changes between lo (old offset) and hi (new offset).
func transition(lo, hi int64, loc *time.Location) int64 {
	old := offsetAt(lo, loc)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if offsetAt(mid, loc) == old {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// CheckTimesExist refuses periods of date d whose opening (on d) or closing (on d, or the
// next date for an overnight period) does not exist in loc: a *PeriodError naming the period
// and the time, with its index in periods.
func CheckTimesExist(d Date, periods []Period, loc *time.Location) error {
	for i, p := range periods {
		closeDate := d
		if p.Overnight() {
			closeDate = d.AddDays(1)
		}
		for _, t := range []struct {
			what string
			date Date
			c    Clock
		}{{"opens", d, p.Opens}, {"closes", closeDate, p.Closes}} {
			if !Exists(t.date, t.c, loc) {
				return &PeriodError{Index: i, Period: p.String(), Reason: fmt.Sprintf("%s at %s on %s, a time that does not exist in %s (the clocks move forward over it); give a time outside the change", t.what, t.c, t.date, loc)}
			}
		}
	}
	return nil
}
