package apiserve

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/impl/auth"
)

type tokenTable map[string]auth.Principal

func (t tokenTable) Authenticate(token string) (auth.Principal, bool) {
	p, ok := t[token]
	return p, ok
}

// endless is a request body that never ends and counts the bytes read
// from it.
type endless struct{ read atomic.Int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	e.read.Add(int64(len(p)))
	return len(p), nil
}

// newGuardedBoxes serves testdata/items.yaml's boxes with a policy that
// authorises at the edge: tokens "writer" (role writer) and "reader";
// Scope refuses the box "zzz" to all but admins; putBox (and so
// putBoxJson, marked x-sitesvc-same-as putBox) takes at most 32 bytes.
func newGuardedBoxes(t *testing.T) (*echo.Echo, *[]string) {
	t.Helper()
	spec := itemsSpec(t)
	bearer := Bearer{
		Tokens: tokenTable{
			"writer": {Name: "wendy", Roles: []string{"writer"}},
			"reader": {Name: "rita", Roles: []string{"reader"}},
		},
		Missing: "token missing", NoTokens: "no tokens", Unknown: "token unknown",
		Permit: func(p auth.Principal) string {
			if !p.Has("writer") {
				return "not a writer"
			}
			return ""
		},
	}
	var scoped []string
	e, err := New(Options{
		Spec: spec,
		Auth: bearer.Authenticate,
		Policy: &Policy{
			Bearer: &bearer,
			Scope: func(req *http.Request, op string, p auth.Principal) error {
				scoped = append(scoped, op)
				if strings.HasPrefix(req.URL.Path, "/boxes/zzz") && !p.IsAdmin() {
					return &Error{Status: http.StatusForbidden, Message: "box zzz is for admins"}
				}
				return nil
			},
			BodyLimit:  64,
			BodyLimits: map[string]int64{"putBox": 32},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	handler := func(c echo.Context) error {
		if p, err := auth.PrincipalFrom(c.Request().Context()); err != nil || p.Name != "wendy" || p.Via != auth.CredentialToken {
			t.Errorf("handler of %s: principal %+v %v", c.Request().URL.Path, p, err)
		}
		return c.NoContent(http.StatusNoContent)
	}
	r := Routes(e)
	r.DELETE("/boxes/:id", handler)
	r.PUT("/boxes/:id.json", handler)
	return e, &scoped
}

// TestEdgeAuthorisesBeforeBody: a secured operation is refused by the
// policy's Bearer and Scope without a byte of its body read; an accepted
// one is bounded by its operation's limit (a links.self write has its
// counterpart's); a DELETE's body is read within IgnoredBodyLimit and
// ignored, an endless one is 413.
func TestEdgeAuthorisesBeforeBody(t *testing.T) {
	t.Parallel()
	e, scoped := newGuardedBoxes(t)
	for _, c := range []struct {
		method, path, token string
		status              int
		msg                 string
	}{
		{http.MethodPut, "/boxes/abc.json", "", 401, "token missing"},
		{http.MethodPut, "/boxes/abc.json", "nobody", 401, "token unknown"},
		{http.MethodPut, "/boxes/abc.json", "reader", 403, "not a writer"},
		{http.MethodPut, "/boxes/zzz.json", "writer", 403, "box zzz is for admins"},
		{http.MethodDelete, "/boxes/abc", "reader", 403, "not a writer"},
		{http.MethodDelete, "/boxes/zzz", "writer", 403, "box zzz is for admins"},
	} {
		body := &endless{}
		req := httptest.NewRequest(c.method, c.path, body)
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/json")
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.msg) || body.read.Load() != 0 {
			t.Errorf("%s %s as %q: %d %q after reading %d bytes, want %d %q before reading any",
				c.method, c.path, c.token, rec.Code, rec.Body, body.read.Load(), c.status, c.msg)
		}
	}
	if got := strings.Join(*scoped, ","); got != "putBox,deleteBox" {
		t.Errorf("Scope saw %q, want the counterpart putBox, then deleteBox", got)
	}

	// Accepted: the body is bounded by putBox's 32 bytes, not the 64 of
	// the policy.
	writer := []string{"Content-Type", "application/json", "Authorization", "Bearer writer"}
	if rec := serve(e, http.MethodPut, "/boxes/abc.json", `{"a":"`+strings.Repeat("x", 30)+`"}`, writer...); rec.Code != 413 || !strings.Contains(rec.Body.String(), "limit 32 bytes") {
		t.Errorf("PUT over putBox's limit: %d %s", rec.Code, rec.Body)
	}
	if rec := serve(e, http.MethodPut, "/boxes/abc.json", `{"a":"b"}`, writer...); rec.Code != 204 {
		t.Errorf("PUT within the limit: %d %s", rec.Code, rec.Body)
	}
	body := &endless{}
	req := httptest.NewRequest(http.MethodPut, "/boxes/abc.json", body)
	req.ContentLength = -1
	for i := 0; i+1 < len(writer); i += 2 {
		req.Header.Set(writer[i], writer[i+1])
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != 413 || body.read.Load() > 64<<10 {
		t.Errorf("PUT with an endless body: %d after %d bytes", rec.Code, body.read.Load())
	}

	// A DELETE's body: ignored within IgnoredBodyLimit, 413 beyond.
	if rec := serve(e, http.MethodDelete, "/boxes/abc", `{"data":{"type":"boxes","id":"abc"}}`, writer...); rec.Code != 204 {
		t.Errorf("DELETE with a small body: %d %s", rec.Code, rec.Body)
	}
	if rec := serve(e, http.MethodDelete, "/boxes/abc", strings.Repeat(" ", IgnoredBodyLimit+1), writer...); rec.Code != 413 {
		t.Errorf("DELETE with a declared body over the limit: %d %s", rec.Code, rec.Body)
	}
	body = &endless{}
	req = httptest.NewRequest(http.MethodDelete, "/boxes/abc", body)
	req.ContentLength = -1
	req.Header.Set("Authorization", "Bearer writer")
	rec = httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != 413 || body.read.Load() > 2*IgnoredBodyLimit+64<<10 {
		t.Errorf("DELETE with an endless body: %d after %d bytes", rec.Code, body.read.Load())
	}
}

// TestBearerReusesEdgePrincipal: the validator's check passes a write
// the edge authorised without looking a token up again (this Bearer has
// no tokens, so a look-up would refuse it), and never takes a read's
// identity (auth.WithResolver) for an authorisation.
func TestBearerReusesEdgePrincipal(t *testing.T) {
	t.Parallel()
	b := Bearer{Missing: "missing", NoTokens: "none"}
	req := httptest.NewRequest(http.MethodPut, "/x", nil)
	req.Header.Set("Authorization", "Bearer t")
	req = req.WithContext(auth.WithPrincipal(req.Context(), auth.Principal{Name: "edge"}))
	if err := b.Authenticate(context.Background(), authInput(req)); err != nil {
		t.Errorf("Authenticate with the edge's principal: %v", err)
	}
	get := httptest.NewRequest(http.MethodGet, "/x", nil)
	get = get.WithContext(auth.WithResolver(get.Context(), func() (auth.Principal, error) { return auth.Principal{Name: "reader"}, nil }))
	var he *echo.HTTPError
	if err := b.Authenticate(context.Background(), authInput(get)); !errors.As(err, &he) || he.Code != 401 {
		t.Errorf("Authenticate of a read's identity: %v, want 401", err)
	}
}

func authInput(req *http.Request) *openapi3filter.AuthenticationInput {
	return &openapi3filter.AuthenticationInput{RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req}}
}

// TestContractName: policies see operationIds as api/*.yaml spells them,
// though oapi-codegen's embedded document upper-cases the first letter.
func TestContractName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"GetObject": "getObject", "getObject": "getObject", "": "", "UpdateLibraryJson": "updateLibraryJson",
	} {
		if got := contractName(in); got != want {
			t.Errorf("contractName(%q) = %q, want %q", in, got, want)
		}
	}
	alias := &openapi3.Operation{OperationID: "updateLibraryJson", Extensions: map[string]any{"x-sitesvc-same-as": "updateLibrary"}}
	if got := rulesOf(alias); got != "updateLibrary" {
		t.Errorf("rulesOf(an alias of updateLibrary) = %q", got)
	}
	if got := rulesOf(&openapi3.Operation{OperationID: "updateLibraryJsonish"}); got != "updateLibraryJsonish" {
		t.Errorf("rulesOf(an operation of its own) = %q: only the annotation makes an alias", got)
	}
}
