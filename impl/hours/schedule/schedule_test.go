package schedule

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func mustLoad(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("loading zone %s: %v", name, err)
	}
	return loc
}

func mustDate(t testing.TB, s string) Date {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustPeriods(t testing.TB, list ...string) []Period {
	t.Helper()
	ps, err := ParsePeriods(list)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestComputeTimes is the time-correctness table: every expected instant is
// written out in full, with milliseconds and offset.
func TestComputeTimes(t *testing.T) {
	t.Parallel()
	type span struct{ opens, closes string }
	cases := []struct {
		name      string
		zone      string
		day       string
		rule      Rule
		want      []span
		closed    bool
		overnight bool
		midnight  string
	}{
		{
			name: "ordinary day, winter offset", zone: "America/Los_Angeles", day: "2026-01-14",
			rule:     Rule{Kind: Hours, Periods: mustPeriods(t, "08:00-17:00")},
			want:     []span{{"2026-01-14T08:00:00.000-08:00", "2026-01-14T17:00:00.000-08:00"}},
			midnight: "2026-01-14T00:00:00.000-08:00",
		},
		{
			name: "spring forward: hours after the change carry the new offset", zone: "America/Los_Angeles", day: "2026-03-08",
			rule:     Rule{Kind: Hours, Periods: mustPeriods(t, "08:00-17:00")},
			want:     []span{{"2026-03-08T08:00:00.000-07:00", "2026-03-08T17:00:00.000-07:00"}},
			midnight: "2026-03-08T00:00:00.000-08:00",
		},
		{
			name: "spring forward: a time in the skipped hour is the instant of the change", zone: "America/Los_Angeles", day: "2026-03-08",
			rule:     Rule{Kind: Hours, Periods: mustPeriods(t, "01:30-02:30")},
			want:     []span{{"2026-03-08T01:30:00.000-08:00", "2026-03-08T03:00:00.000-07:00"}},
			midnight: "2026-03-08T00:00:00.000-08:00",
		},
		{
			// was read back opening at 03:30 and closing at 03:15
			name: "spring forward: opening in the gap never closes before it opens", zone: "America/Los_Angeles", day: "2026-03-08",
			rule:     Rule{Kind: Hours, Periods: mustPeriods(t, "02:30-03:15", "09:00-17:00")},
			want:     []span{{"2026-03-08T03:00:00.000-07:00", "2026-03-08T03:15:00.000-07:00"}, {"2026-03-08T09:00:00.000-07:00", "2026-03-08T17:00:00.000-07:00"}},
			midnight: "2026-03-08T00:00:00.000-08:00",
		},
		{
			// was read back as 03:10-03:20, an hour that was never given
			name: "spring forward: a period wholly in the gap lasts no time and is left out", zone: "America/Los_Angeles", day: "2026-03-08",
			rule:     Rule{Kind: Hours, Periods: mustPeriods(t, "02:10-02:20", "09:00-17:00")},
			want:     []span{{"2026-03-08T09:00:00.000-07:00", "2026-03-08T17:00:00.000-07:00"}},
			midnight: "2026-03-08T00:00:00.000-08:00",
		},
		{
			name: "spring forward: a day whose only period is in the gap is closed", zone: "America/Los_Angeles", day: "2026-03-08",
			rule:     Rule{Kind: Hours, Periods: mustPeriods(t, "02:10-02:20")},
			closed:   true,
			midnight: "2026-03-08T00:00:00.000-08:00",
		},
		{
			name: "fall back: a period inside the repeated hour is its first occurrence", zone: "America/Los_Angeles", day: "2026-11-01",
			rule:     Rule{Kind: Hours, Periods: mustPeriods(t, "01:30-01:45", "04:00-05:00")},
			want:     []span{{"2026-11-01T01:30:00.000-07:00", "2026-11-01T01:45:00.000-07:00"}, {"2026-11-01T04:00:00.000-08:00", "2026-11-01T05:00:00.000-08:00"}},
			midnight: "2026-11-01T00:00:00.000-07:00",
		},
		{
			name: "fall back: a period across the repeated hour lasts an hour longer", zone: "America/Los_Angeles", day: "2026-11-01",
			rule:     Rule{Kind: Hours, Periods: mustPeriods(t, "00:30-03:00")},
			want:     []span{{"2026-11-01T00:30:00.000-07:00", "2026-11-01T03:00:00.000-08:00"}},
			midnight: "2026-11-01T00:00:00.000-07:00",
		},
		{
			name: "spring forward: 24 hours is a 23-hour day", zone: "America/Los_Angeles", day: "2026-03-08",
			rule:     Rule{Kind: Open24},
			want:     []span{{"2026-03-08T00:00:00.000-08:00", "2026-03-08T23:59:59.999-07:00"}},
			midnight: "2026-03-08T00:00:00.000-08:00",
		},
		{
			name: "overnight into spring forward closes at 03:00 new time", zone: "America/Los_Angeles", day: "2026-03-07",
			rule:      Rule{Kind: Hours, Periods: mustPeriods(t, "20:00-02:00")},
			want:      []span{{"2026-03-07T20:00:00.000-08:00", "2026-03-08T03:00:00.000-07:00"}},
			overnight: true, midnight: "2026-03-07T00:00:00.000-08:00",
		},
		{
			name: "fall back: 24 hours is a 25-hour day", zone: "America/Los_Angeles", day: "2026-11-01",
			rule:     Rule{Kind: Open24},
			want:     []span{{"2026-11-01T00:00:00.000-07:00", "2026-11-01T23:59:59.999-08:00"}},
			midnight: "2026-11-01T00:00:00.000-07:00",
		},
		{
			name: "fall back: the repeated hour is its first occurrence", zone: "America/Los_Angeles", day: "2026-11-01",
			rule:     Rule{Kind: Hours, Periods: mustPeriods(t, "01:30-09:00")},
			want:     []span{{"2026-11-01T01:30:00.000-07:00", "2026-11-01T09:00:00.000-08:00"}},
			midnight: "2026-11-01T00:00:00.000-07:00",
		},
		{
			name: "overnight into fall back", zone: "America/Los_Angeles", day: "2026-10-31",
			rule:      Rule{Kind: Hours, Periods: mustPeriods(t, "22:00-03:00")},
			want:      []span{{"2026-10-31T22:00:00.000-07:00", "2026-11-01T03:00:00.000-08:00"}},
			overnight: true, midnight: "2026-10-31T00:00:00.000-07:00",
		},
		{
			name: "overnight across a month and year end", zone: "America/Los_Angeles", day: "2026-12-31",
			rule:      Rule{Kind: Hours, Periods: mustPeriods(t, "18:00-00:00")},
			want:      []span{{"2026-12-31T18:00:00.000-08:00", "2027-01-01T00:00:00.000-08:00"}},
			overnight: true, midnight: "2026-12-31T00:00:00.000-08:00",
		},
		{
			name: "several periods: lunch break and evening", zone: "America/Los_Angeles", day: "2026-06-10",
			rule: Rule{Kind: Hours, Periods: mustPeriods(t, "08:00-12:00", "13:00-17:00", "19:00-23:30")},
			want: []span{
				{"2026-06-10T08:00:00.000-07:00", "2026-06-10T12:00:00.000-07:00"},
				{"2026-06-10T13:00:00.000-07:00", "2026-06-10T17:00:00.000-07:00"},
				{"2026-06-10T19:00:00.000-07:00", "2026-06-10T23:30:00.000-07:00"},
			},
			midnight: "2026-06-10T00:00:00.000-07:00",
		},
		{
			name: "several periods, the last overnight", zone: "America/Los_Angeles", day: "2026-06-12",
			rule: Rule{Kind: Hours, Periods: mustPeriods(t, "09:00-12:00", "20:00-01:30")},
			want: []span{
				{"2026-06-12T09:00:00.000-07:00", "2026-06-12T12:00:00.000-07:00"},
				{"2026-06-12T20:00:00.000-07:00", "2026-06-13T01:30:00.000-07:00"},
			},
			overnight: true, midnight: "2026-06-12T00:00:00.000-07:00",
		},
		{
			name: "closed", zone: "America/Los_Angeles", day: "2026-12-25",
			rule: Rule{Kind: Closed, Type: TypeHoliday}, closed: true,
			midnight: "2026-12-25T00:00:00.000-08:00",
		},
		{
			name: "hours kind with no periods is closed", zone: "America/Los_Angeles", day: "2026-12-26",
			rule: Rule{Kind: Hours}, closed: true,
			midnight: "2026-12-26T00:00:00.000-08:00",
		},
		{
			name: "other zone: New York", zone: "America/New_York", day: "2026-03-08",
			rule:     Rule{Kind: Hours, Periods: mustPeriods(t, "09:00-21:00")},
			want:     []span{{"2026-03-08T09:00:00.000-04:00", "2026-03-08T21:00:00.000-04:00"}},
			midnight: "2026-03-08T00:00:00.000-05:00",
		},
		{
			name: "other zone: London spring forward at 01:00", zone: "Europe/London", day: "2026-03-29",
			rule:     Rule{Kind: Hours, Periods: mustPeriods(t, "00:30-10:00")},
			want:     []span{{"2026-03-29T00:30:00.000+00:00", "2026-03-29T10:00:00.000+01:00"}},
			midnight: "2026-03-29T00:00:00.000+00:00",
		},
		{
			name: "quarter-hour offset: Kathmandu", zone: "Asia/Kathmandu", day: "2026-07-01",
			rule:     Rule{Kind: Open24},
			want:     []span{{"2026-07-01T00:00:00.000+05:45", "2026-07-01T23:59:59.999+05:45"}},
			midnight: "2026-07-01T00:00:00.000+05:45",
		},
		{
			name: "half-hour daylight saving: Lord Howe falls back at 02:00", zone: "Australia/Lord_Howe", day: "2026-04-05",
			rule:     Rule{Kind: Hours, Periods: mustPeriods(t, "01:45-02:15")},
			want:     []span{{"2026-04-05T01:45:00.000+11:00", "2026-04-05T02:15:00.000+10:30"}},
			midnight: "2026-04-05T00:00:00.000+11:00",
		},
		{
			name: "midnight skipped: Santiago springs forward at 00:00", zone: "America/Santiago", day: "2026-09-06",
			rule:     Rule{Kind: Open24},
			want:     []span{{"2026-09-06T01:00:00.000-03:00", "2026-09-06T23:59:59.999-03:00"}},
			midnight: "2026-09-06T01:00:00.000-03:00",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			loc := mustLoad(t, tc.zone)
			day := Compute(mustDate(t, tc.day), loc, tc.rule)
			if day.Closed != tc.closed {
				t.Errorf("closed = %v, want %v", day.Closed, tc.closed)
			}
			if day.Overnight != tc.overnight {
				t.Errorf("overnight = %v, want %v", day.Overnight, tc.overnight)
			}
			if got := FormatTime(day.Midnight); got != tc.midnight {
				t.Errorf("midnight = %s, want %s", got, tc.midnight)
			}
			if len(day.Openings) != len(tc.want) {
				t.Fatalf("%d openings, want %d", len(day.Openings), len(tc.want))
			}
			for i, w := range tc.want {
				o := day.Openings[i]
				if got := FormatTime(o.Opens); got != w.opens {
					t.Errorf("period %d opens_at = %s, want %s", i, got, w.opens)
				}
				if got := FormatTime(o.Closes); got != w.closes {
					t.Errorf("period %d closes_at = %s, want %s", i, got, w.closes)
				}
				if !o.Closes.After(o.Opens) {
					t.Errorf("period %d closes before it opens", i)
				}
			}
		})
	}
}

func TestOpen24Durations(t *testing.T) {
	t.Parallel()
	loc := mustLoad(t, "America/Los_Angeles")
	for day, hours := range map[string]time.Duration{"2026-03-08": 23, "2026-11-01": 25, "2026-06-01": 24} {
		d := Compute(mustDate(t, day), loc, Rule{Kind: Open24})
		got := d.Openings[0].Closes.Sub(d.Openings[0].Opens) + time.Millisecond
		if got != hours*time.Hour {
			t.Errorf("%s: open for %v, want %v", day, got, hours*time.Hour)
		}
	}
}

func TestParsePeriods(t *testing.T) {
	t.Parallel()
	good := []struct {
		in   []string
		want string
	}{
		{[]string{"09:00-17:00"}, "09:00-17:00"},
		{[]string{"08:00-12:00", "12:00-17:00"}, "08:00-12:00,12:00-17:00"},
		{[]string{"20:00-02:00"}, "20:00-02:00"},
		{[]string{"09:00-12:00", "18:00-00:00"}, "09:00-12:00,18:00-00:00"},
		{[]string{"00:00-23:59"}, "00:00-23:59"},
		{[]string{"09:00-12:00", "18:00-09:00"}, "09:00-12:00,18:00-09:00"},
		{nil, ""},
	}
	for _, g := range good {
		ps, err := ParsePeriods(g.in)
		if err != nil {
			t.Errorf("%q: %v", g.in, err)
			continue
		}
		if got := FormatPeriods(ps); got != g.want {
			t.Errorf("%q: got %q, want %q", g.in, got, g.want)
		}
	}
	bad := []struct {
		in     []string
		index  int
		reason string
	}{
		{[]string{"9:00-17:00"}, 0, "not HH:MM"},
		{[]string{"09:00"}, 0, "not HH:MM-HH:MM"},
		{[]string{"24:00-25:00"}, 0, "hour out of range"},
		{[]string{"09:60-10:00"}, 0, "minute out of range"},
		{[]string{"09:00-09:00"}, 0, "same time"},
		{[]string{"09:00-12:00", "11:00-13:00"}, 1, "opens before"},
		{[]string{"20:00-02:00", "03:00-04:00"}, 1, "after midnight"},
		{[]string{"a1:00-02:00"}, 0, "not HH:MM"},
		// Found by FuzzParsePeriods: 26 hours in one day.
		{[]string{"00:00-10:00", "18:00-10:00"}, 1, "at most 24 hours"},
		{[]string{"09:00-12:00", "18:00-09:01"}, 1, "at most 24 hours"},
		{[]string{"01:00-02:00", "03:00-04:00", "05:00-06:00", "07:00-08:00", "09:00-10:00", "11:00-12:00", "13:00-14:00"}, 6, "more than"},
	}
	for _, b := range bad {
		_, err := ParsePeriods(b.in)
		var pe *PeriodError
		if !errors.As(err, &pe) || !errors.Is(err, ErrPeriod) {
			t.Errorf("%q: error %v, want a PeriodError", b.in, err)
			continue
		}
		if pe.Index != b.index || !strings.Contains(pe.Reason, b.reason) {
			t.Errorf("%q: index %d reason %q, want index %d reason containing %q", b.in, pe.Index, pe.Reason, b.index, b.reason)
		}
	}
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"2026-01-01", "2024-02-29", "1900-01-01", "2999-12-31"} {
		d, err := ParseDate(s)
		if err != nil || d.String() != s {
			t.Errorf("%s: %v %v", s, d, err)
		}
	}
	for _, s := range []string{"", "2026-1-01", "2026-02-30", "2025-02-29", "2026-13-01", "2026-00-10", "0000-01-01", "1899-12-31", "3000-01-01", "9999-12-31", "2026/01/01", "2026-01-01T00:00", "２０２６-01-01", "+026-01-01", "2026-01-3a"} {
		if _, err := ParseDate(s); !errors.Is(err, ErrDate) {
			t.Errorf("%q: error %v, want ErrDate", s, err)
		}
	}
}

