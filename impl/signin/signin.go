// Package signin is the site-wide staff sign-in (docs/auth.md): OpenID
// Connect (authorization code flow with PKCE, coreos/go-oidc and
// golang.org/x/oauth2) against the institution's provider, or trusted
// headers from a sign-in proxy accepted only from its addresses. Provider
// groups become roles and rights groups through --group-map. Browser
// sessions are server-side (alexedwards/scs) in the Hours database, so
// instances sharing a PostgreSQL database share them; each carries a CSRF
// token that every write it authorises must send back (auth.CSRFHeader).
//
// A SignIn is an auth.SessionReader for the services and a server.Service
// mounted at <public-url>/auth (auth.LoginPath, CallbackPath, LogoutPath,
// and a status page).
package signin

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/alexedwards/scs/v2"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/hours/store"
)

// Config configures the sign-in. With neither Issuer nor ProxyUserHeader
// set, sign-in is not configured: Configured is false and every request
// is anonymous.
type Config struct {
	// PublicURL is the site's public URL; the sign-in's paths sit under
	// it, its scheme decides the cookie's Secure attribute, and return
	// addresses must be under it.
	PublicURL string
	// DB is the Hours database (a SQLite path or a postgres:// URL) that
	// holds the sessions.
	DB string

	// Issuer, ClientID and ClientSecret name the OpenID Connect provider
	// and this site's registration with it (redirect URI
	// <public-url>/auth/callback).
	Issuer, ClientID, ClientSecret string
	// GroupsClaim is the ID token (or userinfo) claim listing the
	// person's groups; "" is "groups".
	GroupsClaim string
	// Scopes are requested beside "openid"; nil is profile and email.
	Scopes []string

	// ProxyUserHeader and ProxyGroupsHeader name the headers a sign-in
	// proxy (Shibboleth, mod_auth_openidc) sets; they are believed only
	// on requests from ProxyAddresses.
	ProxyUserHeader, ProxyGroupsHeader string
	ProxyAddresses                     []netip.Prefix
	// ProxyLogoutURL is where sign-out sends the browser in proxy mode
	// (the proxy's own logout, such as /Shibboleth.sso/Logout); "" shows
	// a page asking to close the browser.
	ProxyLogoutURL string

	// GroupMap turns provider groups into roles and rights groups.
	GroupMap GroupMap
	// IdleTimeout ends a session unused this long; AbsoluteTimeout ends
	// every session this long after sign-in. Zero: 30 min and 8 h.
	IdleTimeout, AbsoluteTimeout time.Duration
	// HTTPClient talks to the provider; nil is a client with a 10 s
	// timeout.
	HTTPClient *http.Client
	Logger     *slog.Logger
}

// Default timeouts (docs/auth.md).
const (
	DefaultIdleTimeout     = 30 * time.Minute
	DefaultAbsoluteTimeout = 8 * time.Hour
	// maxTouchInterval bounds how often a session's idle expiry is
	// pushed back (one database write): every tenth of the idle timeout,
	// at most once a minute, so the idle timeout is exact to within that.
	maxTouchInterval = time.Minute
	// PendingSignInTimeout is how long a sign-in may take at the
	// provider: the session /auth/login starts ends then unless the
	// callback has signed it in (which renews it for the timeouts above).
	PendingSignInTimeout = 15 * time.Minute
	// CookieName is the session cookie's name.
	CookieName = "sitesvc_session"
)

// Session keys (scs values; strings and int64 only, which its gob codec
// needs no registration for).
const (
	keyName     = "name"
	keyRoles    = "roles" // newline-separated
	keyCSRF     = "csrf"
	keyIDToken  = "id_token"
	keyTouched  = "touched" // unix milliseconds of the last idle extension
	keyState    = "login_state"
	keyVerifier = "login_verifier"
	keyNonce    = "login_nonce"
	keyReturn   = "login_return"
)

