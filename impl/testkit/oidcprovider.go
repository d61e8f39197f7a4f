package testkit

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/zitadel/oidc/v3/pkg/oidc"
	"github.com/zitadel/oidc/v3/pkg/op"
)

// OIDCUser is a person of an OIDCProvider.
type OIDCUser struct {
	// Username is the login name and the preferred_username claim; the
	// subject is "sub-" + Username.
	Username, Password string
	Name, Email        string
	Groups             []string
}

// OIDCProviderConfig configures an OIDCProvider.
type OIDCProviderConfig struct {
	Users []OIDCUser
	// ClientID and ClientSecret are the one client (a confidential web
	// application using client_secret_basic or _post).
	ClientID, ClientSecret string
	// GroupsClaim is the claim listing a user's groups ("" is "groups").
	GroupsClaim string
	// GroupsOnlyInUserinfo leaves the groups out of the ID token, as
	// some providers do: a client must read them from userinfo.
	GroupsOnlyInUserinfo bool
}

// OIDCProvider is a real OpenID Connect provider for tests, built on
// zitadel/oidc's OpenID-certified op package: discovery, authorization
// endpoint with PKCE (S256), token, userinfo, keys and end_session, over
// an in-memory store of users, one client, and a login form a browser (or
// a Go client with a cookie jar) fills in. A sign-in at the form also
// starts the provider's own single-sign-on session (a cookie): a second
// authorization request skips the form until end_session ends it.
type OIDCProvider struct {
	// Issuer is the provider's URL (http://127.0.0.1:port).
	Issuer string
	store  *oidcStore
	srv    *http.Server
}

// StartOIDCProvider starts a provider on a free port of 127.0.0.1 and
// stops it when the test ends. Redirect URIs are registered with
// AllowRedirect once the client's address is known.
func StartOIDCProvider(t testing.TB, cfg OIDCProviderConfig) *OIDCProvider {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testkit: OIDC provider: %v", err)
	}
	issuer := "http://" + ln.Addr().String()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.GroupsClaim == "" {
		cfg.GroupsClaim = "groups"
	}
	st := &oidcStore{
		cfg:      cfg,
		key:      key,
		keyID:    randomHex(8),
		requests: map[string]*oidcAuthRequest{},
		codes:    map[string]string{},
		tokens:   map[string]oidcToken{},
		sso:      map[string]string{},
	}
	var cryptoKey [32]byte
	if _, err := rand.Read(cryptoKey[:]); err != nil {
		t.Fatal(err)
	}
	provider, err := op.NewProvider(&op.Config{
		CryptoKey:                cryptoKey,
		CodeMethodS256:           true,
		AuthMethodPost:           true,
		DefaultLogoutRedirectURI: "/signed-out",
	}, st, op.StaticIssuer(issuer), op.WithAllowInsecure())
	if err != nil {
		t.Fatalf("testkit: OIDC provider: %v", err)
	}
	st.callback = op.AuthCallbackURL(provider)
	mux := http.NewServeMux()
	interceptor := op.NewIssuerInterceptor(provider.IssuerFromRequest)
	mux.Handle("/login", interceptor.HandlerFunc(st.login))
	mux.HandleFunc("/signed-out", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintln(w, "signed out of the test provider")
	})
	mux.Handle("/", provider)
	p := &OIDCProvider{Issuer: issuer, store: st, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	go p.srv.Serve(ln) //nolint:errcheck // ends with Close
	t.Cleanup(func() { p.srv.Close() })
	return p
}

// AllowRedirect registers a redirect URI (the relying party's callback)
// and a post-logout redirect URI of the client.
func (p *OIDCProvider) AllowRedirect(redirectURI, postLogoutURI string) {
	p.store.mu.Lock()
	defer p.store.mu.Unlock()
	if redirectURI != "" {
		p.store.redirects = append(p.store.redirects, redirectURI)
	}
	if postLogoutURI != "" {
		p.store.postLogout = append(p.store.postLogout, postLogoutURI)
	}
}

// AuthRequests are the authorization requests the provider received, in
// order, as a test reads them: the client, the PKCE method, the scopes.
func (p *OIDCProvider) AuthRequests() []OIDCAuthRequest {
	p.store.mu.Lock()
	defer p.store.mu.Unlock()
	return slices.Clone(p.store.log)
}

// EndedSessions are the users whose provider session end_session ended.
func (p *OIDCProvider) EndedSessions() []string {
	p.store.mu.Lock()
	defer p.store.mu.Unlock()
	return slices.Clone(p.store.ended)
}

// OIDCAuthRequest is an authorization request as received.
type OIDCAuthRequest struct {
	ClientID, RedirectURI string
	CodeChallengeMethod   string
	Scopes                []string
}

