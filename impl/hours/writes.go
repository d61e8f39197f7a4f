package hours

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/hours/schedule"
	"github.com/sitelib/sitesvc/impl/hours/store"
)

// writeResponse is the answer to a write: a document (200, 201 with
// Location) or 204.
type writeResponse struct {
	status   int
	location string
	r        *rendered
}

func (wr writeResponse) WriteResponse(w http.ResponseWriter, _ *http.Request) error {
	if wr.location != "" {
		w.Header().Set("Location", wr.location)
	}
	if wr.r == nil {
		w.WriteHeader(wr.status)
		return nil
	}
	return wr.r.write(w, wr.status)
}

var deleted = writeResponse{status: http.StatusNoContent}

// authorize checks the caller may write to the library at librarySlug
// (adminOnly: only admins may). It returns the token's name for the audit
// log. An editor's role names a library by slug; a former slug still
// names the same library.
func (s *Service) authorize(ctx context.Context, librarySlug string, adminOnly bool) (string, error) {
	p, err := auth.PrincipalFrom(ctx) // the edge's (apiserve.Bearer)
	if err != nil {
		return "", &apiserve.Error{Status: http.StatusUnauthorized, Message: "this operation needs a bearer token"}
	}
	return s.permits(ctx, p, librarySlug, adminOnly)
}

// permits is authorize's check of the principal p.
func (s *Service) permits(ctx context.Context, p auth.Principal, librarySlug string, adminOnly bool) (string, error) {
	if p.IsAdmin() {
		return p.Name, nil
	}
	if adminOnly {
		return "", &apiserve.Error{Status: http.StatusForbidden, Message: fmt.Sprintf("token %q is not an admin token", p.Name)}
	}
	if p.CanEditLibrary(librarySlug) {
		return p.Name, nil
	}
	v, err := s.cache.current(ctx)
	if err != nil {
		return "", err
	}
	if target := v.bySlug[librarySlug]; target != nil {
		for _, role := range p.Roles {
			if slug, ok := strings.CutPrefix(role, auth.RoleEditorPrefix); ok && v.bySlug[slug] == target {
				return p.Name, nil
			}
		}
	}
	return "", &apiserve.Error{Status: http.StatusForbidden, Message: fmt.Sprintf("token %q may not change library %q (it needs role admin or editor:%s)", p.Name, librarySlug, librarySlug)}
}

// storeError maps the repository's errors to responses.
func storeError(err error) error {
	var fe *store.FieldError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		pointer := "/data/attributes/" + fe.Field
		if strings.HasPrefix(fe.Field, "relationships/") {
			pointer = "/data/" + fe.Field
		}
		return &apiserve.Error{Status: http.StatusUnprocessableEntity, Message: fe.Error(), Pointer: pointer, Err: err}
	case errors.Is(err, store.ErrNotFound):
		return &apiserve.Error{Status: http.StatusNotFound, Message: strings.TrimPrefix(err.Error(), store.ErrNotFound.Error()+": "), Err: err}
	case errors.Is(err, store.ErrConflict):
		return &apiserve.Error{Status: http.StatusConflict, Message: strings.TrimPrefix(err.Error(), store.ErrConflict.Error()+": "), Err: err}
	}
	return err
}

// checkID applies JSON:API's rules on a request document's id: none on
// create (this server makes ids: 403), the resource's own on update (409).
func checkID(id *string, want string) error {
	if id == nil {
		return nil
	}
	if want == "" {
		return &apiserve.Error{Status: http.StatusForbidden, Message: "client-generated ids are not supported; leave data.id out", Pointer: "/data/id"}
	}
	if *id != want {
		return &apiserve.Error{Status: http.StatusConflict, Message: fmt.Sprintf("data.id %q is not the id of the resource at this URL (%q)", *id, want), Pointer: "/data/id"}
	}
	return nil
}

func parseID(param, s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, &apiserve.Error{Status: http.StatusBadRequest, Message: fmt.Sprintf("path parameter %q: %q is not an id", param, s), Parameter: param}
	}
	return id, nil
}

