package auth

import (
	"context"
	"errors"
	"sync"
)

// Credential is how a request's principal proved who it is.
type Credential uint8

const (
	// CredentialToken is a bearer token of the token file (sitesvc tokens add).
	CredentialToken Credential = iota + 1
	// CredentialAccessToken is an IIIF access token, issued to a signed-in
	// session for a viewer and accepted on reads only.
	CredentialAccessToken
	// CredentialSession is the browser's signed-in session: its cookie, or
	// a trusted sign-in proxy's headers.
	CredentialSession
)

// String names the credential as messages to its holder do.
func (c Credential) String() string {
	switch c {
	case CredentialToken:
		return "token"
	case CredentialAccessToken:
		return "access token"
	case CredentialSession:
		return "session"
	}
	return "no credential"
}

// What PrincipalFrom says of a request whose sender is nobody known.
var (
	// ErrAnonymous: the request carries no credential (or came through no
	// edge that looked).
	ErrAnonymous = errors.New("anonymous request")
	// ErrUnknownToken: the request carries a bearer token nobody issued
	// (or one expired or revoked); it is neither anyone nor anonymous.
	ErrUnknownToken = errors.New("unknown bearer token")
)

// The principal of a request travels in its context, put there by the HTTP
// edge (impl/apiserve) and read by handlers with PrincipalFrom: the one
// way a handler learns who sent a request.

type principalKey struct{}

// resolution is the edge's answer for one request, found at most once.
type resolution struct {
	once    sync.Once
	resolve func() (Principal, error)
	p       Principal
	err     error
}

// WithPrincipal returns ctx carrying p, a principal the edge has already
// authorised for the request (a write's bearer token or session).
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	r := &resolution{p: p}
	r.once.Do(func() {})
	return context.WithValue(ctx, principalKey{}, r)
}

// WithResolver returns ctx carrying resolve, the edge's look-up of who
// sent a read, run when a handler first asks (PrincipalFrom) and at most
// once: a read of a public file looks no session up.
func WithResolver(ctx context.Context, resolve func() (Principal, error)) context.Context {
	return context.WithValue(ctx, principalKey{}, &resolution{resolve: resolve})
}

// PrincipalFrom is who sent the request of ctx, as the edge found it
// (with Via saying by what credential). The error is ErrAnonymous or
// ErrUnknownToken when nobody known did.
func PrincipalFrom(ctx context.Context) (Principal, error) {
	r, _ := ctx.Value(principalKey{}).(*resolution)
	if r == nil {
		return Principal{}, ErrAnonymous
	}
	r.once.Do(func() { r.p, r.err = r.resolve() })
	return r.p, r.err
}
