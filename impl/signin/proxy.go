package signin

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/auth"
)

// proxyMode reads who signed in from a sign-in proxy's headers, only on
// requests whose peer address is one of the proxy's.
type proxyMode struct {
	userHeader, groupsHeader string
	addresses                []netip.Prefix
	csrfKey                  []byte
	logoutURL                string
	groupMap                 GroupMap
}

// fromProxy reports whether r's peer is one of the proxy's addresses.
func (p *proxyMode) fromProxy(r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	addr = addr.Unmap()
	return slices.ContainsFunc(p.addresses, func(pr netip.Prefix) bool { return pr.Contains(addr) })
}

// session is the proxy's signed-in user of r. The CSRF token is an HMAC
// of the user and groups under a key kept in the sessions table, so
// every instance sharing the database derives the same one, and it
// changes when the person's groups do.
func (p *proxyMode) session(r *http.Request) (auth.Session, bool) {
	if !p.fromProxy(r) {
		return auth.Session{}, false
	}
	user := strings.TrimSpace(r.Header.Get(p.userHeader))
	if user == "" {
		return auth.Session{}, false
	}
	var groups []string
	if p.groupsHeader != "" {
		for g := range strings.FieldsFuncSeq(r.Header.Get(p.groupsHeader), func(c rune) bool { return c == ';' || c == ',' }) {
			if g = strings.TrimSpace(g); g != "" {
				groups = append(groups, g)
			}
		}
	}
	slices.Sort(groups)
	mac := hmac.New(sha256.New, p.csrfKey)
	mac.Write([]byte(user + "\x00" + strings.Join(groups, "\x00")))
	return auth.Session{
		Principal: auth.Principal{Name: user, Roles: p.groupMap.Roles(groups)},
		CSRFToken: base64.RawURLEncoding.EncodeToString(mac.Sum(nil)),
	}, true
}

// proxyKeyToken is the row of the sessions table holding proxy mode's
// CSRF key (session rows are keyed by base64 hashes, which never take
// this form).
const proxyKeyToken = "sitesvc:proxy-csrf-key"

// proxyCSRFKey reads proxy mode's CSRF key, creating it on first use.
func proxyCSRFKey(ctx context.Context, st *sessionStore) ([]byte, error) {
	key, found, err := st.FindCtx(ctx, proxyKeyToken)
	if err != nil {
		return nil, fmt.Errorf("sign-in: reading the CSRF key: %w", err)
	}
	if found && len(key) >= 32 {
		return key, nil
	}
	// Two instances starting together may both try: the first insert
	// stays, and both read it back.
	never := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := st.insertIfAbsent(ctx, proxyKeyToken, []byte(randomToken()), never); err != nil {
		return nil, fmt.Errorf("sign-in: storing the CSRF key: %w", err)
	}
	key, _, err = st.FindCtx(ctx, proxyKeyToken)
	if err != nil {
		return nil, fmt.Errorf("sign-in: reading the CSRF key: %w", err)
	}
	return key, nil
}
