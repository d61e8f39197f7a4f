package main

import (
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
// (docs/purl.md, "Restricted items"), part of PURL's.
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

	// What check parses the text settings into.
	trustedProxies []netip.Prefix
	locationHours  map[string][2]string
}

func (p *patronSettings) register(ef envFlags) {
	str := func(v *string, name, help string) { ef.str(v, name, "", help) }
	str(&p.IIIFAuthOrigins, "iiif-auth-origins", "restricted items: origins (https://viewer.example.org) besides this site's own whose IIIF viewers may receive access tokens, comma-separated; * for any")
	str(&p.LocationHours, "purl-location-hours", "location rights: each location's library and location on the Hours service, 'reading-room=green/reading-room;…': patrons elsewhere read today's hours and a link")
	str(&p.TrustedProxies, "trusted-proxies", "location rights: reverse proxies (CIDRs or IPs, comma-separated) whose X-Forwarded-For names the client; default --auth-proxy-addresses")
}

// check parses the settings; s's sign-in settings are already checked.
func (p *patronSettings) check(s *serveSettings) error {
	var err error
	if p.trustedProxies, err = trustedProxies(p.TrustedProxies, s.SignIn.ProxyAddresses); err != nil {
		return err
	}
	if p.locationHours, err = parseLocationHours(p.LocationHours); err != nil {
		return fmt.Errorf("--purl-location-hours: %w", err)
	}
	return nil
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

// trustedProxies are the addresses whose X-Forwarded-For PURL believes:
// --trusted-proxies, else the sign-in proxy's --auth-proxy-addresses.
func trustedProxies(trusted, signInProxies string) ([]netip.Prefix, error) {
	if strings.TrimSpace(trusted) != "" {
		return parseAddresses("trusted-proxies", trusted)
	}
	return parseAddresses("auth-proxy-addresses", signInProxies)
}

// withPatronAccess gives the PURL configuration the site's sign-in and
// the IIIF Authorization Flow, whose services are mounted at
// <public-url>/iiif-auth. The PURL service is not made yet: the flow's
// probe asks it through *svc once it is.
func (w *wiring) withPatronAccess(cfg *purl.Config, p *patronSettings, svc **purl.Service) error {
	s := w.settings
	cfg.Sessions = w.sessions
	public := strings.TrimRight(s.PublicURL, "/")
	cfg.SignInURL = public + auth.LoginPath
	cfg.TrustedProxies = p.trustedProxies
	if len(p.locationHours) > 0 {
		cfg.LocationHours = &locationHours{places: p.locationHours, base: s.BaseURLs["hours"], hours: &w.hours}
	}
	// The viewers of this deployment run on the Embed and PURL bases,
	// which may be other hosts than the public URL's.
	var origins []string
	for _, base := range []string{s.BaseURLs["embed"], s.BaseURLs["purl"]} {
		if u, err := url.Parse(base); err == nil && u.Scheme != "" && u.Host != "" {
			origins = append(origins, u.Scheme+"://"+u.Host)
		}
	}
	for o := range strings.SplitSeq(p.IIIFAuthOrigins, ",") {
		if o = strings.TrimSpace(o); o != "" {
			origins = append(origins, o)
		}
	}
	contact := ""
	if cc := strings.TrimSpace(cfg.AccessContact); cc != "" {
		contact = "To ask for access, contact " + cc + "."
	}
	base := public + "/iiif-auth"
	flow, err := iiifauth.New(iiifauth.Config{
		PublicURL: public, BaseURL: base, Sessions: w.sessions, Origins: origins, ContactNote: contact, Logger: w.logger,
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
	w.extraMounts = append(w.extraMounts, server.Mount{Path: basePath(base), BaseURL: base, Service: flow})
	return nil
}
