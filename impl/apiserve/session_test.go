package apiserve

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/impl/auth"
)

// cookieSessions is a SessionReader over a table of cookie values: the
// edge's side of the contract, without a sign-in behind it.
type cookieSessions struct {
	configured bool
	byCookie   map[string]auth.Session
}

func (c cookieSessions) Configured() bool { return c.configured }

func (c cookieSessions) Session(r *http.Request) (auth.Session, bool) {
	ck, err := r.Cookie("sid")
	if err != nil {
		return auth.Session{}, false
	}
	s, ok := c.byCookie[ck.Value]
	return s, ok
}

// newSessionBoxes serves testdata/items.yaml's boxes with a Bearer that
// also reads sessions: cookie "wendy" is a writer's session (CSRF token
// "tok-w"), cookie "rita" a reader's; token "writer" is bearer Tom. The
// handlers record the principal they were handed.
func newSessionBoxes(t *testing.T, sessions auth.SessionReader) (*echo.Echo, *[]string) {
	t.Helper()
	spec := itemsSpec(t)
	bearer := Bearer{
		Tokens:   tokenTable{"writer": {Name: "tom", Roles: []string{"writer"}}},
		Sessions: sessions,
		Missing:  "token missing", NoTokens: "no tokens", Unknown: "token unknown",
		Permit: func(p auth.Principal) string {
			if !p.Has("writer") {
				return "not a writer"
			}
			return ""
		},
	}
	e, err := New(Options{Spec: spec, Auth: bearer.Authenticate, Policy: &Policy{Bearer: &bearer, BodyLimit: 64}})
	if err != nil {
		t.Fatal(err)
	}
	var handled []string
	handler := func(c echo.Context) error {
		p, err := auth.PrincipalFrom(c.Request().Context())
		if err != nil {
			t.Errorf("handler of %s without a principal: %v", c.Request().URL.Path, err)
		}
		handled = append(handled, c.Request().Method+" "+p.Name)
		return c.NoContent(http.StatusNoContent)
	}
	r := Routes(e)
	r.DELETE("/boxes/:id", handler)
	r.PUT("/boxes/:id.json", handler)
	return e, &handled
}

var testSessions = cookieSessions{configured: true, byCookie: map[string]auth.Session{
	"wendy": {Principal: auth.Principal{Name: "wendy", Roles: []string{"writer"}}, CSRFToken: "tok-w"},
	"rita":  {Principal: auth.Principal{Name: "rita", Roles: []string{"reader"}}, CSRFToken: "tok-r"},
	"blank": {Principal: auth.Principal{Name: "blank", Roles: []string{"writer"}}},
}}

