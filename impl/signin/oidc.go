package signin

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/sitelib/sitesvc/impl/auth"
)

// oidcClient is this site as an OpenID Connect relying party. The
// provider's discovery document is read on first need and kept; until it
// has been read, a sign-in tries again (a provider down at start does not
// stop the services).
type oidcClient struct {
	cfg         Config
	callbackURL string
	logger      *slog.Logger
	client      *http.Client

	mu         sync.Mutex
	provider   *oidc.Provider
	oauth      oauth2.Config
	verifier   *oidc.IDTokenVerifier
	endSession string
}

func newOIDCClient(cfg Config, base string, public *url.URL, logger *slog.Logger) *oidcClient {
	client := cfg.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = "groups"
	}
	return &oidcClient{cfg: cfg, callbackURL: public.Scheme + "://" + public.Host + base + auth.CallbackPath, logger: logger, client: client}
}

// discover reads the provider's discovery document unless it has been.
func (o *oidcClient) discover(ctx context.Context) (*oidc.Provider, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.provider != nil {
		return o.provider, nil
	}
	// The provider keeps the context for fetching its signing keys
	// later: it must outlive this request, so only the client (with its
	// timeout) comes from here.
	p, err := oidc.NewProvider(oidc.ClientContext(context.WithoutCancel(ctx), o.client), o.cfg.Issuer)
	if err != nil {
		o.logger.Warn("sign-in: reading the OpenID Connect provider's discovery document", "issuer", o.cfg.Issuer, "err", err)
		return nil, fmt.Errorf("the sign-in provider %s cannot be reached or is not an OpenID Connect provider: %w", o.cfg.Issuer, err)
	}
	var meta struct {
		EndSession string `json:"end_session_endpoint"`
	}
	if err := p.Claims(&meta); err != nil {
		return nil, fmt.Errorf("the sign-in provider's discovery document: %w", err)
	}
	scopes := o.cfg.Scopes
	if scopes == nil {
		scopes = []string{"profile", "email"}
	}
	o.provider, o.endSession = p, meta.EndSession
	o.oauth = oauth2.Config{
		ClientID:     o.cfg.ClientID,
		ClientSecret: o.cfg.ClientSecret,
		Endpoint:     p.Endpoint(),
		RedirectURL:  o.callbackURL,
		Scopes:       append([]string{oidc.ScopeOpenID}, slices.DeleteFunc(slices.Clone(scopes), func(s string) bool { return s == oidc.ScopeOpenID })...),
	}
	o.verifier = p.Verifier(&oidc.Config{ClientID: o.cfg.ClientID})
	return p, nil
}

// authCodeURL is the provider's authorization URL for a sign-in with
// state, nonce and PKCE verifier.
func (o *oidcClient) authCodeURL(ctx context.Context, state, nonce, verifier string) (string, error) {
	if _, err := o.discover(ctx); err != nil {
		return "", err
	}
	return o.oauth.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier)), nil
}

// identity is who the provider says signed in.
type identity struct {
	name    string
	groups  []string
	idToken string
}

// exchange redeems the authorization code (with the PKCE verifier),
// verifies the ID token and its nonce, and reads name and groups from it
// (or from userinfo when the ID token lacks the groups claim).
func (o *oidcClient) exchange(ctx context.Context, code, verifier, nonce string) (identity, error) {
	if _, err := o.discover(ctx); err != nil {
		return identity{}, err
	}
	ctx = oidc.ClientContext(ctx, o.client)
	tok, err := o.oauth.Exchange(ctx, code, oauth2.VerifierOption(verifier))
	if err != nil {
		return identity{}, fmt.Errorf("redeeming the authorization code: %w", err)
	}
	raw, ok := tok.Extra("id_token").(string)
	if !ok || raw == "" {
		return identity{}, errors.New("the provider's token answer has no ID token")
	}
	idt, err := o.verifier.Verify(ctx, raw)
	if err != nil {
		return identity{}, fmt.Errorf("verifying the ID token: %w", err)
	}
	if idt.Nonce != nonce {
		return identity{}, errors.New("the ID token's nonce is not this sign-in's")
	}
	var claims map[string]any
	if err := idt.Claims(&claims); err != nil {
		return identity{}, fmt.Errorf("reading the ID token: %w", err)
	}
	if _, has := claims[o.cfg.GroupsClaim]; !has && o.provider.UserInfoEndpoint() != "" {
		info, err := o.provider.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return identity{}, fmt.Errorf("reading userinfo for the %q claim: %w", o.cfg.GroupsClaim, err)
		}
		var more map[string]any
		if err := info.Claims(&more); err != nil {
			return identity{}, fmt.Errorf("reading userinfo: %w", err)
		}
		if info.Subject != idt.Subject {
			return identity{}, errors.New("userinfo is about another subject than the ID token")
		}
		claims[o.cfg.GroupsClaim] = more[o.cfg.GroupsClaim]
	}
	name := firstString(claims, "preferred_username", "email", "name")
	if name == "" {
		name = idt.Subject
	}
	return identity{name: name, groups: stringList(claims[o.cfg.GroupsClaim]), idToken: raw}, nil
}

// logoutURL is the provider's end_session URL for an ID token, returning
// to returnTo; "" when the provider has no end_session endpoint.
func (o *oidcClient) logoutURL(ctx context.Context, idToken, returnTo string) string {
	if _, err := o.discover(ctx); err != nil || o.endSession == "" {
		return ""
	}
	u, err := url.Parse(o.endSession)
	if err != nil {
		return ""
	}
	q := u.Query()
	if idToken != "" {
		q.Set("id_token_hint", idToken)
	}
	q.Set("client_id", o.cfg.ClientID)
	q.Set("post_logout_redirect_uri", returnTo)
	u.RawQuery = q.Encode()
	return u.String()
}

func firstString(claims map[string]any, names ...string) string {
	for _, n := range names {
		if s, ok := claims[n].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// stringList reads a groups claim: a JSON array of strings, or one
// string (some providers send a single group so).
func stringList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