// fresh drops the cache after a write and returns the new view.
func (s *Service) fresh(ctx context.Context) (*view, error) {
	s.cache.invalidate()
	return s.cache.current(ctx)
}

// answer is the document of what a write just stored, which find looks up
// in the fresh view (nil: it is gone); a 201 names the document's URL in
// Location.
func (s *Service) answer(ctx context.Context, status int, what string, id int64, find func(v *view) (doc *rendered, url string, err error)) (writeResponse, error) {
	v, err := s.fresh(ctx)
	if err != nil {
		return writeResponse{}, err
	}
	r, url, err := find(v)
	switch {
	case err != nil:
		return writeResponse{}, err
	case r == nil:
		return writeResponse{}, fmt.Errorf("hours: %s %d vanished after the write", what, id)
	}
	wr := writeResponse{status: status, r: r}
	if status == http.StatusCreated {
		wr.location = url
	}
	return wr, nil
}

func (s *Service) libraryAnswer(ctx context.Context, status int, libraryID int64) (writeResponse, error) {
	return s.answer(ctx, status, "library", libraryID, func(v *view) (*rendered, string, error) {
		lib := v.byID[libraryID]
		if lib == nil {
			return nil, "", nil
		}
		r, err := newRendered(s.rend.libraryDoc(lib, false, schedule.Range{}, s.cfg.Now(), "", ""), mediaJSONAPI)
		return r, s.rend.libraryURL(lib.lib.Slug), err
	})
}

func (s *Service) locationAnswer(ctx context.Context, status int, locationID int64) (writeResponse, error) {
	return s.answer(ctx, status, "location", locationID, func(v *view) (*rendered, string, error) {
		loc := v.locationByID(locationID)
		if loc == nil {
			return nil, "", nil
		}
		r, err := newRendered(s.rend.locationDoc(loc, false, schedule.Range{}, s.cfg.Now(), "", ""), mediaJSONAPI)
		return r, s.rend.locationURL(loc.lib.lib.Slug, loc.loc.Slug), err
	})
}

// writeOp is one write's per-operation parts. do runs the steps every
// write shares, in the order the tests pin: authorize (401/403), parse the
// path's numeric id (400), check the request document's data.id (403/409),
// run (request checks, then the store: 422/404/409), then answer with the
// stored resource's document, or 204 for a delete.
type writeOp struct {
	library   string // the library slug the caller must be allowed to edit
	adminOnly bool
	idParam   string // the path parameter holding a numeric id; "" when there is none
	idText    string
	dataID    *string // the request document's data.id; nil for a delete
	wantID    string  // what data.id must be: "" on create
	status    int     // 201, 200, or 204 for a delete
	// run validates what the store cannot and writes; it gets the caller's
	// name and the parsed path id and returns the id of the resource written.
	run func(who string, id int64) (int64, error)
	// answer builds the document of the resource just written (not for 204).
	answer func(ctx context.Context, status int, id int64) (writeResponse, error)
}

func (s *Service) do(ctx context.Context, op writeOp) (*hoursapi.Respond, error) {
	who, err := s.authorize(ctx, op.library, op.adminOnly)
	if err != nil {
		return nil, err
	}
	var id int64
	if op.idParam != "" {
		if id, err = parseID(op.idParam, op.idText); err != nil {
			return nil, err
		}
	}
	if err := checkID(op.dataID, op.wantID); err != nil {
		return nil, err
	}
	if id, err = op.run(who, id); err != nil {
		return nil, storeError(err)
	}
	if op.status == http.StatusNoContent {
		s.cache.invalidate()
		return &hoursapi.Respond{Representation: deleted}, nil
	}
	wr, err := op.answer(ctx, op.status, id)
	if err != nil {
		return nil, err
	}
	return &hoursapi.Respond{Representation: wr}, nil
}

// CreateLibrary is POST /libraries.
func (s *Service) CreateLibrary(ctx context.Context, req hoursapi.CreateLibraryRequestObject) (hoursapi.CreateLibraryResponseObject, error) {
	d := req.Body.Data
	return s.do(ctx, writeOp{adminOnly: true, dataID: d.Id, status: http.StatusCreated, answer: s.libraryAnswer,
		run: func(who string, _ int64) (int64, error) {
			return s.store.CreateLibrary(ctx, who, libraryInput(d.Attributes))
		}})
}