// SignIn is the site's sign-in.
type SignIn struct {
	cfg      Config
	public   *url.URL
	base     string // public URL's path without the trailing slash
	store    *store.Store
	sessions *scs.SessionManager
	oidc     *oidcClient
	proxy    *proxyMode
	logger   *slog.Logger
	stop     context.CancelFunc
	done     chan struct{}
}

var _ auth.SessionReader = (*SignIn)(nil)

// New builds the sign-in from cfg: nothing is opened when it configures
// no method. OpenID Connect and proxy mode exclude each other.
func New(ctx context.Context, cfg Config) (*SignIn, error) {
	s := &SignIn{cfg: cfg, logger: cfg.Logger}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	public, err := url.Parse(cfg.PublicURL)
	if err != nil || public.Host == "" || (public.Scheme != "http" && public.Scheme != "https") {
		return nil, fmt.Errorf("sign-in: the public URL %q is not an absolute http(s) URL", cfg.PublicURL)
	}
	s.public, s.base = public, strings.TrimRight(public.Path, "/")
	oidcSet := cfg.Issuer != "" || cfg.ClientID != "" || cfg.ClientSecret != ""
	proxySet := cfg.ProxyUserHeader != "" || cfg.ProxyGroupsHeader != "" || len(cfg.ProxyAddresses) > 0
	switch {
	case oidcSet && proxySet:
		return nil, errors.New("sign-in: both OpenID Connect (--oidc-*) and proxy headers (--auth-proxy-*) are set: choose one")
	case !oidcSet && !proxySet:
		if len(cfg.GroupMap) > 0 {
			return nil, errors.New("sign-in: --group-map is set but no sign-in is (--oidc-issuer or --auth-proxy-user-header)")
		}
		return s, nil
	case oidcSet && (cfg.Issuer == "" || cfg.ClientID == ""):
		return nil, errors.New("sign-in: OpenID Connect needs --oidc-issuer and --oidc-client-id (and usually --oidc-client-secret)")
	case proxySet && (cfg.ProxyUserHeader == "" || len(cfg.ProxyAddresses) == 0):
		return nil, errors.New("sign-in: proxy mode needs --auth-proxy-user-header and --auth-proxy-addresses (the proxy's addresses: headers from anywhere else are ignored)")
	}
	if s.cfg.IdleTimeout == 0 {
		s.cfg.IdleTimeout = DefaultIdleTimeout
	}
	if s.cfg.AbsoluteTimeout == 0 {
		s.cfg.AbsoluteTimeout = DefaultAbsoluteTimeout
	}
	if s.cfg.IdleTimeout < 0 || s.cfg.AbsoluteTimeout < 0 {
		return nil, errors.New("sign-in: session timeouts must not be negative")
	}
	if s.cfg.IdleTimeout > s.cfg.AbsoluteTimeout {
		return nil, fmt.Errorf("sign-in: the idle timeout %s is longer than the absolute timeout %s", s.cfg.IdleTimeout, s.cfg.AbsoluteTimeout)
	}
	if s.store, err = store.Open(ctx, cfg.DB); err != nil {
		return nil, fmt.Errorf("sign-in: the sessions database: %w", err)
	}
	db, dialect := s.store.SessionsDB()
	sessions := &sessionStore{db: db, dialect: dialect}
	sm := scs.New()
	sm.Store = sessions
	sm.HashTokenInStore = true
	sm.Lifetime = s.cfg.AbsoluteTimeout
	sm.IdleTimeout = s.cfg.IdleTimeout
	sm.Cookie = scs.SessionCookie{
		Name:     CookieName,
		Path:     s.base + "/",
		HttpOnly: true,
		SameSite: http.SameSiteLaxMode,
		Secure:   public.Scheme == "https",
		// A browser session cookie: the server's expiry (idle and
		// absolute) is what ends a session, and a cookie without an
		// expiry never outlives it in the browser by mistake.
		Persist: false,
	}
	s.sessions = sm
	if oidcSet {
		s.oidc = newOIDCClient(s.cfg, s.base, public, s.logger)
		s.oidc.discover(ctx) // early, to log a wrong issuer at start
	} else {
		key, err := proxyCSRFKey(ctx, sessions)
		if err != nil {
			s.store.Close()
			return nil, err
		}
		s.proxy = &proxyMode{userHeader: cfg.ProxyUserHeader, groupsHeader: cfg.ProxyGroupsHeader, addresses: cfg.ProxyAddresses, csrfKey: key, logoutURL: cfg.ProxyLogoutURL, groupMap: cfg.GroupMap}
	}
	cleanCtx, stop := context.WithCancel(context.Background())
	s.stop, s.done = stop, make(chan struct{})
	go s.deleteExpired(cleanCtx, sessions)
	return s, nil
}

