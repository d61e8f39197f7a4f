package hours

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/hours/schedule"
	"github.com/sitelib/sitesvc/impl/hours/store"
)

var _ hoursapi.CanonicalServerInterface = (*Service)(nil)

// read answers with the document built for key (cached, see docCache):
// its prepared representation, apiserve.Content, which answers 304, 412
// and Range for every read alike.
func (s *Service) read(ctx context.Context, key string, build func(*view) (*rendered, error)) (*hoursapi.Respond, error) {
	r, err := s.cache.get(ctx, key, func(v *view) (*rendered, error) {
		r, err := build(v)
		if err != nil {
			return nil, err
		}
		// Prepared once, before the cache shares it.
		// Documents are read whole: api/hours.yaml declares 412, no 206.
		r.read = apiserve.NewContent(r.body, r.etag, time.Time{}).
			WithHeader("Content-Type", r.contentType).
			WithHeader("Cache-Control", s.readCacheControl...).
			WholeOnly()
		return r, nil
	})
	if err != nil {
		return nil, err
	}
	return &hoursapi.Respond{Representation: r.read}, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// rangeKey is the part of a cache key fixed by from/to: the dates when
// given, else the quarter hour of now, the read's time (every zone's
// "today" is constant within one, whatever its offset).
func (s *Service) rangeKey(from, to string, now time.Time) string {
	if from == "" && to == "" {
		return s.quarterKey(now)
	}
	return from + ".." + to
}

// quarterKey is the range key of reads without from/to, "now:" and the
// quarter hour of now, formatted once per quarter hour rather than on
// every read.
func (s *Service) quarterKey(now time.Time) string {
	quarter := now.UTC().Truncate(15 * time.Minute)
	if k := s.nowKey.Load(); k != nil && k.quarter.Equal(quarter) {
		return k.key
	}
	k := &quarterRangeKey{quarter: quarter, key: "now:" + quarter.Format(time.RFC3339)}
	s.nowKey.Store(k)
	return k.key
}

// quarterRangeKey is a quarter hour and its range key.
type quarterRangeKey struct {
	quarter time.Time
	key     string
}

func parseRange(from, to *string) (schedule.Range, bool, error) {
	r, explicit, err := schedule.ParseRange(deref(from), deref(to))
	if err == nil {
		return r, explicit, nil
	}
	var re *schedule.RangeError
	if errors.As(err, &re) {
		return r, false, &apiserve.Error{Status: http.StatusBadRequest, Message: "query parameter " + re.Reason, Parameter: re.Parameter, Err: err}
	}
	return r, explicit, err
}

func libraryNotFound(slug string) error {
	return &apiserve.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("no library %q", slug), Parameter: "library_id"}
}

func locationNotFound(lib, loc string) error {
	return &apiserve.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("no location %q in library %q", loc, lib), Parameter: "location_id"}
}

// hoursQuery is a read's from/to query: the range whose hours a document
// shows (explicit: the caller gave it, else the week from today) as of now.
type hoursQuery struct {
	rng      schedule.Range
	explicit bool
	now      time.Time
	from, to string
}

// readHours is a read of a document showing hours for from/to: 400 for a
// bad range; the cache key (the document's kind, library and location
// slugs, then the range) says which range it shows, built in one piece.
func (s *Service) readHours(ctx context.Context, kind, library, location string, from, to *string, build func(v *view, q hoursQuery) (*rendered, error)) (*hoursapi.Respond, error) {
	rng, explicit, err := parseRange(from, to)
	if err != nil {
		return nil, err
	}
	q := hoursQuery{rng: rng, explicit: explicit, now: s.cfg.Now(), from: deref(from), to: deref(to)}
	return s.read(ctx, kind+"|"+library+"|"+location+"|"+s.rangeKey(q.from, q.to, q.now), func(v *view) (*rendered, error) {
		return build(v, q)
	})
}

// ListLibraries is GET /libraries.json.
func (s *Service) ListLibraries(ctx context.Context, req hoursapi.ListLibrariesRequestObject) (hoursapi.ListLibrariesResponseObject, error) {
	return s.readHours(ctx, "libraries", "", "", req.Params.From, req.Params.To, func(v *view, q hoursQuery) (*rendered, error) {
		return newRendered(s.rend.libraries(v, q.explicit, q.rng, q.now, q.from, q.to), mediaJSONAPI)
	})
}

// GetLibrary is GET /libraries/{library_id}.json.
func (s *Service) GetLibrary(ctx context.Context, req hoursapi.GetLibraryRequestObject) (hoursapi.GetLibraryResponseObject, error) {
	return s.readHours(ctx, "library", req.LibraryId, "", req.Params.From, req.Params.To, func(v *view, q hoursQuery) (*rendered, error) {
		lib := v.bySlug[req.LibraryId]
		if lib == nil {
			return nil, libraryNotFound(req.LibraryId)
		}
		return newRendered(s.rend.libraryDoc(lib, q.explicit, q.rng, q.now, q.from, q.to), mediaJSONAPI)
	})
}

