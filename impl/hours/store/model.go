package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// Library is a library with its IANA time zone.
type Library struct {
	ID       int64
	Slug     string
	Name     string
	TimeZone string
	AboutURL string // "" for none
	Public   bool   // false: left out of the public lists and pages (docs/hours.md)
	Note     string // for staff
}

// Location is a place in a library that has hours. A location that does
// not keep hours shows the hours of its library's primary location.
type Location struct {
	ID         int64
	LibraryID  int64
	Slug       string
	Name       string
	Primary    bool
	KeepsHours bool
	AboutURL   string // "" for none
	Public     bool   // false: left out of the public lists and pages (docs/hours.md)
	Note       string // for staff
}

// Term is a named span of days of a library.
type Term struct {
	ID        int64
	LibraryID int64
	Name      string
	First     schedule.Date
	Last      schedule.Date
}

// DayRule is one weekday of a weekly schedule.
type DayRule struct {
	RuleID  int64
	Weekday time.Weekday
	Kind    schedule.Kind
	Periods []schedule.Period
}

// Schedule is the weekly schedule of a location during a term. Days not
// listed are closed.
type Schedule struct {
	ID         int64
	LocationID int64
	TermID     int64
	Days       [7]DayRule
}

// Exception sets a location's hours on one date.
type Exception struct {
	ID         int64
	LocationID int64
	Day        schedule.Date
	Closed     bool
	Open24     bool
	Periods    []schedule.Period
	Type       string
	Notes      string
}

// OldSlug is a former slug that still resolves.
type OldSlug struct {
	LibraryID  int64
	LocationID int64 // 0 for a library's old slug
	Slug       string
}

// AuditEntry is one recorded write.
type AuditEntry struct {
	ID           int64
	At           time.Time
	Who          string
	Action       string // create, update, delete
	ResourceType string
	ResourceID   string
	Detail       string // JSON of what was written
}

// Snapshot is the whole hours data set, read in one transaction.
type Snapshot struct {
	Libraries  []Library
	Locations  []Location
	Terms      []Term
	Schedules  []Schedule
	Exceptions []Exception
	OldSlugs   []OldSlug
}

var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidSlug reports whether s can be a library or location slug.
func ValidSlug(s string) bool { return len(s) <= 64 && slugPattern.MatchString(s) }

func kindName(k schedule.Kind) string {
	switch k {
	case schedule.Open24:
		return "open24"
	case schedule.Hours:
		return "hours"
	default:
		return "closed"
	}
}

func parseKind(s string) (schedule.Kind, error) {
	switch s {
	case "closed":
		return schedule.Closed, nil
	case "open24":
		return schedule.Open24, nil
	case "hours":
		return schedule.Hours, nil
	}
	return 0, fmt.Errorf("unknown rule kind %q", s)
}

// parseStoredPeriods reads periods as stored. They were checked when
// written; only each period's form is checked again, so that a rule made
// stricter later (the 24-hour span of a day) cannot make a database that
// holds older data unreadable.
func parseStoredPeriods(s string) ([]schedule.Period, error) {
	parts := schedule.SplitStored(s)
	out := make([]schedule.Period, 0, len(parts))
	for _, part := range parts {
		p, err := schedule.ParsePeriod(part)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// Load reads everything in one read transaction.
func (s *Store) Load(ctx context.Context) (*Snapshot, error) {
	sqlTx, err := s.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: s.dialect == Postgres})
	if err != nil {
		return nil, fmt.Errorf("hours store: begin read: %w", err)
	}
	defer sqlTx.Rollback() //nolint:errcheck // read-only
	t := tx{Tx: sqlTx, s: s}
	snap := &Snapshot{}
	if err := s.load(ctx, t, snap); err != nil {
		return nil, fmt.Errorf("hours store: loading: %w", err)
	}
	if err := s.loadOldSlugs(ctx, t, snap); err != nil {
		return nil, fmt.Errorf("hours store: loading slug history: %w", err)
	}
	return snap, nil
}

