// Package iiifauth is the IIIF Authorization Flow of the PURL service's
// restricted files (https://iiif.io/api/auth/2.0/, and the Authentication
// API 1.0 that Mirador 3 implements): the probe service of every
// restricted file, one access service (profile active: the site's
// sign-in in a window that closes itself), the access token services
// (2.0 and 1.0) and the logout service. Access tokens map to the
// signed-in session's principal; PURL accepts them as bearer tokens on
// files, info.json and tiles (purl.Config.AccessTokens). See
// docs/purl.md, "Restricted items".
package iiifauth

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/auth"
)

// Defaults and limits (docs/security.md).
const (
	// DefaultTokenTTL is how long an access token is good for. A viewer
	// asks for a new one when it expires, which succeeds while the
	// browser's session lasts; signing out through the logout service
	// revokes them at once.
	DefaultTokenTTL = 30 * time.Minute
	// DefaultMaxTokens bounds the tokens held in memory; past it the one
	// closest to expiry is dropped (its viewer asks for another).
	DefaultMaxTokens = 100_000
	// maxParam bounds messageId and origin (longer ones are refused).
	maxParam = 1024
)

// Prober decides whether a request may read a file of an object, as the
// file route itself would (purl.Service implements it).
type Prober interface {
	// ProbeAccess is 0 when r may read file of object, else the status
	// the file would answer (401, 403, 404) and the reason in words; who
	// names, in patrons' words, the readers a sign-in can admit ("" when
	// none can).
	ProbeAccess(r *http.Request, object, file string) (status int, who, reason string)
}

// ProberFunc is a Prober as a function.
type ProberFunc func(r *http.Request, object, file string) (status int, who, reason string)

// ProbeAccess implements Prober.
func (f ProberFunc) ProbeAccess(r *http.Request, object, file string) (int, string, string) {
	return f(r, object, file)
}

// Config configures the services.
type Config struct {
	// PublicURL is the site's public URL (the sign-in is at
	// <PublicURL>/auth/login); BaseURL is where these services are
	// mounted (<PublicURL>/iiif-auth).
	PublicURL, BaseURL string
	// Sessions is the site's sign-in.
	Sessions auth.SessionReader
	// Probe answers the probe service.
	Probe Prober
	// Origins may receive access tokens besides the site's own origin
	// (sites that embed a IIIF viewer showing these items). "*" admits
	// every origin (docs/purl.md says what that means).
	Origins []string
	// ContactNote, when set, ends the probe's note to a signed-in person
	// without access ("Ask … for access").
	ContactNote string
	TokenTTL    time.Duration
	MaxTokens   int
	Now         func() time.Time
	Logger      *slog.Logger
}

// Service serves the IIIF Authorization Flow's services.
type Service struct {
	cfg    Config
	origin string // the site's own origin
	tokens *tokenStore
}

// New checks cfg and returns the services.
func New(cfg Config) (*Service, error) {
	pub, err := url.Parse(cfg.PublicURL)
	if err != nil || pub.Scheme == "" || pub.Host == "" {
		return nil, fmt.Errorf("iiifauth: public URL %q is not absolute", cfg.PublicURL)
	}
	if _, err := url.Parse(cfg.BaseURL); err != nil || !strings.HasPrefix(cfg.BaseURL, "http") {
		return nil, fmt.Errorf("iiifauth: base URL %q is not absolute", cfg.BaseURL)
	}
	if cfg.Probe == nil {
		return nil, errors.New("iiifauth: no prober")
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	for i, o := range cfg.Origins {
		if o == "*" {
			continue
		}
		n, ok := normalOrigin(o)
		if !ok {
			return nil, fmt.Errorf("iiifauth: %q is not an origin (scheme://host[:port])", o)
		}
		cfg.Origins[i] = n
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = DefaultTokenTTL
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{cfg: cfg, origin: strings.ToLower(pub.Scheme + "://" + pub.Host),
		tokens: newTokenStore(cfg.MaxTokens, cfg.TokenTTL, cfg.Now)}, nil
}

// normalOrigin is o as a browser serialises an origin, false when o is
// not one.
func normalOrigin(o string) (string, bool) {
	u, err := url.Parse(o)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), true
}

// allowedOrigin reports whether origin may receive access tokens.
func (s *Service) allowedOrigin(origin string) bool {
	n, ok := normalOrigin(origin)
	if !ok || n != origin {
		return false
	}
	return n == s.origin || slices.Contains(s.cfg.Origins, n) || slices.Contains(s.cfg.Origins, "*")
}

// Principal implements purl.AccessTokens.
func (s *Service) Principal(token string) (auth.Principal, bool) {
	return s.tokens.principal(token)
}

// Name implements server.Service.
func (s *Service) Name() string { return "iiif-auth" }

// Ready implements server.Service.
func (s *Service) Ready(context.Context) error { return nil }

// Close implements server.Service.
func (s *Service) Close() error { return nil }

// URLs of the services, as the descriptions name them.
func (s *Service) probeURL(object, file string) string {
	return s.cfg.BaseURL + "/probe/" + url.PathEscape(object) + "/" + url.PathEscape(file)
}
func (s *Service) accessURL() string { return s.cfg.BaseURL + "/access" }
func (s *Service) tokenURL() string  { return s.cfg.BaseURL + "/token" }
func (s *Service) token1URL() string { return s.cfg.BaseURL + "/token1" }
func (s *Service) logoutURL() string { return s.cfg.BaseURL + "/logout" }
func (s *Service) doneURL() string   { return s.cfg.BaseURL + "/done" }
func (s *Service) signInURL() string { return s.cfg.PublicURL + auth.LoginPath }
