package apiserve

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/impl/auth"
)

// countingSessions counts the session look-ups of a cookieSessions.
type countingSessions struct {
	cookieSessions
	lookups *atomic.Int64
}

func (c countingSessions) Session(r *http.Request) (auth.Session, bool) {
	c.lookups.Add(1)
	return c.cookieSessions.Session(r)
}

// newIdentifiedItems serves testdata/items.yaml with a Bearer whose reads
// are identified (Reads): access token "viewer" is Vera's, token "writer"
// Tom's, cookie "rita" a session. GET /items/{id} answers who
// auth.PrincipalFrom says sent it (asking twice when ?twice), "-" for
// a handler that does not ask (id "zzz"); PUT /items/{id} the same.
func newIdentifiedItems(t *testing.T, sessions auth.SessionReader) *echo.Echo {
	t.Helper()
	spec, err := openapi3.NewLoader().LoadFromFile("testdata/items.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bearer := Bearer{
		Tokens:   tokenTable{"writer": {Name: "tom", Roles: []string{"writer"}}},
		Sessions: sessions,
		Missing:  "token missing", NoTokens: "no tokens", Unknown: "token unknown",
		Reads: &Readers{
			AccessTokens: func(token string) (auth.Principal, bool) {
				return auth.Principal{Name: "vera", Roles: []string{"group:staff"}}, token == "viewer"
			},
			Sessions: sessions,
		},
	}
	e, err := New(Options{Spec: spec, Auth: bearer.Authenticate, Policy: &Policy{Bearer: &bearer, BodyLimit: 1 << 10}})
	if err != nil {
		t.Fatal(err)
	}
	who := func(c echo.Context) error {
		if c.Param("id") == "zzz" {
			return c.String(http.StatusOK, "-")
		}
		p, err := auth.PrincipalFrom(c.Request().Context())
		if c.QueryParam("twice") != "" {
			p, err = auth.PrincipalFrom(c.Request().Context())
		}
		switch {
		case errors.Is(err, auth.ErrUnknownToken):
			return c.String(http.StatusOK, "unknown token")
		case errors.Is(err, auth.ErrAnonymous):
			return c.String(http.StatusOK, "anonymous")
		case err != nil:
			return err
		}
		return c.String(http.StatusOK, fmt.Sprintf("%s by %s", p.Name, p.Via))
	}
	r := Routes(e)
	r.GET("/items/:id", who)
	r.PUT("/items/:id", who)
	return e
}

// TestEdgeIdentifiesReads: a read reaches its handler with who sent it
// in the context, by the same rules for GET and HEAD: an access token, a
// token, the session without a bearer token, an unknown token as such,
// else anonymous; the session is looked up only when the handler asks,
// and once however often it asks.
func TestEdgeIdentifiesReads(t *testing.T) {
	var lookups atomic.Int64
	e := newIdentifiedItems(t, countingSessions{testSessions, &lookups})
	for _, c := range []struct {
		name, path string
		hdr        []string
		want       string
		lookups    int64
	}{
		{"nothing", "/items/abc", nil, "anonymous", 1},
		{"access token", "/items/abc", []string{"Authorization", "Bearer viewer"}, "vera by access token", 0},
		{"token", "/items/abc", []string{"Authorization", "Bearer writer"}, "tom by token", 0},
		{"unknown token beside a session", "/items/abc", []string{"Authorization", "Bearer nope", "Cookie", "sid=rita"}, "unknown token", 0},
		{"session", "/items/abc?twice=1", []string{"Cookie", "sid=rita"}, "rita by session", 1},
		{"unknown session", "/items/abc", []string{"Cookie", "sid=nobody"}, "anonymous", 1},
		{"handler that does not ask", "/items/zzz", []string{"Cookie", "sid=rita"}, "-", 0},
	} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			lookups.Store(0)
			rec := serve(e, method, c.path, "", c.hdr...)
			if rec.Code != 200 || (method == http.MethodGet && rec.Body.String() != c.want) || lookups.Load() != c.lookups {
				t.Errorf("%s %s: %d %q after %d session look-ups, want %q after %d", method, c.name, rec.Code, rec.Body, lookups.Load(), c.want, c.lookups)
			}
		}
	}
}

// TestEdgeReadIdentityNotForWrites: an access token identifies reads only;
// a write with one is refused at the edge as a token nobody issued.
func TestEdgeReadIdentityNotForWrites(t *testing.T) {
	e := newIdentifiedItems(t, testSessions)
	rec := serve(e, http.MethodPut, "/items/abc", `{"name":"x"}`, "Content-Type", "application/json", "Authorization", "Bearer viewer")
	if rec.Code != 401 || !strings.Contains(rec.Body.String(), "token unknown") {
		t.Errorf("PUT with an access token: %d %s", rec.Code, rec.Body)
	}
}

// TestEdgeLeavesAnonymousReadsAlone: without Reads, or on a read with no
// credential while the sign-in is off, the request goes on as it came
// (no resolver, no copy of the request).
func TestEdgeLeavesAnonymousReadsAlone(t *testing.T) {
	off := testSessions
	off.configured = false
	b := Bearer{Reads: &Readers{Sessions: off}}
	req, _ := http.NewRequest(http.MethodGet, "/items/abc", nil)
	if got, ok := b.Identify(req); ok || got != req {
		t.Error("an anonymous read with the sign-in off was given a resolver")
	}
	req.Header.Set("Cookie", "sid=rita")
	if _, ok := (&Bearer{}).Identify(req); ok {
		t.Error("a Bearer without Reads identified a read")
	}
	if got, ok := b.Identify(req); !ok {
		t.Error("a read with a cookie was not identified")
	} else if _, err := auth.PrincipalFrom(got.Context()); !errors.Is(err, auth.ErrAnonymous) {
		t.Errorf("a cookie with the sign-in off: %v, want anonymous", err)
	}
}
