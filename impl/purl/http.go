package purl

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/purl/record"
)

// The service's HTTP side is apiserve's echo instance (request validation
// against api/purl.yaml, openapi.yaml/openapi.json) with three pieces of
// PURL's own:
//
//   - route, an echo Pre middleware, parses the path into one of the
//     contract's shapes. A path that is none of them is 404 and a method
//     the shape does not have is 405, both before validation, so that the
//     validator never answers for paths the service does not have.
//     OPTIONS (CORS preflight) is answered here, HEAD is validated and
//     handled as the GET it mirrors, and PUT bodies are bounded.
//   - the generated routes, registered through apiserve.Routes: echo's
//     router alone cannot tell "/{id}", "/{id}.html", "/{id}.xml" and
//     "/{id}.mods" apart (a parameter runs to the next "/").
//   - renderError writes every refusal, the validator's and the handlers',
//     as one line of plain text (an HTML page for a browser's 404).
//
// The druid pattern is deliberately not declared on the path parameter
// (see the contract's description): a bad druid passes validation and the
// handler answers 404, as it does for an unknown or dark object.

// route is what a request path names.
type route struct {
	kind string // "page", "html", "xml", "mods", "manifest", "file", "zip", "slash"
	id   string // the identifier segment, unescaped, not yet parsed
	file string // file name for kind "file", unescaped
}

var allowed = map[string]string{
	"page":     "GET, HEAD, DELETE, OPTIONS",
	"html":     "GET, HEAD, OPTIONS",
	"xml":      "GET, HEAD, PUT, OPTIONS",
	"mods":     "GET, HEAD, PUT, OPTIONS",
	"manifest": "GET, HEAD, OPTIONS",
	"slash":    "GET, HEAD, OPTIONS",
	"file":     "GET, HEAD, OPTIONS",
	"zip":      "GET, HEAD, OPTIONS",
}

var extensions = map[string]string{".html": "html", ".xml": "xml", ".mods": "mods", ".zip": "zip"}

// parseRoute splits the escaped path into segments before unescaping
// them, so an encoded slash stays inside its segment (and then fails the
// druid or file-name check) instead of adding a path level.
func parseRoute(escapedPath string) (route, bool) {
	segs := strings.Split(strings.TrimPrefix(escapedPath, "/"), "/")
	for i, seg := range segs {
		u, err := url.PathUnescape(seg)
		if err != nil {
			return route{}, false
		}
		segs[i] = u
	}
	if segs[0] == "" {
		return route{}, false
	}
	switch {
	case len(segs) == 1:
		seg := segs[0]
		dot := strings.LastIndexByte(seg, '.')
		if dot < 0 {
			return route{kind: "page", id: seg}, true
		}
		kind, ok := extensions[seg[dot:]]
		if !ok || dot == 0 {
			return route{}, false
		}
		return route{kind: kind, id: seg[:dot]}, true
	case len(segs) == 2 && segs[1] == "":
		return route{kind: "slash", id: segs[0]}, true
	case len(segs) == 3 && (segs[1] == "iiif" || segs[1] == "iiif3") && segs[2] == "manifest":
		return route{kind: "manifest", id: segs[0]}, true
	case len(segs) == 3 && segs[1] == "file" && segs[2] != "":
		return route{kind: "file", id: segs[0], file: segs[2]}, true
	}
	return route{}, false
}

func isContract(path string) bool { return apiserve.Published(path) }

// exchange is what the handlers know of a request beyond the parameters
// the generated code hands them: the request as received (a HEAD stays a
// HEAD for http.ServeContent, Accept picks the error format, RemoteAddr
// and Authorization decide file access), its route, and the principal the
// validator authenticated for a write.
type exchange struct {
	req       *http.Request
	route     route
	principal *auth.Principal
}

type exchangeKey struct{}

