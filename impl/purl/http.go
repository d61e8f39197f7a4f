package purl

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/purl/record"
)

// The service's HTTP side is apiserve's echo instance (request validation
// against api/purl.yaml, openapi.yaml/openapi.json; from the document and
// PURL's policy: 404 and 405 with Allow before validation, OPTIONS and
// CORS preflights, HEAD as the GET it mirrors, CORS headers, the PUT body
// limit) with these pieces of PURL's own:
//
//   - policy, the per-operation decisions the document does not make.
//   - the generated routes, registered through apiserve.Routes: echo's
//     router alone cannot tell "/{id}", "/{id}.html", "/{id}.xml" and
//     "/{id}.mods" apart (a parameter runs to the next "/").
//   - renderError writes every refusal, the validator's and the handlers',
//     as one line of plain text (an HTML page for a browser's 404).
//
// The druid pattern is deliberately not declared on the path parameter
// (see the contract's description): a bad druid passes validation and the
// handler answers 404, as it does for an unknown or dark object.

// exchange is what the handlers know of a request beyond the parameters
// the generated code hands them: the request as received (a HEAD stays a
// HEAD for http.ServeContent, Accept picks the error format, RemoteAddr
// decides location access). Who sent it is in its context
// (auth.PrincipalFrom), where the edge put it.
//
// The exchange is itself the handler's context (the request's, with the
// exchange as one more value) and holds the content a read answers with:
// one allocation per request where the value, its context and the answer
// took three.
type exchange struct {
	context.Context
	req *http.Request
	// answer is the content a read answers with (served).
	answer content
}

type exchangeKey struct{}

// Value implements context.Context: the exchange under exchangeKey, the
// request context's values otherwise.
func (ex *exchange) Value(key any) any {
	if key == (exchangeKey{}) {
		return ex
	}
	return ex.Context.Value(key)
}

func exchangeFrom(ctx context.Context) *exchange {
	ex, _ := ctx.Value(exchangeKey{}).(*exchange)
	if ex == nil {
		// Only reachable when a handler is called without the exchange
		// middleware (a programming error); answer as for an anonymous GET.
		return &exchange{Context: ctx, req: &http.Request{Method: http.MethodGet, Header: http.Header{}, URL: &url.URL{Path: "/"}}}
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
		Auth:    s.bearer().Authenticate,
		Logger:  s.cfg.Logger,
		Policy:  s.policy(),
		Pre:     []echo.MiddlewareFunc{withExchange},
	})
	if err != nil {
		return nil, fmt.Errorf("purl: %w", err)
	}
	purlapi.RegisterDirectHandlers(apiserve.Routes(e), s)
	return e, nil
}

// policy is PURL's part of the edge apiserve answers from api/purl.yaml:
// records, manifests, files and zips are readable from any origin, the
// HTML pages are not (they are for people, and carry no data a script
// needs); a write (PUT, DELETE) is authorised by the bearer check before
// its body is read; published documents are at most
// record.MaxDocumentBytes.
func (s *Service) policy() *apiserve.Policy {
	bearer := s.bearer()
	return &apiserve.Policy{
		CrossOrigin: func(op string) bool {
			return op != "getObject" && op != "getObjectHtml" && op != ""
		},
		ExposeHeaders:    "ETag, Last-Modified, Content-Range, Accept-Ranges, Content-Disposition, Content-Length",
		PreflightHeaders: "Authorization, If-None-Match, If-Modified-Since, Range",
		BodyLimit:        record.MaxDocumentBytes,
		Bearer:           &bearer,
		NotFound: func(path string) string {
			return fmt.Sprintf("not found: %s is not a PURL of this service", path)
		},
	}
}

// withExchange hands the handlers the request as received (after
// apiserve's edge, which routes a HEAD as its GET).
func withExchange(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		received := apiserve.Received(req.Context())
		if received == nil {
			received = req
		}
		c.SetRequest(req.WithContext(&exchange{Context: req.Context(), req: received}))
		return next(c)
	}
}

var tooLarge = fmt.Sprintf("too large: documents are at most %d bytes", record.MaxDocumentBytes)

// bearer is the edge's check of bearerAuth, which the contract requires
// (alone) of the publishing operations: a known token with the role
// publisher (or admin); a browser session does not publish. Reads are
// identified by an IIIF access token, a token or the signed-in session
// (Reads), for the rights of restricted files (access.go). Either way the
// principal reaches the handlers in the request's context.
func (s *Service) bearer() apiserve.Bearer {
	reads := &apiserve.Readers{Sessions: s.cfg.Sessions}
	if s.cfg.AccessTokens != nil {
		reads.AccessTokens = s.cfg.AccessTokens.Principal
	}
	return apiserve.Bearer{
		Tokens:   s.cfg.Tokens,
		Missing:  "unauthorized: publishing needs a bearer token with the role publisher (sitesvc tokens add --role publisher)",
		NoTokens: "unauthorized: this service accepts no tokens",
		Unknown:  "unauthorized: unknown bearer token",
		Permit: func(p auth.Principal) string {
			if !p.CanPublish() {
				return fmt.Sprintf("forbidden: the token of %q has no role publisher or admin", p.Name)
			}
			return ""
		},
		Reads: reads,
	}
}

// renderError writes a refusal of the validator, the route middleware or
// echo. The validator's generic statuses are made precise where the
// contract says so: a body in another media type is 415, an oversized one
// 413.
func (s *Service) renderError(c echo.Context, e *apiserve.Error) error {
	status, msg := e.Status, e.Message
	switch e.Kind {
	case apiserve.KindBodyTooLarge:
		status, msg = http.StatusRequestEntityTooLarge, tooLarge
	case apiserve.KindUnsupportedMediaType:
		status = http.StatusUnsupportedMediaType
		msg = fmt.Sprintf("unsupported media type: send the document as application/xml, not %q", c.Request().Header.Get("Content-Type"))
	case apiserve.KindMissingBody:
		msg = "bad request: the request has no body; send the XML document"
	}
	req := c.Request()
	if ex, ok := req.Context().Value(exchangeKey{}).(*exchange); ok {
		req = ex.req
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