// oidcStore is the provider's op.Storage, in memory.
type oidcStore struct {
	cfg      OIDCProviderConfig
	key      *rsa.PrivateKey
	keyID    string
	callback func(context.Context, string) string

	mu                    sync.Mutex
	redirects, postLogout []string
	requests              map[string]*oidcAuthRequest
	codes                 map[string]string // code → request id
	tokens                map[string]oidcToken
	sso                   map[string]string // SSO cookie → username
	log                   []OIDCAuthRequest
	ended                 []string
}

type oidcToken struct {
	subject, clientID string
	scopes            []string
	expires           time.Time
}

type oidcAuthRequest struct {
	id       string
	req      oidc.AuthRequest
	subject  string
	authTime time.Time
	done     bool
}

func (a *oidcAuthRequest) GetID() string                      { return a.id }
func (a *oidcAuthRequest) GetACR() string                     { return "" }
func (a *oidcAuthRequest) GetAMR() []string                   { return []string{"pwd"} }
func (a *oidcAuthRequest) GetAudience() []string              { return []string{a.req.ClientID} }
func (a *oidcAuthRequest) GetAuthTime() time.Time             { return a.authTime }
func (a *oidcAuthRequest) GetClientID() string                { return a.req.ClientID }
func (a *oidcAuthRequest) GetNonce() string                   { return a.req.Nonce }
func (a *oidcAuthRequest) GetRedirectURI() string             { return a.req.RedirectURI }
func (a *oidcAuthRequest) GetScopes() []string                { return a.req.Scopes }
func (a *oidcAuthRequest) GetState() string                   { return a.req.State }
func (a *oidcAuthRequest) GetSubject() string                 { return a.subject }
func (a *oidcAuthRequest) Done() bool                         { return a.done }
func (a *oidcAuthRequest) GetResponseType() oidc.ResponseType { return a.req.ResponseType }
func (a *oidcAuthRequest) GetResponseMode() oidc.ResponseMode { return a.req.ResponseMode }
func (a *oidcAuthRequest) GetCodeChallenge() *oidc.CodeChallenge {
	if a.req.CodeChallenge == "" {
		return nil
	}
	return &oidc.CodeChallenge{Challenge: a.req.CodeChallenge, Method: a.req.CodeChallengeMethod}
}

func randomHex(n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

type notFound struct{ what string }

func (e notFound) Error() string { return e.what + " not found" }
func (notFound) IsNotFound()     {}

func (s *oidcStore) user(subject string) (OIDCUser, bool) {
	for _, u := range s.cfg.Users {
		if "sub-"+u.Username == subject {
			return u, true
		}
	}
	return OIDCUser{}, false
}

func (s *oidcStore) CreateAuthRequest(_ context.Context, req *oidc.AuthRequest, _ string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a := &oidcAuthRequest{id: randomHex(16), req: *req}
	s.requests[a.id] = a
	s.log = append(s.log, OIDCAuthRequest{ClientID: req.ClientID, RedirectURI: req.RedirectURI, CodeChallengeMethod: string(req.CodeChallengeMethod), Scopes: req.Scopes})
	return a, nil
}

func (s *oidcStore) AuthRequestByID(_ context.Context, id string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.requests[id]; ok {
		return a, nil
	}
	return nil, notFound{"auth request"}
}

func (s *oidcStore) AuthRequestByCode(_ context.Context, code string) (op.AuthRequest, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := s.requests[s.codes[code]]; ok {
		return a, nil
	}
	return nil, notFound{"code"}
}

func (s *oidcStore) SaveAuthCode(_ context.Context, id, code string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[code] = id
	return nil
}

func (s *oidcStore) DeleteAuthRequest(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.requests, id)
	for code, rid := range s.codes {
		if rid == id {
			delete(s.codes, code)
		}
	}
	return nil
}

func (s *oidcStore) CreateAccessToken(_ context.Context, req op.TokenRequest) (string, time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := randomHex(16)
	var clientID string
	if a, ok := req.(*oidcAuthRequest); ok {
		clientID = a.req.ClientID
	}
	exp := time.Now().Add(5 * time.Minute)
	s.tokens[id] = oidcToken{subject: req.GetSubject(), clientID: clientID, scopes: req.GetScopes(), expires: exp}
	return id, exp, nil
}

func (s *oidcStore) CreateAccessAndRefreshTokens(context.Context, op.TokenRequest, string) (string, string, time.Time, error) {
	return "", "", time.Time{}, errors.New("the test provider issues no refresh tokens")
}

