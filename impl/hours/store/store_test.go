package store_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
	"github.com/sitelib/sitesvc/impl/hours/store"
	"github.com/sitelib/sitesvc/impl/hours/store/storetest"
)

func ptr[T any](v T) *T { return &v }

// each runs fn against a fresh database on every backend.
func each(t *testing.T, fn func(t *testing.T, s *store.Store)) {
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			s, err := store.Open(context.Background(), b.DSN(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			fn(t, s)
		})
	}
}

// libraryWithLocation writes library "l" with one location, "m".
func libraryWithLocation(t *testing.T, s *store.Store) {
	t.Helper()
	ctx := context.Background()
	if _, err := s.CreateLibrary(ctx, "a", store.LibraryInput{Name: ptr("L"), Slug: ptr("l")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateLocation(ctx, "a", "l", store.LocationInput{Name: ptr("M"), Slug: ptr("m")}); err != nil {
		t.Fatal(err)
	}
}

func TestSeedSampleData(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		now := time.Date(2026, 11, 18, 20, 0, 0, 0, time.UTC)
		if err := s.Seed(ctx, now); err != nil {
			t.Fatal(err)
		}
		if err := s.Seed(ctx, now); err != nil { // a second run changes nothing
			t.Fatal(err)
		}
		snap, err := s.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.Libraries) < 6 || len(snap.Locations) < 15 {
			t.Fatalf("%d libraries, %d locations", len(snap.Libraries), len(snap.Locations))
		}
		zones := map[string]bool{}
		for _, l := range snap.Libraries {
			zones[l.TimeZone] = true
		}
		if len(zones) < 2 {
			t.Errorf("all libraries in one zone: %v", zones)
		}
		primaries := map[int64]int{}
		for _, l := range snap.Locations {
			if l.Primary {
				primaries[l.LibraryID]++
			}
		}
		for _, l := range snap.Libraries {
			if primaries[l.ID] != 1 {
				t.Errorf("library %s has %d primary locations", l.Slug, primaries[l.ID])
			}
		}
		var overnight, open24, lunch bool
		for _, sc := range snap.Schedules {
			for _, d := range sc.Days {
				overnight = overnight || (d.Kind == schedule.Hours && d.Periods[len(d.Periods)-1].Overnight())
				open24 = open24 || d.Kind == schedule.Open24
				lunch = lunch || len(d.Periods) > 1
			}
		}
		if !overnight || !open24 || !lunch {
			t.Errorf("overnight %v, 24h %v, lunch break %v", overnight, open24, lunch)
		}
		holiday := false
		for _, e := range snap.Exceptions {
			holiday = holiday || (e.Closed && e.Type == schedule.TypeHoliday)
		}
		if !holiday {
			t.Error("no holiday closure")
		}
		today := schedule.DateOf(now)
		covered := 0
		for _, tm := range snap.Terms {
			if tm.First.Before(today.AddDays(1)) && today.Before(tm.Last.AddDays(1)) {
				covered++
			}
		}
		if covered != len(snap.Libraries) {
			t.Errorf("%d terms cover today, want one per library", covered)
		}
	})
}

