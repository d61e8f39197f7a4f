package store

import (
	"context"
	"fmt"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// SeedWho is the audit log's name for the sample data loader.
const SeedWho = "sample-data"

// Empty reports whether the database has no library.
func (s *Store) Empty(ctx context.Context) (bool, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM libraries`).Scan(&n); err != nil {
		return false, fmt.Errorf("hours store: counting libraries: %w", err)
	}
	return n == 0, nil
}

type sampleLocation struct {
	slug, name string
	keepsHours bool
	// current and next term weeks, Sunday first: "" closed, "24h", or
	// comma-separated periods.
	current, next [7]string
}

type sampleLibrary struct {
	slug, name, zone string
	locations        []sampleLocation
}

var (
	weekdays9to5 = [7]string{"", "09:00-17:00", "09:00-17:00", "09:00-17:00", "09:00-17:00", "09:00-17:00", ""}
	allDay       = [7]string{"24h", "24h", "24h", "24h", "24h", "24h", "24h"}
)

func uniform(weekday, saturday, sunday string) [7]string {
	return [7]string{sunday, weekday, weekday, weekday, weekday, weekday, saturday}
}

// sampleLibraries covers what the issue asks of the sample data: seven
// libraries, seventeen locations, an overnight location (law/main,
// medical/main), a 24-hour one (green/lobby, medical/commons), a lunch
// break (green/reference, engineering/makerspace), a location that follows
// its library's primary hours (law/reading-room) and a library in another
// time zone (capital, America/New_York).
var sampleLibraries = []sampleLibrary{
	{"green", "Green Library", "America/Los_Angeles", []sampleLocation{
		{slug: "stacks", name: "Green Library Stacks", keepsHours: true,
			current: [7]string{"10:00-23:00", "08:00-23:00", "08:00-23:00", "08:00-23:00", "08:00-23:00", "08:00-18:00", "10:00-18:00"},
			next:    uniform("08:00-20:00", "10:00-17:00", "")},
		{slug: "reference", name: "Reference Desk", keepsHours: true,
			current: uniform("09:00-12:00,13:00-17:00", "", ""), next: uniform("09:00-12:00,13:00-16:00", "", "")},
		{slug: "lobby", name: "Bender Room (24 hours)", keepsHours: true, current: allDay, next: allDay},
		{slug: "special-collections", name: "Special Collections", keepsHours: true,
			current: uniform("10:00-17:00", "", ""), next: uniform("10:00-16:00", "", "")},
	}},
	{"law", "Law Library", "America/Los_Angeles", []sampleLocation{
		{slug: "main", name: "Law Library", keepsHours: true,
			current: [7]string{"10:00-02:00", "07:00-02:00", "07:00-02:00", "07:00-02:00", "07:00-02:00", "07:00-22:00", "09:00-22:00"},
			next:    uniform("08:00-22:00", "10:00-18:00", "12:00-20:00")},
		{slug: "reading-room", name: "Reading Room", keepsHours: false},
		{slug: "archives", name: "Law Archives", keepsHours: true, current: weekdays9to5, next: weekdays9to5},
	}},
	{"engineering", "Engineering Library", "America/Los_Angeles", []sampleLocation{
		{slug: "main", name: "Engineering Library", keepsHours: true,
			current: uniform("08:00-22:00", "10:00-18:00", "12:00-22:00"), next: uniform("09:00-18:00", "", "")},
		{slug: "makerspace", name: "Makerspace", keepsHours: true,
			current: uniform("10:00-13:00,14:00-20:00", "12:00-17:00", ""), next: uniform("10:00-13:00,14:00-17:00", "", "")},
	}},
	{"music", "Music Library", "America/Los_Angeles", []sampleLocation{
		{slug: "main", name: "Music Library", keepsHours: true,
			current: uniform("09:00-21:00", "12:00-17:00", "13:00-21:00"), next: uniform("09:00-17:00", "", "")},
		{slug: "listening-room", name: "Listening Room", keepsHours: true,
			current: uniform("10:00-18:00", "", ""), next: uniform("10:00-16:00", "", "")},
	}},
	{"east-asia", "East Asia Library", "America/Los_Angeles", []sampleLocation{
		{slug: "main", name: "East Asia Library", keepsHours: true,
			current: uniform("09:00-20:00", "10:00-17:00", "13:00-20:00"), next: uniform("09:00-17:00", "", "")},
		{slug: "rare-books", name: "Rare Books Room", keepsHours: true, current: weekdays9to5, next: weekdays9to5},
	}},
	{"capital", "Capital Center Library", "America/New_York", []sampleLocation{
		{slug: "main", name: "Capital Center Library", keepsHours: true,
			current: uniform("08:30-21:00", "10:00-16:00", ""), next: uniform("09:00-18:00", "", "")},
		{slug: "seminar-room", name: "Seminar Room", keepsHours: true, current: weekdays9to5, next: weekdays9to5},
	}},
	{"medical", "Medical Library", "America/Los_Angeles", []sampleLocation{
		{slug: "main", name: "Medical Library", keepsHours: true,
			current: uniform("07:00-01:00", "09:00-01:00", "09:00-01:00"), next: uniform("07:00-23:00", "09:00-21:00", "09:00-21:00")},
		{slug: "commons", name: "Study Commons (24 hours)", keepsHours: true, current: allDay, next: allDay},
	}},
}

func dayInputs(week [7]string) []DayInput {
	var out []DayInput
	for wd, v := range week {
		d := DayInput{Weekday: time.Weekday(wd)}
		switch v {
		case "":
			d.Closed = true
		case "24h":
			d.Open24 = true
		default:
			d.Periods = schedule.SplitStored(v)
		}
		out = append(out, d)
	}
	return out
}

// Seed fills an empty database with the sample libraries: a term covering
// today (it began 60 days ago and ends in 45 days) and the next one (120
// days), a holiday closure of every location on the next December 25,
// special hours the day before, and a staff-day closure of Green Library's
// stacks on the next Wednesday. It does nothing when a library exists. It
// is one transaction: a failed load leaves the database empty, to be
// filled at the next start, rather than half filled for good.
func (s *Store) Seed(ctx context.Context, now time.Time) error {
	sqlTx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("hours sample data: begin: %w", err)
	}
	defer sqlTx.Rollback() //nolint:errcheck // after Commit it is a no-op
	var n int
	if err := sqlTx.QueryRowContext(ctx, `SELECT COUNT(*) FROM libraries`).Scan(&n); err != nil {
		return fmt.Errorf("hours sample data: counting libraries: %w", err)
	}
	if n > 0 {
		return nil
	}
	seeding := &Store{db: s.db, dialect: s.dialect, outer: sqlTx}
	if err := seeding.seed(ctx, now); err != nil {
		return err
	}
	if err := sqlTx.Commit(); err != nil {
		return fmt.Errorf("hours sample data: commit: %w", err)
	}
	return nil
}

func (s *Store) seed(ctx context.Context, now time.Time) error {
	str := func(v string) *string { return &v }
	boolp := func(v bool) *bool { return &v }
	for _, lib := range sampleLibraries {
		loc, err := time.LoadLocation(lib.zone)
		if err != nil {
			return fmt.Errorf("hours sample data: %w", err)
		}
		today := schedule.Today(now, loc)
		currentFirst, currentLast := today.AddDays(-60), today.AddDays(45)
		nextFirst, nextLast := currentLast.AddDays(1), currentLast.AddDays(120)
		if _, err := s.CreateLibrary(ctx, SeedWho, LibraryInput{Name: str(lib.name), Slug: str(lib.slug), TimeZone: str(lib.zone)}); err != nil {
			return fmt.Errorf("hours sample data: library %s: %w", lib.slug, err)
		}
		current, err := s.CreateTerm(ctx, SeedWho, lib.slug, TermInput{Name: str("Current term"), First: str(currentFirst.String()), Last: str(currentLast.String())})
		if err != nil {
			return fmt.Errorf("hours sample data: term: %w", err)
		}
		next, err := s.CreateTerm(ctx, SeedWho, lib.slug, TermInput{Name: str("Next term"), First: str(nextFirst.String()), Last: str(nextLast.String())})
		if err != nil {
			return fmt.Errorf("hours sample data: term: %w", err)
		}
		christmas := schedule.Date{Year: today.Year, Month: time.December, Day: 25}
		if christmas.Before(today) {
			christmas.Year++
		}
		for i, l := range lib.locations {
			if _, err := s.CreateLocation(ctx, SeedWho, lib.slug, LocationInput{Name: str(l.name), Slug: str(l.slug), Primary: boolp(i == 0), KeepsHours: boolp(l.keepsHours)}); err != nil {
				return fmt.Errorf("hours sample data: location %s/%s: %w", lib.slug, l.slug, err)
			}
			if !l.keepsHours {
				continue
			}
			for _, sc := range []struct {
				term int64
				week [7]string
			}{{current, l.current}, {next, l.next}} {
				if _, err := s.CreateSchedule(ctx, SeedWho, lib.slug, l.slug, sc.term, dayInputs(sc.week)); err != nil {
					return fmt.Errorf("hours sample data: schedule %s/%s: %w", lib.slug, l.slug, err)
				}
			}
			if _, err := s.CreateException(ctx, SeedWho, lib.slug, l.slug, ExceptionInput{
				Day: str(christmas.String()), Closed: boolp(true), Type: str(schedule.TypeHoliday), Notes: str("Closed for Christmas Day"),
			}); err != nil {
				return fmt.Errorf("hours sample data: holiday %s/%s: %w", lib.slug, l.slug, err)
			}
			if l.current[0] != "24h" {
				if _, err := s.CreateException(ctx, SeedWho, lib.slug, l.slug, ExceptionInput{
					Day: str(christmas.AddDays(-1).String()), Periods: []string{"10:00-14:00"}, Type: str(schedule.TypeSpecial), Notes: str("Christmas Eve: short hours"),
				}); err != nil {
					return fmt.Errorf("hours sample data: special hours %s/%s: %w", lib.slug, l.slug, err)
				}
			}
		}
		if lib.slug == "green" {
			wednesday := today.AddDays((int(time.Wednesday) - int(today.Weekday()) + 7) % 7)
			if wednesday == today {
				wednesday = today.AddDays(7)
			}
			if wednesday != christmas && wednesday != christmas.AddDays(-1) {
				if _, err := s.CreateException(ctx, SeedWho, lib.slug, "stacks", ExceptionInput{
					Day: str(wednesday.String()), Closed: boolp(true), Type: str(schedule.TypeClosure), Notes: str("Closed for staff training"),
				}); err != nil {
					return fmt.Errorf("hours sample data: closure: %w", err)
				}
			}
		}
	}
	return nil
}