// GetLocation is GET /libraries/{library_id}/locations/{location_id}.json.
func (s *Service) GetLocation(ctx context.Context, req hoursapi.GetLocationRequestObject) (hoursapi.GetLocationResponseObject, error) {
	return s.readHours(ctx, "location", req.LibraryId, req.LocationId, req.Params.From, req.Params.To, func(v *view, q hoursQuery) (*rendered, error) {
		loc, err := locationIn(v, req.LibraryId, req.LocationId)
		if err != nil {
			return nil, err
		}
		return newRendered(s.rend.locationDoc(loc, q.explicit, q.rng, q.now, q.from, q.to), mediaJSONAPI)
	})
}

// LegacyHours is GET /api/v1/library/{library_id}/location/{location_id}/hours/for/{when}.
func (s *Service) LegacyHours(ctx context.Context, req hoursapi.LegacyHoursRequestObject) (hoursapi.LegacyHoursResponseObject, error) {
	if req.When != "today" {
		if _, err := schedule.ParseDate(req.When); err != nil {
			return nil, &apiserve.Error{Status: http.StatusBadRequest, Message: `path parameter "when": ` + err.Error() + ` (want "today" or YYYY-MM-DD)`, Parameter: "when", Err: err}
		}
	}
	now := s.cfg.Now()
	var key string
	if req.When == "today" {
		// One string built per request, not two.
		key = "legacy|" + req.LibraryId + "|" + req.LocationId + "|" + req.When + "|" + s.quarterKey(now)
	} else {
		key = "legacy|" + req.LibraryId + "|" + req.LocationId + "|" + req.When
	}
	return s.read(ctx, key, func(v *view) (*rendered, error) {
		loc, err := publicLocationIn(v, req.LibraryId, req.LocationId)
		if err != nil {
			return nil, err
		}
		zone := loc.lib.zone
		day, err := schedule.ParseWhen(req.When, now, zone)
		if err != nil {
			return nil, err
		}
		rules := loc.hoursRules()
		return newRendered(toLegacyHours(loc, schedule.Compute(day, zone, rules.RuleFor(day))), mediaJSON)
	})
}

// ListTerms is GET /libraries/{library_id}/terms.json.
func (s *Service) ListTerms(ctx context.Context, req hoursapi.ListTermsRequestObject) (hoursapi.ListTermsResponseObject, error) {
	return s.read(ctx, "terms|"+req.LibraryId, func(v *view) (*rendered, error) {
		lib := v.bySlug[req.LibraryId]
		if lib == nil {
			return nil, libraryNotFound(req.LibraryId)
		}
		doc := hoursapi.TermsDocument{Jsonapi: jsonapiDoc, Links: hoursapi.Links{Self: s.cfg.BaseURL + "/libraries/" + lib.lib.Slug + "/terms.json"}, Data: []hoursapi.TermResource{}}
		for _, t := range v.snap.Terms {
			if t.LibraryID == lib.lib.ID {
				doc.Data = append(doc.Data, toTermResource(lib, t))
			}
		}
		return newRendered(doc, mediaJSONAPI)
	})
}

// locationIn resolves a library and location slug (current or former).
func locationIn(v *view, lib, loc string) (*locationView, error) {
	l := v.bySlug[lib]
	if l == nil {
		return nil, libraryNotFound(lib)
	}
	lv := l.bySlug[loc]
	if lv == nil {
		return nil, locationNotFound(lib, loc)
	}
	return lv, nil
}

// publicLocationIn is locationIn for the public pages, calendars and the
// legacy API: a library or location that is not public is not found
// there (docs/hours.md, "Public and not public").
func publicLocationIn(v *view, lib, loc string) (*locationView, error) {
	lv, err := locationIn(v, lib, loc)
	switch {
	case err != nil:
		return nil, err
	case !lv.lib.lib.Public:
		return nil, libraryNotFound(lib)
	case !lv.loc.Public:
		return nil, locationNotFound(lib, loc)
	}
	return lv, nil
}

// readAtLocation is read (cached under key) for a resource of one
// location: 404 for a library or location the view does not have, else
// build's answer for the location.
func (s *Service) readAtLocation(ctx context.Context, key, libraryID, locationID string, build func(*view, *locationView) (*rendered, error)) (*hoursapi.Respond, error) {
	return s.read(ctx, key, func(v *view) (*rendered, error) {
		loc, err := locationIn(v, libraryID, locationID)
		if err != nil {
			return nil, err
		}
		return build(v, loc)
	})
}

// itemsAt is the resources of loc's items (schedules or exceptions, which
// differ only in type), in store order; [] rather than null when none.
func itemsAt[T, R any](loc *locationView, items []T, ids func(T) (int64, int64), resource func(*locationView, T) R) []R {
	out := []R{}
	for _, it := range items {
		if _, at := ids(it); at == loc.loc.ID {
			out = append(out, resource(loc, it))
		}
	}
	return out
}