func TestWritesAuditAndSlugHistory(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		libID, err := s.CreateLibrary(ctx, "alice", store.LibraryInput{Name: ptr("Art Library"), Slug: ptr("art")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateLibrary(ctx, "alice", store.LibraryInput{Name: ptr("Art again"), Slug: ptr("art")}); !errors.Is(err, store.ErrConflict) {
			t.Errorf("duplicate slug: %v", err)
		}
		var fe *store.FieldError
		if _, err := s.CreateLibrary(ctx, "alice", store.LibraryInput{Name: ptr("X"), Slug: ptr("x"), TimeZone: ptr("Mars/Olympus")}); !errors.As(err, &fe) || fe.Field != "timezone" {
			t.Errorf("bad zone: %v", err)
		}
		if _, err := s.CreateLocation(ctx, "alice", "art", store.LocationInput{Name: ptr("Main"), Slug: ptr("main")}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateLocation(ctx, "alice", "art", store.LocationInput{Name: ptr("Annex"), Slug: ptr("annex"), Primary: ptr(true)}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateLocation(ctx, "alice", "nowhere", store.LocationInput{Name: ptr("X"), Slug: ptr("x")}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("location in unknown library: %v", err)
		}
		termID, err := s.CreateTerm(ctx, "bob", "art", store.TermInput{Name: ptr("Fall"), First: ptr("2026-09-01"), Last: ptr("2026-12-15")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateTerm(ctx, "bob", "art", store.TermInput{Name: ptr("Bad"), First: ptr("2026-09-01"), Last: ptr("2026-08-15")}); !errors.As(err, &fe) || fe.Field != "last_day" {
			t.Errorf("reversed term: %v", err)
		}
		days := []store.DayInput{{Weekday: time.Monday, Periods: []string{"09:00-12:00", "13:00-17:00"}}, {Weekday: time.Friday, Periods: []string{"20:00-02:00"}}, {Weekday: time.Saturday, Open24: true}}
		schedID, err := s.CreateSchedule(ctx, "bob", "art", "main", termID, days)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateSchedule(ctx, "bob", "art", "main", termID, days); !errors.Is(err, store.ErrConflict) {
			t.Errorf("second schedule for the term: %v", err)
		}
		bad := []store.DayInput{{Weekday: time.Monday, Periods: []string{"09:00-12:00", "11:00-17:00"}}}
		if _, err := s.CreateSchedule(ctx, "bob", "art", "annex", termID, bad); !errors.As(err, &fe) || fe.Field != "days/0/periods/1" {
			t.Errorf("overlapping periods: %v", err)
		}
		if _, err := s.CreateSchedule(ctx, "bob", "art", "annex", 9999, days); !errors.As(err, &fe) || fe.Field != "relationships/term" {
			t.Errorf("unknown term: %v", err)
		}
		excID, err := s.CreateException(ctx, "carol", "art", "main", store.ExceptionInput{Day: ptr("2026-11-26"), Closed: ptr(true), Notes: ptr("Thanksgiving")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateException(ctx, "carol", "art", "main", store.ExceptionInput{Day: ptr("2026-11-26"), Periods: []string{"10:00-12:00"}}); !errors.Is(err, store.ErrConflict) {
			t.Errorf("second exception on a day: %v", err)
		}
		if err := s.UpdateException(ctx, "carol", "art", "main", excID, store.ExceptionInput{Periods: []string{"10:00-14:00"}}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateLibrary(ctx, "alice", "art", store.LibraryInput{Slug: ptr("art-architecture")}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.UpdateLocation(ctx, "alice", "art-architecture", "main", store.LocationInput{Slug: ptr("central")}); err != nil {
			t.Fatal(err)
		}

		snap, err := s.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.Libraries) != 1 || snap.Libraries[0].Slug != "art-architecture" || snap.Libraries[0].TimeZone != store.DefaultTimeZone {
			t.Errorf("libraries: %+v", snap.Libraries)
		}
		var primary string
		for _, l := range snap.Locations {
			if l.Primary {
				primary += l.Slug
			}
		}
		if primary != "annex" {
			t.Errorf("primary location %q, want annex", primary)
		}
		if len(snap.OldSlugs) != 2 || snap.OldSlugs[0].Slug != "art" || snap.OldSlugs[0].LocationID != 0 || snap.OldSlugs[1].Slug != "main" || snap.OldSlugs[0].LibraryID != libID {
			t.Errorf("old slugs: %+v", snap.OldSlugs)
		}
		if len(snap.Schedules) != 1 || snap.Schedules[0].ID != schedID {
			t.Fatalf("schedules: %+v", snap.Schedules)
		}
		sc := snap.Schedules[0]
		if got := schedule.FormatPeriods(sc.Days[time.Monday].Periods); got != "09:00-12:00,13:00-17:00" || sc.Days[time.Saturday].Kind != schedule.Open24 || sc.Days[time.Sunday].Kind != schedule.Closed {
			t.Errorf("schedule days: %+v", sc.Days)
		}
		if len(snap.Exceptions) != 1 || snap.Exceptions[0].Closed || snap.Exceptions[0].Type != schedule.TypeSpecial || snap.Exceptions[0].Notes != "Thanksgiving" {
			t.Errorf("exception: %+v", snap.Exceptions)
		}

		entries, err := s.Audit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var log []string
		for _, e := range entries {
			log = append(log, e.Who+" "+e.Action+" "+e.ResourceType)
			if e.At.IsZero() || e.Detail == "" {
				t.Errorf("audit entry without time or detail: %+v", e)
			}
		}
		want := "alice create libraries|alice create locations|alice create locations|bob create terms|bob create schedules|carol create exceptions|carol update exceptions|alice update libraries|alice update locations"
		if got := strings.Join(log, "|"); got != want {
			t.Errorf("audit log:\n%s\nwant\n%s", got, want)
		}

		// Failed writes leave nothing behind, not even an audit entry.
		if err := s.DeleteTerm(ctx, "bob", "art-architecture", 4242); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("deleting an unknown term: %v", err)
		}
		if after, _ := s.Audit(ctx); len(after) != len(entries) {
			t.Errorf("a failed write was audited")
		}
		// Deleting the term removes its schedule.
		if err := s.DeleteTerm(ctx, "bob", "art-architecture", termID); err != nil {
			t.Fatal(err)
		}
		if snap, _ = s.Load(ctx); len(snap.Schedules) != 0 {
			t.Errorf("schedule survived its term")
		}
		if err := s.DeleteLibrary(ctx, "alice", "art-architecture"); err != nil {
			t.Fatal(err)
		}
		if snap, _ = s.Load(ctx); len(snap.Locations)+len(snap.Exceptions)+len(snap.OldSlugs) != 0 {
			t.Errorf("library delete left rows: %+v", snap)
		}
	})
}

func TestConcurrentWrites(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		libraryWithLocation(t, s)
		const n = 12
		errs := make(chan error, n)
		for i := 0; i < n; i++ {
			go func(i int) {
				day := schedule.Date{Year: 2026, Month: time.July, Day: 1 + i}.String()
				_, err := s.CreateException(ctx, "w", "l", "m", store.ExceptionInput{Day: &day, Closed: ptr(true)})
				errs <- err
			}(i)
		}
		for i := 0; i < n; i++ {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		snap, err := s.Load(ctx)
		if err != nil {
			t.Fatal(err)
		}
		entries, _ := s.Audit(ctx)
		if len(snap.Exceptions) != n || len(entries) != n+2 {
			t.Errorf("%d exceptions, %d audit entries", len(snap.Exceptions), len(entries))
		}
	})
}

// TestSeedAllOrNothing makes the sample data fail part way (in the year
// 2999 the next term would end after the last date the service accepts):
// the database is left empty, with no audit entry, so the next start
// loads the sample data afresh.
func TestSeedAllOrNothing(t *testing.T) {
	t.Parallel()
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if err := s.Seed(ctx, time.Date(2999, 12, 1, 20, 0, 0, 0, time.UTC)); err == nil {
			t.Fatal("sample data loaded in 2999")
		}
		empty, err := s.Empty(ctx)
		if err != nil || !empty {
			t.Fatalf("after a failed load: empty %v, %v", empty, err)
		}
		if audit, err := s.Audit(ctx); err != nil || len(audit) != 0 {
			t.Fatalf("after a failed load: %d audit entries, %v", len(audit), err)
		}
		if err := s.Seed(ctx, time.Date(2026, 11, 18, 20, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		if empty, err := s.Empty(ctx); err != nil || empty {
			t.Fatalf("after loading: empty %v, %v", empty, err)
		}
	})
}
