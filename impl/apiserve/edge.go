package apiserve

import (
	"context"
	"fmt"
	"mime"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

// Policy is what a service decides about the HTTP around its operations
// that the OpenAPI document does not say: which answers other origins may
// read, and how large a request body may be. With a Policy, New answers
// for the service, from the document (through its Contract):
//
//   - HEAD of every GET, as that GET without the body: the request is
//     routed and validated as the GET (on a copy; Received gives the
//     request as received, and net/http drops the body);
//   - OPTIONS of every path the document has: 204 with Allow (the
//     declared methods, HEAD after GET, then OPTIONS), and a CORS preflight
//     answer when the path's GET is readable cross-origin; a path the
//     document lacks is 404;
//   - a method the path does not have: 405 with Allow, before validation
//     (so a write to a read-only path is not refused as a bad request);
//     a path the document lacks is 404 with NotFound's message;
//   - the CORS headers of the answers of the cross-origin operations;
//   - request bodies over BodyLimit: 413, before anything reads them;
//     text/xml sent to an operation that declares application/xml is
//     shown to the validator as application/xml (RFC 7303 makes them one).
//
// Conditional GET (ETag, Last-Modified, 304, 412, Range) is answered by
// Content for prepared representations and by http.ServeContent for
// streamed files, the same code for every service.
type Policy struct {
	// CrossOrigin reports whether the answers of the operation (its
	// operationId; "" for the published documents) may be read by any
	// origin. Nil: none.
	CrossOrigin func(operationID string) bool
	// ExposeHeaders is Access-Control-Expose-Headers of those answers.
	ExposeHeaders string
	// PreflightHeaders is Access-Control-Allow-Headers of a preflight.
	PreflightHeaders string
	// BodyLimit bounds request bodies in bytes; 0 leaves them to the
	// server's own limit.
	BodyLimit int64
	// NotFound is the message of a 404 for a path the document lacks
	// (path relative to the base URL). Nil: "not found".
	NotFound func(path string) string
}

type receivedKey struct{}

// Received is the HEAD request as the client sent it, for handlers that
// answer by method themselves (http.ServeContent); nil for any other
// request (which handlers see as sent).
func Received(ctx context.Context) *http.Request {
	r, _ := ctx.Value(receivedKey{}).(*http.Request)
	return r
}

// Header values shared by every answer that sends them (replaced, never
// edited in place).
var (
	anyOrigin       = []string{"*"}
	preflightMethod = "GET, HEAD"
	preflightMaxAge = "86400"
)

// edge is the Pre middleware of a Policy (see Policy).
type edge struct {
	policy   Policy
	contract *Contract
	expose   []string
}

func newEdge(p Policy, c *Contract) *edge {
	return &edge{policy: p, contract: c, expose: []string{p.ExposeHeaders}}
}

func (ed *edge) notFound(path string) *Error {
	msg := "not found"
	if ed.policy.NotFound != nil {
		msg = ed.policy.NotFound(path)
	}
	return &Error{Status: http.StatusNotFound, Message: msg}
}

func (ed *edge) crossOrigin(operationID string) bool {
	return ed.policy.CrossOrigin != nil && ed.policy.CrossOrigin(operationID)
}

func (ed *edge) pre(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		received := req
		path := req.URL.Path
		switch req.Method {
		case http.MethodGet, http.MethodHead:
			// The common case: routing and validation answer 404 and 405.
		case http.MethodOptions:
			return ed.options(c)
		default:
			if Published(path) {
				break // echo's 405, with Allow: GET, HEAD
			}
			op, ok := ed.contract.Operation(req)
			if !ok {
				allow := ed.contract.Allow(req)
				if allow == "" {
					return ed.notFound(path)
				}
				c.Response().Header().Set("Allow", allow)
				return &Error{Status: http.StatusMethodNotAllowed, Message: fmt.Sprintf("method not allowed: %s %s (allowed: %s)", req.Method, path, allow)}
			}
			if op.RequestBody != nil {
				if err := ed.bound(c, req); err != nil {
					return err
				}
				xmlAlias(req, op.RequestBody.Value)
			}
		}
		if req.Method != http.MethodHead {
			// Received falls back to the request itself: a GET or a
			// write goes on as it came, without a copy.
			return next(c)
		}
		r := req.WithContext(context.WithValue(req.Context(), receivedKey{}, received))
		r.Method = http.MethodGet
		c.SetRequest(r)
		return next(c)
	}
}

// options answers OPTIONS from the document.
func (ed *edge) options(c echo.Context) error {
	req := c.Request()
	allow := ed.contract.Allow(req)
	readable := false
	switch {
	case Published(req.URL.Path):
		allow, readable = "GET, HEAD, OPTIONS", ed.crossOrigin("")
	case allow == "":
		return ed.notFound(req.URL.Path)
	default:
		get := req.WithContext(req.Context())
		get.Method = http.MethodGet
		if op, ok := ed.contract.Operation(get); ok {
			readable = ed.crossOrigin(op.OperationID)
		}
	}
	h := c.Response().Header()
	h.Set("Allow", allow)
	// A preflight (Fetch: Origin and Access-Control-Request-Method) of a
	// readable path may read; writes carry a token and come from staff
	// tools, so a preflight never promises them.
	if readable && req.Header.Get("Origin") != "" && req.Header.Get("Access-Control-Request-Method") != "" {
		h["Access-Control-Allow-Origin"] = anyOrigin
		h.Set("Access-Control-Allow-Methods", preflightMethod)
		if ed.policy.PreflightHeaders != "" {
			h.Set("Access-Control-Allow-Headers", ed.policy.PreflightHeaders)
		}
		h.Set("Access-Control-Max-Age", preflightMaxAge)
	}
	return c.NoContent(http.StatusNoContent)
}

// bound refuses a declared body over the limit and caps the rest (a
// chunked body is cut at the limit: the reader's error is 413).
func (ed *edge) bound(c echo.Context, req *http.Request) error {
	limit := ed.policy.BodyLimit
	if limit <= 0 {
		return nil
	}
	if req.ContentLength > limit {
		return &Error{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("too large: request bodies are at most %d bytes", limit), Err: &http.MaxBytesError{Limit: limit}}
	}
	if req.Body != nil {
		req.Body = http.MaxBytesReader(c.Response().Writer, req.Body, limit)
	}
	return nil
}

// setCORS marks the answer of a cross-origin operation as readable by any
// origin; called before the handler, so errors carry it too.
func (ed *edge) setCORS(c echo.Context, operationID string) {
	if !ed.crossOrigin(operationID) {
		return
	}
	h := c.Response().Header()
	h["Access-Control-Allow-Origin"] = anyOrigin
	if ed.policy.ExposeHeaders != "" {
		h["Access-Control-Expose-Headers"] = ed.expose
	}
}

// operationID is the operation of a GET the memo did not know.
func (ed *edge) operationID(r *http.Request) string {
	if Published(r.URL.Path) {
		return ""
	}
	if op, ok := ed.contract.Operation(r); ok {
		return op.OperationID
	}
	return noOperation
}

// xmlAlias shows a text/xml body as application/xml when the operation
// declares only the latter.
func xmlAlias(req *http.Request, body *openapi3.RequestBody) {
	if body == nil || body.Content.Get("application/xml") == nil || body.Content.Get("text/xml") != nil {
		return
	}
	if mt, params, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err == nil && mt == "text/xml" {
		req.Header.Set("Content-Type", mime.FormatMediaType("application/xml", params))
	}
}
