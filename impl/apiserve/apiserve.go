// Package apiserve builds the echo instance of an OpenAPI service: every
// request is validated against the service's document before a handler runs,
// validation failures are rendered in the error shape the document declares,
// and the document itself is published as openapi.yaml and openapi.json,
// with browsable documentation of it at docs (impl/apidocs).
package apiserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/labstack/echo/v4"
	echomiddleware "github.com/oapi-codegen/echo-middleware"
	"github.com/oasdiff/yaml"

	"github.com/sitelib/sitesvc/impl/apidocs"
)

// Error is a request the service refuses, in a form each service renders in
// its own error shape (JSON:API errors, JSON, plain text).
type Error struct {
	// Status is the HTTP status code.
	Status int
	// Message says what is wrong, for a person.
	Message string
	// Parameter names the query or path parameter at fault, when known.
	Parameter string
	// Pointer is a JSON pointer into the request body, when known.
	Pointer string
	// Kind says what kind of refusal this is, so that a service chooses
	// its answer by kind and never by the wording of a library's message
	// (which an upgrade may change silently).
	Kind Kind
	// Allowed lists the values the contract allows where Kind is
	// KindNotAllowedValue, as the contract writes them.
	Allowed []string
	// Err is the underlying error, for logs.
	Err error
}

// Kind classifies a refused request; apiserve decides it once, from the
// validator's typed errors and the contract, for every service.
type Kind int

const (
	// KindOther is every refusal without a kind of its own.
	KindOther Kind = iota
	// KindBodyTooLarge: the request body is over its limit (413).
	KindBodyTooLarge
	// KindUnsupportedMediaType: the request body's Content-Type is not
	// one the operation's contract declares.
	KindUnsupportedMediaType
	// KindMissingBody: the operation requires a body and none was sent.
	KindMissingBody
	// KindNotAllowedValue: a value is not one of the contract's
	// enumerated values (Error.Allowed lists them; Error.Pointer or
	// Error.Parameter says where).
	KindNotAllowedValue
	// KindNoRoute: no operation of the contract matches the path.
	KindNoRoute
)

func (e *Error) Error() string { return e.Message }

// ErrorRenderer writes err as the response.
type ErrorRenderer func(c echo.Context, err *Error) error

// Options configure New.
type Options struct {
	// Spec is the service's OpenAPI document (the generated GetSpec()).
	Spec *openapi3.T
	// BaseURL is the service's public base URL, published as the only
	// server of the served document.
	BaseURL string
	// Errors renders refused requests. Nil renders plain text.
	Errors ErrorRenderer
	// Auth checks the document's security requirements. Nil accepts any
	// credentials (the handlers then check them).
	Auth openapi3filter.AuthenticationFunc
	// Skip reports whether a request bypasses validation (static assets
	// the document does not describe). Nil validates every request.
	Skip func(c echo.Context) bool
	// Logger receives handler errors. Nil discards them.
	Logger *slog.Logger
	// Contract is the service's NewContract(Spec), when the service asks
	// it questions too; nil makes one.
	Contract *Contract
	// Policy, when set, makes New answer HEAD, OPTIONS, 404, 405 with
	// Allow, CORS and body limits for the service from the document (see
	// Policy). Nil leaves them to echo and the service.
	Policy *Policy
	// Pre are the service's own middlewares before routing (its media
	// type rules, what it hands its handlers), run in order after the
	// edge. They are composed once, with the edge, routing and
	// validation, into the one chain every request takes: middlewares
	// added with the returned echo's Pre or Use are not run.
	Pre []echo.MiddlewareFunc
}

// New returns an echo instance that validates every request against
// opts.Spec and serves GET /openapi.yaml and GET /openapi.json. Register the
// generated handlers on it.
func New(opts Options) (*echo.Echo, error) {
	e, _, err := newEcho(opts)
	return e, err
}