func exchangeFrom(ctx context.Context) *exchange {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	if ex == nil {
		// Only reachable when a handler is called without the route
		// middleware (a programming error); answer as for an anonymous GET.
		return &exchange{req: &http.Request{Method: http.MethodGet, Header: http.Header{}, URL: &url.URL{Path: "/"}}}
	}
	return ex
}

// newEcho builds the service's echo instance.
func (s *Service) newEcho() (*echo.Echo, error) {
	spec, err := purlapi.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("purl: loading the OpenAPI document: %w", err)
	}
	e, err := apiserve.New(apiserve.Options{
		Spec:    spec,
		BaseURL: s.cfg.BaseURL,
		Errors:  s.renderError,
		Auth:    s.authenticate,
		Logger:  s.cfg.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("purl: %w", err)
	}
	e.Pre(s.route)
	e.Pre(s.authorizeFirst)
	purlapi.RegisterHandlers(apiserve.Routes(e), purlapi.NewStrictHandler(s, nil))
	return e, nil
}

// route is the Pre middleware described at the top of this file.
func (s *Service) route(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if isContract(req.URL.Path) {
			switch req.Method {
			case http.MethodGet:
			case http.MethodHead:
				// Served as the GET; net/http drops the body.
				get := req.WithContext(req.Context())
				get.Method = http.MethodGet
				c.SetRequest(get)
				return next(c)
			default:
				return &apiserve.Error{Status: http.StatusMethodNotAllowed, Message: fmt.Sprintf("method not allowed: %s %s (allowed: GET, HEAD)", req.Method, req.URL.Path)}
			}
			return next(c)
		}
		rt, ok := parseRoute(req.URL.EscapedPath())
		if !ok {
			return &apiserve.Error{Status: http.StatusNotFound, Message: fmt.Sprintf("not found: %s is not a PURL of this service", req.URL.Path)}
		}
		allow := allowed[rt.kind]
		if !methodIn(allow, req.Method) {
			return &apiserve.Error{Status: http.StatusMethodNotAllowed, Message: fmt.Sprintf("method not allowed: %s (allowed: %s)", req.Method, allow)}
		}
		h := c.Response().Header()
		if req.Method == http.MethodOptions {
			h.Set("Allow", allow)
			if rt.kind != "page" && rt.kind != "html" {
				// Cross-origin reads only: the publishing answers carry no
				// CORS headers, so a preflight must not promise PUT.
				setCORS(h)
				h.Set("Access-Control-Allow-Methods", "GET, HEAD")
				h.Set("Access-Control-Allow-Headers", "Authorization, If-None-Match, If-Modified-Since, Range")
				h.Set("Access-Control-Max-Age", "86400")
			}
			return c.NoContent(http.StatusNoContent)
		}
		if req.Method == http.MethodPut {
			if req.ContentLength > record.MaxDocumentBytes {
				return &apiserve.Error{Status: http.StatusRequestEntityTooLarge, Message: tooLarge}
			}
			if req.Body != nil {
				req.Body = http.MaxBytesReader(c.Response().Writer, req.Body, record.MaxDocumentBytes)
			}
			// text/xml is application/xml (RFC 7303); the contract names
			// only the latter, so that is what the validator is shown.
			if mt, params, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err == nil && mt == "text/xml" {
				req.Header.Set("Content-Type", mime.FormatMediaType("application/xml", params))
			}
		}
		ex := &exchange{req: req, route: rt}
		r := req.WithContext(context.WithValue(req.Context(), exchangeKey{}, ex))
		if r.Method == http.MethodHead {
			r.Method = http.MethodGet
		}
		c.SetRequest(r)
		return next(c)
	}
}

var tooLarge = fmt.Sprintf("too large: documents are at most %d bytes", record.MaxDocumentBytes)

func methodIn(allow, method string) bool {
	for _, m := range strings.Split(allow, ", ") {
		if m == method {
			return true
		}
	}
	return false
}

