package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// DefaultTimeZone is the zone of a library created without one.
const DefaultTimeZone = "America/Los_Angeles"

// LibraryInput is a library create or change; nil fields are unchanged
// (on create: name and slug are required, the zone defaults).
type LibraryInput struct {
	Name     *string `json:"name,omitempty"`
	Slug     *string `json:"slug,omitempty"`
	TimeZone *string `json:"timezone,omitempty"`
	Descriptive
}

// Descriptive is what the library and location forms share besides name
// and slug: a link to the place's own page, whether the public sees it,
// and a note for staff. Nil fields are unchanged (on create: no URL,
// public, no note).
type Descriptive struct {
	AboutURL *string `json:"about_url,omitempty"`
	Public   *bool   `json:"public,omitempty"`
	Note     *string `json:"note,omitempty"`
}

// MaxNoteLength is the longest note of a library or location, in
// characters (docs/security.md).
const MaxNoteLength = 2000

// maxAboutURLLength bounds an about URL, in bytes.
const maxAboutURLLength = 2000

func (d Descriptive) validate() error {
	if err := checkTexts(textAttr("about_url", d.AboutURL), textAttr("note", d.Note)); err != nil { // text.go
		return err
	}
	if d.AboutURL != nil && *d.AboutURL != "" {
		if err := checkAboutURL(*d.AboutURL); err != nil {
			return err
		}
	}
	if d.Note != nil && utf8.RuneCountInString(*d.Note) > MaxNoteLength {
		return fieldErr("note", "must be at most %d characters", MaxNoteLength)
	}
	return nil
}

// checkAboutURL accepts an absolute http or https URL with a host: the
// public pages link it, so no javascript:, data: or relative URL.
func checkAboutURL(s string) error {
	if len(s) > maxAboutURLLength {
		return fieldErr("about_url", "must be at most %d bytes", maxAboutURLLength)
	}
	u, err := url.Parse(s)
	if err != nil {
		return fieldErr("about_url", "is not a URL: %v", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return fieldErr("about_url", "must be an http or https URL")
	}
	if u.Host == "" || u.User != nil {
		return fieldErr("about_url", "must name a host (and no user name or password)")
	}
	return nil
}

// columns are the descriptive fields as the columns of a change (setSent).
func (d Descriptive) columns() []sent {
	return []sent{{"about_url", d.AboutURL}, {"public", d.Public}, {"note", d.Note}}
}

// sent is one column of a change and its member's value: a *string or
// *bool, nil when the request left the member out.
type sent struct {
	column string
	value  any
}

// setSent updates, in the row id of table, each column whose member the
// change sent, in order; a member left out keeps its column.
func (t tx) setSent(ctx context.Context, table string, id int64, columns ...sent) error {
	for _, c := range columns {
		var v any
		switch p := c.value.(type) {
		case *string:
			if p != nil {
				v = *p
			}
		case *bool:
			if p != nil {
				v = *p
			}
		default:
			return fmt.Errorf("hours store: %s.%s: a member of type %T", table, c.column, c.value)
		}
		if v == nil {
			continue
		}
		if _, err := t.exec(ctx, `UPDATE `+table+` SET `+c.column+` = ? WHERE id = ?`, v, id); err != nil {
			return err
		}
	}
	return nil
}

// LocationInput is a location create or change.
type LocationInput struct {
	Name       *string `json:"name,omitempty"`
	Slug       *string `json:"slug,omitempty"`
	Primary    *bool   `json:"primary,omitempty"`
	KeepsHours *bool   `json:"keeps_hours,omitempty"`
	Descriptive
}

// TermInput is a term create or change.
type TermInput struct {
	Name  *string `json:"name,omitempty"`
	First *string `json:"first_day,omitempty"`
	Last  *string `json:"last_day,omitempty"`
}

// DayInput is one weekday of a schedule write.
type DayInput struct {
	Weekday time.Weekday
	Closed  bool
	Open24  bool
	Periods []string
}

// ExceptionInput is an exception create or change.
type ExceptionInput struct {
	Day     *string
	Closed  *bool
	Open24  *bool    // open around the clock that day (issue 19.3: the editor's "24h")
	Periods []string // nil: unchanged
	Type    *string
	Notes   *string
}

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrNotFound, fmt.Sprintf(format, args...))
}

