package apiserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/impl/auth"
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
//   - authorisation before work: an operation the document secures is
//     refused 401/403 by Bearer (and Scope) before anything reads its
//     body (the validator's own security check comes after kin-openapi
//     has read the whole body);
//   - request bodies over the operation's limit (BodyLimits, else
//     BodyLimit): 413, before anything reads them; the body of an
//     operation without a request document (a DELETE some JSON:API
//     clients send the resource with) is drained within IgnoredBodyLimit
//     and ignored, more is 413; text/xml sent to an operation that
//     declares application/xml is shown to the validator as
//     application/xml (RFC 7303 makes them one).
//
// The writes at a resource's links.self (operationId ending in "Json")
// have their counterpart's rules: Scope and BodyLimits see the
// operationId without the suffix.
//
// Conditional GET (ETag, Last-Modified, 304, 412, Range) is answered by
// Content for prepared representations and by http.ServeContent for
// streamed files, the same code for every service.
type Policy struct {
	// CrossOrigin reports whether the answers of the operation (its
	// operationId as the contract spells it; "" for the published
	// documents) may be read by any origin. Nil: none.
	CrossOrigin func(operationID string) bool
	// ExposeHeaders is Access-Control-Expose-Headers of those answers.
	ExposeHeaders string
	// PreflightHeaders lists request headers a preflight allows beyond
	// the ones the edge derives itself (Authorization, Accept, ...).
	// Access-Control-Allow-Headers of a preflight is this list, then the
	// header parameters the contract declares for the path's GET, then
	// RFC 9110's conditional request fields (conditionalFields): every
	// read is answered through Content or ServeContent, which evaluate
	// them.
	PreflightHeaders string
	// BodyLimit bounds request bodies in bytes; 0 leaves them to the
	// server's own limit.
	BodyLimit int64
	// BodyLimits bounds the request bodies of the operations it names
	// (operationIds as the contract spells them), in place of BodyLimit:
	// the largest valid document.
	BodyLimits map[string]int64
	// Bearer, when set, authorises every operation the document secures
	// at the edge, before its body is read, by bearer token or browser
	// session (Bearer.Sessions, with its CSRF token on writes); the
	// principal, whichever the credential, goes on in the
	// request's context (auth.PrincipalFrom), where Bearer.Authenticate,
	// the validator's check, and the handlers find it; Bearer.Reads
	// identifies reads the same way.
	Bearer *Bearer
	// Scope, when set, may refuse an authorised principal the operation
	// (its operationId as the contract spells it) on the request's path (an *Error, 403): rules
	// beyond the token's role, such as the library in the path.
	Scope func(req *http.Request, operationID string, p auth.Principal) error
	// NotFound is the message of a 404 for a path the document lacks
	// (path relative to the base URL). Nil: "not found".
	NotFound func(path string) string
}

// IgnoredBodyLimit bounds the body of a request whose operation takes no
// document, read and ignored: JSON:API clients send the resource with a
// DELETE (kitsu does), and an endless body is 413 rather than a delete.
const IgnoredBodyLimit = 16 << 10

// contractName is operationID as the contract in api/ spells it: the
// document oapi-codegen embeds (GetSpec) has each operationId's first
// letter upper-cased ("getObject" is "GetObject" there), and policies name
// operations as the contract does.
func contractName(operationID string) string {
	if operationID == "" || operationID[0] < 'A' || operationID[0] > 'Z' {
		return operationID
	}
	return string(operationID[0]+('a'-'A')) + operationID[1:]
}

// sameAsKey is the contract's annotation of an operation that is another
// one at a second URL (a resource's links.self with or without ".json"),
// which cmd/respondgen forwards to its counterpart.
const sameAsKey = "x-sitesvc-same-as"

