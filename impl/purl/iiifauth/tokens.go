package iiifauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"sync"
	"time"

	"github.com/sitelib/sitesvc/impl/auth"
)

// tokenStore holds the access tokens the token services issued: each
// maps to the principal of the session it was issued to, until it
// expires or the session's logout service revokes it. It is bounded:
// past max tokens, the one closest to expiry goes first.
type tokenStore struct {
	mu     sync.Mutex
	tokens map[string]issued // by the token's SHA-256, never the token
	max    int
	ttl    time.Duration
	now    func() time.Time
}

type issued struct {
	principal auth.Principal
	session   string // sessionKey of the session it was issued to
	expires   time.Time
}

func newTokenStore(max int, ttl time.Duration, now func() time.Time) *tokenStore {
	return &tokenStore{tokens: map[string]issued{}, max: max, ttl: ttl, now: now}
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// sessionKey names a session without keeping its secret: the hash of its
// CSRF token, which is per session.
func sessionKey(s auth.Session) string {
	sum := sha256.Sum256([]byte("iiifauth-session\x00" + s.CSRFToken))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// issue makes a new token for the session.
func (t *tokenStore) issue(s auth.Session) (token string, expiresIn time.Duration) {
	token = rand.Text() + rand.Text()
	now := t.now()
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sweep(now)
	for len(t.tokens) >= t.max {
		var oldest string
		var at time.Time
		for k, v := range t.tokens {
			if oldest == "" || v.expires.Before(at) {
				oldest, at = k, v.expires
			}
		}
		delete(t.tokens, oldest)
	}
	t.tokens[hashToken(token)] = issued{principal: s.Principal, session: sessionKey(s), expires: now.Add(t.ttl)}
	return token, t.ttl
}

// principal resolves a token, false when unknown, expired or revoked.
func (t *tokenStore) principal(token string) (auth.Principal, bool) {
	k := hashToken(token)
	t.mu.Lock()
	defer t.mu.Unlock()
	v, ok := t.tokens[k]
	if !ok {
		return auth.Principal{}, false
	}
	if !t.now().Before(v.expires) {
		delete(t.tokens, k)
		return auth.Principal{}, false
	}
	return v.principal, true
}

// revoke drops every token issued to the session; it returns how many.
func (t *tokenStore) revoke(s auth.Session) int {
	key := sessionKey(s)
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for k, v := range t.tokens {
		if v.session == key {
			delete(t.tokens, k)
			n++
		}
	}
	return n
}

// sweep drops expired tokens (called with mu held).
func (t *tokenStore) sweep(now time.Time) {
	for k, v := range t.tokens {
		if !now.Before(v.expires) {
			delete(t.tokens, k)
		}
	}
}

func (t *tokenStore) len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.tokens)
}