func TestParseRange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		from, to   string
		wantFrom   string
		wantTo     string
		explicit   bool
		badParam   string
		reasonPart string
	}{
		{from: "", to: "", explicit: false},
		{from: "2026-03-08", to: "", wantFrom: "2026-03-08", wantTo: "2026-03-08", explicit: true},
		{from: "2026-03-01", to: "2026-03-31", wantFrom: "2026-03-01", wantTo: "2026-03-31", explicit: true},
		{from: "2026-01-31", to: "2027-07-31", wantFrom: "2026-01-31", wantTo: "2027-07-31", explicit: true},
		{from: "2026-03-08", to: "2026-03-08", wantFrom: "2026-03-08", wantTo: "2026-03-08", explicit: true},
		{from: "", to: "2026-03-08", badParam: "to", reasonPart: "without"},
		{from: "2026-3-8", to: "", badParam: "from", reasonPart: "YYYY-MM-DD"},
		{from: "2026-03-08", to: "2026-02-30", badParam: "to", reasonPart: "does not exist"},
		{from: "2026-03-08", to: "2026-03-07", badParam: "to", reasonPart: "before"},
		{from: "2026-01-31", to: "2027-08-01", badParam: "to", reasonPart: "18 months"},
		// 18 months from the 31st of a month ending in a shorter month ends
		// on that month's last day, not in the month after.
		{from: "2026-08-31", to: "2028-02-29", wantFrom: "2026-08-31", wantTo: "2028-02-29", explicit: true},
		{from: "2026-08-31", to: "2028-03-01", badParam: "to", reasonPart: "at most 2028-02-29"},
		{from: "2026-09-30", to: "2028-03-30", wantFrom: "2026-09-30", wantTo: "2028-03-30", explicit: true},
		{from: "2026-09-30", to: "2028-03-31", badParam: "to", reasonPart: "18 months"},
	}
	for _, tc := range cases {
		r, explicit, err := ParseRange(tc.from, tc.to)
		if tc.badParam != "" {
			var re *RangeError
			if !errors.As(err, &re) || re.Parameter != tc.badParam || !strings.Contains(re.Reason, tc.reasonPart) {
				t.Errorf("from=%q to=%q: error %v, want parameter %s with %q", tc.from, tc.to, err, tc.badParam, tc.reasonPart)
			}
			continue
		}
		if err != nil || explicit != tc.explicit {
			t.Errorf("from=%q to=%q: %v explicit=%v", tc.from, tc.to, err, explicit)
			continue
		}
		if explicit && (r.From.String() != tc.wantFrom || r.To.String() != tc.wantTo) {
			t.Errorf("from=%q to=%q: got %s..%s", tc.from, tc.to, r.From, r.To)
		}
	}
}