func (s *oidcStore) TokenRequestByRefreshToken(context.Context, string) (op.RefreshTokenRequest, error) {
	return nil, op.ErrInvalidRefreshToken
}

func (s *oidcStore) TerminateSession(_ context.Context, userID, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.user(userID)
	if !ok {
		return nil
	}
	for cookie, name := range s.sso {
		if name == u.Username {
			delete(s.sso, cookie)
		}
	}
	s.ended = append(s.ended, u.Username)
	return nil
}

func (s *oidcStore) RevokeToken(_ context.Context, tokenOrID, _, _ string) *oidc.Error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tokens, tokenOrID)
	return nil
}

func (s *oidcStore) GetRefreshTokenInfo(context.Context, string, string) (string, string, error) {
	return "", "", op.ErrInvalidRefreshToken
}

type oidcKey struct {
	id  string
	key *rsa.PrivateKey
}

func (k oidcKey) SignatureAlgorithm() jose.SignatureAlgorithm { return jose.RS256 }
func (k oidcKey) Algorithm() jose.SignatureAlgorithm          { return jose.RS256 }
func (k oidcKey) ID() string                                  { return k.id }
func (k oidcKey) Use() string                                 { return "sig" }

type oidcSigningKey struct{ oidcKey }

func (k oidcSigningKey) Key() any { return k.key }

type oidcPublicKey struct{ oidcKey }

func (k oidcPublicKey) Key() any { return &k.key.PublicKey }

func (s *oidcStore) SigningKey(context.Context) (op.SigningKey, error) {
	return oidcSigningKey{oidcKey{s.keyID, s.key}}, nil
}

func (s *oidcStore) SignatureAlgorithms(context.Context) ([]jose.SignatureAlgorithm, error) {
	return []jose.SignatureAlgorithm{jose.RS256}, nil
}

func (s *oidcStore) KeySet(context.Context) ([]op.Key, error) {
	return []op.Key{oidcPublicKey{oidcKey{s.keyID, s.key}}}, nil
}

