package main

import (
	"flag"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/purl"
	"github.com/sitelib/sitesvc/impl/purl/iiifauth"
	"github.com/sitelib/sitesvc/impl/server"
)

// patronSettings are the settings of restricted items for patrons
// (docs/purl.md, "Restricted items").
type patronSettings struct {
	// IIIFAuthOrigins: origins besides the site's own that may receive
	// IIIF access tokens (comma-separated; "*" for any).
	IIIFAuthOrigins string
	// TrustedProxies: addresses whose X-Forwarded-For names the client
	// for location rights (default: --auth-proxy-addresses).
	TrustedProxies string
	// LocationHours: 'reading-room=library/location;…', the Hours
	// library and location of each rights location.
	LocationHours string
}

func newPatronFlags(fs *flag.FlagSet, env func(string) string, c *serveConfig) {
	ef := envFlags{fs: fs, env: env, errs: &c.envErrs}
	str := func(p *string, name, help string) { ef.str(p, name, "", help) }
	str(&c.Patron.IIIFAuthOrigins, "iiif-auth-origins", "restricted items: origins (https://viewer.example.org) besides this site's own whose IIIF viewers may receive access tokens, comma-separated; * for any")
	str(&c.Patron.LocationHours, "purl-location-hours", "location rights: each location's library and location on the Hours service, 'reading-room=green/reading-room;…': patrons elsewhere read today's hours and a link")
	str(&c.Patron.TrustedProxies, "trusted-proxies", "location rights: reverse proxies (CIDRs or IPs, comma-separated) whose X-Forwarded-For names the client; default --auth-proxy-addresses")
}

// parseAddresses reads comma-separated CIDRs or single addresses.
func parseAddresses(flagName, s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for a := range strings.SplitSeq(s, ",") {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		p, err := netip.ParsePrefix(a)
		if err != nil {
			addr, aerr := netip.ParseAddr(a)
			if aerr != nil {
				return nil, fmt.Errorf("--%s: %q is not an IP address or CIDR", flagName, a)
			}
			p = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// trustedProxies are the addresses whose X-Forwarded-For PURL believes.
func (c *serveConfig) trustedProxies() ([]netip.Prefix, error) {
	if strings.TrimSpace(c.Patron.TrustedProxies) != "" {
		return parseAddresses("trusted-proxies", c.Patron.TrustedProxies)
	}
	return parseAddresses("auth-proxy-addresses", c.SignIn.ProxyAddresses)
}

// withPatronAccess gives the PURL configuration the site's sign-in and
// the IIIF Authorization Flow, whose services are mounted at
// <public-url>/iiif-auth. The PURL service is not made yet: the flow's
// probe asks it through *svc once it is.
func (c *serveConfig) withPatronAccess(cfg *purl.Config, svc **purl.Service) error {
	cfg.Sessions = c.Sessions
	public := strings.TrimRight(c.PublicURL, "/")
	cfg.SignInURL = public + auth.LoginPath
	proxies, err := c.trustedProxies()
	if err != nil {
		return err
	}
	cfg.TrustedProxies = proxies
	places, err := parseLocationHours(c.Patron.LocationHours)
	if err != nil {
		return fmt.Errorf("--purl-location-hours: %w", err)
	}
	if len(places) > 0 {
		cfg.LocationHours = &locationHours{places: places, base: strings.TrimRight(c.HoursBaseURL, "/"), hours: &c.hoursService}
	}
	// The viewers of this deployment run on the Embed and PURL bases,
	// which may be other hosts than the public URL's.
	var origins []string
	for _, base := range []string{c.EmbedBaseURL, c.PurlBaseURL} {
		if u, err := url.Parse(base); err == nil && u.Scheme != "" && u.Host != "" {
			origins = append(origins, u.Scheme+"://"+u.Host)
		}
	}
	for o := range strings.SplitSeq(c.Patron.IIIFAuthOrigins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			origins = append(origins, o)
		}
	}
	contact := ""
	if cc := strings.TrimSpace(c.PurlAccessContact); cc != "" {
		contact = "To ask for access, contact " + cc + "."
	}
	base := public + "/iiif-auth"
	flow, err := iiifauth.New(iiifauth.Config{
		PublicURL: public, BaseURL: base, Sessions: c.Sessions, Origins: origins, ContactNote: contact, Logger: c.Logger,
		Probe: iiifauth.ProberFunc(func(r *http.Request, object, file string) (int, string, string) {
			if *svc == nil {
				return http.StatusServiceUnavailable, "", "the PURL service is starting"
			}
			return (*svc).ProbeAccess(r, object, file)
		}),
	})
	if err != nil {
		return fmt.Errorf("--iiif-auth-origins: %w", err)
	}
	cfg.AccessTokens, cfg.AuthServices = flow, flow
	c.extraMounts = append(c.extraMounts, server.Mount{Path: basePath(base), BaseURL: base, Service: flow})
	return nil
}