// UpdateLibrary is PATCH /libraries/{library_id}.
func (s *Service) UpdateLibrary(ctx context.Context, req hoursapi.UpdateLibraryRequestObject) (hoursapi.UpdateLibraryResponseObject, error) {
	d := req.Body.Data
	return s.do(ctx, writeOp{library: req.LibraryId, dataID: d.Id, wantID: req.LibraryId, status: http.StatusOK, answer: s.libraryAnswer,
		run: func(who string, _ int64) (int64, error) {
			return s.store.UpdateLibrary(ctx, who, req.LibraryId, libraryInput(d.Attributes))
		}})
}

// DeleteLibrary is DELETE /libraries/{library_id}.
func (s *Service) DeleteLibrary(ctx context.Context, req hoursapi.DeleteLibraryRequestObject) (hoursapi.DeleteLibraryResponseObject, error) {
	return s.do(ctx, writeOp{library: req.LibraryId, adminOnly: true, status: http.StatusNoContent,
		run: func(who string, _ int64) (int64, error) {
			return 0, s.store.DeleteLibrary(ctx, who, req.LibraryId)
		}})
}

// CreateLocation is POST /libraries/{library_id}/locations.
func (s *Service) CreateLocation(ctx context.Context, req hoursapi.CreateLocationRequestObject) (hoursapi.CreateLocationResponseObject, error) {
	d := req.Body.Data
	return s.do(ctx, writeOp{library: req.LibraryId, dataID: d.Id, status: http.StatusCreated, answer: s.locationAnswer,
		run: func(who string, _ int64) (int64, error) {
			return s.store.CreateLocation(ctx, who, req.LibraryId, locationInput(d.Attributes))
		}})
}

// UpdateLocation is PATCH /libraries/{library_id}/locations/{location_id}.
func (s *Service) UpdateLocation(ctx context.Context, req hoursapi.UpdateLocationRequestObject) (hoursapi.UpdateLocationResponseObject, error) {
	d := req.Body.Data
	return s.do(ctx, writeOp{library: req.LibraryId, dataID: d.Id, wantID: req.LibraryId + "/" + req.LocationId, status: http.StatusOK, answer: s.locationAnswer,
		run: func(who string, _ int64) (int64, error) {
			return s.store.UpdateLocation(ctx, who, req.LibraryId, req.LocationId, locationInput(d.Attributes))
		}})
}

// DeleteLocation is DELETE /libraries/{library_id}/locations/{location_id}.
func (s *Service) DeleteLocation(ctx context.Context, req hoursapi.DeleteLocationRequestObject) (hoursapi.DeleteLocationResponseObject, error) {
	return s.do(ctx, writeOp{library: req.LibraryId, status: http.StatusNoContent,
		run: func(who string, _ int64) (int64, error) {
			return 0, s.store.DeleteLocation(ctx, who, req.LibraryId, req.LocationId)
		}})
}

// CreateTerm is POST /libraries/{library_id}/terms.
func (s *Service) CreateTerm(ctx context.Context, req hoursapi.CreateTermRequestObject) (hoursapi.CreateTermResponseObject, error) {
	d := req.Body.Data
	return s.do(ctx, writeOp{library: req.LibraryId, dataID: d.Id, status: http.StatusCreated, answer: s.termAnswer,
		run: func(who string, _ int64) (int64, error) {
			return s.store.CreateTerm(ctx, who, req.LibraryId, termInput(d.Attributes))
		}})
}

// UpdateTerm is PATCH /libraries/{library_id}/terms/{term_id}.
func (s *Service) UpdateTerm(ctx context.Context, req hoursapi.UpdateTermRequestObject) (hoursapi.UpdateTermResponseObject, error) {
	d := req.Body.Data
	return s.do(ctx, writeOp{library: req.LibraryId, idParam: "term_id", idText: req.TermId, dataID: d.Id, wantID: req.TermId, status: http.StatusOK, answer: s.termAnswer,
		run: func(who string, id int64) (int64, error) {
			return id, s.store.UpdateTerm(ctx, who, req.LibraryId, id, termInput(d.Attributes))
		}})
}