func (s *oidcStore) GetClientByClientID(_ context.Context, clientID string) (op.Client, error) {
	if clientID != s.cfg.ClientID {
		return nil, notFound{"client"}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return &oidcClient{id: clientID, redirects: slices.Clone(s.redirects), postLogout: slices.Clone(s.postLogout)}, nil
}

func (s *oidcStore) AuthorizeClientIDSecret(_ context.Context, clientID, secret string) error {
	if clientID != s.cfg.ClientID || secret != s.cfg.ClientSecret {
		return errors.New("unknown client or wrong secret")
	}
	return nil
}

// SetUserinfoFromScopes is deprecated in op; SetUserinfoFromRequest
// fills the ID token.
func (s *oidcStore) SetUserinfoFromScopes(context.Context, *oidc.UserInfo, string, string, []string) error {
	return nil
}

// SetUserinfoFromRequest fills the ID token's claims.
func (s *oidcStore) SetUserinfoFromRequest(_ context.Context, info *oidc.UserInfo, req op.IDTokenRequest, _ []string) error {
	return s.userinfo(info, req.GetSubject(), !s.cfg.GroupsOnlyInUserinfo)
}

// SetUserinfoFromToken answers the userinfo endpoint.
func (s *oidcStore) SetUserinfoFromToken(_ context.Context, info *oidc.UserInfo, tokenID, subject, _ string) error {
	s.mu.Lock()
	tok, ok := s.tokens[tokenID]
	s.mu.Unlock()
	if !ok || time.Now().After(tok.expires) {
		return errors.New("the access token is unknown or expired")
	}
	return s.userinfo(info, tok.subject, true)
}

func (s *oidcStore) userinfo(info *oidc.UserInfo, subject string, groups bool) error {
	u, ok := s.user(subject)
	if !ok {
		return notFound{"user"}
	}
	info.Subject = subject
	info.PreferredUsername = u.Username
	info.Name = u.Name
	info.Email = u.Email
	info.EmailVerified = oidc.Bool(u.Email != "")
	if groups {
		info.AppendClaims(s.cfg.GroupsClaim, u.Groups)
	}
	return nil
}

func (s *oidcStore) SetIntrospectionFromToken(_ context.Context, resp *oidc.IntrospectionResponse, tokenID, subject, clientID string) error {
	s.mu.Lock()
	tok, ok := s.tokens[tokenID]
	s.mu.Unlock()
	if !ok {
		return notFound{"token"}
	}
	resp.Active = time.Now().Before(tok.expires)
	resp.Subject = tok.subject
	resp.ClientID = tok.clientID
	return nil
}

func (s *oidcStore) GetPrivateClaimsFromScopes(context.Context, string, string, []string) (map[string]any, error) {
	return nil, nil
}

func (s *oidcStore) GetKeyByIDAndClientID(context.Context, string, string) (*jose.JSONWebKey, error) {
	return nil, errors.New("the test provider has no client keys (JWT profile)")
}

func (s *oidcStore) ValidateJWTProfileScopes(_ context.Context, _ string, scopes []string) ([]string, error) {
	return scopes, nil
}

func (s *oidcStore) Health(context.Context) error { return nil }

// ssoCookie is the provider's own single-sign-on session.
const ssoCookie = "testop_sso"

// login is the provider's login form: GET shows it (or, with a live SSO
// session, signs the request in at once), POST checks the password.
func (s *oidcStore) login(w http.ResponseWriter, r *http.Request) {
	id := r.FormValue("authRequestID")
	s.mu.Lock()
	a, ok := s.requests[id]
	s.mu.Unlock()
	if !ok {
		http.Error(w, "unknown or finished sign-in request", http.StatusBadRequest)
		return
	}
	var username, msg string
	switch r.Method {
	case http.MethodGet:
		if c, err := r.Cookie(ssoCookie); err == nil {
			s.mu.Lock()
			username = s.sso[c.Value]
			s.mu.Unlock()
		}
	case http.MethodPost:
		u, p := r.PostFormValue("username"), r.PostFormValue("password")
		for _, user := range s.cfg.Users {
			if user.Username == u && user.Password == p && p != "" {
				username = u
			}
		}
		if username == "" {
			msg = "Wrong username or password."
		} else {
			cookie := randomHex(16)
			s.mu.Lock()
			s.sso[cookie] = username
			s.mu.Unlock()
			http.SetCookie(w, &http.Cookie{Name: ssoCookie, Value: cookie, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
		}
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if username != "" {
		s.mu.Lock()
		a.subject, a.authTime, a.done = "sub-"+username, time.Now(), true
		s.mu.Unlock()
		http.Redirect(w, r, s.callback(r.Context(), id), http.StatusFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if msg != "" {
		w.WriteHeader(http.StatusUnauthorized)
	}
	loginForm.Execute(w, struct{ ID, Message string }{id, msg}) //nolint:errcheck // a test page
}

var loginForm = template.Must(template.New("login").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test provider: sign in</title></head>
<body><main><h1>Test provider: sign in</h1>
{{if .Message}}<p role="alert" id="error">{{.Message}}</p>{{end}}
<form method="post" action="/login">
<input type="hidden" name="authRequestID" value="{{.ID}}">
<p><label for="username">Username</label> <input id="username" name="username" autocomplete="username"></p>
<p><label for="password">Password</label> <input id="password" name="password" type="password" autocomplete="current-password"></p>
<p><button type="submit" id="submit">Sign in</button></p>
</form></main></body></html>
`))

// oidcClient is the provider's one client, a confidential web app.
type oidcClient struct {
	id                    string
	redirects, postLogout []string
}

func (c *oidcClient) GetID() string                       { return c.id }
func (c *oidcClient) RedirectURIs() []string              { return c.redirects }
func (c *oidcClient) PostLogoutRedirectURIs() []string    { return c.postLogout }
func (c *oidcClient) ApplicationType() op.ApplicationType { return op.ApplicationTypeWeb }
func (c *oidcClient) AuthMethod() oidc.AuthMethod         { return oidc.AuthMethodBasic }
func (c *oidcClient) ResponseTypes() []oidc.ResponseType {
	return []oidc.ResponseType{oidc.ResponseTypeCode}
}
func (c *oidcClient) GrantTypes() []oidc.GrantType         { return []oidc.GrantType{oidc.GrantTypeCode} }
func (c *oidcClient) LoginURL(id string) string            { return "/login?authRequestID=" + id }
func (c *oidcClient) AccessTokenType() op.AccessTokenType  { return op.AccessTokenTypeBearer }
func (c *oidcClient) IDTokenLifetime() time.Duration       { return 5 * time.Minute }
func (c *oidcClient) DevMode() bool                        { return true } // http redirect URIs on 127.0.0.1
func (c *oidcClient) IsScopeAllowed(scope string) bool     { return scope == "groups" }
func (c *oidcClient) IDTokenUserinfoClaimsAssertion() bool { return true }
func (c *oidcClient) ClockSkew() time.Duration             { return 0 }
func (c *oidcClient) RestrictAdditionalIdTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}
func (c *oidcClient) RestrictAdditionalAccessTokenScopes() func([]string) []string {
	return func(s []string) []string { return s }
}

// String names the provider in test logs.
func (p *OIDCProvider) String() string {
	return "test OIDC provider at " + strings.TrimPrefix(p.Issuer, "http://")
}
