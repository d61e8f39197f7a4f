package iiifauth

import (
	"net/http"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/auth"
)

// TestTokenLimits: a token expires after its TTL, and past MaxTokens the
// one closest to expiry goes first.
func TestTokenLimits(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := newTokenStore(2, time.Minute, func() time.Time { return now })
	a := auth.Session{Principal: auth.Principal{Name: "a"}, CSRFToken: "x"}
	t1, ttl := st.issue(a)
	if ttl != time.Minute {
		t.Errorf("ttl %v", ttl)
	}
	now = now.Add(10 * time.Second)
	t2, _ := st.issue(a)
	now = now.Add(10 * time.Second)
	t3, _ := st.issue(a)
	if _, ok := st.principal(t1); ok {
		t.Error("the oldest token survived past the limit")
	}
	if _, ok := st.principal(t2); !ok {
		t.Error("a newer token was dropped")
	}
	if st.len() != 2 {
		t.Errorf("%d tokens held, limit 2", st.len())
	}
	now = now.Add(time.Minute)
	if _, ok := st.principal(t3); ok {
		t.Error("an expired token admitted")
	}
}

// TestOrigins: only the site's origin and configured ones receive
// tokens, compared as browsers serialise origins.
func TestOrigins(t *testing.T) {
	t.Parallel()
	s, err := New(Config{PublicURL: "https://lib.example.org/site", BaseURL: "https://lib.example.org/site/iiif-auth", Origins: []string{"https://Viewer.example.com/"},
		Probe: ProberFunc(func(*http.Request, string, string) (int, string, string) { return 0, "", "" })})
	if err != nil {
		t.Fatal(err)
	}
	for origin, want := range map[string]bool{
		"https://lib.example.org":         true,
		"https://viewer.example.com":      true,
		"http://lib.example.org":          false,
		"https://lib.example.org/":        false,
		"https://lib.example.org.evil.io": false,
		"https://evil.io":                 false,
		"null":                            false,
		"":                                false,
	} {
		if got := s.allowedOrigin(origin); got != want {
			t.Errorf("allowedOrigin(%q) = %v", origin, got)
		}
	}
	if _, err := New(Config{PublicURL: "https://x.org", BaseURL: "https://x.org/iiif-auth", Origins: []string{"viewer.example.com"}, Probe: ProberFunc(nil)}); err == nil {
		t.Error("an origin without a scheme was accepted")
	}
}
