package schedule

import (
	"strings"
	"testing"
	"time"
)

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2026-03-08", "2024-02-29", "2026-02-30", "0000-00-00", "9999-12-31", "2026-1-1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDate(s)
		if err != nil {
			return
		}
		if d.String() != s {
			t.Fatalf("ParseDate(%q) = %s: does not round-trip", s, d)
		}
		if d.AddDays(1).AddDays(-1) != d {
			t.Fatalf("%s: day arithmetic does not round-trip", d)
		}
	})
}

func FuzzParseRange(f *testing.F) {
	f.Add("2026-03-08", "")
	f.Add("2026-03-08", "2026-03-14")
	f.Add("", "2026-03-14")
	f.Add("2026-01-31", "2027-07-31")
	f.Add("2026-03-08", "2026-03-07")
	f.Add("2026-08-31", "2028-03-01")
	f.Fuzz(func(t *testing.T, from, to string) {
		r, explicit, err := ParseRange(from, to)
		if err != nil {
			re, ok := err.(*RangeError)
			if !ok || (re.Parameter != "from" && re.Parameter != "to") {
				t.Fatalf("error %v does not name a parameter", err)
			}
			return
		}
		if !explicit {
			if from != "" || to != "" {
				t.Fatalf("from=%q to=%q: not explicit", from, to)
			}
			return
		}
		if r.To.Before(r.From) {
			t.Fatalf("range %s..%s is reversed", r.From, r.To)
		}
		// At most 18 calendar months: the month of `to` is at most 18
		// after the month of `from`, and in that month no later day.
		months := (r.To.Year-r.From.Year)*12 + int(r.To.Month) - int(r.From.Month)
		if months > MaxRangeMonths || (months == MaxRangeMonths && r.To.Day > r.From.Day) {
			t.Fatalf("range %s..%s is longer than %d months", r.From, r.To, MaxRangeMonths)
		}
		if r.Days() < 1 || r.Days() > 31*MaxRangeMonths {
			t.Fatalf("range %s..%s has %d days", r.From, r.To, r.Days())
		}
	})
}

func FuzzParsePeriods(f *testing.F) {
	f.Add("09:00-17:00")
	f.Add("08:00-12:00,13:00-17:00")
	f.Add("20:00-02:00")
	f.Add("09:00-09:00")
	f.Add("23:59-00:00,00:00-01:00")
	f.Add("-,")
	la, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		f.Fatal(err)
	}
	day := Date{2026, time.March, 7}
	f.Fuzz(func(t *testing.T, stored string) {
		ps, err := ParsePeriods(SplitStored(stored))
		if err != nil {
			return
		}
		if got := FormatPeriods(ps); got != stored {
			t.Fatalf("%q: formats back as %q", stored, got)
		}
		total := 0
		for i, p := range ps {
			total += p.length()
			if p.Overnight() && i != len(ps)-1 {
				t.Fatalf("%q: overnight period %d is not last", stored, i)
			}
		}
		if total > 24*60 {
			t.Fatalf("%q: periods add up to %d minutes", stored, total)
		}
		// Computed instants are ordered, even across a DST change.
		d := Compute(day, la, Rule{Kind: Hours, Periods: ps})
		for i, o := range d.Openings {
			if !o.Closes.After(o.Opens) {
				t.Fatalf("%q: period %d closes at %s, before it opens at %s", stored, i, o.Closes, o.Opens)
			}
			if i > 0 && o.Opens.Before(d.Openings[i-1].Closes) {
				t.Fatalf("%q: period %d overlaps the previous one", stored, i)
			}
			if !strings.HasSuffix(FormatTime(o.Opens)[:23], "00.000") {
				t.Fatalf("%q: opening %s not on a minute", stored, FormatTime(o.Opens))
			}
		}
	})
}
