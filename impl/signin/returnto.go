package signin

import (
	"errors"
	"net/url"
	"strings"
)

// errForeignReturn is why a return URL is refused.
var errForeignReturn = errors.New("the return address must be a page of this site")

// returnTarget is the absolute URL of this site that a sign-in returns
// to, from the "return" parameter: a path (with query) under the public
// URL's path, or an absolute URL with the public URL's scheme and host.
// Anything else (another host, "//host", "/\host", a scheme such as
// javascript:, control characters) is refused: no open redirect. An empty
// return is the public URL itself.
func returnTarget(public *url.URL, raw string) (string, error) {
	base := strings.TrimRight(public.Path, "/")
	origin := public.Scheme + "://" + public.Host
	if raw == "" {
		return origin + base + "/", nil
	}
	if strings.ContainsAny(raw, "\\\x00\r\n\t") || strings.ContainsFunc(raw, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return "", errForeignReturn
	}
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.User != nil {
		return "", errForeignReturn
	}
	if u.Scheme != "" || u.Host != "" {
		if !strings.EqualFold(u.Scheme, public.Scheme) || !strings.EqualFold(u.Host, public.Host) {
			return "", errForeignReturn
		}
	}
	p := u.EscapedPath()
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return "", errForeignReturn
	}
	if base != "" && p != base && !strings.HasPrefix(p, base+"/") {
		return "", errForeignReturn
	}
	target := origin + p
	if u.RawQuery != "" {
		target += "?" + u.RawQuery
	}
	return target, nil
}
