package ical

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
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
func dstFeed(t *testing.T) Feed {
	t.Helper()
	zone := mustZone(t, "America/Los_Angeles")
	nine, five := schedule.Clock(9*60), schedule.Clock(17*60)
	rules := schedule.LocationRules{
		Terms:     []schedule.Term{{ID: 1, First: mustDate(t, "2026-01-01"), Last: mustDate(t, "2026-12-31")}},
		Schedules: map[int64]*schedule.WeeklyRules{1: {}},
		Exceptions: map[schedule.Date]schedule.Rule{
			mustDate(t, "2026-03-10"): {ID: 90, Kind: schedule.Closed, Type: schedule.TypeHoliday, Notes: "Staff day; back Wednesday, 9am"},
			mustDate(t, "2026-03-11"): {ID: 91, Kind: schedule.Hours, Periods: []schedule.Period{{Opens: 20 * 60, Closes: 2 * 60}}, Type: schedule.TypeSpecial, Notes: "Finals: open late"},
			mustDate(t, "2026-03-12"): {ID: 92, Kind: schedule.Open24, Type: schedule.TypeSpecial},
		},
	}
	for wd := range 7 {
		rules.Schedules[1][wd] = schedule.Rule{ID: int64(10 + wd), Kind: schedule.Hours, Periods: []schedule.Period{{Opens: nine, Closes: five}}, Type: schedule.TypeRegular}
	}
	days := rules.Days(schedule.Range{From: mustDate(t, "2026-03-07"), To: mustDate(t, "2026-03-13")}, zone)
	return Feed{
		Name:      "Green Library, Main",
		URL:       "https://example.org/hours/libraries/green/locations/main.ics",
		UIDDomain: "example.org",
		Zone:      zone,
		Stamp:     time.Date(2026, 3, 7, 8, 0, 0, 0, time.UTC),
		Sources:   []Source{{Name: "Green Library, Main", UIDScope: "green/main", Days: days}},
	}
}

func TestWriteIsStableAndWellFormed(t *testing.T) {
	f := dstFeed(t)
	a, err := Write(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Write(f)
	if err != nil {
		t.Fatal(err)
	}
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
	f := dstFeed(t)
	f.Zone = mustZone(t, "Asia/Kolkata")
	f.Sources[0].Days = (&schedule.LocationRules{}).Days(schedule.Range{From: mustDate(t, "2026-03-07"), To: mustDate(t, "2026-03-07")}, f.Zone)
	out, err := Write(f)
	if err != nil {
		t.Fatal(err)
	}
	want := "BEGIN:STANDARD\r\nDTSTART:"
	if !bytes.Contains(out, []byte(want)) || !bytes.Contains(out, []byte("TZOFFSETFROM:+0530\r\nTZOFFSETTO:+0530\r\nTZNAME:IST\r\n")) {
		t.Errorf("no single +0530 observance:\n%s", out)
	}
	if bytes.Contains(out, []byte("BEGIN:VEVENT")) {
		t.Errorf("an unscheduled closed day became an event:\n%s", out)
	}
}

func TestNoZoneRefused(t *testing.T) {
	if _, err := Write(Feed{Name: "x"}); err == nil {
		t.Fatal("a feed without a zone was written")
	}
}

// TestParsedByPythonICalendar reads the feed with a real iCalendar library
// (Debian's python3-icalendar) and checks every event's instants in UTC
// on both sides of the spring-forward.
func TestParsedByPythonICalendar(t *testing.T) {
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		python = testkit.RequireTool(t, "python3")
	}
	if err := exec.Command(python, "-c", "import icalendar").Run(); err != nil {
		if os.Getenv("SITESVC_REQUIRE_TOOLS") != "" {
			t.Fatalf("python3-icalendar is required (SITESVC_REQUIRE_TOOLS is set): %v", err)
		}
		t.Skipf("python3-icalendar not installed: %v", err)
	}
	out, err := Write(dstFeed(t))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "feed.ics")
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := exec.Command(python, "testdata/parse.py", path).CombinedOutput()
	if err != nil {
		t.Fatalf("python3-icalendar could not read the feed: %v\n%s", err, got)
	}
	want := strings.Join([]string{
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
	}, "\n") + "\n"
	if string(got) != want {
		t.Errorf("python3-icalendar read:\n%s\nwant:\n%s", got, want)
	}
}