// ListSchedules is GET /libraries/{library_id}/locations/{location_id}/schedules.json.
func (s *Service) ListSchedules(ctx context.Context, req hoursapi.ListSchedulesRequestObject) (hoursapi.ListSchedulesResponseObject, error) {
	return s.readAtLocation(ctx, "schedules|"+req.LibraryId+"|"+req.LocationId, req.LibraryId, req.LocationId, func(v *view, loc *locationView) (*rendered, error) {
		doc := hoursapi.SchedulesDocument{Jsonapi: jsonapiDoc, Links: hoursapi.Links{Self: s.locationListURL(loc, "schedules")}, Data: itemsAt(loc, v.snap.Schedules, scheduleIDs, toScheduleResource)}
		return newRendered(doc, mediaJSONAPI)
	})
}

// ListExceptions is GET /libraries/{library_id}/locations/{location_id}/exceptions.json.
func (s *Service) ListExceptions(ctx context.Context, req hoursapi.ListExceptionsRequestObject) (hoursapi.ListExceptionsResponseObject, error) {
	return s.readAtLocation(ctx, "exceptions|"+req.LibraryId+"|"+req.LocationId, req.LibraryId, req.LocationId, func(v *view, loc *locationView) (*rendered, error) {
		doc := hoursapi.ExceptionsDocument{Jsonapi: jsonapiDoc, Links: hoursapi.Links{Self: s.locationListURL(loc, "exceptions")}, Data: itemsAt(loc, v.snap.Exceptions, exceptionIDs, toExceptionResource)}
		sort.Slice(doc.Data, func(i, j int) bool { return doc.Data[i].Attributes.Day < doc.Data[j].Attributes.Day })
		return newRendered(doc, mediaJSONAPI)
	})
}

// GetTerm is GET /libraries/{library_id}/terms/{term_id}.json.
func (s *Service) GetTerm(ctx context.Context, req hoursapi.GetTermRequestObject) (hoursapi.GetTermResponseObject, error) {
	id, err := parseID("term_id", req.TermId)
	if err != nil {
		return nil, err
	}
	return s.read(ctx, "term|"+req.LibraryId+"|"+req.TermId, func(v *view) (*rendered, error) {
		lib := v.bySlug[req.LibraryId]
		if lib == nil {
			return nil, libraryNotFound(req.LibraryId)
		}
		if t, ok := itemOf(v.snap.Terms, termIDs, id, lib.lib.ID); ok {
			return s.termDoc(lib, t)
		}
		return nil, &apiserve.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("no term %d in library %q", id, req.LibraryId), Parameter: "term_id"}
	})
}

// GetSchedule is GET /libraries/{library_id}/locations/{location_id}/schedules/{schedule_id}.json.
func (s *Service) GetSchedule(ctx context.Context, req hoursapi.GetScheduleRequestObject) (hoursapi.GetScheduleResponseObject, error) {
	return getLocationItem(s, ctx, req.LibraryId, req.LocationId, "schedule_id", req.ScheduleId,
		func(v *view) []store.Schedule { return v.snap.Schedules }, scheduleIDs, s.scheduleDoc)
}

// GetException is GET /libraries/{library_id}/locations/{location_id}/exceptions/{exception_id}.json.
func (s *Service) GetException(ctx context.Context, req hoursapi.GetExceptionRequestObject) (hoursapi.GetExceptionResponseObject, error) {
	return getLocationItem(s, ctx, req.LibraryId, req.LocationId, "exception_id", req.ExceptionId,
		func(v *view) []store.Exception { return v.snap.Exceptions }, exceptionIDs, s.exceptionDoc)
}

// getLocationItem reads one item of a location (a schedule or an
// exception; param names its path parameter, "schedule_id"): 400 for an id
// that is not one, 404 when the location has no such item.
func getLocationItem[T any](s *Service, ctx context.Context, libraryID, locationID, param, idText string, items func(*view) []T, ids func(T) (int64, int64), doc func(*locationView, T) (*rendered, error)) (*hoursapi.Respond, error) {
	id, err := parseID(param, idText)
	if err != nil {
		return nil, err
	}
	what := strings.TrimSuffix(param, "_id")
	return s.readAtLocation(ctx, what+"|"+libraryID+"|"+locationID+"|"+idText, libraryID, locationID, func(v *view, loc *locationView) (*rendered, error) {
		if it, ok := itemOf(items(v), ids, id, loc.loc.ID); ok {
			return doc(loc, it)
		}
		return nil, &apiserve.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("no %s %d at location %q of library %q", what, id, locationID, libraryID), Parameter: param}
	})
}

// itemOf is the item of items with the id id whose owner (its library for
// a term, its location for a schedule or an exception; ids gives both) is
// owner: the one rule by which a URL names a stored item.
func itemOf[T any](items []T, ids func(T) (id, owner int64), id, owner int64) (T, bool) {
	for _, it := range items {
		if itemID, itemOwner := ids(it); itemID == id && itemOwner == owner {
			return it, true
		}
	}
	var none T
	return none, false
}
