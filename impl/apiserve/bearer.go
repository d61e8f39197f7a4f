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

// Bearer is how a service finds who sends a request, at the edge, for
// every handler: the principal goes into the request's context
// (auth.WithPrincipal, auth.WithResolver), where handlers read it with
// auth.PrincipalFrom and nowhere else.
//
// An operation the document secures is authorised by it before anything
// reads the body (Policy.Bearer): a token is required and must be known
// (else 401), and Permit may refuse its principal (403); the messages are
// the service's, in its own words. A request without an Authorization
// header may instead be authorised by its browser session (Sessions): the
// session's principal goes through Permit as a token's does, and a write
// (any method but GET, HEAD, OPTIONS, TRACE) must carry the session's
// CSRF token in auth.CSRFHeader, else it is 403 before anything reads its
// body. A request with an Authorization header is judged by its token
// alone, session or not.
//
// Reads (GET, HEAD) are identified only when Reads is set, by Reads'
// rules, and refused by nobody here: the handler decides what a
// principal, an anonymous request or an unknown token may read.
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
	// Reads, when set, identifies every read.
	Reads *Readers
}

// Readers are the credentials a service's reads are identified by: a
// bearer token (Reads.AccessTokens, then Bearer.Tokens), else the
// browser's session (Reads.Sessions). The look-up runs when a handler
// first asks, so a read nobody asks about (a public file) costs none.
type Readers struct {
	// AccessTokens resolves tokens issued for reading only (IIIF access
	// tokens), tried before Bearer.Tokens; never consulted for writes.
	AccessTokens func(token string) (auth.Principal, bool)
	// Sessions reads a signed-in session of a read without a bearer token.
	Sessions auth.SessionReader
}

// Authenticate implements openapi3filter.AuthenticationFunc. A write the
// edge has already authorised (Policy.Bearer) carries its principal and
// passes without a second look-up.
func (b Bearer) Authenticate(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
	req := in.RequestValidationInput.Request
	if !safeMethod(req.Method) {
		// The edge attaches a principal to a write only once authorised.
		if _, err := auth.PrincipalFrom(req.Context()); err == nil {
			return nil
		}
	}
	if _, refused := b.principal(req); refused != nil {
		// The validator's middleware answers an echo.HTTPError as is.
		return &echo.HTTPError{Code: refused.Status, Message: refused.Message}
	}
	return nil
}

// Identify gives a read (GET, HEAD) its resolver, when Reads is set and
// the request may carry a credential: an Authorization or Cookie header,
// or any request when the sign-in is configured (a sign-in proxy's
// headers name the person). The edge calls it for every read; a handler
// reached by another path (PURL's IIIF probe, through the flow's mount)
// calls it itself. ok is false when req is returned as it was.
func (b *Bearer) Identify(req *http.Request) (*http.Request, bool) {
	r := b.Reads
	if r == nil {
		return req, false
	}
	_, authz := req.Header["Authorization"]
	_, cookie := req.Header["Cookie"]
	if !authz && !cookie && (r.Sessions == nil || !r.Sessions.Configured()) {
		return req, false
	}
	return req.WithContext(auth.WithResolver(req.Context(), func() (auth.Principal, error) { return b.reader(req) })), true
}

// reader is who sent the read req: a bearer token (an access token, else
// a token of Tokens), else the signed-in session.
func (b *Bearer) reader(req *http.Request) (auth.Principal, error) {
	if token, ok := auth.BearerToken(req); ok {
		if b.Reads.AccessTokens != nil {
			if p, ok := b.Reads.AccessTokens(token); ok {
				p.Via = auth.CredentialAccessToken
				return p, nil
			}
		}
		if b.Tokens != nil {
			if p, ok := b.Tokens.Authenticate(token); ok {
				p.Via = auth.CredentialToken
				return p, nil
			}
		}
		return auth.Principal{}, auth.ErrUnknownToken
	}
	if s := b.Reads.Sessions; s != nil && s.Configured() {
		if sess, ok := s.Session(req); ok {
			p := sess.Principal
			p.Via = auth.CredentialSession
			return p, nil
		}
	}
	return auth.Principal{}, auth.ErrAnonymous
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
	p.Via = auth.CredentialToken
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
	p = s.Principal
	p.Via = auth.CredentialSession
	p, refused = b.permit(p)
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
