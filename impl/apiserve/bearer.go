package apiserve

import (
	"context"
	"crypto/subtle"
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
//
// A request without an Authorization header may instead be authorised by
// its browser session (Sessions): the session's principal goes through
// Permit as a token's does, and a write (any method but GET, HEAD,
// OPTIONS, TRACE) must carry the session's CSRF token in auth.CSRFHeader,
// else it is 403 before anything reads its body. A request with an
// Authorization header is judged by its token alone, session or not.
type Bearer struct {
	// Tokens resolves tokens; nil refuses every token (401 NoTokens).
	Tokens TokenChecker
	// Sessions reads a request's signed-in browser session; nil (or one
	// not Configured) authorises by bearer token only.
	Sessions auth.SessionReader
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

// MissingCSRF is the 403 message of a write a browser session authorises
// that lacks the session's CSRF token.
const MissingCSRF = "this write is authorised by a browser session, so it needs the page's CSRF token (<meta name=\"csrf-token\">) in the " + auth.CSRFHeader + " header; nothing was changed"

// principal resolves and permits the bearer token of req, or without an
// Authorization header its session: 401 without either, 403 when a
// session's write lacks its CSRF token or Permit refuses the principal.
func (b Bearer) principal(req *http.Request) (auth.Principal, *Error) {
	token, ok := auth.BearerToken(req)
	if !ok {
		if p, ok, refused := b.session(req); ok || refused != nil {
			return p, refused
		}
		return auth.Principal{}, &Error{Status: http.StatusUnauthorized, Message: b.Missing}
	}
	if b.Tokens == nil {
		return auth.Principal{}, &Error{Status: http.StatusUnauthorized, Message: b.NoTokens}
	}
	p, ok := b.Tokens.Authenticate(token)
	if !ok {
		return auth.Principal{}, &Error{Status: http.StatusUnauthorized, Message: b.Unknown}
	}
	return b.permit(p)
}

// session is the principal of req's browser session, when req has no
// Authorization header and a session: ok is false without one (refused
// is nil then), refused is set when its write lacks the CSRF token or
// Permit refuses it.
func (b Bearer) session(req *http.Request) (p auth.Principal, ok bool, refused *Error) {
	if b.Sessions == nil || !b.Sessions.Configured() || req.Header.Get("Authorization") != "" {
		return auth.Principal{}, false, nil
	}
	s, ok := b.Sessions.Session(req)
	if !ok {
		return auth.Principal{}, false, nil
	}
	if !safeMethod(req.Method) && !csrfMatches(req.Header.Get(auth.CSRFHeader), s.CSRFToken) {
		return auth.Principal{}, true, &Error{Status: http.StatusForbidden, Message: MissingCSRF}
	}
	p, refused = b.permit(s.Principal)
	return p, true, refused
}

// permit runs Permit on an authenticated principal (403 when it refuses).
func (b Bearer) permit(p auth.Principal) (auth.Principal, *Error) {
	if b.Permit != nil {
		if why := b.Permit(p); why != "" {
			return auth.Principal{}, &Error{Status: http.StatusForbidden, Message: why}
		}
	}
	return p, nil
}

// safeMethod reports whether method only reads (RFC 9110 9.2.1), so a
// cross-site request with it changes nothing and needs no CSRF token.
func safeMethod(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
		return true
	}
	return false
}

// csrfMatches compares a sent CSRF token with the session's in constant
// time; a session without a token matches nothing.
func csrfMatches(sent, want string) bool {
	return want != "" && subtle.ConstantTimeCompare([]byte(sent), []byte(want)) == 1
}

type principalKey struct{}

// PrincipalFrom is the principal the edge authorised for the request of
// ctx (Policy.Bearer), if any.
func PrincipalFrom(ctx context.Context) (auth.Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(auth.Principal)
	return p, ok
}