// DeleteTerm is DELETE /libraries/{library_id}/terms/{term_id}.
func (s *Service) DeleteTerm(ctx context.Context, req hoursapi.DeleteTermRequestObject) (hoursapi.DeleteTermResponseObject, error) {
	return s.do(ctx, writeOp{library: req.LibraryId, idParam: "term_id", idText: req.TermId, status: http.StatusNoContent,
		run: func(who string, id int64) (int64, error) {
			return id, s.store.DeleteTerm(ctx, who, req.LibraryId, id)
		}})
}

// CreateSchedule is POST /libraries/{library_id}/locations/{location_id}/schedules.
func (s *Service) CreateSchedule(ctx context.Context, req hoursapi.CreateScheduleRequestObject) (hoursapi.CreateScheduleResponseObject, error) {
	d := req.Body.Data
	return s.do(ctx, writeOp{library: req.LibraryId, dataID: d.Id, status: http.StatusCreated, answer: s.scheduleAnswer,
		run: func(who string, _ int64) (int64, error) {
			if d.Relationships == nil {
				return 0, &apiserve.Error{Status: http.StatusUnprocessableEntity, Message: "a schedule needs relationships.term (the term it applies to)", Pointer: "/data/relationships"}
			}
			termID, err := strconv.ParseInt(d.Relationships.Term.Data.Id, 10, 64)
			if err != nil {
				return 0, &apiserve.Error{Status: http.StatusUnprocessableEntity, Message: "term id is not a number", Pointer: "/data/relationships/term/data/id"}
			}
			days, err := dayInputs(d.Attributes.Days)
			if err != nil {
				return 0, err
			}
			return s.store.CreateSchedule(ctx, who, req.LibraryId, req.LocationId, termID, days)
		}})
}

// UpdateSchedule is PATCH /libraries/{library_id}/locations/{location_id}/schedules/{schedule_id}.
func (s *Service) UpdateSchedule(ctx context.Context, req hoursapi.UpdateScheduleRequestObject) (hoursapi.UpdateScheduleResponseObject, error) {
	d := req.Body.Data
	return s.do(ctx, writeOp{library: req.LibraryId, idParam: "schedule_id", idText: req.ScheduleId, dataID: d.Id, wantID: req.ScheduleId, status: http.StatusOK, answer: s.scheduleAnswer,
		run: func(who string, id int64) (int64, error) {
			days, err := dayInputs(d.Attributes.Days)
			if err != nil {
				return 0, err
			}
			return id, s.store.UpdateSchedule(ctx, who, req.LibraryId, req.LocationId, id, days)
		}})
}

// DeleteSchedule is DELETE /libraries/{library_id}/locations/{location_id}/schedules/{schedule_id}.
func (s *Service) DeleteSchedule(ctx context.Context, req hoursapi.DeleteScheduleRequestObject) (hoursapi.DeleteScheduleResponseObject, error) {
	return s.do(ctx, writeOp{library: req.LibraryId, idParam: "schedule_id", idText: req.ScheduleId, status: http.StatusNoContent,
		run: func(who string, id int64) (int64, error) {
			return id, s.store.DeleteSchedule(ctx, who, req.LibraryId, req.LocationId, id)
		}})
}

// CreateException is POST /libraries/{library_id}/locations/{location_id}/exceptions.
func (s *Service) CreateException(ctx context.Context, req hoursapi.CreateExceptionRequestObject) (hoursapi.CreateExceptionResponseObject, error) {
	d := req.Body.Data
	return s.do(ctx, writeOp{library: req.LibraryId, dataID: d.Id, status: http.StatusCreated, answer: s.exceptionAnswer,
		run: func(who string, _ int64) (int64, error) {
			return s.store.CreateException(ctx, who, req.LibraryId, req.LocationId, exceptionInput(d.Attributes))
		}})
}