func (s *Store) load(ctx context.Context, t tx, snap *Snapshot) error {
	each := func(q string, scan func(*sql.Rows) error) error {
		rows, err := t.query(ctx, q)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	if err := each(`SELECT id, slug, name, timezone, about_url, public, note FROM libraries ORDER BY slug`, func(r *sql.Rows) error {
		var l Library
		if err := r.Scan(&l.ID, &l.Slug, &l.Name, &l.TimeZone, &l.AboutURL, &l.Public, &l.Note); err != nil {
			return err
		}
		snap.Libraries = append(snap.Libraries, l)
		return nil
	}); err != nil {
		return err
	}
	if err := each(`SELECT id, library_id, slug, name, is_primary, keeps_hours, about_url, public, note FROM locations ORDER BY library_id, is_primary DESC, slug`, func(r *sql.Rows) error {
		var l Location
		if err := r.Scan(&l.ID, &l.LibraryID, &l.Slug, &l.Name, &l.Primary, &l.KeepsHours, &l.AboutURL, &l.Public, &l.Note); err != nil {
			return err
		}
		snap.Locations = append(snap.Locations, l)
		return nil
	}); err != nil {
		return err
	}
	if err := each(`SELECT id, library_id, name, first_day, last_day FROM terms ORDER BY library_id, first_day, id`, func(r *sql.Rows) error {
		var tm Term
		var first, last string
		if err := r.Scan(&tm.ID, &tm.LibraryID, &tm.Name, &first, &last); err != nil {
			return err
		}
		var err1, err2 error
		tm.First, err1 = schedule.ParseDate(first)
		tm.Last, err2 = schedule.ParseDate(last)
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("term %d: %w", tm.ID, err)
		}
		snap.Terms = append(snap.Terms, tm)
		return nil
	}); err != nil {
		return err
	}
	byID := map[int64]int{}
	if err := each(`SELECT id, location_id, term_id FROM schedules ORDER BY id`, func(r *sql.Rows) error {
		var sc Schedule
		if err := r.Scan(&sc.ID, &sc.LocationID, &sc.TermID); err != nil {
			return err
		}
		for wd := range sc.Days {
			sc.Days[wd] = DayRule{Weekday: time.Weekday(wd), Kind: schedule.Closed}
		}
		byID[sc.ID] = len(snap.Schedules)
		snap.Schedules = append(snap.Schedules, sc)
		return nil
	}); err != nil {
		return err
	}
	return each(`SELECT id, location_id, schedule_id, weekday, day, kind, periods, type, notes FROM rules ORDER BY id`, func(r *sql.Rows) error {
		var (
			id, locationID            int64
			scheduleID, weekday       sql.NullInt64
			day                       sql.NullString
			kind, periods, typ, notes string
		)
		if err := r.Scan(&id, &locationID, &scheduleID, &weekday, &day, &kind, &periods, &typ, &notes); err != nil {
			return err
		}
		k, err := parseKind(kind)
		if err != nil {
			return fmt.Errorf("rule %d: %w", id, err)
		}
		ps, err := parseStoredPeriods(periods)
		if err != nil {
			return fmt.Errorf("rule %d: %w", id, err)
		}
		if scheduleID.Valid {
			i, ok := byID[scheduleID.Int64]
			if !ok || weekday.Int64 < 0 || weekday.Int64 > 6 {
				return fmt.Errorf("rule %d: no schedule %d or bad weekday", id, scheduleID.Int64)
			}
			snap.Schedules[i].Days[weekday.Int64] = DayRule{RuleID: id, Weekday: time.Weekday(weekday.Int64), Kind: k, Periods: ps}
			return nil
		}
		d, err := schedule.ParseDate(day.String)
		if err != nil {
			return fmt.Errorf("rule %d: %w", id, err)
		}
		snap.Exceptions = append(snap.Exceptions, Exception{ID: id, LocationID: locationID, Day: d, Closed: k == schedule.Closed, Open24: k == schedule.Open24, Periods: ps, Type: typ, Notes: notes})
		return nil
	})
}

// loadOldSlugs reads the slug history.
func (s *Store) loadOldSlugs(ctx context.Context, t tx, snap *Snapshot) error {
	rows, err := t.query(ctx, `SELECT library_id, location_id, old_slug FROM slug_history ORDER BY id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var o OldSlug
		var loc sql.NullInt64
		if err := rows.Scan(&o.LibraryID, &loc, &o.Slug); err != nil {
			return err
		}
		o.LocationID = loc.Int64
		snap.OldSlugs = append(snap.OldSlugs, o)
	}
	return rows.Err()
}

// audit appends an audit entry in the write's transaction.
func audit(ctx context.Context, t tx, who, action, resourceType, resourceID string, detail any) error {
	js, err := json.Marshal(detail)
	if err != nil {
		return fmt.Errorf("audit detail: %w", err)
	}
	_, err = t.exec(ctx, `INSERT INTO audit_log (at, who, action, resource_type, resource_id, detail) VALUES (?, ?, ?, ?, ?, ?)`,
		time.Now().UTC().Format(time.RFC3339Nano), who, action, resourceType, resourceID, string(js))
	if err != nil {
		return fmt.Errorf("writing audit log: %w", err)
	}
	return nil
}

// Audit returns the audit log, oldest first.
func (s *Store) Audit(ctx context.Context) ([]AuditEntry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, at, who, action, resource_type, resource_id, detail FROM audit_log ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("hours store: reading audit log: %w", err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var e AuditEntry
		var at string
		if err := rows.Scan(&e.ID, &at, &e.Who, &e.Action, &e.ResourceType, &e.ResourceID, &e.Detail); err != nil {
			return nil, fmt.Errorf("hours store: reading audit log: %w", err)
		}
		e.At, _ = time.Parse(time.RFC3339Nano, at)
		out = append(out, e)
	}
	return out, rows.Err()
}
