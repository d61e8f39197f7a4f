package hours

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"
	echomiddleware "github.com/oapi-codegen/echo-middleware"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/auth"
)

const (
	mediaJSONAPI = "application/vnd.api+json"
	mediaJSON    = "application/json"
)

// echo builds the service's echo instance: media-type rules and CORS
// first, then apiserve's request validation, then the generated handlers.
func (s *Service) echo() (*echo.Echo, error) {
	spec, err := hoursapi.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("hours: loading the OpenAPI document: %w", err)
	}
	ops, err := newOperations(spec)
	if err != nil {
		return nil, err
	}
	e, err := apiserve.New(apiserve.Options{
		Spec:     spec,
		BaseURL:  s.cfg.BaseURL,
		Errors:   ops.renderError,
		Auth:     s.authenticate,
		Logger:   s.cfg.Logger,
		Contract: ops.contract,
	})
	if err != nil {
		return nil, fmt.Errorf("hours: %w", err)
	}
	e.Pre(ops.corsAndMediaTypes)
	e.Pre(s.authorizeFirst(ops.contract))
	// apiserve's router registers "/libraries/{library_id}.json" and
	// the like, which echo's router cannot express as they are.
	hoursapi.RegisterHandlers(apiserve.Routes(e), hoursapi.NewStrictHandler(s, []hoursapi.StrictMiddlewareFunc{withPrincipal}))
	return e, nil
}

// operations holds the service's contract as apiserve routes it: the
// media-type rules need a request's operation before routing, and a 405 or
// OPTIONS names the methods of the path from it (echo's router shares one
// route between "/libraries/{id}.json" and "/libraries/{id}").
type operations struct{ contract *apiserve.Contract }

func newOperations(spec *openapi3.T) (*operations, error) {
	contract, err := apiserve.NewContract(spec)
	if err != nil {
		return nil, fmt.Errorf("hours: %w", err)
	}
	return &operations{contract: contract}, nil
}

// takesDocument reports whether req is an operation with a request body.
func (o *operations) takesDocument(req *http.Request) bool {
	op, ok := o.contract.Operation(req)
	return ok && op.RequestBody != nil
}

// allow is the Allow header of req's path ("" when no operation has it).
func (o *operations) allow(req *http.Request) string { return o.contract.Allow(req) }

// Header values of every GET, shared (a field is replaced, never edited in
// place).
var (
	corsAnyOrigin  = []string{"*"}
	corsExposeETag = []string{"ETag"}
)

func isLegacy(path string) bool { return strings.HasPrefix(path, "/api/v1/") }

func isSpec(path string) bool { return path == "/openapi.yaml" || path == "/openapi.json" }

// corsAndMediaTypes answers CORS preflights, marks reads as usable from
// any origin, and applies JSON:API's media-type rules to the current API:
// 406 when every JSON:API media type in Accept carries parameters, 415 when an
// operation's request document is not application/vnd.api+json without
// parameters. An unknown path or method is left to the router (404, 405).
func (o *operations) corsAndMediaTypes(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		h := c.Response().Header()
		switch req.Method {
		case http.MethodOptions:
			allow := o.allow(req)
			if allow == "" && !isSpec(req.URL.Path) {
				return next(c) // no such resource: 404
			}
			if allow == "" {
				allow = "GET, HEAD, OPTIONS"
			}
			h.Set("Allow", allow)
			// Cross-origin use is for reads (writes carry a token and come
			// from staff tools, not other sites' pages).
			if req.Header.Get("Origin") != "" && req.Header.Get("Access-Control-Request-Method") != "" {
				h.Set("Access-Control-Allow-Origin", "*")
				h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
				h.Set("Access-Control-Allow-Headers", "Accept, If-None-Match")
				h.Set("Access-Control-Max-Age", "86400")
			}
			return c.NoContent(http.StatusNoContent)
		case http.MethodGet:
			h["Access-Control-Allow-Origin"] = corsAnyOrigin
			h["Access-Control-Expose-Headers"] = corsExposeETag
		}
		if isSpec(req.URL.Path) || isLegacy(req.URL.Path) {
			return next(c)
		}
		if !acceptsJSONAPI(req.Header.Values("Accept")) {
			return &apiserve.Error{Status: http.StatusNotAcceptable,
				Message: "Accept names application/vnd.api+json only with media type parameters; send it without parameters"}
		}
		if req.Method != http.MethodPost && req.Method != http.MethodPatch {
			return next(c)
		}
		if !o.takesDocument(req) {
			return next(c) // not an operation taking a document: 404 or 405 follows
		}
		if msg := jsonapiContentType(req.Header.Get("Content-Type")); msg != "" {
			return &apiserve.Error{Status: http.StatusUnsupportedMediaType, Message: msg}
		}
		return next(c)
	}
}

// headAsGet serves HEAD as the GET it mirrors, without the body: link
// checkers and caches send HEAD, and the contract declares GETs. echo
// routes by the method of the request it was handed, so the rewrite comes
// before echo (on a copy: the server's log still says HEAD). Headers,
// Content-Length and ETag included, are the GET's.
func headAsGet(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		get := r.WithContext(r.Context())
		get.Method = http.MethodGet
		next.ServeHTTP(headWriter{w}, get)
	})
}

// headWriter drops the body of a HEAD response.
type headWriter struct{ http.ResponseWriter }

func (headWriter) Write(p []byte) (int, error) { return len(p), nil }

