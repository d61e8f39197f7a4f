package purl

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"

	"github.com/sitelib/sitesvc/impl/purl/record"
)

// clientAddr is the address location rights are judged by: the
// connection's peer, or, when the peer is one of Config.TrustedProxies,
// the address X-Forwarded-For names, read from the right: the first
// address that is not itself a trusted proxy (a client can write any
// X-Forwarded-For; only what the trusted proxies appended counts).
func (s *Service) clientAddr(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}, false
	}
	peer = peer.Unmap()
	if !s.trusted(peer) {
		return peer, true
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			// A hop the proxies wrote that is not an address: nothing
			// before it can be trusted, so no location.
			return netip.Addr{}, false
		}
		a = a.Unmap()
		if !s.trusted(a) {
			return a, true
		}
	}
	return peer, true // only proxies: the request started at a proxy
}

func (s *Service) trusted(a netip.Addr) bool {
	return slices.ContainsFunc(s.cfg.TrustedProxies, func(p netip.Prefix) bool { return p.Contains(a) })
}

// LocationHours says when a reading location is open (cmd/sitesvc
// implements it over the Hours service of the same process).
type LocationHours interface {
	// Visit is today's opening of the rights location and its page on
	// the Hours service; false when the location has none configured.
	Visit(ctx context.Context, location string) (Visit, bool)
}

// Visit is what a patron needs to go and read a location's item.
type Visit struct {
	// Today is today's opening in words ("open today 9 AM–5 PM",
	// "closed today"); "" when not known.
	Today string
	// Page is the location's page on the Hours service.
	Page string
}

// locationNote tells a patron where the file can be read, in words, with
// today's hours and the Hours page of each location that has them: "Visit
// the Reading Room, open today 9 AM–5 PM (hours: https://…)."
func (s *Service) locationNote(ctx context.Context, rec *record.Record, name string) string {
	var places []string
	for _, g := range rec.Rights.ForFile(name).Grants {
		if g.Kind != record.AccessLocation {
			continue
		}
		place := s.accessName(g.Kind, g.Name)
		if s.cfg.LocationHours != nil {
			if v, ok := s.cfg.LocationHours.Visit(ctx, g.Name); ok {
				if v.Today != "" {
					place += ", " + v.Today
				}
				if v.Page != "" {
					place += " (hours: " + v.Page + ")"
				}
			}
		}
		places = append(places, place)
	}
	return "This item can be viewed on site. Visit " + strings.Join(places, "; or ") + "."
}
