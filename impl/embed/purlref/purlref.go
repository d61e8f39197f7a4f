// Package purlref recognises persistent URLs of the repository: it decides
// whether a URL given to the Embed service names an object under the
// configured PURL base, and extracts the object's druid. It never fetches
// anything; callers build the URLs they fetch from the druid alone, which is
// what keeps the Embed service from being used to reach other hosts.
package purlref

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"
)

// Base is a parsed PURL base URL ("http://localhost:8080/purl").
type Base struct {
	scheme string
	host   string // lower case, with the port when one is given
	path   string // without trailing slash, "" at the root
	str    string // the base URL as configured, without trailing slash
}

// ErrNotPURL is returned for URLs that are not persistent URLs of an object
// under the base.
var ErrNotPURL = errors.New("not a persistent URL of this repository")

// ParseBase parses a PURL base URL. It must be an absolute http or https URL
// without query, fragment or user information.
func ParseBase(raw string) (Base, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil {
		return Base{}, fmt.Errorf("PURL base URL %q: %w", raw, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return Base{}, fmt.Errorf("PURL base URL %q: scheme must be http or https", raw)
	}
	if u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return Base{}, fmt.Errorf("PURL base URL %q: want scheme://host[:port][/path] only", raw)
	}
	return Base{
		scheme: u.Scheme,
		host:   strings.ToLower(u.Host),
		path:   strings.TrimRight(u.EscapedPath(), "/"),
		str:    u.Scheme + "://" + u.Host + strings.TrimRight(u.EscapedPath(), "/"),
	}, nil
}

// String is the base URL without trailing slash.
func (b Base) String() string { return b.str }

// ObjectURL is the canonical persistent URL of the object druid.
func (b Base) ObjectURL(druid string) string { return b.str + "/" + druid }

// Host is the base's host[:port] in lower case.
func (b Base) Host() string { return b.host }

// Scheme is the base's scheme.
func (b Base) Scheme() string { return b.scheme }

// Contains reports whether u lies under the base: same scheme, same host
// (any letter case) and a path below the base path, also once its dot
// segments are resolved. The PURL client follows a redirect only when it
// does.
func (b Base) Contains(u *url.URL) bool {
	return u.Scheme == b.scheme && strings.ToLower(u.Host) == b.host && u.User == nil &&
		strings.HasPrefix(u.EscapedPath(), b.path+"/") &&
		strings.HasPrefix(path.Clean(u.Path), b.path+"/")
}

// Druid returns the normalised druid (lower case, without "druid:") of the
// object that raw names, or ErrNotPURL. Accepted: the base's host (any
// case), http or https, the base's path followed by one segment holding the
// druid (optionally prefixed "druid:", optionally followed by ".html" or a
// trailing slash), and any fragment. Rejected: other hosts, user
// information, query strings, other paths, malformed druids.
func (b Base) Druid(raw string) (string, error) {
	// Fast path for the canonical spelling, which is what embedding pages
	// send nearly always: base + "/" + druid, nothing else.
	if len(raw) == len(b.str)+12 && raw[len(b.str)] == '/' && raw[:len(b.str)] == b.str {
		if d, ok := NormalizeDruid(raw[len(b.str)+1:]); ok {
			return d, nil
		}
	}
	if len(raw) > 2048 {
		return "", fmt.Errorf("%w: URL too long", ErrNotPURL)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotPURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Opaque != "" || u.User != nil || u.RawQuery != "" || u.ForceQuery {
		return "", ErrNotPURL
	}
	if strings.ToLower(u.Host) != b.host {
		return "", ErrNotPURL
	}
	p := u.EscapedPath()
	if !strings.HasPrefix(p, b.path+"/") {
		return "", ErrNotPURL
	}
	seg := p[len(b.path)+1:]
	seg = strings.TrimSuffix(seg, "/")
	seg = strings.TrimSuffix(seg, ".html")
	if strings.ContainsAny(seg, "/%") {
		return "", ErrNotPURL
	}
	d, ok := NormalizeDruid(seg)
	if !ok {
		return "", ErrNotPURL
	}
	return d, nil
}

// NormalizeDruid returns s as a lower-case druid without the "druid:"
// prefix, and whether s is a well-formed druid: two consonants, three
// digits, two consonants, four digits (consonants excluding vowels and l),
// case-insensitive.
func NormalizeDruid(s string) (string, bool) {
	if len(s) > 6 && strings.EqualFold(s[:6], "druid:") {
		s = s[6:]
	}
	if len(s) != 11 {
		return "", false
	}
	var out [11]byte
	for i := 0; i < 11; i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		switch i {
		case 0, 1, 5, 6:
			if !isDruidLetter(c) {
				return "", false
			}
		default:
			if c < '0' || c > '9' {
				return "", false
			}
		}
		out[i] = c
	}
	return string(out[:]), true
}

// isDruidLetter reports whether c is in [b-df-hjkmnp-tv-z].
func isDruidLetter(c byte) bool {
	if c < 'b' || c > 'z' {
		return false
	}
	switch c {
	case 'e', 'i', 'l', 'o', 'u':
		return false
	}
	return true
}
