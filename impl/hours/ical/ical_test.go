package ical

import (
	"bytes"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
	"github.com/sitelib/sitesvc/impl/testkit"
)

func mustZone(t *testing.T, name string) *time.Location {
	t.Helper()
	z, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return z
}

func mustDate(t *testing.T, s string) schedule.Date {
	t.Helper()
	d, err := schedule.ParseDate(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// dstFeed is a week across the 2026 spring-forward (Sunday 8 March in Los
// Angeles): 9–17 every day, a holiday closure with a note, an overnight
// period and an open-24-hours day.
// mustWrite is f written as iCalendar; an error fails t.
func mustWrite(t *testing.T, f Feed) []byte {
	t.Helper()
	out, err := Write(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func dstFeed(t *testing.T) Feed {
	t.Helper()
	return laFeed(t, "green", "Green Library, Main", schedule.Period{Opens: 9 * 60, Closes: 17 * 60}, map[schedule.Date]schedule.Rule{
		mustDate(t, "2026-03-10"): {ID: 90, Kind: schedule.Closed, Type: schedule.TypeHoliday, Notes: "Staff day; back Wednesday, 9am"},
		mustDate(t, "2026-03-11"): {ID: 91, Kind: schedule.Hours, Periods: []schedule.Period{{Opens: 20 * 60, Closes: 2 * 60}}, Type: schedule.TypeSpecial, Notes: "Finals: open late"},
		mustDate(t, "2026-03-12"): {ID: 92, Kind: schedule.Open24, Type: schedule.TypeSpecial},
	}, "2026-03-07", "2026-03-13", time.Date(2026, 3, 7, 8, 0, 0, 0, time.UTC))
}

// laFeed is the feed of the main location of library (named name) in Los
// Angeles from from to to, made at stamp: open daily for the regular
// period through 2026, with exceptions.
func laFeed(t *testing.T, library, name string, regular schedule.Period, exceptions map[schedule.Date]schedule.Rule, from, to string, stamp time.Time) Feed {
	t.Helper()
	zone := mustZone(t, "America/Los_Angeles")
	rules := schedule.LocationRules{
		Terms:      []schedule.Term{{ID: 1, First: mustDate(t, "2026-01-01"), Last: mustDate(t, "2026-12-31")}},
		Schedules:  map[int64]*schedule.WeeklyRules{1: {}},
		Exceptions: exceptions,
	}
	for wd := range 7 {
		rules.Schedules[1][wd] = schedule.Rule{ID: int64(10 + wd), Kind: schedule.Hours, Periods: []schedule.Period{regular}, Type: schedule.TypeRegular}
	}
	days := rules.Days(schedule.Range{From: mustDate(t, from), To: mustDate(t, to)}, zone)
	return Feed{
		Name:      name,
		URL:       "https://example.org/hours/libraries/" + library + "/locations/main.ics",
		UIDDomain: "example.org",
		Zone:      zone,
		Stamp:     stamp,
		Sources:   []Source{{Name: name, UIDScope: library + "/main", Days: days}},
	}
}

func TestWriteIsStableAndWellFormed(t *testing.T) {
	t.Parallel()
	f := dstFeed(t)
	a := mustWrite(t, f)
	b := mustWrite(t, f)
	if !bytes.Equal(a, b) {
		t.Fatal("two renders of the same feed differ: the ETag would change")
	}
	if !bytes.HasSuffix(a, []byte("END:VCALENDAR\r\n")) {
		t.Fatalf("feed does not end with END:VCALENDAR CRLF")
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(a), "\r\n"), "\r\n") {
		if len(line) > maxLineOctets {
			t.Errorf("line %d is %d octets: %q", i, len(line), line)
		}
		if !utf8.ValidString(line) {
			t.Errorf("line %d splits a UTF-8 sequence: %q", i, line)
		}
		if strings.ContainsAny(line, "\r\n") {
			t.Errorf("line %d holds a bare CR or LF", i)
		}
	}
	for _, want := range []string{
		"BEGIN:VTIMEZONE\r\nTZID:America/Los_Angeles\r\n",
		// The spring-forward of 2026, at 02:00 local standard time.
		"BEGIN:DAYLIGHT\r\nDTSTART:20260308T020000\r\nTZOFFSETFROM:-0800\r\nTZOFFSETTO:-0700\r\nTZNAME:PDT\r\nEND:DAYLIGHT\r\n",
		"BEGIN:STANDARD\r\nDTSTART:20261101T020000\r\nTZOFFSETFROM:-0700\r\nTZOFFSETTO:-0800\r\nTZNAME:PST\r\nEND:STANDARD\r\n",
		"UID:2026-03-09.green.main.0@example.org\r\n",
		"DTSTART;TZID=America/Los_Angeles:20260309T090000\r\n",
		"UID:2026-03-10.green.main.closed@example.org\r\nDTSTAMP:20260307T080000Z\r\nDTSTART;VALUE=DATE:20260310\r\nDTEND;VALUE=DATE:20260311\r\n",
		`DESCRIPTION:Staff day\; back Wednesday\, 9am` + "\r\n",
		// Overnight: closes at 02:00 the next day.
		"DTSTART;TZID=America/Los_Angeles:20260311T200000\r\nDTEND;TZID=America/Los_Angeles:20260312T020000\r\n",
		// Open 24 hours: to the next midnight, not 23:59:59.
		"DTSTART;TZID=America/Los_Angeles:20260312T000000\r\nDTEND;TZID=America/Los_Angeles:20260313T000000\r\n",
	} {
		if !bytes.Contains(a, []byte(want)) {
			t.Errorf("feed lacks %q", want)
		}
	}
	if n := bytes.Count(a, []byte("BEGIN:VEVENT")); n != 7 {
		t.Errorf("%d events, want 7 (6 open days, 1 holiday)", n)
	}
}

func TestFoldingAndEscaping(t *testing.T) {
	t.Parallel()
	var w writer
	long := "DESCRIPTION:" + strings.Repeat("é", 60) // 2 octets each
	w.line(long)
	out := w.String()
	lines := strings.Split(strings.TrimSuffix(out, "\r\n"), "\r\n")
	if len(lines) < 2 {
		t.Fatalf("a %d-octet line was not folded: %q", len(long), out)
	}
	var joined strings.Builder
	for i, l := range lines {
		if len(l) > maxLineOctets {
			t.Errorf("line %d: %d octets", i, len(l))
		}
		if !utf8.ValidString(l) {
			t.Errorf("line %d splits a character", i)
		}
		if i > 0 {
			if !strings.HasPrefix(l, " ") {
				t.Errorf("continuation line %d does not start with a space", i)
			}
			l = l[1:]
		}
		joined.WriteString(l)
	}
	if joined.String() != long {
		t.Errorf("unfolding does not give the line back")
	}
	for in, want := range map[string]string{
		`a\b`:          `a\\b`,
		"x;y,z":        `x\;y\,z`,
		"one\ntwo\r\n": `one\ntwo\n`,
		"bell\x07":     "bell",
	} {
		if got := escapeText(in); got != want {
			t.Errorf("escapeText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestZoneWithoutTransitions(t *testing.T) {
	t.Parallel()
	f := dstFeed(t)
	f.Zone = mustZone(t, "Asia/Kolkata")
	f.Sources[0].Days = (&schedule.LocationRules{}).Days(schedule.Range{From: mustDate(t, "2026-03-07"), To: mustDate(t, "2026-03-07")}, f.Zone)
	out := mustWrite(t, f)
	want := "BEGIN:STANDARD\r\nDTSTART:"
	if !bytes.Contains(out, []byte(want)) || !bytes.Contains(out, []byte("TZOFFSETFROM:+0530\r\nTZOFFSETTO:+0530\r\nTZNAME:IST\r\n")) {
		t.Errorf("no single +0530 observance:\n%s", out)
	}
	if bytes.Contains(out, []byte("BEGIN:VEVENT")) {
		t.Errorf("an unscheduled closed day became an event:\n%s", out)
	}
}

func TestNoZoneRefused(t *testing.T) {
	t.Parallel()
	if _, err := Write(Feed{Name: "x"}); err == nil {
		t.Fatal("a feed without a zone was written")
	}
}

// readEveryWay writes f and checks that every reader reads want from it.
func readEveryWay(t *testing.T, f Feed, want string) {
	t.Helper()
	out := mustWrite(t, f)
	for _, reader := range testkit.ICalendarReaders() {
		t.Run(reader, func(t *testing.T) {
			if got := testkit.ReadICalendar(t, reader, out); got != want {
				t.Errorf("%s read:\n%s\nwant:\n%s\nfeed:\n%s", reader, got, want, out)
			}
		})
	}
}

// TestParsedByRealReaders reads the feed with real iCalendar libraries
// (python3-icalendar, ical.js, node-ical) and checks every event's instants
// in UTC on both sides of the spring-forward.
func TestParsedByRealReaders(t *testing.T) {
	t.Parallel()
	readEveryWay(t, dstFeed(t), strings.Join([]string{
		"TZ\tAmerica/Los_Angeles",
		// Saturday before the change: PST, UTC-8.
		"2026-03-07.green.main.0@example.org\t2026-03-07T17:00:00Z\t2026-03-08T01:00:00Z\tGreen Library, Main: open\t",
		// Sunday of the change: already PDT at 09:00, UTC-7.
		"2026-03-08.green.main.0@example.org\t2026-03-08T16:00:00Z\t2026-03-09T00:00:00Z\tGreen Library, Main: open\t",
		"2026-03-09.green.main.0@example.org\t2026-03-09T16:00:00Z\t2026-03-10T00:00:00Z\tGreen Library, Main: open\t",
		"2026-03-10.green.main.closed@example.org\t2026-03-10\t2026-03-11\tGreen Library, Main: closed (holiday)\tStaff day; back Wednesday, 9am",
		"2026-03-11.green.main.0@example.org\t2026-03-12T03:00:00Z\t2026-03-12T09:00:00Z\tGreen Library, Main: open (special)\tFinals: open late",
		"2026-03-12.green.main.0@example.org\t2026-03-12T07:00:00Z\t2026-03-13T07:00:00Z\tGreen Library, Main: open 24 hours (special)\t",
		"2026-03-13.green.main.0@example.org\t2026-03-13T16:00:00Z\t2026-03-14T00:00:00Z\tGreen Library, Main: open\t",
	}, "\n")+"\n")
}

// fallFeed is medical/main's overnight hours across the 2026 fall-back
// (Sunday 1 November in Los Angeles, 02:00 PDT → 01:00 PST): open
// 20:00–01:00 every night, so Saturday's opening closes at 01:00 on the
// day the hour 01:00–01:59 happens twice, and a Sunday exception opens
// inside the repeated hour.
func fallFeed(t *testing.T) Feed {
	t.Helper()
	return laFeed(t, "medical", "Medical Library, Main", schedule.Period{Opens: 20 * 60, Closes: 1 * 60}, map[schedule.Date]schedule.Rule{
		mustDate(t, "2026-11-01"): {ID: 91, Kind: schedule.Hours, Periods: []schedule.Period{{Opens: 1*60 + 30, Closes: 3 * 60}}, Type: schedule.TypeSpecial},
	}, "2026-10-31", "2026-11-02", time.Date(2026, 10, 31, 7, 0, 0, 0, time.UTC))
}

// TestFallBackReadAlike is issue 19.6: an opening that ends (or starts)
// inside the hour repeated at fall-back means its first occurrence
// (daylight time, as the JSON:API says), and every reader must get that
// instant. Written with a TZID, python icalendar, ical.js and node-ical
// read it an hour late; written in UTC they cannot.
func TestFallBackReadAlike(t *testing.T) {
	t.Parallel()
	f := fallFeed(t)
	out := mustWrite(t, f)
	for _, want := range []string{
		// Saturday 20:00 PDT, closing at 01:00 PDT (08:00 UTC), not PST.
		"DTSTART;TZID=America/Los_Angeles:20261031T200000\r\nDTEND:20261101T080000Z\r\n",
		// Sunday's exception opens at 01:30 PDT; 03:00 exists once.
		"DTSTART:20261101T083000Z\r\nDTEND;TZID=America/Los_Angeles:20261101T030000\r\n",
		// Monday's hours, far from the change, stay local.
		"DTSTART;TZID=America/Los_Angeles:20261102T200000\r\nDTEND;TZID=America/Los_Angeles:20261103T010000\r\n",
	} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("feed lacks %q:\n%s", want, out)
		}
	}
	readEveryWay(t, f, strings.Join([]string{
		"TZ\tAmerica/Los_Angeles",
		"2026-10-31.medical.main.0@example.org\t2026-11-01T03:00:00Z\t2026-11-01T08:00:00Z\tMedical Library, Main: open\t",
		"2026-11-01.medical.main.0@example.org\t2026-11-01T08:30:00Z\t2026-11-01T11:00:00Z\tMedical Library, Main: open (special)\t",
		"2026-11-02.medical.main.0@example.org\t2026-11-03T04:00:00Z\t2026-11-03T09:00:00Z\tMedical Library, Main: open\t",
	}, "\n")+"\n")
}

func TestWallTimeRepeated(t *testing.T) {
	t.Parallel()
	la := mustZone(t, "America/Los_Angeles")
	for _, c := range []struct {
		at   time.Time
		want bool
	}{
		{time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC), true},   // 01:00 PDT
		{time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC), true},   // 01:00 PST
		{time.Date(2026, 11, 1, 9, 59, 0, 0, time.UTC), true},  // 01:59 PST
		{time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC), false}, // 02:00 PST
		{time.Date(2026, 11, 1, 7, 59, 0, 0, time.UTC), false}, // 00:59 PDT
		{time.Date(2026, 3, 8, 10, 0, 0, 0, time.UTC), false},  // 03:00 PDT, after spring-forward
		{time.Date(2026, 3, 8, 9, 59, 0, 0, time.UTC), false},  // 01:59 PST
	} {
		if got := wallTimeRepeated(c.at, la); got != c.want {
			t.Errorf("wallTimeRepeated(%s) = %v, want %v", c.at.In(la).Format(time.RFC3339), got, c.want)
		}
	}
	if wallTimeRepeated(time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC), mustZone(t, "Asia/Kolkata")) {
		t.Error("a zone without changes repeats a wall time")
	}
}
