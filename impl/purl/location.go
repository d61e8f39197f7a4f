package purl

import (
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

// locationNote tells a patron where the file can be read, in words.
func (s *Service) locationNote(_ *record.Record, _ string, where string) string {
	return "This item can be viewed at " + where + ". Visit it to view the item."
}