// Unwrap lets http.ResponseController reach the server's writer.
func (w headWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// acceptsJSONAPI applies JSON:API's rule to the Accept header: false only
// when it names the JSON:API media type and every instance of it carries
// a parameter (other than profile; this server supports no extensions).
func acceptsJSONAPI(accept []string) bool {
	seen, plain := false, false
	for _, header := range accept {
		for _, item := range strings.Split(header, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(item))
			if err != nil || mt != mediaJSONAPI {
				continue
			}
			seen = true
			delete(params, "q")
			delete(params, "profile")
			if len(params) == 0 {
				plain = true
			}
		}
	}
	return !seen || plain
}

// jsonapiContentType is why a request document's Content-Type is refused
// ("" when it is fine).
func jsonapiContentType(ct string) string {
	if ct == "" {
		return "a request document needs Content-Type: application/vnd.api+json"
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != mediaJSONAPI {
		return fmt.Sprintf("Content-Type %q is not supported: send application/vnd.api+json", ct)
	}
	delete(params, "profile")
	if len(params) > 0 {
		return fmt.Sprintf("Content-Type %q: application/vnd.api+json must not carry media type parameters", ct)
	}
	return ""
}

// errorObject and errorDocument are JSON:API error documents.
type errorObject struct {
	Status string       `json:"status"`
	Title  string       `json:"title"`
	Detail string       `json:"detail,omitempty"`
	Source *errorSource `json:"source,omitempty"`
}

type errorSource struct {
	Parameter string `json:"parameter,omitempty"`
	Pointer   string `json:"pointer,omitempty"`
	Header    string `json:"header,omitempty"`
}

// faultyHeader is the request header a status is about (JSON:API 1.1's
// source.header).
var faultyHeader = map[int]string{
	http.StatusUnauthorized:         "Authorization",
	http.StatusNotAcceptable:        "Accept",
	http.StatusUnsupportedMediaType: "Content-Type",
}

type errorDocument struct {
	JSONAPI jsonapiObject `json:"jsonapi"`
	Errors  []errorObject `json:"errors"`
}

// renderError writes a refused request as a JSON:API error document. A
// request document that parses but breaks the schema is 422 (JSON:API's
// status for a well-formed but invalid document), pointing at the field.
func (o *operations) renderError(c echo.Context, e *apiserve.Error) error {
	status := e.Status
	if status == http.StatusBadRequest && e.Pointer != "" {
		status = http.StatusUnprocessableEntity
	}
	if e.Pointer == "/data/type" && strings.Contains(e.Message, "not one of the allowed values") {
		// JSON:API: a resource type that is not the endpoint's is 409.
		status = http.StatusConflict
	}
	obj := errorObject{Status: fmt.Sprint(status), Title: http.StatusText(status), Detail: e.Message}
	if e.Parameter != "" || e.Pointer != "" {
		obj.Source = &errorSource{Parameter: e.Parameter, Pointer: pointerToMember(e.Pointer, e.Message)}
	} else if h := faultyHeader[status]; h != "" {
		obj.Source = &errorSource{Header: h}
	}
	if status == http.StatusUnauthorized {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="hours"`)
	}
	if status == http.StatusMethodNotAllowed {
		// RFC 9110: a 405 names the methods the resource has.
		if allow := o.allow(c.Request()); allow != "" {
			c.Response().Header().Set("Allow", allow)
		}
	}
	body, err := json.Marshal(errorDocument{JSONAPI: jsonapiVersion, Errors: []errorObject{obj}})
	if err != nil {
		return err
	}
	if status == http.StatusNotModified {
		return c.NoContent(status)
	}
	return c.Blob(status, mediaJSONAPI, body)
}

// unsupportedMember finds the member the validator names when an object
// has a member its schema does not allow; its pointer is the object's.
var unsupportedMember = regexp.MustCompile(`property "([^"]+)" is unsupported`)

// pointerToMember points at the offending member itself when the
// validator's pointer is the object holding it.
func pointerToMember(pointer, message string) string {
	m := unsupportedMember.FindStringSubmatch(message)
	if pointer == "" || m == nil {
		return pointer
	}
	name := strings.NewReplacer("~", "~0", "/", "~1").Replace(m[1])
	return strings.TrimRight(pointer, "/") + "/" + name
}

type principalKey struct{}

// authenticate is the validator's check of bearerAuth: it resolves the
// token and hands the principal to the handler through the request context.
func (s *Service) authenticate(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
	req := in.RequestValidationInput.Request
	token, ok := auth.BearerToken(req)
	if !ok {
		return &echo.HTTPError{Code: http.StatusUnauthorized, Message: "this operation needs a bearer token (Authorization: Bearer …)"}
	}
	if s.cfg.Tokens == nil {
		return &echo.HTTPError{Code: http.StatusUnauthorized, Message: "no tokens are configured"}
	}
	p, ok := s.cfg.Tokens.Authenticate(token)
	if !ok {
		return &echo.HTTPError{Code: http.StatusUnauthorized, Message: "unknown bearer token"}
	}
	// The validator still holds the request (it replaces the body after
	// this check), so the principal goes on the echo context here and into
	// the request context in withPrincipal, once the body is bound.
	if c := echomiddleware.GetEchoContext(ctx); c != nil {
		c.Set(principalContextKey, p)
	}
	return nil
}

const principalContextKey = "hours.principal"

// withPrincipal moves the authenticated principal into the context the
// strict handlers receive.
func withPrincipal(next hoursapi.StrictHandlerFunc, _ string) hoursapi.StrictHandlerFunc {
	return func(c echo.Context, request any) (any, error) {
		if p, ok := c.Get(principalContextKey).(auth.Principal); ok {
			c.SetRequest(c.Request().WithContext(context.WithValue(c.Request().Context(), principalKey{}, p)))
		}
		return next(c, request)
	}
}

func principalFrom(ctx context.Context) (auth.Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(auth.Principal)
	return p, ok
}
