package main

import (
	"net/netip"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSigninSettings: the sign-in's flags and SITESVC_* variables reach
// its configuration (the flag winning, the client secret from the
// environment without being the flag's shown default), and bad values
// stop serve with the setting named.
func TestSigninSettings(t *testing.T) {
	env := map[string]string{
		"SITESVC_OIDC_ISSUER":              "https://login.example.edu/realms/lib",
		"SITESVC_OIDC_CLIENT_ID":           "from-env",
		"SITESVC_OIDC_CLIENT_SECRET":       "s3cret",
		"SITESVC_GROUP_MAP":                "hours-law=editor:law;lib-it=admin,publisher",
		"SITESVC_SESSION_IDLE_TIMEOUT":     "10m",
		"SITESVC_SESSION_ABSOLUTE_TIMEOUT": "4h",
	}
	fs := newFlagSetForTest()
	c := newServeSettings(fs, func(k string) string { return env[k] })
	if err := fs.Parse([]string{"--oidc-client-id", "from-flag", "--oidc-scopes", "profile email groups"}); err != nil {
		t.Fatal(err)
	}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	if f := fs.Lookup("oidc-client-secret"); f == nil || f.DefValue != "" || !strings.Contains(f.Usage, "SITESVC_OIDC_CLIENT_SECRET") {
		t.Errorf("--oidc-client-secret shows default %q", f.DefValue)
	}
	cfg := c.signinConfig()
	if cfg.Issuer != env["SITESVC_OIDC_ISSUER"] || cfg.ClientID != "from-flag" || cfg.ClientSecret != "s3cret" ||
		cfg.GroupsClaim != "groups" || !slices.Equal(cfg.Scopes, []string{"profile", "email", "groups"}) ||
		!slices.Equal(cfg.GroupMap["lib-it"], []string{"admin", "publisher"}) ||
		cfg.IdleTimeout != 10*time.Minute || cfg.AbsoluteTimeout != 4*time.Hour ||
		cfg.DB != filepath.Join("data", "hours.db") || cfg.PublicURL != "http://localhost:8080" {
		t.Errorf("configuration %+v", cfg)
	}

	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--group-map", "staff=superuser"}, nil, "--group-map"},
		{[]string{"--auth-proxy-user-header", "X-User", "--auth-proxy-addresses", "10.0.0.1, proxy.example.edu"}, nil, "--auth-proxy-addresses"},
		{nil, map[string]string{"SITESVC_SESSION_IDLE_TIMEOUT": "soon"}, "SITESVC_SESSION_IDLE_TIMEOUT"},
	} {
		fs := newFlagSetForTest()
		sc := newServeSettings(fs, func(k string) string { return c.env[k] })
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		err := sc.check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %v: %v, want an error naming %s", c.args, c.env, err, c.want)
		}
	}

	fs = newFlagSetForTest()
	pc := newServeSettings(fs, func(string) string { return "" })
	if err := fs.Parse([]string{"--auth-proxy-user-header", "X-User", "--auth-proxy-addresses", "10.0.4.17, 192.0.2.0/24,::1"}); err != nil {
		t.Fatal(err)
	}
	if err := pc.check(); err != nil {
		t.Fatal(err)
	}
	cfg = pc.signinConfig()
	want := []netip.Prefix{netip.MustParsePrefix("10.0.4.17/32"), netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("::1/128")}
	if !slices.Equal(cfg.ProxyAddresses, want) {
		t.Errorf("proxy addresses %v, want %v", cfg.ProxyAddresses, want)
	}
}
