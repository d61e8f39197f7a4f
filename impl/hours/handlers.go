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
)

var _ hoursapi.StrictServerInterface = (*Service)(nil)

// readResponse is a cached read, or 304 when the client holds it.
type readResponse struct {
	r            *rendered
	notModified  bool
	cacheControl []string // header value
}

func (rr readResponse) visit(w http.ResponseWriter) error {
	h := w.Header()
	h["Etag"] = rr.r.header.etag
	h["Cache-Control"] = rr.cacheControl
	if rr.notModified {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	return rr.r.write(w, http.StatusOK)
}

func (rr readResponse) VisitListLibrariesResponse(w http.ResponseWriter) error  { return rr.visit(w) }
func (rr readResponse) VisitGetLibraryResponse(w http.ResponseWriter) error     { return rr.visit(w) }
func (rr readResponse) VisitGetLocationResponse(w http.ResponseWriter) error    { return rr.visit(w) }
func (rr readResponse) VisitLegacyHoursResponse(w http.ResponseWriter) error    { return rr.visit(w) }
func (rr readResponse) VisitListTermsResponse(w http.ResponseWriter) error      { return rr.visit(w) }
func (rr readResponse) VisitListSchedulesResponse(w http.ResponseWriter) error  { return rr.visit(w) }
func (rr readResponse) VisitListExceptionsResponse(w http.ResponseWriter) error { return rr.visit(w) }
func (rr readResponse) VisitGetTermResponse(w http.ResponseWriter) error        { return rr.visit(w) }
func (rr readResponse) VisitGetScheduleResponse(w http.ResponseWriter) error    { return rr.visit(w) }
func (rr readResponse) VisitGetExceptionResponse(w http.ResponseWriter) error   { return rr.visit(w) }

// etagMatches applies If-None-Match (a list of tags, weak or strong, or *).
func etagMatches(header *string, etag string) bool {
	if header == nil {
		return false
	}
	for _, tag := range strings.Split(*header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

func (s *Service) read(ctx context.Context, key string, ifNoneMatch *string, build func(*view) (*rendered, error)) (readResponse, error) {
	r, err := s.cache.get(ctx, key, build)
	if err != nil {
		return readResponse{}, err
	}
	return readResponse{
		r:            r,
		notModified:  etagMatches(ifNoneMatch, r.etag),
		cacheControl: s.readCacheControl,
	}, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// rangeKey is the part of a cache key fixed by from/to: the dates when
// given, else the quarter hour (every zone's "today" is constant within
// one, whatever its offset).
func (s *Service) rangeKey(from, to string) string {
	if from == "" && to == "" {
		return "now:" + s.cfg.Now().UTC().Truncate(15*time.Minute).Format(time.RFC3339)
	}
	return from + ".." + to
}

func parseRange(from, to *string) (schedule.Range, bool, error) {
	r, explicit, err := schedule.ParseRange(deref(from), deref(to))
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

// ListLibraries is GET /libraries.json.
func (s *Service) ListLibraries(ctx context.Context, req hoursapi.ListLibrariesRequestObject) (hoursapi.ListLibrariesResponseObject, error) {
	rng, explicit, err := parseRange(req.Params.From, req.Params.To)
	if err != nil {
		return nil, err
	}
	from, to := deref(req.Params.From), deref(req.Params.To)
	now := s.cfg.Now()
	return s.read(ctx, "libraries|"+s.rangeKey(from, to), req.Params.IfNoneMatch, func(v *view) (*rendered, error) {
		return newRendered(s.rend.libraries(v, explicit, rng, now, from, to), mediaJSONAPI)
	})
}

// GetLibrary is GET /libraries/{library_id}.json.
func (s *Service) GetLibrary(ctx context.Context, req hoursapi.GetLibraryRequestObject) (hoursapi.GetLibraryResponseObject, error) {
	rng, explicit, err := parseRange(req.Params.From, req.Params.To)
	if err != nil {
		return nil, err
	}
	from, to := deref(req.Params.From), deref(req.Params.To)
	now := s.cfg.Now()
	return s.read(ctx, "library|"+req.LibraryId+"|"+s.rangeKey(from, to), req.Params.IfNoneMatch, func(v *view) (*rendered, error) {
		lib := v.bySlug[req.LibraryId]
		if lib == nil {
			return nil, libraryNotFound(req.LibraryId)
		}
		return newRendered(s.rend.libraryDoc(lib, explicit, rng, now, from, to), mediaJSONAPI)
	})
}

// GetLocation is GET /libraries/{library_id}/locations/{location_id}.json.
func (s *Service) GetLocation(ctx context.Context, req hoursapi.GetLocationRequestObject) (hoursapi.GetLocationResponseObject, error) {
	rng, explicit, err := parseRange(req.Params.From, req.Params.To)
	if err != nil {
		return nil, err
	}
	from, to := deref(req.Params.From), deref(req.Params.To)
	now := s.cfg.Now()
	return s.read(ctx, "location|"+req.LibraryId+"|"+req.LocationId+"|"+s.rangeKey(from, to), req.Params.IfNoneMatch, func(v *view) (*rendered, error) {
		lib := v.bySlug[req.LibraryId]
		if lib == nil {
			return nil, libraryNotFound(req.LibraryId)
		}
		loc := lib.bySlug[req.LocationId]
		if loc == nil {
			return nil, locationNotFound(req.LibraryId, req.LocationId)
		}
		return newRendered(s.rend.locationDoc(loc, explicit, rng, now, from, to), mediaJSONAPI)
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
	key := "legacy|" + req.LibraryId + "|" + req.LocationId + "|" + req.When
	if req.When == "today" {
		key += "|" + s.rangeKey("", "")
	}
	return s.read(ctx, key, req.Params.IfNoneMatch, func(v *view) (*rendered, error) {
		lib := v.bySlug[req.LibraryId]
		if lib == nil {
			return nil, libraryNotFound(req.LibraryId)
		}
		loc := lib.bySlug[req.LocationId]
		if loc == nil {
			return nil, locationNotFound(req.LibraryId, req.LocationId)
		}
		day, err := schedule.ParseWhen(req.When, now, lib.zone)
		if err != nil {
			return nil, err
		}
		rules := loc.hoursRules()
		return newRendered(toLegacyHours(loc, schedule.Compute(day, lib.zone, rules.RuleFor(day))), mediaJSON)
	})
}

// ListTerms is GET /libraries/{library_id}/terms.json.
func (s *Service) ListTerms(ctx context.Context, req hoursapi.ListTermsRequestObject) (hoursapi.ListTermsResponseObject, error) {
	return s.read(ctx, "terms|"+req.LibraryId, req.Params.IfNoneMatch, func(v *view) (*rendered, error) {
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

// ListSchedules is GET /libraries/{library_id}/locations/{location_id}/schedules.json.
func (s *Service) ListSchedules(ctx context.Context, req hoursapi.ListSchedulesRequestObject) (hoursapi.ListSchedulesResponseObject, error) {
	return s.read(ctx, "schedules|"+req.LibraryId+"|"+req.LocationId, req.Params.IfNoneMatch, func(v *view) (*rendered, error) {
		loc, err := locationIn(v, req.LibraryId, req.LocationId)
		if err != nil {
			return nil, err
		}
		doc := hoursapi.SchedulesDocument{Jsonapi: jsonapiDoc, Links: hoursapi.Links{Self: strings.TrimSuffix(s.rend.locationURL(loc.lib.lib.Slug, loc.loc.Slug), ".json") + "/schedules.json"}, Data: []hoursapi.ScheduleResource{}}
		for _, sc := range v.snap.Schedules {
			if sc.LocationID == loc.loc.ID {
				doc.Data = append(doc.Data, toScheduleResource(loc, sc))
			}
		}
		return newRendered(doc, mediaJSONAPI)
	})
}

// ListExceptions is GET /libraries/{library_id}/locations/{location_id}/exceptions.json.
func (s *Service) ListExceptions(ctx context.Context, req hoursapi.ListExceptionsRequestObject) (hoursapi.ListExceptionsResponseObject, error) {
	return s.read(ctx, "exceptions|"+req.LibraryId+"|"+req.LocationId, req.Params.IfNoneMatch, func(v *view) (*rendered, error) {
		loc, err := locationIn(v, req.LibraryId, req.LocationId)
		if err != nil {
			return nil, err
		}
		doc := hoursapi.ExceptionsDocument{Jsonapi: jsonapiDoc, Links: hoursapi.Links{Self: strings.TrimSuffix(s.rend.locationURL(loc.lib.lib.Slug, loc.loc.Slug), ".json") + "/exceptions.json"}, Data: []hoursapi.ExceptionResource{}}
		for _, e := range v.snap.Exceptions {
			if e.LocationID == loc.loc.ID {
				doc.Data = append(doc.Data, toExceptionResource(loc, e))
			}
		}
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
	return s.read(ctx, "term|"+req.LibraryId+"|"+req.TermId, req.Params.IfNoneMatch, func(v *view) (*rendered, error) {
		lib := v.bySlug[req.LibraryId]
		if lib == nil {
			return nil, libraryNotFound(req.LibraryId)
		}
		for _, t := range v.snap.Terms {
			if t.ID == id && t.LibraryID == lib.lib.ID {
				return s.termDoc(lib, t)
			}
		}
		return nil, &apiserve.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("no term %d in library %q", id, req.LibraryId), Parameter: "term_id"}
	})
}

// GetSchedule is GET /libraries/{library_id}/locations/{location_id}/schedules/{schedule_id}.json.
func (s *Service) GetSchedule(ctx context.Context, req hoursapi.GetScheduleRequestObject) (hoursapi.GetScheduleResponseObject, error) {
	id, err := parseID("schedule_id", req.ScheduleId)
	if err != nil {
		return nil, err
	}
	return s.read(ctx, "schedule|"+req.LibraryId+"|"+req.LocationId+"|"+req.ScheduleId, req.Params.IfNoneMatch, func(v *view) (*rendered, error) {
		loc, err := locationIn(v, req.LibraryId, req.LocationId)
		if err != nil {
			return nil, err
		}
		for _, sc := range v.snap.Schedules {
			if sc.ID == id && sc.LocationID == loc.loc.ID {
				return s.scheduleDoc(loc, sc)
			}
		}
		return nil, &apiserve.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("no schedule %d at location %q of library %q", id, req.LocationId, req.LibraryId), Parameter: "schedule_id"}
	})
}

// GetException is GET /libraries/{library_id}/locations/{location_id}/exceptions/{exception_id}.json.
func (s *Service) GetException(ctx context.Context, req hoursapi.GetExceptionRequestObject) (hoursapi.GetExceptionResponseObject, error) {
	id, err := parseID("exception_id", req.ExceptionId)
	if err != nil {
		return nil, err
	}
	return s.read(ctx, "exception|"+req.LibraryId+"|"+req.LocationId+"|"+req.ExceptionId, req.Params.IfNoneMatch, func(v *view) (*rendered, error) {
		loc, err := locationIn(v, req.LibraryId, req.LocationId)
		if err != nil {
			return nil, err
		}
		for _, e := range v.snap.Exceptions {
			if e.ID == id && e.LocationID == loc.loc.ID {
				return s.exceptionDoc(loc, e)
			}
		}
		return nil, &apiserve.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("no exception %d at location %q of library %q", id, req.LocationId, req.LibraryId), Parameter: "exception_id"}
	})
}
