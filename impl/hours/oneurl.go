package hours

// One URL per resource (issue 15.1): every library, location, term,
// schedule and exception is read, updated and deleted both at its
// links.self (the `.json` URL) and at the URL without `.json`. The
// operations *Bare and *Json of api/hours.yaml are the same operations as
// their counterparts; these handlers hand over to them.

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
)

func (rr readResponse) VisitGetLibraryBareResponse(w http.ResponseWriter) error   { return rr.visit(w) }
func (rr readResponse) VisitGetLocationBareResponse(w http.ResponseWriter) error  { return rr.visit(w) }
func (rr readResponse) VisitGetTermBareResponse(w http.ResponseWriter) error      { return rr.visit(w) }
func (rr readResponse) VisitGetScheduleBareResponse(w http.ResponseWriter) error  { return rr.visit(w) }
func (rr readResponse) VisitGetExceptionBareResponse(w http.ResponseWriter) error { return rr.visit(w) }
func (rr readResponse) VisitListLibrariesBareResponse(w http.ResponseWriter) error {
	return rr.visit(w)
}
func (rr readResponse) VisitListTermsBareResponse(w http.ResponseWriter) error { return rr.visit(w) }
func (rr readResponse) VisitListSchedulesBareResponse(w http.ResponseWriter) error {
	return rr.visit(w)
}
func (rr readResponse) VisitListExceptionsBareResponse(w http.ResponseWriter) error {
	return rr.visit(w)
}

func (wr writeResponse) VisitUpdateLibraryJsonResponse(w http.ResponseWriter) error {
	return wr.visit(w)
}
func (wr writeResponse) VisitDeleteLibraryJsonResponse(w http.ResponseWriter) error {
	return wr.visit(w)
}
func (wr writeResponse) VisitUpdateLocationJsonResponse(w http.ResponseWriter) error {
	return wr.visit(w)
}
func (wr writeResponse) VisitDeleteLocationJsonResponse(w http.ResponseWriter) error {
	return wr.visit(w)
}
func (wr writeResponse) VisitUpdateTermJsonResponse(w http.ResponseWriter) error { return wr.visit(w) }
func (wr writeResponse) VisitDeleteTermJsonResponse(w http.ResponseWriter) error { return wr.visit(w) }
func (wr writeResponse) VisitUpdateScheduleJsonResponse(w http.ResponseWriter) error {
	return wr.visit(w)
}
func (wr writeResponse) VisitDeleteScheduleJsonResponse(w http.ResponseWriter) error {
	return wr.visit(w)
}
func (wr writeResponse) VisitUpdateExceptionJsonResponse(w http.ResponseWriter) error {
	return wr.visit(w)
}
func (wr writeResponse) VisitDeleteExceptionJsonResponse(w http.ResponseWriter) error {
	return wr.visit(w)
}

// handOver runs a handler and returns its response as the other
// operation's (both are readResponse or writeResponse, which implement
// every operation's Visit method).
func handOver[R any](resp any, err error) (R, error) {
	var zero R
	if err != nil {
		return zero, err
	}
	out, ok := resp.(R)
	if !ok {
		return zero, errUnexpectedResponse
	}
	return out, nil
}

var errUnexpectedResponse = echo.NewHTTPError(http.StatusInternalServerError, "hours: a handler answered with an unexpected response type")

// GetLibraryBare is GET /libraries/{library_id}; a browser is given the
// page (negotiated in negotiatePage before routing).
func (s *Service) GetLibraryBare(ctx context.Context, req hoursapi.GetLibraryBareRequestObject) (hoursapi.GetLibraryBareResponseObject, error) {
	r, err := s.GetLibrary(ctx, hoursapi.GetLibraryRequestObject{LibraryId: req.LibraryId, Params: hoursapi.GetLibraryParams(req.Params)})
	return handOver[hoursapi.GetLibraryBareResponseObject](r, err)
}

func (s *Service) GetLocationBare(ctx context.Context, req hoursapi.GetLocationBareRequestObject) (hoursapi.GetLocationBareResponseObject, error) {
	r, err := s.GetLocation(ctx, hoursapi.GetLocationRequestObject{LibraryId: req.LibraryId, LocationId: req.LocationId, Params: hoursapi.GetLocationParams(req.Params)})
	return handOver[hoursapi.GetLocationBareResponseObject](r, err)
}

