package main

import (
	"context"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/server"
	"github.com/sitelib/sitesvc/impl/signin"
)

// signinSettings are the staff sign-in's settings (docs/auth.md).
type signinSettings struct {
	OIDCIssuer, OIDCClientID, OIDCClientSecret string
	OIDCGroupsClaim, OIDCScopes                string
	GroupMap                                   string
	ProxyUserHeader, ProxyGroupsHeader         string
	ProxyAddresses, ProxyLogoutURL             string
	SessionIdleTimeout, SessionAbsoluteTimeout time.Duration
	// envClientSecret is SITESVC_OIDC_CLIENT_SECRET, used when the flag
	// is not given.
	envClientSecret string

	// What check parses the text settings into.
	groupMap       signin.GroupMap
	proxyAddresses []netip.Prefix
}

// register registers the sign-in's flags, with defaults from the
// SITESVC_* environment (a bad duration there is reported by check).
func (s *signinSettings) register(ef envFlags) {
	str, dur := ef.str, ef.dur
	str(&s.OIDCIssuer, "oidc-issuer", "", "staff sign-in: the OpenID Connect provider's issuer URL (docs/auth.md); empty: no OpenID Connect sign-in")
	str(&s.OIDCClientID, "oidc-client-id", "", "staff sign-in: this site's client id at the provider (redirect URI <public-url>/auth/callback)")
	// The secret's variable is read here but not made the flag's default,
	// which --help would print.
	s.envClientSecret = ef.env(envName("oidc-client-secret"))
	ef.fs.StringVar(&s.OIDCClientSecret, "oidc-client-secret", "", "staff sign-in: the client secret (prefer the environment variable: flags show in ps) (env "+envName("oidc-client-secret")+")")
	str(&s.OIDCGroupsClaim, "oidc-groups-claim", "groups", "staff sign-in: the ID token or userinfo claim listing the person's groups")
	str(&s.OIDCScopes, "oidc-scopes", "profile email", "staff sign-in: scopes requested besides openid, space-separated (Okta and some others need groups here)")
	str(&s.GroupMap, "group-map", "", "staff sign-in: provider groups to roles and rights groups: 'provider-group=target,target;…', target admin, publisher, editor:<library> or group:<name>")
	str(&s.ProxyUserHeader, "auth-proxy-user-header", "", "sign-in at a proxy (Shibboleth, mod_auth_openidc): the header naming the signed-in user; empty: no proxy sign-in")
	str(&s.ProxyGroupsHeader, "auth-proxy-groups-header", "", "sign-in at a proxy: the header listing the user's groups (separated by ';' or ',')")
	str(&s.ProxyAddresses, "auth-proxy-addresses", "", "sign-in at a proxy: the proxy's addresses, comma-separated CIDRs or IPs; the headers are ignored on requests from anywhere else")
	str(&s.ProxyLogoutURL, "auth-proxy-logout-url", "", "sign-in at a proxy: where sign-out sends the browser (the proxy's logout, such as /Shibboleth.sso/Logout)")
	dur(&s.SessionIdleTimeout, "session-idle-timeout", signin.DefaultIdleTimeout, "staff sign-in: a session unused this long ends")
	dur(&s.SessionAbsoluteTimeout, "session-absolute-timeout", signin.DefaultAbsoluteTimeout, "staff sign-in: every session ends this long after sign-in")
}

// check parses the group map and the proxy's addresses; the rest the
// sign-in checks when it is made (signin.New).
func (s *signinSettings) check() error {
	var err error
	if s.groupMap, err = signin.ParseGroupMap(s.GroupMap); err != nil {
		return err
	}
	if s.proxyAddresses, err = parseAddresses("auth-proxy-addresses", s.ProxyAddresses); err != nil {
		return err
	}
	if s.OIDCClientSecret == "" {
		s.OIDCClientSecret = s.envClientSecret
	}
	return nil
}

// signinConfig is the sign-in's configuration from the settings: the
// sessions live in the Hours database (as newHoursService finds it).
func (s *serveSettings) signinConfig() signin.Config {
	si := s.SignIn
	db := s.hoursDB()
	if db == "" {
		db = filepath.Join(s.DataDir, "hours.db")
	}
	return signin.Config{
		PublicURL:         s.PublicURL,
		DB:                db,
		Issuer:            si.OIDCIssuer,
		ClientID:          si.OIDCClientID,
		ClientSecret:      si.OIDCClientSecret,
		GroupsClaim:       si.OIDCGroupsClaim,
		Scopes:            strings.Fields(si.OIDCScopes),
		ProxyUserHeader:   si.ProxyUserHeader,
		ProxyGroupsHeader: si.ProxyGroupsHeader,
		ProxyAddresses:    si.proxyAddresses,
		ProxyLogoutURL:    si.ProxyLogoutURL,
		GroupMap:          si.groupMap,
		IdleTimeout:       si.SessionIdleTimeout,
		AbsoluteTimeout:   si.SessionAbsoluteTimeout,
	}
}

// hoursDB is --hours-db, whose database the sign-in shares.
func (s *serveSettings) hoursDB() string {
	if h, ok := s.Service["hours"].(*hoursSettings); ok {
		return h.DB
	}
	return ""
}

// newSignIn builds the sign-in and its mount at <public-url>/auth; it is
// mounted even when not configured, so /auth/ says so.
func newSignIn(w *wiring) (*signin.SignIn, server.Mount, error) {
	s := w.settings
	cfg := s.signinConfig()
	cfg.Logger = w.logger
	if s.hoursDB() == "" && (cfg.Issuer != "" || cfg.ProxyUserHeader != "") {
		if err := os.MkdirAll(s.DataDir, 0o755); err != nil {
			return nil, server.Mount{}, fmt.Errorf("sign-in: creating %s: %w", s.DataDir, err)
		}
	}
	si, err := signin.New(context.Background(), cfg)
	if err != nil {
		return nil, server.Mount{}, err
	}
	base := strings.TrimRight(s.PublicURL, "/") + "/auth"
	return si, server.Mount{Path: basePath(base), BaseURL: base, Service: si}, nil
}