// deleteExpired empties the table of expired sessions every few minutes.
func (s *SignIn) deleteExpired(ctx context.Context, st *sessionStore) {
	defer close(s.done)
	tick := time.NewTicker(5 * time.Minute)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if _, err := st.deleteExpired(ctx); err != nil && ctx.Err() == nil {
				s.logger.Warn("sign-in: deleting expired sessions", "err", err)
			}
		}
	}
}

// Configured reports whether a sign-in method is configured.
func (s *SignIn) Configured() bool { return s != nil && (s.oidc != nil || s.proxy != nil) }

// Mode is "oidc", "proxy" or "" (not configured).
func (s *SignIn) Mode() string {
	switch {
	case s.oidc != nil:
		return "oidc"
	case s.proxy != nil:
		return "proxy"
	}
	return ""
}

// Session returns r's signed-in session: from the session cookie, or in
// proxy mode from the proxy's headers on a request from its address.
func (s *SignIn) Session(r *http.Request) (auth.Session, bool) {
	switch {
	case s == nil:
		return auth.Session{}, false
	case s.proxy != nil:
		return s.proxy.session(r)
	case s.oidc != nil:
		ctx, ok := s.load(r)
		if !ok {
			return auth.Session{}, false
		}
		return s.signedIn(ctx)
	}
	return auth.Session{}, false
}

// load reads r's session into a context (ok false without a cookie or
// when the store fails, which is logged: a broken store signs nobody in).
func (s *SignIn) load(r *http.Request) (context.Context, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return nil, false
	}
	ctx, err := s.sessions.Load(r.Context(), c.Value)
	if err != nil {
		s.logger.ErrorContext(r.Context(), "sign-in: reading a session", "err", err)
		return nil, false
	}
	return ctx, true
}

// signedIn is the session of a loaded context, pushing its idle expiry
// back at most once per touchInterval.
func (s *SignIn) signedIn(ctx context.Context) (auth.Session, bool) {
	name := s.sessions.GetString(ctx, keyName)
	if name == "" {
		return auth.Session{}, false
	}
	sess := auth.Session{
		Principal: auth.Principal{Name: name, Roles: splitRoles(s.sessions.GetString(ctx, keyRoles))},
		CSRFToken: s.sessions.GetString(ctx, keyCSRF),
	}
	now := time.Now().UnixMilli()
	if now-s.sessions.GetInt64(ctx, keyTouched) >= min(maxTouchInterval, s.cfg.IdleTimeout/10).Milliseconds() {
		s.sessions.Put(ctx, keyTouched, now)
		if _, _, err := s.sessions.Commit(ctx); err != nil {
			s.logger.ErrorContext(ctx, "sign-in: extending a session", "err", err)
		}
	}
	return sess, true
}

func splitRoles(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// randomToken is 32 random bytes, base64url.
func randomToken() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("sign-in: the system's random source failed: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Name is the server.Service name.
func (s *SignIn) Name() string { return "auth" }

// Ready reports whether the sessions database answers.
func (s *SignIn) Ready(ctx context.Context) error {
	if s.store == nil {
		return nil
	}
	return s.store.Ping(ctx)
}

// Close stops the clean-up and closes the database.
func (s *SignIn) Close() error {
	if s.stop != nil {
		s.stop()
		<-s.done
	}
	if s.store != nil {
		return s.store.Close()
	}
	return nil
}