// UpdateException is PATCH /libraries/{library_id}/locations/{location_id}/exceptions/{exception_id}.
func (s *Service) UpdateException(ctx context.Context, req hoursapi.UpdateExceptionRequestObject) (hoursapi.UpdateExceptionResponseObject, error) {
	d := req.Body.Data
	return s.do(ctx, writeOp{library: req.LibraryId, idParam: "exception_id", idText: req.ExceptionId, dataID: d.Id, wantID: req.ExceptionId, status: http.StatusOK, answer: s.exceptionAnswer,
		run: func(who string, id int64) (int64, error) {
			return id, s.store.UpdateException(ctx, who, req.LibraryId, req.LocationId, id, exceptionInput(d.Attributes))
		}})
}

// DeleteException is DELETE /libraries/{library_id}/locations/{location_id}/exceptions/{exception_id}.
func (s *Service) DeleteException(ctx context.Context, req hoursapi.DeleteExceptionRequestObject) (hoursapi.DeleteExceptionResponseObject, error) {
	return s.do(ctx, writeOp{library: req.LibraryId, idParam: "exception_id", idText: req.ExceptionId, status: http.StatusNoContent,
		run: func(who string, id int64) (int64, error) {
			return id, s.store.DeleteException(ctx, who, req.LibraryId, req.LocationId, id)
		}})
}

func libraryInput(a hoursapi.LibraryWriteAttributes) store.LibraryInput {
	return store.LibraryInput{Name: a.Name, Slug: a.Slug, TimeZone: a.Timezone,
		Descriptive: store.Descriptive{AboutURL: a.AboutUrl, Public: a.Public, Note: a.Note}}
}

func locationInput(a hoursapi.LocationWriteAttributes) store.LocationInput {
	return store.LocationInput{Name: a.Name, Slug: a.Slug, Primary: a.Primary, KeepsHours: a.KeepsHours,
		Descriptive: store.Descriptive{AboutURL: a.AboutUrl, Public: a.Public, Note: a.Note}}
}

func (s *Service) termAnswer(ctx context.Context, status int, termID int64) (writeResponse, error) {
	return s.answer(ctx, status, "term", termID, func(v *view) (*rendered, string, error) {
		for _, t := range v.snap.Terms {
			if t.ID == termID {
				lib := v.byID[t.LibraryID]
				r, err := s.termDoc(lib, t)
				return r, s.termURL(lib, t.ID), err
			}
		}
		return nil, "", nil
	})
}

// A schedule and an exception are both items of a location, told apart
// only by type: ids gives an item's own id and its location's.
func scheduleIDs(sc store.Schedule) (id, locationID int64)  { return sc.ID, sc.LocationID }
func exceptionIDs(e store.Exception) (id, locationID int64) { return e.ID, e.LocationID }

// termIDs is a term's own id and its library's.
func termIDs(t store.Term) (id, libraryID int64) { return t.ID, t.LibraryID }

// locationItemAnswer is scheduleAnswer and exceptionAnswer: the document
// of the location item id (kind: its URL segment, "schedules").
func locationItemAnswer[T any](s *Service, ctx context.Context, status int, kind string, id int64, items func(*view) []T, ids func(T) (int64, int64), doc func(*locationView, T) (*rendered, error)) (writeResponse, error) {
	return s.answer(ctx, status, strings.TrimSuffix(kind, "s"), id, func(v *view) (*rendered, string, error) {
		for _, it := range items(v) {
			itemID, locationID := ids(it)
			if itemID != id {
				continue
			}
			loc := v.locationByID(locationID)
			if loc == nil {
				break
			}
			r, err := doc(loc, it)
			return r, s.locationItemURL(loc, kind, id), err
		}
		return nil, "", nil
	})
}

func (s *Service) scheduleAnswer(ctx context.Context, status int, id int64) (writeResponse, error) {
	return locationItemAnswer(s, ctx, status, "schedules", id, func(v *view) []store.Schedule { return v.snap.Schedules }, scheduleIDs, s.scheduleDoc)
}

func (s *Service) exceptionAnswer(ctx context.Context, status int, id int64) (writeResponse, error) {
	return locationItemAnswer(s, ctx, status, "exceptions", id, func(v *view) []store.Exception { return v.snap.Exceptions }, exceptionIDs, s.exceptionDoc)
}

