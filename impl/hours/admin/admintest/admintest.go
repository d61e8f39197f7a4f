// Package admintest signs test users in to the Hours staff editor without
// an OpenID Connect provider: Sessions is an auth.SessionReader holding
// sessions made by the test, read from a cookie, and SignIn puts that
// cookie in a headless browser. Tests of the editor use it until a real
// provider signs the user in (the sign-in's own tests); the editor sees no
// difference. For tests only.
package admintest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"sync"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/auth"
)

// CookieName is the session cookie Sessions reads.
const CookieName = "sitesvc_test_session"

// Sessions is a configured auth.SessionReader whose sessions the test
// makes with Add.
type Sessions struct {
	mu       sync.Mutex
	byCookie map[string]auth.Session
}

var _ auth.SessionReader = (*Sessions)(nil)

// NewSessions holds no session yet.
func NewSessions() *Sessions { return &Sessions{byCookie: map[string]auth.Session{}} }

// Add signs p in: it returns the session cookie's value and the
// session's CSRF token.
func (s *Sessions) Add(p auth.Principal) (cookie, csrf string) {
	cookie, csrf = random(), random()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.byCookie[cookie] = auth.Session{Principal: p, CSRFToken: csrf}
	return cookie, csrf
}

// End signs the session of cookie out.
func (s *Sessions) End(cookie string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byCookie, cookie)
}

// Session is the session named by r's cookie.
func (s *Sessions) Session(r *http.Request) (auth.Session, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return auth.Session{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.byCookie[c.Value]
	return sess, ok
}

// Configured is true: sign-in is set up.
func (s *Sessions) Configured() bool { return true }

// SignIn sets the session cookie for the site of siteURL in the browser
// ctx drives (HttpOnly, SameSite=Lax, as the real sign-in sets it).
func SignIn(ctx context.Context, siteURL, cookie string) error {
	u, err := url.Parse(siteURL)
	if err != nil {
		return fmt.Errorf("admintest: %w", err)
	}
	return chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		return network.SetCookie(CookieName, cookie).WithDomain(u.Hostname()).WithPath("/").
			WithHTTPOnly(true).WithSameSite(network.CookieSameSiteLax).Do(ctx)
	}))
}

// Request adds the session cookie (and, when csrf is not "", the CSRF
// header) to r: a browser's request made from Go.
func Request(r *http.Request, cookie, csrf string) *http.Request {
	r.AddCookie(&http.Cookie{Name: CookieName, Value: cookie})
	if csrf != "" {
		r.Header.Set(auth.CSRFHeader, csrf)
	}
	return r
}

func random() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