// TestEdgeSessionWrites: without an Authorization header a write is
// authorised by the browser session when it carries the session's CSRF
// token; without the token (or with another's) it is 403 with a clear
// message before its body is read and no handler runs; the session's
// principal reaches the handler as a token's does, and goes through
// Permit; a bearer token, when sent, decides alone.
func TestEdgeSessionWrites(t *testing.T) {
	t.Parallel()
	e, handled := newSessionBoxes(t, testSessions)
	for _, c := range []struct {
		name, method, path string
		hdr                []string
		status             int
		msg, handled       string
	}{
		{"no CSRF token", http.MethodPut, "/boxes/abc.json", []string{"Cookie", "sid=wendy"}, 403, "needs the page's CSRF token", ""},
		{"another session's token", http.MethodPut, "/boxes/abc.json", []string{"Cookie", "sid=wendy", auth.CSRFHeader, "tok-r"}, 403, "X-CSRF-Token", ""},
		{"a session without a token", http.MethodDelete, "/boxes/abc", []string{"Cookie", "sid=blank", auth.CSRFHeader, ""}, 403, "X-CSRF-Token", ""},
		{"DELETE without a token", http.MethodDelete, "/boxes/abc", []string{"Cookie", "sid=wendy"}, 403, "nothing was changed", ""},
		{"reader with its token", http.MethodPut, "/boxes/abc.json", []string{"Cookie", "sid=rita", auth.CSRFHeader, "tok-r"}, 403, "not a writer", ""},
		{"unknown session", http.MethodPut, "/boxes/abc.json", []string{"Cookie", "sid=nobody", auth.CSRFHeader, "tok-w"}, 401, "token missing", ""},
		{"bad bearer beside a good session", http.MethodPut, "/boxes/abc.json", []string{"Cookie", "sid=wendy", auth.CSRFHeader, "tok-w", "Authorization", "Bearer nope"}, 401, "token unknown", ""},
		{"Basic beside a good session", http.MethodPut, "/boxes/abc.json", []string{"Cookie", "sid=wendy", auth.CSRFHeader, "tok-w", "Authorization", "Basic eDp5"}, 401, "token missing", ""},
		{"writer with its token", http.MethodPut, "/boxes/abc.json", []string{"Cookie", "sid=wendy", auth.CSRFHeader, "tok-w"}, 204, "", "PUT wendy"},
		{"DELETE with its token", http.MethodDelete, "/boxes/abc", []string{"Cookie", "sid=wendy", auth.CSRFHeader, "tok-w"}, 204, "", "DELETE wendy"},
		{"bearer needs no CSRF token", http.MethodPut, "/boxes/abc.json", []string{"Cookie", "sid=rita", "Authorization", "Bearer writer"}, 204, "", "PUT tom"},
	} {
		*handled = nil
		body := &endless{}
		req := httptest.NewRequest(c.method, c.path, body)
		req.ContentLength = -1
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(c.hdr); i += 2 {
			req.Header.Set(c.hdr[i], c.hdr[i+1])
		}
		if c.status == 204 {
			req = httptest.NewRequest(c.method, c.path, strings.NewReader(`{"a":"b"}`))
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(c.hdr); i += 2 {
				req.Header.Set(c.hdr[i], c.hdr[i+1])
			}
		}
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != c.status || !strings.Contains(rec.Body.String(), c.msg) {
			t.Errorf("%s: %d %s, want %d %q", c.name, rec.Code, rec.Body, c.status, c.msg)
		}
		if c.status != 204 && body.read.Load() != 0 {
			t.Errorf("%s: %d bytes of the body read before refusing", c.name, body.read.Load())
		}
		if got := strings.Join(*handled, ","); got != c.handled {
			t.Errorf("%s: handlers ran %q, want %q", c.name, got, c.handled)
		}
	}
}

// TestEdgeSessionsOff: a SessionReader that is not configured, or none,
// leaves authorisation to bearer tokens exactly as before.
func TestEdgeSessionsOff(t *testing.T) {
	t.Parallel()
	off := testSessions
	off.configured = false
	for name, sessions := range map[string]auth.SessionReader{"not configured": off, "nil": nil} {
		e, handled := newSessionBoxes(t, sessions)
		rec := serve(e, http.MethodPut, "/boxes/abc.json", `{"a":"b"}`, "Content-Type", "application/json", "Cookie", "sid=wendy", auth.CSRFHeader, "tok-w")
		if rec.Code != 401 || !strings.Contains(rec.Body.String(), "token missing") || len(*handled) != 0 {
			t.Errorf("%s: a session write: %d %s, handlers %q", name, rec.Code, rec.Body, *handled)
		}
		rec = serve(e, http.MethodPut, "/boxes/abc.json", `{"a":"b"}`, "Content-Type", "application/json", "Authorization", "Bearer writer")
		if rec.Code != 204 || strings.Join(*handled, ",") != "PUT tom" {
			t.Errorf("%s: a bearer write: %d %s, handlers %q", name, rec.Code, rec.Body, *handled)
		}
	}
}

// TestBearerSessionReads: the validator's check (Authenticate) of a
// secured read accepts a session without a CSRF token (a read changes
// nothing), and refuses a session's write without one.
func TestBearerSessionReads(t *testing.T) {
	t.Parallel()
	b := Bearer{Sessions: testSessions, Missing: "missing"}
	get := httptest.NewRequest(http.MethodGet, "/x", nil)
	get.Header.Set("Cookie", "sid=rita")
	if err := b.Authenticate(context.Background(), authInput(get)); err != nil {
		t.Errorf("GET with a session: %v", err)
	}
	put := httptest.NewRequest(http.MethodPost, "/x", nil)
	put.Header.Set("Cookie", "sid=rita")
	var he *echo.HTTPError
	if err := b.Authenticate(context.Background(), authInput(put)); !errors.As(err, &he) || he.Code != 403 || he.Message != MissingCSRF {
		t.Errorf("POST with a session, no token: %v", err)
	}
}