func (s *Service) GetTermBare(ctx context.Context, req hoursapi.GetTermBareRequestObject) (hoursapi.GetTermBareResponseObject, error) {
	r, err := s.GetTerm(ctx, hoursapi.GetTermRequestObject{LibraryId: req.LibraryId, TermId: req.TermId, Params: hoursapi.GetTermParams(req.Params)})
	return handOver[hoursapi.GetTermBareResponseObject](r, err)
}

func (s *Service) GetScheduleBare(ctx context.Context, req hoursapi.GetScheduleBareRequestObject) (hoursapi.GetScheduleBareResponseObject, error) {
	r, err := s.GetSchedule(ctx, hoursapi.GetScheduleRequestObject{LibraryId: req.LibraryId, LocationId: req.LocationId, ScheduleId: req.ScheduleId, Params: hoursapi.GetScheduleParams(req.Params)})
	return handOver[hoursapi.GetScheduleBareResponseObject](r, err)
}

func (s *Service) GetExceptionBare(ctx context.Context, req hoursapi.GetExceptionBareRequestObject) (hoursapi.GetExceptionBareResponseObject, error) {
	r, err := s.GetException(ctx, hoursapi.GetExceptionRequestObject{LibraryId: req.LibraryId, LocationId: req.LocationId, ExceptionId: req.ExceptionId, Params: hoursapi.GetExceptionParams(req.Params)})
	return handOver[hoursapi.GetExceptionBareResponseObject](r, err)
}

// ListLibrariesBare is GET /libraries: the collection of /libraries.json
// at the URL that clients building one URL per collection read (issue
// 19.5: devour's findAll, kitsu's get). Its links.self stays the .json URL.
func (s *Service) ListLibrariesBare(ctx context.Context, req hoursapi.ListLibrariesBareRequestObject) (hoursapi.ListLibrariesBareResponseObject, error) {
	r, err := s.ListLibraries(ctx, hoursapi.ListLibrariesRequestObject{Params: hoursapi.ListLibrariesParams(req.Params)})
	return handOver[hoursapi.ListLibrariesBareResponseObject](r, err)
}

func (s *Service) ListTermsBare(ctx context.Context, req hoursapi.ListTermsBareRequestObject) (hoursapi.ListTermsBareResponseObject, error) {
	r, err := s.ListTerms(ctx, hoursapi.ListTermsRequestObject{LibraryId: req.LibraryId, Params: hoursapi.ListTermsParams(req.Params)})
	return handOver[hoursapi.ListTermsBareResponseObject](r, err)
}

func (s *Service) ListSchedulesBare(ctx context.Context, req hoursapi.ListSchedulesBareRequestObject) (hoursapi.ListSchedulesBareResponseObject, error) {
	r, err := s.ListSchedules(ctx, hoursapi.ListSchedulesRequestObject{LibraryId: req.LibraryId, LocationId: req.LocationId, Params: hoursapi.ListSchedulesParams(req.Params)})
	return handOver[hoursapi.ListSchedulesBareResponseObject](r, err)
}

func (s *Service) ListExceptionsBare(ctx context.Context, req hoursapi.ListExceptionsBareRequestObject) (hoursapi.ListExceptionsBareResponseObject, error) {
	r, err := s.ListExceptions(ctx, hoursapi.ListExceptionsRequestObject{LibraryId: req.LibraryId, LocationId: req.LocationId, Params: hoursapi.ListExceptionsParams(req.Params)})
	return handOver[hoursapi.ListExceptionsBareResponseObject](r, err)
}

func (s *Service) UpdateLibraryJson(ctx context.Context, req hoursapi.UpdateLibraryJsonRequestObject) (hoursapi.UpdateLibraryJsonResponseObject, error) {
	r, err := s.UpdateLibrary(ctx, hoursapi.UpdateLibraryRequestObject(req))
	return handOver[hoursapi.UpdateLibraryJsonResponseObject](r, err)
}

func (s *Service) DeleteLibraryJson(ctx context.Context, req hoursapi.DeleteLibraryJsonRequestObject) (hoursapi.DeleteLibraryJsonResponseObject, error) {
	r, err := s.DeleteLibrary(ctx, hoursapi.DeleteLibraryRequestObject(req))
	return handOver[hoursapi.DeleteLibraryJsonResponseObject](r, err)
}

