package testkit

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

// Validator checks HTTP responses against an OpenAPI document: the status
// must be declared, the content type must be one the status declares, and a
// body in a media type kin-openapi can decode (JSON, JSON:API, text, YAML)
// must match its schema.
type Validator struct {
	spec     *openapi3.T
	router   routers.Router
	basePath string
}

// Spec is the contract getSpec returns (a generated package's GetSpec, as
// hoursapi.GetSpec); an error loading it ends the test.
func Spec(t testing.TB, getSpec func() (*openapi3.T, error)) *openapi3.T {
	t.Helper()
	spec, err := getSpec()
	if err != nil {
		t.Fatalf("testkit: loading the contract: %v", err)
	}
	return spec
}

// NewValidator returns a validator for spec. Request paths are matched
// relative to the service's base URL; use Mounted when requests carry the
// base path (as against the real server).
func NewValidator(t testing.TB, spec *openapi3.T) *Validator {
	t.Helper()
	if err := spec.Validate(context.Background()); err != nil {
		t.Fatalf("testkit: OpenAPI document is invalid: %v", err)
	}
	// Match paths without servers: the base path is stripped here instead.
	copySpec := *spec
	copySpec.Servers = nil
	router, err := gorillamux.NewRouter(&copySpec)
	if err != nil {
		t.Fatalf("testkit: routing OpenAPI document: %v", err)
	}
	return &Validator{spec: spec, router: router}
}

// Mounted returns a validator for requests whose paths start with basePath
// (for example "/purl").
func (v *Validator) Mounted(basePath string) *Validator {
	out := *v
	out.basePath = strings.TrimRight(basePath, "/")
	return &out
}

// Check validates one response. body is the whole response body.
func (v *Validator) Check(t testing.TB, req *http.Request, resp *http.Response, body []byte) {
	t.Helper()
	if err := v.Validate(req, resp, body); err != nil {
		t.Errorf("response to %s %s does not match the OpenAPI document: %v", req.Method, req.URL, err)
	}
}

// Validate is Check returning the error.
func (v *Validator) Validate(req *http.Request, resp *http.Response, body []byte) error {
	r := req.Clone(context.Background())
	r.URL.Path = strings.TrimPrefix(r.URL.Path, v.basePath)
	if r.URL.RawPath != "" {
		r.URL.RawPath = strings.TrimPrefix(r.URL.RawPath, v.basePath)
	}
	// The router matches on host and scheme only when servers are set; they
	// are not, so any host is fine.
	route, params, err := v.router.FindRoute(r)
	head := r.Method == http.MethodHead
	if err != nil && head {
		// net/http and echo answer HEAD as GET without the body; a document
		// that declares only GET describes that answer too.
		r.Method = http.MethodGet
		route, params, err = v.router.FindRoute(r)
	}
	if err != nil {
		return err
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: r, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
		},
		Status:  resp.StatusCode,
		Header:  resp.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	input.SetBodyBytes(body)

	ct := resp.Header.Get("Content-Type")
	mediaType, _, _ := mime.ParseMediaType(ct)
	if head || len(body) > 0 && openapi3filter.RegisteredBodyDecoder(mediaType) == nil {
		// kin-openapi cannot decode this media type (HTML, XML, images), or
		// a HEAD answer has no body: check that the document declares the
		// content type for this status, then skip the body.
		if err := declaredContentType(route.Operation, resp.StatusCode, ct); err != nil {
			return err
		}
		input.Options.ExcludeResponseBody = true
	}
	return openapi3filter.ValidateResponse(context.Background(), input)
}

func declaredContentType(op *openapi3.Operation, status int, ct string) error {
	ref := op.Responses.Status(status)
	if ref == nil {
		ref = op.Responses.Default()
	}
	if ref == nil || ref.Value == nil {
		return &openapi3filter.ResponseError{Reason: "status is not supported"}
	}
	if len(ref.Value.Content) > 0 && ref.Value.Content.Get(ct) == nil {
		return &openapi3filter.ResponseError{Reason: "response Content-Type " + ct + " is not declared for this status"}
	}
	return nil
}

// Client returns an HTTP client that validates every response it receives
// (redirects are not followed, so each hop is checked).
func (v *Validator) Client(t testing.TB) *http.Client {
	return &http.Client{
		Transport: &validatingTransport{t: t, v: v, next: http.DefaultTransport},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

type validatingTransport struct {
	t    testing.TB
	v    *Validator
	next http.RoundTripper
}

func (vt *validatingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := vt.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	vt.v.Check(vt.t, req, resp, body)
	return resp, nil
}
