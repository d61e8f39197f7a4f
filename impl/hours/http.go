package hours

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/hours/jsonapireq"
)

const (
	mediaJSONAPI = "application/vnd.api+json"
	mediaJSON    = "application/json"
)

// echo builds the service's echo instance: apiserve's edge (HEAD, OPTIONS,
// 404/405, CORS, from the document and policy), JSON:API's media-type
// rules, apiserve's request validation, then the generated handlers.
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
		Auth:     s.bearer().Authenticate,
		Logger:   s.cfg.Logger,
		Contract: ops.contract,
		Policy:   s.policy(),
		Pre: []echo.MiddlewareFunc{
			negotiatePage, // issue 15.1/15.3: oneurl.go
			ops.mediaTypes,
			ops.oneDocument,        // issue 11.11: trailing.go
			s.jsonapiRequests(ops), // issue 15.2: requests.go
		},
	})
	if err != nil {
		return nil, fmt.Errorf("hours: %w", err)
	}
	// apiserve's router registers "/libraries/{library_id}.json" and
	// the like, which echo's router cannot express as they are.
	hoursapi.RegisterDirectHandlers(apiserve.Routes(e), hoursapi.WithAliases(s))
	return e, nil
}

// operations holds the service's contract as apiserve routes it: the
// media-type rules need a request's operation before routing, and a 405 or
// OPTIONS names the methods of the path from it (echo's router shares one
// route between "/libraries/{id}.json" and "/libraries/{id}").
type operations struct {
	contract *apiserve.Contract
	// queries are the query rules of each JSON:API operation (not the
	// people's pages and feeds) by its id, read from the contract once
	// rather than on every request (requests.go).
	queries map[string]jsonapireq.Query
}

func newOperations(spec *openapi3.T) (*operations, error) {
	contract, err := apiserve.NewContract(spec)
	if err != nil {
		return nil, fmt.Errorf("hours: %w", err)
	}
	queries := map[string]jsonapireq.Query{}
	if spec.Paths != nil {
		for _, item := range spec.Paths.Map() {
			for _, op := range item.Operations() {
				if slices.Contains(op.Tags, "people") {
					continue
				}
				queries[op.OperationID] = jsonapireq.Query{Params: queryParams(op), AlwaysIncluded: alwaysIncluded[strings.ToLower(op.OperationID)]}
			}
		}
	}
	return &operations{contract: contract, queries: queries}, nil
}

// takesDocument reports whether req is an operation with a request body.
func (o *operations) takesDocument(req *http.Request) bool {
	op, ok := o.contract.Operation(req)
	return ok && op.RequestBody != nil
}

// policy is the Hours part of the edge apiserve answers: every read is
// usable from any origin (hours are public; writes carry a token and come
// from staff tools, not other sites' pages), with its ETag readable for
// revalidation; a write is authorised (token, role, library in the path:
// authorize.go) and bounded by its operation's largest valid document
// before its body is read.
func (s *Service) policy() *apiserve.Policy {
	bearer := s.bearer()
	return &apiserve.Policy{
		CrossOrigin:      func(string) bool { return true },
		ExposeHeaders:    "ETag",
		PreflightHeaders: "Accept", // with the contract's headers and the conditional ones (apiserve)
		Bearer:           &bearer,
		Scope:            s.scope,
		BodyLimits:       writeBodyLimits,
		BodyLimit:        defaultWriteBodyLimit,
	}
}

func isLegacy(path string) bool { return strings.HasPrefix(path, "/api/v1/") }

func isSpec(path string) bool { return path == "/openapi.yaml" || path == "/openapi.json" }

// mediaTypes applies JSON:API's media-type rules to the current API:
// 406 when every JSON:API media type in Accept carries parameters, 415 when an
// operation's request document is not application/vnd.api+json without
// parameters. An unknown path or method is left to apiserve (404, 405).
func (o *operations) mediaTypes(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if isSpec(req.URL.Path) || isLegacy(req.URL.Path) {
			return next(c)
		}
		atomic := isOperations(req.URL.Path) // operations.go: the Atomic Operations extension
		if !acceptsJSONAPI(req.Header.Values("Accept"), atomic) {
			return &apiserve.Error{Status: http.StatusNotAcceptable,
				Message: "Accept names application/vnd.api+json only with media type parameters; send it without parameters"}
		}
		if req.Method != http.MethodPost && req.Method != http.MethodPatch {
			return next(c)
		}
		if !o.takesDocument(req) {
			return next(c) // not an operation taking a document: 404 or 405 follows
		}
		if msg := jsonapiContentType(req.Header.Get("Content-Type"), atomic); msg != "" {
			return &apiserve.Error{Status: http.StatusUnsupportedMediaType, Message: msg}
		}
		return next(c)
	}
}