// rulesOf is the operationId whose policy (Scope, BodyLimits) applies to
// op, as the contract spells it: an operation the contract marks
// x-sitesvc-same-as another has that one's.
func rulesOf(op *openapi3.Operation) string {
	if same, ok := op.Extensions[sameAsKey].(string); ok && same != "" {
		return same
	}
	return contractName(op.OperationID)
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
	// readable is Policy.CrossOrigin of every operation of the document
	// (by operationId as the embedded document spells it), of the
	// published documents ("") and of paths without an operation
	// (noOperation): decided once, not on every answer.
	readable map[string]bool
	// allowHeaders is Access-Control-Allow-Headers of a preflight of each
	// operation's path (by the GET's operationId; "" for the published
	// documents), decided once from the policy and the contract.
	allowHeaders map[string]string
}

// conditionalFields are RFC 9110's conditional request fields (§13.1),
// which Content and ServeContent evaluate for every read (304, 412), so a
// page of another origin may send them with a GET.
var conditionalFields = []string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since"}

// forbiddenRequestHeader reports whether a script can never set the
// header (Fetch's forbidden request-header names a contract may declare):
// a preflight need not allow it.
func forbiddenRequestHeader(name string) bool {
	switch http.CanonicalHeaderKey(name) {
	case "Accept-Encoding", "Accept-Charset", "Connection", "Content-Length", "Cookie", "Date", "Host", "Origin", "Referer", "Te", "Trailer", "Transfer-Encoding", "Upgrade", "Via", "Keep-Alive":
		return true
	}
	return false
}

// preflightHeaders is Access-Control-Allow-Headers for a GET of op (nil:
// the published documents): the policy's list, op's declared header
// parameters, then the conditional fields, each named once.
func preflightHeaders(p Policy, op *openapi3.Operation, item *openapi3.PathItem) string {
	var names []string
	seen := map[string]bool{}
	add := func(name string) {
		name = strings.TrimSpace(name)
		key := http.CanonicalHeaderKey(name)
		if name == "" || seen[key] || forbiddenRequestHeader(key) {
			return
		}
		seen[key] = true
		names = append(names, name)
	}
	for _, name := range strings.Split(p.PreflightHeaders, ",") {
		add(name)
	}
	var params openapi3.Parameters
	if item != nil {
		params = append(params, item.Parameters...)
	}
	if op != nil {
		params = append(params, op.Parameters...)
	}
	for _, ref := range params {
		if ref.Value != nil && ref.Value.In == openapi3.ParameterInHeader {
			add(ref.Value.Name)
		}
	}
	for _, name := range conditionalFields {
		add(name)
	}
	return strings.Join(names, ", ")
}

func newEdge(p Policy, c *Contract) *edge {
	ed := &edge{policy: p, contract: c, expose: []string{p.ExposeHeaders}, readable: map[string]bool{},
		allowHeaders: map[string]string{"": preflightHeaders(p, nil, nil)}}
	for _, op := range []string{"", noOperation} {
		ed.readable[op] = ed.askCrossOrigin(op)
	}
	if c.spec.Paths != nil {
		for _, item := range c.spec.Paths.Map() {
			for _, op := range item.Operations() {
				ed.readable[op.OperationID] = ed.askCrossOrigin(op.OperationID)
			}
			if item.Get != nil {
				ed.allowHeaders[item.Get.OperationID] = preflightHeaders(p, item.Get, item)
			}
		}
	}
	return ed
}

func (ed *edge) notFound(path string) *Error {
	msg := "not found"
	if ed.policy.NotFound != nil {
		msg = ed.policy.NotFound(path)
	}
	return &Error{Status: http.StatusNotFound, Kind: KindNoRoute, Message: msg}
}

// crossOrigin reports whether the answers of the operation are readable
// from any origin.
func (ed *edge) crossOrigin(operationID string) bool {
	if readable, ok := ed.readable[operationID]; ok {
		return readable
	}
	return ed.askCrossOrigin(operationID)
}

// askCrossOrigin asks the policy.
func (ed *edge) askCrossOrigin(operationID string) bool {
	return ed.policy.CrossOrigin != nil && ed.policy.CrossOrigin(contractName(operationID))
}

