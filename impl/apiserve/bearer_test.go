package apiserve

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/impl/auth"
)

type oneToken struct{ p auth.Principal }

func (o oneToken) Authenticate(token string) (auth.Principal, bool) {
	return o.p, token == "good"
}

func TestBearer(t *testing.T) {
	t.Parallel()
	b := Bearer{
		Tokens:  oneToken{auth.Principal{Name: "ann", Roles: []string{"reader"}}},
		Missing: "missing", NoTokens: "none", Unknown: "unknown",
		Permit: func(p auth.Principal) string {
			if !p.Has("writer") {
				return "forbidden for " + p.Name
			}
			return ""
		},
	}
	check := func(b Bearer, authz string) (int, string) {
		req := httptest.NewRequest(http.MethodPut, "/x", nil)
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		err := b.Authenticate(context.Background(), &openapi3filter.AuthenticationInput{RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req}})
		var he *echo.HTTPError
		if errors.As(err, &he) {
			return he.Code, he.Message.(string)
		}
		return 0, ""
	}
	for _, c := range []struct {
		b      Bearer
		authz  string
		status int
		msg    string
	}{
		{b, "", 401, "missing"},
		{b, "Bearer bad", 401, "unknown"},
		{b, "Bearer good", 403, "forbidden for ann"},
		{Bearer{Missing: "missing", NoTokens: "none"}, "Bearer good", 401, "none"},
	} {
		if status, msg := check(c.b, c.authz); status != c.status || msg != c.msg {
			t.Errorf("%q: %d %q, want %d %q", c.authz, status, msg, c.status, c.msg)
		}
	}
	b.Permit = nil
	if status, msg := check(b, "Bearer good"); status != 0 {
		t.Errorf("a known token without Permit: %d %q", status, msg)
	}
}