func newEcho(opts Options) (*echo.Echo, *verdictMemo, error) {
	if opts.Spec == nil {
		return nil, nil, errors.New("apiserve: no OpenAPI document")
	}
	if err := opts.Spec.Validate(context.Background()); err != nil {
		return nil, nil, fmt.Errorf("apiserve: OpenAPI document is invalid: %w", err)
	}
	if opts.Errors == nil {
		opts.Errors = PlainText
	}
	if opts.Auth == nil {
		opts.Auth = openapi3filter.NoopAuthenticationFunc
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	published, err := publishedDocuments(opts.Spec, opts.BaseURL)
	if err != nil {
		return nil, nil, err
	}
	// The validator matches request paths relative to the base URL, so it
	// works on a copy without servers (the server has already stripped the
	// base path); the published copy names the real base URL.
	forValidation, err := clone(opts.Spec)
	if err != nil {
		return nil, nil, err
	}

	contract := opts.Contract
	if contract == nil {
		if contract, err = NewContract(opts.Spec); err != nil {
			return nil, nil, err
		}
	}
	memo := newVerdictMemo(contract.spec, contract.router, 4096)
	var ed *edge
	if opts.Policy != nil {
		ed = newEdge(*opts.Policy, contract)
	}

	e := echo.New()
	e.HideBanner = true
	e.HidePort = true
	e.HTTPErrorHandler = func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		apiErr := toError(err)
		req := c.Request()
		if apiErr.Status == http.StatusMethodNotAllowed {
			// RFC 9110: a 405 names the methods the resource has: the
			// document's (echo's router, which may have set one, does not
			// know them all: it shares routes between "/{id}" and
			// "/{id}.xml").
			var allow string
			switch {
			case Published(req.URL.Path):
				allow = "GET, HEAD"
			case ed != nil:
				allow = contract.Allow(req)
			case c.Response().Header().Get("Allow") == "":
				allow = contract.Declared(req)
			}
			if allow != "" {
				c.Response().Header().Set("Allow", allow)
			}
		}
		if ed != nil && apiErr.Status == http.StatusNotFound && apiErr.Message == "not found" && !Published(req.URL.Path) && contract.Allow(req) == "" {
			apiErr = ed.notFound(req.URL.Path)
		}
		if apiErr.Status >= 500 {
			opts.Logger.ErrorContext(c.Request().Context(), "handler error", "err", err, "path", c.Request().URL.Path)
		}
		if rerr := opts.Errors(c, apiErr); rerr != nil {
			opts.Logger.ErrorContext(c.Request().Context(), "rendering error response", "err", rerr)
		}
	}

	// The documents answer HEAD as GET (net/http drops the body).
	for _, m := range []string{http.MethodGet, http.MethodHead} {
		e.Add(m, "/openapi.yaml", func(c echo.Context) error {
			return c.Blob(http.StatusOK, "application/yaml; charset=utf-8", published.yaml)
		})
		e.Add(m, "/openapi.json", func(c echo.Context) error {
			return c.Blob(http.StatusOK, "application/json; charset=utf-8", published.json)
		})
	}
	// Browsable documentation of the same document, for every service
	// built here; like the document it is outside the contract (and the
	// validator), see docs/architecture.md.
	docs, err := apidocs.New(opts.Spec.Info.Title)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range []string{apidocs.PagePath, apidocs.BundlePath, apidocs.LicensePath} {
		e.Match([]string{http.MethodGet, http.MethodHead}, p, echo.WrapHandler(docs))
	}

	skip := func(c echo.Context) bool {
		p := c.Request().URL.Path
		if Published(p) {
			return true
		}
		return opts.Skip != nil && opts.Skip(c)
	}
	validate := echomiddleware.OapiRequestValidatorWithOptions(forValidation, &echomiddleware.Options{
		Options: openapi3filter.Options{
			AuthenticationFunc: opts.Auth,
			KeepValidatedValue: true,
		},
		Skipper:              skip,
		DoNotValidateServers: true,
		ErrorHandler: func(c echo.Context, err *echo.HTTPError) error {
			return err
		},
	})
	// Every request goes through one chain, composed here once: the
	// edge, the service's Pre middlewares, then routing and validation
	// (dispatch). Echo composes its Pre and Use middlewares around each
	// request anew, a closure apiece, which every cached read paid for;
	// so this chain is echo's only Pre, returned as it is whatever echo
	// hands it (echo's own routing step is never called: dispatch routes).
	pre := opts.Pre
	if ed != nil {
		pre = append([]echo.MiddlewareFunc{ed.pre}, pre...)
	}
	d := &dispatcher{e: e, memo: memo, edge: ed, validate: validate}
	chain := d.dispatch
	for i := len(pre) - 1; i >= 0; i-- {
		chain = pre[i](chain)
	}
	e.Pre(func(echo.HandlerFunc) echo.HandlerFunc { return chain })
	return e, memo, nil
}