func (ed *edge) pre(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		received := req
		path := req.URL.Path
		switch req.Method {
		case http.MethodGet, http.MethodHead:
			// The common case: routing and validation answer 404 and 405.
			if b := ed.policy.Bearer; b != nil {
				if r, ok := b.Identify(req); ok { // bearer.go
					req, received = r, r
					c.SetRequest(req)
				}
			}
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
			if ed.policy.Bearer != nil && ed.contract.secured(op) {
				p, err := ed.authorize(req, op)
				if err != nil {
					return err
				}
				req = req.WithContext(auth.WithPrincipal(req.Context(), p))
				c.SetRequest(req)
			}
			if op.RequestBody == nil {
				return ed.ignoreBody(c, req, op, next)
			}
			if err := ed.bound(c, req, op); err != nil {
				return err
			}
			xmlAlias(req, op.RequestBody.Value)
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
	readable, allowHeaders := false, ""
	switch {
	case Published(req.URL.Path):
		allow, readable, allowHeaders = "GET, HEAD, OPTIONS", ed.crossOrigin(""), ed.allowHeaders[""]
	case allow == "":
		return ed.notFound(req.URL.Path)
	default:
		get := req.WithContext(req.Context())
		get.Method = http.MethodGet
		if op, ok := ed.contract.Operation(get); ok {
			readable, allowHeaders = ed.crossOrigin(op.OperationID), ed.allowHeaders[op.OperationID]
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
		if allowHeaders != "" {
			h.Set("Access-Control-Allow-Headers", allowHeaders)
		}
		h.Set("Access-Control-Max-Age", preflightMaxAge)
	}
	return c.NoContent(http.StatusNoContent)
}

// authorize runs the policy's Bearer and Scope for op.
func (ed *edge) authorize(req *http.Request, op *openapi3.Operation) (auth.Principal, error) {
	p, refused := ed.policy.Bearer.principal(req)
	if refused != nil {
		return auth.Principal{}, refused
	}
	if ed.policy.Scope != nil {
		if err := ed.policy.Scope(req, rulesOf(op), p); err != nil {
			return auth.Principal{}, err
		}
	}
	return p, nil
}

// bodyLimit is the body limit of op (0: the server's).
func (ed *edge) bodyLimit(op *openapi3.Operation) int64 {
	if limit, ok := ed.policy.BodyLimits[rulesOf(op)]; ok {
		return limit
	}
	return ed.policy.BodyLimit
}

// bound refuses a declared body over op's limit and caps the rest (a
// chunked body is cut at the limit: the reader's error is 413).
func (ed *edge) bound(c echo.Context, req *http.Request, op *openapi3.Operation) error {
	limit := ed.bodyLimit(op)
	if limit <= 0 {
		return nil
	}
	if req.ContentLength > limit {
		return tooLarge(limit, op, "")
	}
	if req.Body != nil {
		req.Body = http.MaxBytesReader(c.Response().Writer, req.Body, limit)
	}
	return nil
}

// ignoreBody drains the body of an operation that takes no document
// within IgnoredBodyLimit (413 beyond), then goes on without it.
func (ed *edge) ignoreBody(c echo.Context, req *http.Request, op *openapi3.Operation, next echo.HandlerFunc) error {
	if req.Body == nil || req.Body == http.NoBody {
		return next(c)
	}
	const why = ", which takes no document"
	if req.ContentLength > IgnoredBodyLimit {
		return tooLarge(IgnoredBodyLimit, op, why)
	}
	if _, err := io.Copy(io.Discard, http.MaxBytesReader(c.Response().Writer, req.Body, IgnoredBodyLimit)); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return tooLarge(IgnoredBodyLimit, op, why)
		}
		return &Error{Status: http.StatusBadRequest, Message: "reading the request body: " + err.Error(), Err: err}
	}
	req.Body.Close()
	req.Body = http.NoBody
	req.ContentLength = 0
	return next(c)
}

// tooLarge is the 413 of a body over limit (Err is the MaxBytesError a
// service's renderer may look for).
func tooLarge(limit int64, op *openapi3.Operation, why string) *Error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Kind: KindBodyTooLarge, Message: fmt.Sprintf("request body too large (limit %d bytes for %s%s)", limit, contractName(op.OperationID), why), Err: &http.MaxBytesError{Limit: limit}}
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