func TestWeekAndToday(t *testing.T) {
	t.Parallel()
	for day, sunday := range map[string]string{
		"2026-03-08": "2026-03-08", "2026-03-14": "2026-03-08", "2026-03-11": "2026-03-08", "2026-01-01": "2025-12-28",
	} {
		w := Week(mustDate(t, day))
		if w.From.String() != sunday || w.From.Weekday() != time.Sunday || w.To.Weekday() != time.Saturday || w.Days() != 7 {
			t.Errorf("%s: week %s..%s", day, w.From, w.To)
		}
	}
	// 2026-03-08T05:00Z is still Saturday the 7th in Los Angeles, already
	// Sunday the 8th in London: "today" depends on the library's zone.
	now := time.Date(2026, 3, 8, 5, 0, 0, 0, time.UTC)
	if got := Today(now, mustLoad(t, "America/Los_Angeles")).String(); got != "2026-03-07" {
		t.Errorf("today in Los Angeles = %s", got)
	}
	if got := Today(now, mustLoad(t, "Europe/London")).String(); got != "2026-03-08" {
		t.Errorf("today in London = %s", got)
	}
	d, err := ParseWhen("today", now, mustLoad(t, "America/Los_Angeles"))
	if err != nil || d.String() != "2026-03-07" {
		t.Errorf("when=today: %v %v", d, err)
	}
	if _, err := ParseWhen("tomorrow", now, time.UTC); err == nil {
		t.Error("when=tomorrow accepted")
	}
}