func (s *Service) UpdateLocationJson(ctx context.Context, req hoursapi.UpdateLocationJsonRequestObject) (hoursapi.UpdateLocationJsonResponseObject, error) {
	r, err := s.UpdateLocation(ctx, hoursapi.UpdateLocationRequestObject(req))
	return handOver[hoursapi.UpdateLocationJsonResponseObject](r, err)
}

func (s *Service) DeleteLocationJson(ctx context.Context, req hoursapi.DeleteLocationJsonRequestObject) (hoursapi.DeleteLocationJsonResponseObject, error) {
	r, err := s.DeleteLocation(ctx, hoursapi.DeleteLocationRequestObject(req))
	return handOver[hoursapi.DeleteLocationJsonResponseObject](r, err)
}

func (s *Service) UpdateTermJson(ctx context.Context, req hoursapi.UpdateTermJsonRequestObject) (hoursapi.UpdateTermJsonResponseObject, error) {
	r, err := s.UpdateTerm(ctx, hoursapi.UpdateTermRequestObject(req))
	return handOver[hoursapi.UpdateTermJsonResponseObject](r, err)
}

func (s *Service) DeleteTermJson(ctx context.Context, req hoursapi.DeleteTermJsonRequestObject) (hoursapi.DeleteTermJsonResponseObject, error) {
	r, err := s.DeleteTerm(ctx, hoursapi.DeleteTermRequestObject(req))
	return handOver[hoursapi.DeleteTermJsonResponseObject](r, err)
}

func (s *Service) UpdateScheduleJson(ctx context.Context, req hoursapi.UpdateScheduleJsonRequestObject) (hoursapi.UpdateScheduleJsonResponseObject, error) {
	r, err := s.UpdateSchedule(ctx, hoursapi.UpdateScheduleRequestObject(req))
	return handOver[hoursapi.UpdateScheduleJsonResponseObject](r, err)
}

func (s *Service) DeleteScheduleJson(ctx context.Context, req hoursapi.DeleteScheduleJsonRequestObject) (hoursapi.DeleteScheduleJsonResponseObject, error) {
	r, err := s.DeleteSchedule(ctx, hoursapi.DeleteScheduleRequestObject(req))
	return handOver[hoursapi.DeleteScheduleJsonResponseObject](r, err)
}

func (s *Service) UpdateExceptionJson(ctx context.Context, req hoursapi.UpdateExceptionJsonRequestObject) (hoursapi.UpdateExceptionJsonResponseObject, error) {
	r, err := s.UpdateException(ctx, hoursapi.UpdateExceptionRequestObject(req))
	return handOver[hoursapi.UpdateExceptionJsonResponseObject](r, err)
}

func (s *Service) DeleteExceptionJson(ctx context.Context, req hoursapi.DeleteExceptionJsonRequestObject) (hoursapi.DeleteExceptionJsonResponseObject, error) {
	r, err := s.DeleteException(ctx, hoursapi.DeleteExceptionRequestObject(req))
	return handOver[hoursapi.DeleteExceptionJsonResponseObject](r, err)
}

// negotiatePage is the echo pre-middleware giving a browser the HTML page
// at a library's bare URL: a GET of /libraries/{library_id} whose Accept
// prefers text/html to every JSON type is served as
// /libraries/{library_id}.html, and one of the bare collection /libraries
// as the overview /. Every answer at those URLs says Vary: Accept.
func negotiatePage(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Method == http.MethodGet && req.URL.Path == "/libraries" {
			c.Response().Header().Add("Vary", "Accept")
			if prefersHTML(req.Header.Values("Accept")) {
				req.URL.Path, req.URL.RawPath = "/", ""
			}
			return next(c)
		}
		rest, ok := strings.CutPrefix(req.URL.Path, "/libraries/")
		if req.Method != http.MethodGet || !ok || rest == "" || strings.ContainsAny(rest, "/.") {
			return next(c)
		}
		c.Response().Header().Add("Vary", "Accept")
		if prefersHTML(req.Header.Values("Accept")) {
			req.URL.Path += ".html"
			req.URL.RawPath = ""
		}
		return next(c)
	}
}

// prefersHTML reports whether Accept rates text/html above every JSON
// media type (a browser's Accept names text/html first and JSON only
// through */*).
func prefersHTML(accept []string) bool {
	html := apiserve.AcceptQuality(accept, "text/html", "application/xhtml+xml")
	return html > 0 && html > apiserve.AcceptQuality(accept, mediaJSONAPI, mediaJSON)
}