func conflict(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrConflict, fmt.Sprintf(format, args...))
}

func (t tx) libraryID(ctx context.Context, slug string) (int64, error) {
	var id int64
	err := t.queryRow(ctx, `SELECT id FROM libraries WHERE slug = ?`, slug).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound("no library %q", slug)
	}
	return id, err
}

// locationID finds a location by its library's slug and its own: the
// library's id and the location's.
func (t tx) locationID(ctx context.Context, librarySlug, slug string) (libraryID, id int64, err error) {
	if libraryID, err = t.libraryID(ctx, librarySlug); err != nil {
		return 0, 0, err
	}
	err = t.queryRow(ctx, `SELECT id FROM locations WHERE library_id = ? AND slug = ?`, libraryID, slug).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, notFound("no location %q in this library", slug)
	}
	return libraryID, id, err
}

// exists reports whether q finds a row.
func (t tx) exists(ctx context.Context, q string, args ...any) (bool, error) {
	var one int
	err := t.queryRow(ctx, q, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

func checkName(field string, p *string) error {
	if p != nil && (*p == "" || len(*p) > 200) {
		return fieldErr(field, "must be 1 to 200 characters")
	}
	return checkTexts(textAttr(field, p)) // text.go
}

// CreateLibrary adds a library; it returns the library's id.
func (s *Store) CreateLibrary(ctx context.Context, who string, in LibraryInput) (int64, error) {
	if err := requirePlace(in.Name, in.Slug); err != nil {
		return 0, err
	}
	if in.TimeZone == nil {
		tz := DefaultTimeZone
		in.TimeZone = &tz
	}
	if err := validateLibrary(in); err != nil {
		return 0, err
	}
	var id int64
	err := s.inTx(ctx, func(t tx) error {
		if err := t.librarySlugFree(ctx, *in.Slug, 0); err != nil {
			return err
		}
		var err error
		id, err = t.insertID(ctx, `INSERT INTO libraries (slug, name, timezone) VALUES (?, ?, ?)`, *in.Slug, *in.Name, *in.TimeZone)
		if err != nil {
			return err
		}
		if err := t.setSent(ctx, "libraries", id, in.Descriptive.columns()...); err != nil {
			return err
		}
		return audit(ctx, t, who, "create", "libraries", *in.Slug, withMembers(in))
	})
	return id, err
}

// librarySlugFree checks slug may name library id (0: a new library): no
// library has it, and it is no other library's former slug, which keeps
// resolving to that library for links and legacy clients (and names it in
// editor roles).
func (t tx) librarySlugFree(ctx context.Context, slug string, id int64) error {
	if taken, err := t.exists(ctx, `SELECT 1 FROM libraries WHERE slug = ? AND id <> ?`, slug, id); err != nil || taken {
		return errors.Join(err, conflictIf(taken, "library slug %q is in use", slug))
	}
	if taken, err := t.exists(ctx, `SELECT 1 FROM slug_history WHERE location_id IS NULL AND old_slug = ? AND library_id <> ?`, slug, id); err != nil || taken {
		return errors.Join(err, conflictIf(taken, "library slug %q is a former slug of another library and still resolves to it", slug))
	}
	return nil
}

// locationSlugFree is librarySlugFree for location id (0: new) in a library.
func (t tx) locationSlugFree(ctx context.Context, libraryID int64, librarySlug, slug string, id int64) error {
	if taken, err := t.exists(ctx, `SELECT 1 FROM locations WHERE library_id = ? AND slug = ? AND id <> ?`, libraryID, slug, id); err != nil || taken {
		return errors.Join(err, conflictIf(taken, "location slug %q is in use in library %q", slug, librarySlug))
	}
	if taken, err := t.exists(ctx, `SELECT 1 FROM slug_history WHERE library_id = ? AND location_id IS NOT NULL AND old_slug = ? AND location_id <> ?`, libraryID, slug, id); err != nil || taken {
		return errors.Join(err, conflictIf(taken, "location slug %q is a former slug of another location of library %q and still resolves to it", slug, librarySlug))
	}
	return nil
}

// withMembers is in's JSON members plus name/value pairs (for audit
// details that say where a change was made).
func withMembers(in any, pairs ...string) map[string]any {
	out := map[string]any{}
	if js, err := json.Marshal(in); err == nil {
		_ = json.Unmarshal(js, &out) // in is one of this file's input structs: always an object
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		out[pairs[i]] = pairs[i+1]
	}
	return out
}

func conflictIf(cond bool, format string, args ...any) error {
	if !cond {
		return nil
	}
	return conflict(format, args...)
}

// validatePlace checks what a library and a location change share: the
// name, the slug and the descriptive fields that were sent.
func validatePlace(name, slug *string, d Descriptive) error {
	if err := checkName("name", name); err != nil {
		return err
	}
	if slug != nil && !ValidSlug(*slug) {
		return fieldErr("slug", "must be lower-case letters and digits joined by single hyphens, at most 64 characters")
	}
	return d.validate()
}

// requirePlace checks a create names the library or location and its slug.
func requirePlace(name, slug *string) error {
	if name == nil {
		return fieldErr("name", "is required")
	}
	if slug == nil {
		return fieldErr("slug", "is required")
	}
	return nil
}

func validateLibrary(in LibraryInput) error {
	if err := validatePlace(in.Name, in.Slug, in.Descriptive); err != nil {
		return err
	}
	if err := checkTexts(textAttr("timezone", in.TimeZone)); err != nil { // text.go
		return err
	}
	if in.TimeZone != nil {
		if _, err := time.LoadLocation(*in.TimeZone); err != nil || *in.TimeZone == "" || *in.TimeZone == "Local" {
			return fieldErr("timezone", "%q is not an IANA time zone", *in.TimeZone)
		}
	}
	return nil
}

// UpdateLibrary changes a library; a new slug keeps the old one resolving.
func (s *Store) UpdateLibrary(ctx context.Context, who, slug string, in LibraryInput) (int64, error) {
	if err := validateLibrary(in); err != nil {
		return 0, err
	}
	var id int64
	err := s.inTx(ctx, func(t tx) error {
		var err error
		if id, err = t.libraryID(ctx, slug); err != nil {
			return err
		}
		if in.Slug != nil && *in.Slug != slug {
			if err := t.librarySlugFree(ctx, *in.Slug, id); err != nil {
				return err
			}
			if _, err := t.exec(ctx, `INSERT INTO slug_history (library_id, old_slug) VALUES (?, ?)`, id, slug); err != nil {
				return err
			}
		}
		columns := append([]sent{{"slug", in.Slug}, {"name", in.Name}, {"timezone", in.TimeZone}}, in.Descriptive.columns()...)
		if err := t.setSent(ctx, "libraries", id, columns...); err != nil {
			return err
		}
		return audit(ctx, t, who, "update", "libraries", slug, in)
	})
	return id, err
}

// DeleteLibrary removes a library and everything in it.
func (s *Store) DeleteLibrary(ctx context.Context, who, slug string) error {
	return s.inTx(ctx, func(t tx) error {
		id, err := t.libraryID(ctx, slug)
		if err != nil {
			return err
		}
		if _, err := t.exec(ctx, `DELETE FROM libraries WHERE id = ?`, id); err != nil {
			return err
		}
		return audit(ctx, t, who, "delete", "libraries", slug, nil)
	})
}

func validateLocation(in LocationInput) error {
	return validatePlace(in.Name, in.Slug, in.Descriptive)
}

// setPrimary makes locationID its library's only primary location.
func (t tx) setPrimary(ctx context.Context, libraryID, locationID int64) error {
	if _, err := t.exec(ctx, `UPDATE locations SET is_primary = ? WHERE library_id = ? AND id <> ?`, false, libraryID, locationID); err != nil {
		return err
	}
	_, err := t.exec(ctx, `UPDATE locations SET is_primary = ? WHERE id = ?`, true, locationID)
	return err
}

// CreateLocation adds a location to a library; the first location of a
// library becomes its primary one.
func (s *Store) CreateLocation(ctx context.Context, who, librarySlug string, in LocationInput) (int64, error) {
	if err := requirePlace(in.Name, in.Slug); err != nil {
		return 0, err
	}
	if err := validateLocation(in); err != nil {
		return 0, err
	}
	var id int64
	err := s.inTx(ctx, func(t tx) error {
		libID, err := t.libraryID(ctx, librarySlug)
		if err != nil {
			return err
		}
		if err := t.locationSlugFree(ctx, libID, librarySlug, *in.Slug, 0); err != nil {
			return err
		}
		hasPrimary, err := t.exists(ctx, `SELECT 1 FROM locations WHERE library_id = ? AND is_primary = ?`, libID, true)
		if err != nil {
			return err
		}
		keeps := in.KeepsHours == nil || *in.KeepsHours
		if id, err = t.insertID(ctx, `INSERT INTO locations (library_id, slug, name, is_primary, keeps_hours) VALUES (?, ?, ?, ?, ?)`,
			libID, *in.Slug, *in.Name, false, keeps); err != nil {
			return err
		}
		if err := t.setSent(ctx, "locations", id, in.Descriptive.columns()...); err != nil {
			return err
		}
		if !hasPrimary || (in.Primary != nil && *in.Primary) {
			if err := t.setPrimary(ctx, libID, id); err != nil {
				return err
			}
		}
		return audit(ctx, t, who, "create", "locations", librarySlug+"/"+*in.Slug, in)
	})
	return id, err
}

// UpdateLocation changes a location. Making it primary unsets the
// library's previous primary location; a new slug keeps the old one
// resolving.
func (s *Store) UpdateLocation(ctx context.Context, who, librarySlug, slug string, in LocationInput) (int64, error) {
	if err := validateLocation(in); err != nil {
		return 0, err
	}
	if in.Primary != nil && !*in.Primary {
		return 0, fieldErr("primary", "cannot be unset; make another location primary instead")
	}
	var id int64
	err := s.inTx(ctx, func(t tx) error {
		libID, locID, err := t.locationID(ctx, librarySlug, slug)
		if err != nil {
			return err
		}
		id = locID
		if in.Slug != nil && *in.Slug != slug {
			if err := t.locationSlugFree(ctx, libID, librarySlug, *in.Slug, id); err != nil {
				return err
			}
			if _, err := t.exec(ctx, `INSERT INTO slug_history (library_id, location_id, old_slug) VALUES (?, ?, ?)`, libID, id, slug); err != nil {
				return err
			}
		}
		columns := append([]sent{{"slug", in.Slug}, {"name", in.Name}, {"keeps_hours", in.KeepsHours}}, in.Descriptive.columns()...)
		if err := t.setSent(ctx, "locations", id, columns...); err != nil {
			return err
		}
		if in.Primary != nil && *in.Primary {
			if err := t.setPrimary(ctx, libID, id); err != nil {
				return err
			}
		}
		return audit(ctx, t, who, "update", "locations", librarySlug+"/"+slug, in)
	})
	return id, err
}

// DeleteLocation removes a location with its schedules and exceptions. If
// it was primary, the library's first remaining location (by slug) becomes
// primary.
func (s *Store) DeleteLocation(ctx context.Context, who, librarySlug, slug string) error {
	return s.inTx(ctx, func(t tx) error {
		libID, id, err := t.locationID(ctx, librarySlug, slug)
		if err != nil {
			return err
		}
		if _, err := t.exec(ctx, `DELETE FROM locations WHERE id = ?`, id); err != nil {
			return err
		}
		hasPrimary, err := t.exists(ctx, `SELECT 1 FROM locations WHERE library_id = ? AND is_primary = ?`, libID, true)
		if err != nil {
			return err
		}
		if !hasPrimary {
			var next int64
			err := t.queryRow(ctx, `SELECT id FROM locations WHERE library_id = ? ORDER BY slug LIMIT 1`, libID).Scan(&next)
			if err == nil {
				if err := t.setPrimary(ctx, libID, next); err != nil {
					return err
				}
			} else if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		return audit(ctx, t, who, "delete", "locations", librarySlug+"/"+slug, nil)
	})
}

// termDates checks a term's dates (after merging a change).
func termDates(first, last string) error {
	f, err := schedule.ParseDate(first)
	if err != nil {
		return fieldErr("first_day", "%v", err)
	}
	l, err := schedule.ParseDate(last)
	if err != nil {
		return fieldErr("last_day", "%v", err)
	}
	if l.Before(f) {
		return fieldErr("last_day", "%s is before first_day %s", l, f)
	}
	if f.AddMonths(60).Before(l) {
		return fieldErr("last_day", "a term may last at most 5 years")
	}
	return nil
}

// CreateTerm adds a term to a library.
func (s *Store) CreateTerm(ctx context.Context, who, librarySlug string, in TermInput) (int64, error) {
	switch {
	case in.Name == nil:
		return 0, fieldErr("name", "is required")
	case in.First == nil:
		return 0, fieldErr("first_day", "is required")
	case in.Last == nil:
		return 0, fieldErr("last_day", "is required")
	}
	if err := checkName("name", in.Name); err != nil {
		return 0, err
	}
	if err := termDates(*in.First, *in.Last); err != nil {
		return 0, err
	}
	var id int64
	err := s.inTx(ctx, func(t tx) error {
		libID, err := t.libraryID(ctx, librarySlug)
		if err != nil {
			return err
		}
		if id, err = t.insertID(ctx, `INSERT INTO terms (library_id, name, first_day, last_day) VALUES (?, ?, ?, ?)`, libID, *in.Name, *in.First, *in.Last); err != nil {
			return err
		}
		return audit(ctx, t, who, "create", "terms", strconv.FormatInt(id, 10), withMembers(in, "library", librarySlug))
	})
	return id, err
}

func (t tx) termOf(ctx context.Context, libID, termID int64) (name, first, last string, err error) {
	err = t.queryRow(ctx, `SELECT name, first_day, last_day FROM terms WHERE id = ? AND library_id = ?`, termID, libID).Scan(&name, &first, &last)
	if errors.Is(err, sql.ErrNoRows) {
		err = notFound("no term %d in this library", termID)
	}
	return name, first, last, err
}

// UpdateTerm changes a term.
func (s *Store) UpdateTerm(ctx context.Context, who, librarySlug string, termID int64, in TermInput) error {
	if err := checkName("name", in.Name); err != nil {
		return err
	}
	return s.inTx(ctx, func(t tx) error {
		libID, err := t.libraryID(ctx, librarySlug)
		if err != nil {
			return err
		}
		name, first, last, err := t.termOf(ctx, libID, termID)
		if err != nil {
			return err
		}
		if in.Name != nil {
			name = *in.Name
		}
		if in.First != nil {
			first = *in.First
		}
		if in.Last != nil {
			last = *in.Last
		}
		if err := termDates(first, last); err != nil {
			return err
		}
		if _, err := t.exec(ctx, `UPDATE terms SET name = ?, first_day = ?, last_day = ? WHERE id = ?`, name, first, last, termID); err != nil {
			return err
		}
		return audit(ctx, t, who, "update", "terms", strconv.FormatInt(termID, 10), withMembers(in, "library", librarySlug))
	})
}

// DeleteTerm removes a term and its schedules.
func (s *Store) DeleteTerm(ctx context.Context, who, librarySlug string, termID int64) error {
	return s.inTx(ctx, func(t tx) error {
		libID, err := t.libraryID(ctx, librarySlug)
		if err != nil {
			return err
		}
		if _, _, _, err := t.termOf(ctx, libID, termID); err != nil {
			return err
		}
		if _, err := t.exec(ctx, `DELETE FROM terms WHERE id = ?`, termID); err != nil {
			return err
		}
		return audit(ctx, t, who, "delete", "terms", strconv.FormatInt(termID, 10), map[string]any{"library": librarySlug})
	})
}

// ParseDays checks a schedule's days: each weekday at most once, and each
// either closed, open 24 hours, or open during valid periods.
func ParseDays(days []DayInput) ([7]DayRule, error) {
	var out [7]DayRule
	seen := [7]bool{}
	for wd := range out {
		out[wd] = DayRule{Weekday: time.Weekday(wd), Kind: schedule.Closed}
	}
	for i, d := range days {
		path := fmt.Sprintf("days/%d", i)
		if d.Weekday < time.Sunday || d.Weekday > time.Saturday {
			return out, fieldErr(path+"/weekday", "not a weekday")
		}
		if seen[d.Weekday] {
			return out, fieldErr(path+"/weekday", "%s is listed twice", d.Weekday)
		}
		seen[d.Weekday] = true
		set := 0
		for _, b := range []bool{d.Closed, d.Open24, len(d.Periods) > 0} {
			if b {
				set++
			}
		}
		if set != 1 {
			return out, fieldErr(path, "give exactly one of closed, open_24h or periods")
		}
		rule := DayRule{Weekday: d.Weekday, Kind: schedule.Closed}
		switch {
		case d.Open24:
			rule.Kind = schedule.Open24
		case len(d.Periods) > 0:
			ps, err := parsePeriods(path+"/periods", d.Periods)
			if err != nil {
				return out, err
			}
			rule.Kind = schedule.Hours
			rule.Periods = ps
		}
		out[d.Weekday] = rule
	}
	return out, nil
}

// parsePeriods is schedule.ParsePeriods with its error on field (a
// period's own error on field/<index>).
func parsePeriods(field string, periods []string) ([]schedule.Period, error) {
	ps, err := schedule.ParsePeriods(periods)
	if err != nil {
		var pe *schedule.PeriodError
		if errors.As(err, &pe) {
			return nil, fieldErr(fmt.Sprintf("%s/%d", field, pe.Index), "%s", pe.Error())
		}
		return nil, fieldErr(field, "%v", err)
	}
	return ps, nil
}

func (t tx) writeDays(ctx context.Context, locationID, scheduleID int64, days [7]DayRule) error {
	if _, err := t.exec(ctx, `DELETE FROM rules WHERE schedule_id = ?`, scheduleID); err != nil {
		return err
	}
	for _, d := range days {
		if _, err := t.exec(ctx, `INSERT INTO rules (location_id, schedule_id, weekday, kind, periods, type, notes) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			locationID, scheduleID, int(d.Weekday), kindName(d.Kind), schedule.FormatPeriods(d.Periods), schedule.TypeRegular, ""); err != nil {
			return err
		}
	}
	return nil
}

func daysDetail(days [7]DayRule) map[string]string {
	out := map[string]string{}
	for _, d := range days {
		v := kindName(d.Kind)
		if d.Kind == schedule.Hours {
			v = schedule.FormatPeriods(d.Periods)
		}
		out[d.Weekday.String()] = v
	}
	return out
}

// CreateSchedule sets the weekly schedule of a location for a term of its
// library; one schedule per location and term.
func (s *Store) CreateSchedule(ctx context.Context, who, librarySlug, locationSlug string, termID int64, days []DayInput) (int64, error) {
	rules, err := ParseDays(days)
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.inTx(ctx, func(t tx) error {
		libID, locID, err := t.locationID(ctx, librarySlug, locationSlug)
		if err != nil {
			return err
		}
		if _, _, _, err := t.termOf(ctx, libID, termID); err != nil {
			if errors.Is(err, ErrNotFound) {
				return &FieldError{Field: "relationships/term", Reason: fmt.Sprintf("no term %d in library %q", termID, librarySlug)}
			}
			return err
		}
		if taken, err := t.exists(ctx, `SELECT 1 FROM schedules WHERE location_id = ? AND term_id = ?`, locID, termID); err != nil || taken {
			return errors.Join(err, conflictIf(taken, "location %q already has a schedule for term %d", locationSlug, termID))
		}
		if id, err = t.insertID(ctx, `INSERT INTO schedules (location_id, term_id) VALUES (?, ?)`, locID, termID); err != nil {
			return err
		}
		if err := t.writeDays(ctx, locID, id, rules); err != nil {
			return err
		}
		return audit(ctx, t, who, "create", "schedules", strconv.FormatInt(id, 10), map[string]any{"location": librarySlug + "/" + locationSlug, "term": termID, "days": daysDetail(rules)})
	})
	return id, err
}

func (t tx) scheduleOf(ctx context.Context, libSlug, locSlug string, scheduleID int64) (locID int64, err error) {
	if _, locID, err = t.locationID(ctx, libSlug, locSlug); err != nil {
		return 0, err
	}
	ok, err := t.exists(ctx, `SELECT 1 FROM schedules WHERE id = ? AND location_id = ?`, scheduleID, locID)
	if err == nil && !ok {
		err = notFound("no schedule %d at this location", scheduleID)
	}
	return locID, err
}

// UpdateSchedule replaces a schedule's days (its term stays).
func (s *Store) UpdateSchedule(ctx context.Context, who, librarySlug, locationSlug string, scheduleID int64, days []DayInput) error {
	rules, err := ParseDays(days)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(t tx) error {
		locID, err := t.scheduleOf(ctx, librarySlug, locationSlug, scheduleID)
		if err != nil {
			return err
		}
		if err := t.writeDays(ctx, locID, scheduleID, rules); err != nil {
			return err
		}
		return audit(ctx, t, who, "update", "schedules", strconv.FormatInt(scheduleID, 10), map[string]any{"location": librarySlug + "/" + locationSlug, "days": daysDetail(rules)})
	})
}

// DeleteSchedule removes a schedule.
func (s *Store) DeleteSchedule(ctx context.Context, who, librarySlug, locationSlug string, scheduleID int64) error {
	return s.inTx(ctx, func(t tx) error {
		if _, err := t.scheduleOf(ctx, librarySlug, locationSlug, scheduleID); err != nil {
			return err
		}
		if _, err := t.exec(ctx, `DELETE FROM schedules WHERE id = ?`, scheduleID); err != nil {
			return err
		}
		return audit(ctx, t, who, "delete", "schedules", strconv.FormatInt(scheduleID, 10), map[string]any{"location": librarySlug + "/" + locationSlug})
	})
}

// exceptionRow is an exception as stored, for merging a change.
type exceptionRow struct {
	day, periods, typ, notes string
	closed, open24           bool
}

// mergeException applies in to row and checks the result.
func mergeException(row exceptionRow, in ExceptionInput) (exceptionRow, error) {
	if in.Day != nil {
		if _, err := schedule.ParseDate(*in.Day); err != nil {
			return row, fieldErr("day", "%v", err)
		}
		row.day = *in.Day
	}
	if in.Periods != nil {
		ps, err := parsePeriods("periods", in.Periods)
		if err != nil {
			return row, err
		}
		row.periods = schedule.FormatPeriods(ps)
	}
	// A day is exactly one of closed, open_24h and periods; a write naming
	// one of them sets the day to it.
	switch {
	case in.Open24 != nil && *in.Open24:
		if in.Closed != nil && *in.Closed || len(in.Periods) > 0 {
			return row, fieldErr("open_24h", "give exactly one of closed, open_24h or periods")
		}
		row.open24, row.closed, row.periods = true, false, ""
	case in.Closed != nil:
		row.closed = *in.Closed
		if row.closed || in.Periods != nil || in.Open24 != nil {
			row.open24 = false
		}
	case in.Periods != nil:
		row.closed, row.open24 = len(in.Periods) == 0, false
	case in.Open24 != nil && row.open24:
		// open_24h: false alone leaves the day no hours: closed.
		row.open24, row.closed = false, true
	}
	if row.closed && in.Closed != nil && in.Periods == nil {
		row.periods = ""
	}
	if in.Notes != nil {
		if len(*in.Notes) > 500 {
			return row, fieldErr("notes", "at most 500 characters")
		}
		if err := checkTexts(textAttr("notes", in.Notes)); err != nil { // text.go
			return row, err
		}
		row.notes = *in.Notes
	}
	if in.Type != nil {
		row.typ = *in.Type
	} else if row.typ == "" || (row.closed != (row.typ != schedule.TypeSpecial)) {
		row.typ = schedule.TypeSpecial
		if row.closed {
			row.typ = schedule.TypeHoliday
		}
	}
	if row.day == "" {
		return row, fieldErr("day", "is required")
	}
	if row.closed && row.periods != "" {
		return row, fieldErr("periods", "a closed day has no periods")
	}
	if row.open24 && row.periods != "" {
		return row, fieldErr("periods", "a day open 24 hours has no periods")
	}
	if !row.closed && !row.open24 && row.periods == "" {
		return row, fieldErr("periods", "an open day needs at least one period (or closed: true, or open_24h: true)")
	}
	switch row.typ {
	case schedule.TypeSpecial:
		if row.closed {
			return row, fieldErr("hours_type", "special is for days with their own hours; a closed day is holiday or closure")
		}
	case schedule.TypeHoliday, schedule.TypeClosure:
		if !row.closed {
			return row, fieldErr("hours_type", "%s is for closed days; a day with hours is special", row.typ)
		}
	default:
		return row, fieldErr("hours_type", "must be special, holiday or closure")
	}
	return row, nil
}

// detail is the exception's audit detail.
func (r exceptionRow) detail(librarySlug, locationSlug string) map[string]any {
	return map[string]any{"location": librarySlug + "/" + locationSlug, "day": r.day, "kind": r.kind(), "periods": r.periods, "type": r.typ, "notes": r.notes}
}

func (r exceptionRow) kind() string {
	switch {
	case r.closed:
		return "closed"
	case r.open24:
		return "open24"
	}
	return "hours"
}

// CreateException sets a location's hours on one date.
func (s *Store) CreateException(ctx context.Context, who, librarySlug, locationSlug string, in ExceptionInput) (int64, error) {
	row, err := mergeException(exceptionRow{}, in)
	if err != nil {
		return 0, err
	}
	var id int64
	err = s.inTx(ctx, func(t tx) error {
		libID, locID, err := t.locationID(ctx, librarySlug, locationSlug)
		if err != nil {
			return err
		}
		if err := t.checkExceptionTimes(ctx, libID, row); err != nil { // dst.go
			return err
		}
		if taken, err := t.exists(ctx, `SELECT 1 FROM rules WHERE location_id = ? AND day = ?`, locID, row.day); err != nil || taken {
			return errors.Join(err, conflictIf(taken, "location %q already has an exception on %s", locationSlug, row.day))
		}
		if id, err = t.insertID(ctx, `INSERT INTO rules (location_id, day, kind, periods, type, notes) VALUES (?, ?, ?, ?, ?, ?)`,
			locID, row.day, row.kind(), row.periods, row.typ, row.notes); err != nil {
			return err
		}
		return audit(ctx, t, who, "create", "exceptions", strconv.FormatInt(id, 10), row.detail(librarySlug, locationSlug))
	})
	return id, err
}

func (t tx) exceptionOf(ctx context.Context, libSlug, locSlug string, id int64) (libID, locID int64, row exceptionRow, err error) {
	if libID, locID, err = t.locationID(ctx, libSlug, locSlug); err != nil {
		return 0, 0, row, err
	}
	var kind string
	err = t.queryRow(ctx, `SELECT day, kind, periods, type, notes FROM rules WHERE id = ? AND location_id = ? AND day IS NOT NULL`, id, locID).
		Scan(&row.day, &kind, &row.periods, &row.typ, &row.notes)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, row, notFound("no exception %d at this location", id)
	}
	row.closed, row.open24 = kind == "closed", kind == "open24"
	return libID, locID, row, err
}

// UpdateException changes an exception.
func (s *Store) UpdateException(ctx context.Context, who, librarySlug, locationSlug string, id int64, in ExceptionInput) error {
	return s.inTx(ctx, func(t tx) error {
		libID, locID, row, err := t.exceptionOf(ctx, librarySlug, locationSlug, id)
		if err != nil {
			return err
		}
		if row, err = mergeException(row, in); err != nil {
			return err
		}
		if err := t.checkExceptionTimes(ctx, libID, row); err != nil { // dst.go
			return err
		}
		if taken, err := t.exists(ctx, `SELECT 1 FROM rules WHERE location_id = ? AND day = ? AND id <> ?`, locID, row.day, id); err != nil || taken {
			return errors.Join(err, conflictIf(taken, "location %q already has an exception on %s", locationSlug, row.day))
		}
		if _, err := t.exec(ctx, `UPDATE rules SET day = ?, kind = ?, periods = ?, type = ?, notes = ? WHERE id = ?`,
			row.day, row.kind(), row.periods, row.typ, row.notes, id); err != nil {
			return err
		}
		return audit(ctx, t, who, "update", "exceptions", strconv.FormatInt(id, 10), row.detail(librarySlug, locationSlug))
	})
}

// DeleteException removes an exception.
func (s *Store) DeleteException(ctx context.Context, who, librarySlug, locationSlug string, id int64) error {
	return s.inTx(ctx, func(t tx) error {
		if _, _, _, err := t.exceptionOf(ctx, librarySlug, locationSlug, id); err != nil {
			return err
		}
		if _, err := t.exec(ctx, `DELETE FROM rules WHERE id = ?`, id); err != nil {
			return err
		}
		return audit(ctx, t, who, "delete", "exceptions", strconv.FormatInt(id, 10), map[string]any{"location": librarySlug + "/" + locationSlug})
	})
}