func TestRuleFor(t *testing.T) {
	t.Parallel()
	regular := func(id int64) *WeeklyRules {
		var w WeeklyRules
		for i := range w {
			w[i] = Rule{ID: id*10 + int64(i), Kind: Hours, Periods: mustPeriods(t, "09:00-17:00"), Type: TypeRegular}
		}
		return &w
	}
	lr := LocationRules{
		Terms: []Term{
			{ID: 1, First: mustDate(t, "2026-01-01"), Last: mustDate(t, "2026-06-30")},
			{ID: 2, First: mustDate(t, "2026-03-20"), Last: mustDate(t, "2026-03-29")}, // spring break
			{ID: 3, First: mustDate(t, "2026-04-01"), Last: mustDate(t, "2026-04-30")}, // no schedule here
		},
		Schedules:  map[int64]*WeeklyRules{1: regular(1), 2: regular(2)},
		Exceptions: map[Date]Rule{mustDate(t, "2026-03-25"): {ID: 99, Kind: Closed, Type: TypeHoliday}},
	}
	cases := map[string]int64{
		"2026-03-02": 11, // Monday, term 1
		"2026-03-23": 21, // Monday, the more specific term 2
		"2026-03-25": 99, // exception wins
		"2026-04-06": 11, // term 3 has no schedule: term 1
		"2026-07-01": 0,  // no term
	}
	for day, want := range cases {
		if got := lr.RuleFor(mustDate(t, day)).ID; got != want {
			t.Errorf("%s: rule %d, want %d", day, got, want)
		}
	}
	if r := lr.RuleFor(mustDate(t, "2026-07-01")); r.Type != TypeUnscheduled || r.Kind != Closed {
		t.Errorf("unscheduled day: %+v", r)
	}
	days := lr.Days(Range{From: mustDate(t, "2026-03-22"), To: mustDate(t, "2026-03-28")}, mustLoad(t, "America/Los_Angeles"))
	if len(days) != 7 || days[3].RuleID != 99 || !days[3].Closed || days[0].Date.String() != "2026-03-22" {
		t.Errorf("week: %+v", days)
	}
}