// authenticate is the validator's check of bearerAuth, which the contract
// requires (alone) of the publishing operations: a known token with the
// role publisher (or admin). The principal goes to the handler through
// the request's exchange.
func (s *Service) authenticate(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	req := in.RequestValidationInput.Request
	token, ok := auth.BearerToken(req)
	if !ok {
		return &echo.HTTPError{Code: http.StatusUnauthorized, Message: "unauthorized: publishing needs a bearer token with the role publisher (sitesvc tokens add --role publisher)"}
	}
	if s.cfg.Tokens == nil {
		return &echo.HTTPError{Code: http.StatusUnauthorized, Message: "unauthorized: this service accepts no tokens"}
	}
	p, ok := s.cfg.Tokens.Authenticate(token)
	if !ok {
		return &echo.HTTPError{Code: http.StatusUnauthorized, Message: "unauthorized: unknown bearer token"}
	}
	if !p.CanPublish() {
		return &echo.HTTPError{Code: http.StatusForbidden, Message: fmt.Sprintf("forbidden: the token of %q has no role publisher or admin", p.Name)}
	}
	if ex, ok := req.Context().Value(exchangeKey{}).(*exchange); ok {
		ex.principal = &p
	}
	return nil
}

// renderError writes a refusal of the validator, the route middleware or
// echo. The validator's generic statuses are made precise where the
// contract says so: a body in another media type is 415, an oversized one
// 413.
func (s *Service) renderError(c echo.Context, e *apiserve.Error) error {
	status, msg := e.Status, e.Message
	var tooBig *http.MaxBytesError
	var reqErr *openapi3filter.RequestError
	switch {
	case errors.As(e.Err, &tooBig):
		status, msg = http.StatusRequestEntityTooLarge, tooLarge
	case errors.As(e.Err, &reqErr) && reqErr.RequestBody != nil && strings.HasPrefix(reqErr.Reason, "header Content-Type has unexpected value"):
		status = http.StatusUnsupportedMediaType
		msg = fmt.Sprintf("unsupported media type: send the document as application/xml, not %q", c.Request().Header.Get("Content-Type"))
	case errors.As(e.Err, &reqErr) && reqErr.RequestBody != nil && errors.Is(reqErr.Err, openapi3filter.ErrInvalidRequired):
		msg = "bad request: the request has no body; send the XML document"
	}
	req := c.Request()
	if ex, ok := req.Context().Value(exchangeKey{}).(*exchange); ok {
		req = ex.req
	}
	if status == http.StatusMethodNotAllowed {
		if rt, ok := parseRoute(req.URL.EscapedPath()); ok {
			c.Response().Header().Set("Allow", allowed[rt.kind])
		} else if isContract(req.URL.Path) {
			c.Response().Header().Set("Allow", "GET, HEAD")
		}
	}
	return writeFailure(c.Response(), req, s.cfg.BaseURL, status, withReason(status, msg))
}

// withReason prefixes msg with the status's short reason ("not found: …"),
// the form of every PURL error, unless it already carries it.
func withReason(status int, msg string) string {
	reason, ok := reasons[status]
	if !ok {
		reason = strings.ToLower(http.StatusText(status))
	}
	switch {
	case strings.HasPrefix(msg, reason+":"):
		return msg
	case msg == "" || strings.EqualFold(msg, reason) || strings.EqualFold(msg, http.StatusText(status)):
		return reason
	}
	return reason + ": " + msg
}

var reasons = map[int]string{
	http.StatusBadRequest:            "bad request",
	http.StatusUnauthorized:          "unauthorized",
	http.StatusForbidden:             "forbidden",
	http.StatusNotFound:              "not found",
	http.StatusMethodNotAllowed:      "method not allowed",
	http.StatusConflict:              "conflict",
	http.StatusRequestEntityTooLarge: "too large",
	http.StatusUnsupportedMediaType:  "unsupported media type",
	http.StatusUnprocessableEntity:   "unprocessable",
	http.StatusInternalServerError:   "internal error",
}