// Published reports whether path (relative to the base URL) is one that
// New serves itself, outside the document and its validation: the
// document (openapi.yaml, openapi.json) and its browsable documentation
// (docs and the files its page loads). A service that routes requests
// before echo does lets these through.
func Published(path string) bool {
	switch path {
	case "/openapi.yaml", "/openapi.json", apidocs.PagePath, apidocs.BundlePath, apidocs.LicensePath:
		return true
	}
	return false
}

// toError turns what a handler or the validator returned into an *Error.
func toError(err error) *Error {
	var apiErr *Error
	if errors.As(err, &apiErr) {
		return apiErr
	}
	if tooLarge := bodyTooLarge(err); tooLarge != nil {
		return &Error{Status: http.StatusRequestEntityTooLarge, Kind: KindBodyTooLarge, Message: fmt.Sprintf("request body too large (limit %d bytes)", tooLarge.Limit), Err: err}
	}
	out := &Error{Status: http.StatusInternalServerError, Message: "internal server error", Err: err}
	var he *echo.HTTPError
	if !errors.As(err, &he) {
		return out
	}
	out.Status = he.Code
	out.Message = http.StatusText(he.Code)
	if msg, ok := he.Message.(string); ok && msg != "" {
		out.Message = msg
	}
	if he.Internal != nil {
		out.Err = he.Internal
	}
	var reqErr *openapi3filter.RequestError
	if errors.As(he.Internal, &reqErr) {
		out.Message = requestErrorMessage(reqErr)
		if reqErr.Parameter != nil {
			out.Parameter = reqErr.Parameter.Name
		}
		var schemaErr *openapi3.SchemaError
		if errors.As(reqErr.Err, &schemaErr) {
			if reqErr.RequestBody != nil {
				out.Pointer = "/" + strings.Join(schemaErr.JSONPointer(), "/")
			}
			if schemaErr.SchemaField == "enum" && schemaErr.Schema != nil {
				out.Kind = KindNotAllowedValue
				for _, v := range schemaErr.Schema.Enum {
					out.Allowed = append(out.Allowed, fmt.Sprint(v))
				}
			}
		}
		switch {
		case reqErr.RequestBody != nil && errors.Is(reqErr.Err, openapi3filter.ErrInvalidRequired):
			out.Kind = KindMissingBody
		case reqErr.RequestBody != nil && !declaresMediaType(reqErr.RequestBody, reqErr.Input):
			out.Kind = KindUnsupportedMediaType
		}
	}
	// The router's refusal carries only its reason, the library's own
	// value for "no operation has this path".
	var noRoute *routers.RouteError
	if errors.As(routers.ErrPathNotFound, &noRoute) && he.Code == http.StatusNotFound && out.Message == noRoute.Reason {
		out.Kind = KindNoRoute
		out.Message = "not found"
	}
	return out
}

// declaresMediaType reports whether the request's Content-Type is one the
// request body of the contract declares (decided from the contract, not
// from the wording of the validator's message).
func declaresMediaType(body *openapi3.RequestBody, in *openapi3filter.RequestValidationInput) bool {
	if in == nil || in.Request == nil {
		return true
	}
	ct := in.Request.Header.Get("Content-Type")
	if ct == "" {
		return body.Content.Get("") != nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return body.Content.Get(mt) != nil
}

// bodyTooLarge finds the server's body limit error in err, also where the
// validator read the body while checking security (its
// SecurityRequirementsError holds its causes in a list it does not unwrap).
func bodyTooLarge(err error) *http.MaxBytesError {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return tooLarge
	}
	var secErr *openapi3filter.SecurityRequirementsError
	if errors.As(err, &secErr) {
		for _, e := range secErr.Errors {
			if t := bodyTooLarge(e); t != nil {
				return t
			}
		}
	}
	return nil
}

