package main

import (
	"context"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/server"
	"github.com/sitelib/sitesvc/impl/signin"
)

// signinSettings are the sign-in's flags (docs/auth.md).
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
}

// newSigninFlags registers the sign-in's flags on fs, with defaults from
// the SITESVC_* environment (a bad duration there is reported by finish).
func newSigninFlags(fs *flag.FlagSet, env func(string) string, c *serveConfig) {
	s := &c.SignIn
	ef := envFlags{fs: fs, env: env, errs: &c.envErrs}
	str, dur := ef.str, ef.dur
	str(&s.OIDCIssuer, "oidc-issuer", "", "staff sign-in: the OpenID Connect provider's issuer URL (docs/auth.md); empty: no OpenID Connect sign-in")
	str(&s.OIDCClientID, "oidc-client-id", "", "staff sign-in: this site's client id at the provider (redirect URI <public-url>/auth/callback)")
	// The secret's variable is read here but not made the flag's default,
	// which --help would print.
	s.envClientSecret = env(envName("oidc-client-secret"))
	fs.StringVar(&s.OIDCClientSecret, "oidc-client-secret", "", "staff sign-in: the client secret (prefer the environment variable: flags show in ps) (env "+envName("oidc-client-secret")+")")
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

// signinConfig is the sign-in's configuration from the settings: the
// sessions live in the Hours database (as newHoursService finds it).
func (c *serveConfig) signinConfig() (signin.Config, error) {
	s := c.SignIn
	groupMap, err := signin.ParseGroupMap(s.GroupMap)
	if err != nil {
		return signin.Config{}, err
	}
	var prefixes []netip.Prefix
	for a := range strings.SplitSeq(s.ProxyAddresses, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		p, err := netip.ParsePrefix(a)
		if err != nil {
			addr, aerr := netip.ParseAddr(a)
			if aerr != nil {
				return signin.Config{}, fmt.Errorf("--auth-proxy-addresses: %q is not an IP address or CIDR", a)
			}
			p = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
		}
		prefixes = append(prefixes, p.Masked())
	}
	secret := s.OIDCClientSecret
	if secret == "" {
		secret = s.envClientSecret
	}
	db := c.HoursDB
	if db == "" {
		db = filepath.Join(c.DataDir, "hours.db")
	}
	return signin.Config{
		PublicURL:         c.PublicURL,
		DB:                db,
		Issuer:            s.OIDCIssuer,
		ClientID:          s.OIDCClientID,
		ClientSecret:      secret,
		GroupsClaim:       s.OIDCGroupsClaim,
		Scopes:            strings.Fields(s.OIDCScopes),
		ProxyUserHeader:   s.ProxyUserHeader,
		ProxyGroupsHeader: s.ProxyGroupsHeader,
		ProxyAddresses:    prefixes,
		ProxyLogoutURL:    s.ProxyLogoutURL,
		GroupMap:          groupMap,
		IdleTimeout:       s.SessionIdleTimeout,
		AbsoluteTimeout:   s.SessionAbsoluteTimeout,
		Logger:            c.Logger,
	}, nil
}

// newSignIn builds the sign-in and its mount at <public-url>/auth; it is
// mounted even when not configured, so /auth/ says so.
func newSignIn(c *serveConfig) (*signin.SignIn, server.Mount, error) {
	cfg, err := c.signinConfig()
	if err != nil {
		return nil, server.Mount{}, err
	}
	if cfg.DB != "" && c.HoursDB == "" && (cfg.Issuer != "" || cfg.ProxyUserHeader != "") {
		if err := os.MkdirAll(c.DataDir, 0o755); err != nil {
			return nil, server.Mount{}, fmt.Errorf("sign-in: creating %s: %w", c.DataDir, err)
		}
	}
	si, err := signin.New(context.Background(), cfg)
	if err != nil {
		return nil, server.Mount{}, err
	}
	base := strings.TrimRight(c.PublicURL, "/") + "/auth"
	return si, server.Mount{Path: basePath(base), BaseURL: base, Service: si}, nil
}