func TestCheckTimesExist(t *testing.T) {
	t.Parallel()
	loc := mustLoad(t, "America/Los_Angeles")
	for _, c := range []struct {
		day     string
		periods []string
		index   int // -1: accepted
		says    string
	}{
		{"2026-03-08", []string{"00:00-01:00", "02:30-03:15"}, 1, "opens at 02:30 on 2026-03-08"},
		{"2026-03-08", []string{"09:00-12:00", "13:00-02:10"}, -1, ""},
		{"2026-03-08", []string{"02:30-03:15"}, 0, "opens at 02:30 on 2026-03-08"},
		{"2026-03-08", []string{"01:00-02:00"}, 0, "closes at 02:00 on 2026-03-08"},
		{"2026-03-08", []string{"00:00-01:59", "03:00-04:00"}, -1, ""},
		{"2026-03-07", []string{"09:00-17:00", "20:00-02:30"}, 1, "closes at 02:30 on 2026-03-08"},
		{"2026-11-01", []string{"01:00-01:30", "01:45-09:00"}, -1, ""},
		{"2026-06-01", []string{"02:30-03:15"}, -1, ""},
	} {
		ps := make([]Period, len(c.periods))
		for i, s := range c.periods {
			p, err := ParsePeriod(s)
			if err != nil {
				t.Fatal(err)
			}
			ps[i] = p
		}
		err := CheckTimesExist(mustDate(t, c.day), ps, loc)
		if c.index < 0 {
			if err != nil {
				t.Errorf("%s %v: %v", c.day, c.periods, err)
			}
			continue
		}
		var pe *PeriodError
		if !errors.As(err, &pe) || pe.Index != c.index || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s %v: %v, want period %d refused saying %q", c.day, c.periods, err, c.index, c.says)
		}
	}
}
