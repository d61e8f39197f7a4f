package apiserve

import (
	"context"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/impl/auth"
)

// TokenChecker resolves bearer tokens (auth.Tokens is one).
type TokenChecker interface {
	Authenticate(token string) (auth.Principal, bool)
}

// Bearer is a service's check of the document's bearerAuth scheme, as
// the validator's AuthenticationFunc (Options.Auth): a token is required
// and must be known (else 401), Permit may refuse its principal (403), and
// Accept hands an accepted principal on to the handler. The messages are
// the service's, in its own words.
type Bearer struct {
	// Tokens resolves tokens; nil refuses every token (401 NoTokens).
	Tokens TokenChecker
	// Missing, NoTokens and Unknown are the 401 messages: no bearer
	// token, a service without tokens, a token it does not know.
	Missing, NoTokens, Unknown string
	// Permit returns why the principal may not use the operation ("" when
	// it may); nil permits every known token.
	Permit func(p auth.Principal) string
	// Accept receives an accepted principal and the validator's context.
	Accept func(ctx context.Context, req *http.Request, p auth.Principal)
}

// Authenticate implements openapi3filter.AuthenticationFunc. A request
// the edge has already authorised (Policy.Bearer) carries its principal,
// which is handed on without a second look-up.
func (b Bearer) Authenticate(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
	req := in.RequestValidationInput.Request
	p, ok := PrincipalFrom(req.Context())
	if !ok {
		var refused *Error
		if p, refused = b.principal(req); refused != nil {
			// The validator's middleware answers an echo.HTTPError as is.
			return &echo.HTTPError{Code: refused.Status, Message: refused.Message}
		}
	}
	if b.Accept != nil {
		b.Accept(ctx, req, p)
	}
	return nil
}

// principal resolves and permits the bearer token of req: 401 without a
// known token, 403 when Permit refuses it.
func (b Bearer) principal(req *http.Request) (auth.Principal, *Error) {
	token, ok := auth.BearerToken(req)
	if !ok {
		return auth.Principal{}, &Error{Status: http.StatusUnauthorized, Message: b.Missing}
	}
	if b.Tokens == nil {
		return auth.Principal{}, &Error{Status: http.StatusUnauthorized, Message: b.NoTokens}
	}
	p, ok := b.Tokens.Authenticate(token)
	if !ok {
		return auth.Principal{}, &Error{Status: http.StatusUnauthorized, Message: b.Unknown}
	}
	if b.Permit != nil {
		if why := b.Permit(p); why != "" {
			return auth.Principal{}, &Error{Status: http.StatusForbidden, Message: why}
		}
	}
	return p, nil
}

type principalKey struct{}

// PrincipalFrom is the principal the edge authorised for the request of
// ctx (Policy.Bearer), if any.
func PrincipalFrom(ctx context.Context) (auth.Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(auth.Principal)
	return p, ok
}