func (s *Service) termURL(lib *libraryView, id int64) string {
	return s.cfg.BaseURL + "/libraries/" + lib.lib.Slug + "/terms/" + idString(id) + ".json"
}

// locationListURL is the URL of a location's schedules or exceptions
// (kind), locationItemURL that of one of them.
func (s *Service) locationListURL(loc *locationView, kind string) string {
	return strings.TrimSuffix(s.rend.locationURL(loc.lib.lib.Slug, loc.loc.Slug), ".json") + "/" + kind + ".json"
}

func (s *Service) locationItemURL(loc *locationView, kind string, id int64) string {
	return strings.TrimSuffix(s.locationListURL(loc, kind), ".json") + "/" + idString(id) + ".json"
}

// termDoc, scheduleDoc and exceptionDoc are one resource's document;
// links.self is where it is read (the Location of a create).
func (s *Service) termDoc(lib *libraryView, t store.Term) (*rendered, error) {
	return newRendered(hoursapi.TermDocument{Jsonapi: jsonapiDoc, Links: &hoursapi.Links{Self: s.termURL(lib, t.ID)}, Data: toTermResource(lib, t)}, mediaJSONAPI)
}

func (s *Service) scheduleDoc(loc *locationView, sc store.Schedule) (*rendered, error) {
	return newRendered(hoursapi.ScheduleDocument{Jsonapi: jsonapiDoc, Links: &hoursapi.Links{Self: s.locationItemURL(loc, "schedules", sc.ID)}, Data: toScheduleResource(loc, sc)}, mediaJSONAPI)
}

func (s *Service) exceptionDoc(loc *locationView, e store.Exception) (*rendered, error) {
	return newRendered(hoursapi.ExceptionDocument{Jsonapi: jsonapiDoc, Links: &hoursapi.Links{Self: s.locationItemURL(loc, "exceptions", e.ID)}, Data: toExceptionResource(loc, e)}, mediaJSONAPI)
}

func termInput(a hoursapi.TermAttributes) store.TermInput {
	return store.TermInput{Name: a.Name, First: a.FirstDay, Last: a.LastDay}
}

func (v *view) locationByID(id int64) *locationView {
	for _, lib := range v.libraries {
		for _, loc := range lib.locations {
			if loc.loc.ID == id {
				return loc
			}
		}
	}
	return nil
}

var weekdays = map[hoursapi.Weekday]time.Weekday{
	hoursapi.Sunday: time.Sunday, hoursapi.Monday: time.Monday, hoursapi.Tuesday: time.Tuesday, hoursapi.Wednesday: time.Wednesday,
	hoursapi.Thursday: time.Thursday, hoursapi.Friday: time.Friday, hoursapi.Saturday: time.Saturday,
}

func dayInputs(days []hoursapi.ScheduleDay) ([]store.DayInput, error) {
	out := make([]store.DayInput, len(days))
	for i, d := range days {
		wd, ok := weekdays[d.Weekday]
		if !ok {
			return nil, &apiserve.Error{Status: http.StatusUnprocessableEntity, Message: fmt.Sprintf("%q is not a weekday", d.Weekday), Pointer: fmt.Sprintf("/data/attributes/days/%d/weekday", i)}
		}
		out[i] = store.DayInput{Weekday: wd, Closed: d.Closed != nil && *d.Closed, Open24: d.Open24h != nil && *d.Open24h}
		if d.Periods != nil {
			out[i].Periods = *d.Periods
		}
	}
	return out, nil
}

func exceptionInput(a hoursapi.ExceptionAttributes) store.ExceptionInput {
	in := store.ExceptionInput{Day: a.Day, Closed: a.Closed, Open24: a.Open24h, Notes: a.Notes}
	if a.Periods != nil {
		in.Periods = *a.Periods
		if in.Periods == nil {
			in.Periods = []string{}
		}
	}
	if a.HoursType != nil {
		t := string(*a.HoursType)
		in.Type = &t
	}
	return in
}