// acceptsJSONAPI applies JSON:API's rule to the Accept header: false only
// when it names the JSON:API media type and every instance of it carries
// a parameter other than profile (and, where atomic, ext naming the Atomic
// Operations extension, the one extension this server supports, on its
// operations endpoint).
func acceptsJSONAPI(accept []string, atomic bool) bool {
	seen, plain := false, false
	for _, item := range apiserve.ParseAccept(accept) {
		if item.Value != mediaJSONAPI {
			continue
		}
		seen = true
		n := len(item.Params)
		if _, profile := item.Params["profile"]; profile {
			n--
		}
		if atomic && item.Params["ext"] == extAtomic {
			n--
		}
		if n == 0 {
			plain = true
		}
	}
	return !seen || plain
}

// jsonapiContentType is why a request document's Content-Type is refused
// ("" when it is fine). Where atomic (the operations endpoint), the
// document must say it uses the Atomic Operations extension.
func jsonapiContentType(ct string, atomic bool) string {
	want := mediaJSONAPI
	if atomic {
		want = mediaAtomic
	}
	if ct == "" {
		return "a request document needs Content-Type: " + want
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != mediaJSONAPI {
		return fmt.Sprintf("Content-Type %q is not supported: send %s", ct, want)
	}
	delete(params, "profile")
	if atomic {
		if params["ext"] != extAtomic {
			return fmt.Sprintf("Content-Type %q: the operations endpoint takes %s", ct, want)
		}
		delete(params, "ext")
	}
	if len(params) > 0 {
		return fmt.Sprintf("Content-Type %q: application/vnd.api+json must not carry media type parameters", ct)
	}
	return ""
}

// faultyHeader is the request header a status is about (JSON:API 1.1's
// source.header).
var faultyHeader = map[int]string{
	http.StatusUnauthorized:         "Authorization",
	http.StatusNotAcceptable:        "Accept",
	http.StatusUnsupportedMediaType: "Content-Type",
}

// renderError writes a refused request as a JSON:API error document. A
// request document that parses but breaks the schema is 422 (JSON:API's
// status for a well-formed but invalid document), pointing at the field.
func (o *operations) renderError(c echo.Context, e *apiserve.Error) error {
	status := e.Status
	if status == http.StatusBadRequest && e.Pointer != "" {
		status = http.StatusUnprocessableEntity
	}
	detail := e.Message
	if e.Pointer == "/data/type" && e.Kind == apiserve.KindNotAllowedValue {
		// JSON:API: a resource type that is not the endpoint's is 409.
		status = http.StatusConflict
		detail = "data.type is not the type of the resources at this URL: it must be " + strings.Join(quoted(e.Allowed), " or ")
	}
	var src errorSource
	if e.Parameter != "" || e.Pointer != "" {
		src = errorSource{parameter: e.Parameter, pointer: pointerToMember(e.Pointer, e.Message)}
	} else {
		src.header = faultyHeader[status]
	}
	if status == http.StatusUnauthorized {
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="hours"`)
	}
	body, err := json.Marshal(toErrorDocument(status, detail, src))
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

// bearer is the edge's check of bearerAuth: it resolves the token or the
// browser session (the roles are scope's and the handlers' to check, per
// library); the principal reaches the handlers in the request's context
// (auth.PrincipalFrom). A secured read (a library's changes) is refused
// by the validator without a known token or session, and its handler
// finds the principal by the same rules (Reads).
func (s *Service) bearer() apiserve.Bearer {
	return apiserve.Bearer{
		Tokens:   s.cfg.Tokens,
		Sessions: s.cfg.Sessions,
		Missing:  "this operation needs a bearer token (Authorization: Bearer …)",
		NoTokens: "no tokens are configured",
		Unknown:  "unknown bearer token",
		Reads:    &apiserve.Readers{Sessions: s.cfg.Sessions},
	}
}

// quoted puts each value in double quotes, as JSON writes strings.
func quoted(values []string) []string {
	out := make([]string, len(values))
	for i, v := range values {
		out[i] = strconv.Quote(v)
	}
	return out
}