// requestErrorMessage is the first line of a validator error, naming the
// parameter or body at fault.
func requestErrorMessage(err *openapi3filter.RequestError) string {
	var b strings.Builder
	switch {
	case err.Parameter != nil:
		fmt.Fprintf(&b, "%s parameter %q", err.Parameter.In, err.Parameter.Name)
	case err.RequestBody != nil:
		b.WriteString("request body")
	default:
		b.WriteString("request")
	}
	reason := err.Reason
	if err.Err != nil {
		var schemaErr *openapi3.SchemaError
		if errors.As(err.Err, &schemaErr) {
			reason = schemaErr.Reason
			if p := schemaErr.JSONPointer(); len(p) > 0 && err.RequestBody != nil {
				reason = fmt.Sprintf("at /%s: %s", strings.Join(p, "/"), reason)
			}
		} else if msg := err.Err.Error(); reason == "" {
			reason = msg
		} else if reason != msg {
			reason = reason + ": " + msg
		}
	}
	if reason != "" {
		b.WriteString(" ")
		b.WriteString(reason)
	}
	return strings.SplitN(b.String(), "\n", 2)[0]
}

// PlainText renders err as text/plain.
func PlainText(c echo.Context, err *Error) error {
	return c.String(err.Status, err.Message+"\n")
}

type documents struct{ yaml, json []byte }

func publishedDocuments(spec *openapi3.T, baseURL string) (documents, error) {
	pub, err := clone(spec)
	if err != nil {
		return documents{}, err
	}
	if baseURL != "" {
		pub.Servers = openapi3.Servers{{URL: baseURL, Description: "this deployment"}}
	}
	js, err := json.MarshalIndent(pub, "", "  ")
	if err != nil {
		return documents{}, fmt.Errorf("apiserve: encoding OpenAPI document as JSON: %w", err)
	}
	ym, err := yaml.JSONToYAML(js)
	if err != nil {
		return documents{}, fmt.Errorf("apiserve: encoding OpenAPI document as YAML: %w", err)
	}
	return documents{yaml: ym, json: js}, nil
}

// clone deep-copies a document through its JSON form.
func clone(spec *openapi3.T) (*openapi3.T, error) {
	js, err := json.Marshal(spec)
	if err != nil {
		return nil, fmt.Errorf("apiserve: copying OpenAPI document: %w", err)
	}
	loader := openapi3.NewLoader()
	out, err := loader.LoadFromData(js)
	if err != nil {
		return nil, fmt.Errorf("apiserve: copying OpenAPI document: %w", err)
	}
	return out, nil
}

// dispatcher routes a request (after the edge and the service's Pre
// middlewares) and validates it, unless the verdict memo knows it valid.
type dispatcher struct {
	e        *echo.Echo
	memo     *verdictMemo
	edge     *edge
	validate echo.MiddlewareFunc
}

func (d *dispatcher) dispatch(c echo.Context) error {
	req := c.Request()
	ticket, hit := d.memo.check(req)
	switch {
	case hit && ticket.url != nil && ticket.url.route.Load() != nil:
		// A URL known valid has the route echo found for it the first
		// time: routing is decided once per URL, like validation.
		ticket.url.route.Load().set(c)
	default:
		d.e.Router().Find(req.Method, echo.GetPath(req), c)
		if hit && ticket.url != nil {
			ticket.url.route.Store(routeOf(c))
		}
	}
	next := c.Handler()
	if d.edge != nil && req.Method == http.MethodGet {
		switch {
		case Published(req.URL.Path):
			d.edge.setCORS(c, "")
		case ticket.shape != nil:
			d.edge.setCORS(c, ticket.shape.operation)
		default:
			d.edge.setCORS(c, d.edge.operationID(req))
		}
	}
	// The validator is wrapped around the handler only on a miss; a
	// request remembered as valid goes straight to its handler.
	switch {
	case hit:
		return next(c)
	case !ticket.remembers():
		return d.validate(next)(c)
	}
	return d.validate(func(c echo.Context) error {
		d.memo.remember(ticket, c.Request())
		return next(c)
	})(c)
}

// echoRoute is what echo's router found for a URL: its handler, route
// path and path parameters.
type echoRoute struct {
	handler echo.HandlerFunc
	path    string
	names   []string
	values  []string
}

// routeOf copies the route echo's router set on c.
func routeOf(c echo.Context) *echoRoute {
	return &echoRoute{handler: c.Handler(), path: c.Path(),
		names: slices.Clone(c.ParamNames()), values: slices.Clone(c.ParamValues())}
}

// set gives c the route as if echo's router had found it.
func (r *echoRoute) set(c echo.Context) {
	c.SetHandler(r.handler)
	c.SetPath(r.path)
	c.SetParamNames(r.names...)
	c.SetParamValues(r.values...)
}
