package signin

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/hours/store/storetest"
	"github.com/sitelib/sitesvc/impl/testkit"
)

func TestParseGroupMap(t *testing.T) {
	m, err := ParseGroupMap(" law-hours = editor:law ; IT Admins=admin,publisher;readers=group:stanford;law-hours=group:law;;")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Roles([]string{"law-hours", "IT Admins", "unknown"}); !slices.Equal(got, []string{"admin", "editor:law", "group:law", "publisher"}) {
		t.Errorf("roles: %q", got)
	}
	if got := m.Roles([]string{"unknown"}); got != nil {
		t.Errorf("an unmapped group gives %q", got)
	}
	for _, bad := range []string{"law-hours", "=admin", "x=root", "x=editor:", "x=editor:Law Library", "x=location:reading-room", "x=admin,,publisher"} {
		if _, err := ParseGroupMap(bad); err == nil || !strings.Contains(err.Error(), "--group-map") {
			t.Errorf("ParseGroupMap(%q): %v", bad, err)
		}
	}
	if m, err := ParseGroupMap(""); err != nil || len(m) != 0 {
		t.Errorf("empty: %v %v", m, err)
	}
}

func TestReturnTarget(t *testing.T) {
	root, _ := url.Parse("https://lib.example.edu")
	sub, _ := url.Parse("https://lib.example.edu/svc/")
	for _, c := range []struct {
		public *url.URL
		in     string
		want   string // "" refused
	}{
		{root, "", "https://lib.example.edu/"},
		{root, "/hours/admin/?week=2026-03-09", "https://lib.example.edu/hours/admin/?week=2026-03-09"},
		{root, "https://lib.example.edu/hours/", "https://lib.example.edu/hours/"},
		{root, "HTTPS://LIB.example.edu/hours/", "https://lib.example.edu/hours/"},
		{root, "http://lib.example.edu/hours/", ""},
		{root, "https://lib.example.edu.evil.example/", ""},
		{root, "https://evil.example/", ""},
		{root, "//evil.example/", ""},
		{root, "///evil.example/", ""},
		{root, "/\\evil.example", ""},
		{root, "javascript:alert(1)", ""},
		{root, "hours/", ""},
		{root, "https://user@lib.example.edu/", ""},
		{root, "/a\nb", ""},
		{root, "/a\x7f", ""},
		{sub, "", "https://lib.example.edu/svc/"},
		{sub, "/svc/hours/", "https://lib.example.edu/svc/hours/"},
		{sub, "/svc", "https://lib.example.edu/svc"},
		{sub, "/svcx/", ""},
		{sub, "/other/", ""},
	} {
		got, err := returnTarget(c.public, c.in)
		if (c.want == "") != (err != nil) || got != c.want {
			t.Errorf("returnTarget(%s, %q) = %q, %v; want %q", c.public, c.in, got, err, c.want)
		}
	}
}

// TestSessionStore: the scs store over the Hours database (SQLite, and
// PostgreSQL when SITESVC_TEST_POSTGRES_URL is set) keeps data until its
// expiry, replaces it on commit, deletes it, and sweeps the expired;
// proxy mode's CSRF key, kept beside the sessions, is the same for every
// instance on the database.
func TestSessionStore(t *testing.T) {
	for _, backend := range storetest.Backends() {
		t.Run(backend.Name, func(t *testing.T) {
			ctx := context.Background()
			dsn := backend.DSN(t)
			cfg := Config{PublicURL: "http://localhost", DB: dsn, ProxyUserHeader: "X-User", ProxyAddresses: loopback}
			s, err := New(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			s2, err := New(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer s2.Close()
			if string(s.proxy.csrfKey) != string(s2.proxy.csrfKey) || len(s.proxy.csrfKey) < 32 {
				t.Errorf("two instances have different CSRF keys")
			}
			db, dialect := s.store.SessionsDB()
			st := &sessionStore{db: db, dialect: dialect}
			soon := time.Now().Add(time.Hour)
			if err := st.CommitCtx(ctx, "a", []byte("one"), soon); err != nil {
				t.Fatal(err)
			}
			if err := st.CommitCtx(ctx, "a", []byte("two"), soon); err != nil {
				t.Fatal(err)
			}
			if err := st.CommitCtx(ctx, "old", []byte("x"), time.Now().Add(-time.Second)); err != nil {
				t.Fatal(err)
			}
			if b, ok, err := st.Find("a"); err != nil || !ok || string(b) != "two" {
				t.Errorf("Find(a) = %q %v %v", b, ok, err)
			}
			if _, ok, err := st.Find("old"); err != nil || ok {
				t.Errorf("an expired session was found: %v %v", ok, err)
			}
			if n, err := st.deleteExpired(ctx); err != nil || n != 1 {
				t.Errorf("deleteExpired: %d %v", n, err)
			}
			if err := st.Delete("a"); err != nil {
				t.Fatal(err)
			}
			if _, ok, _ := st.Find("a"); ok {
				t.Error("a deleted session was found")
			}
			if err := st.Delete("never"); err != nil {
				t.Errorf("deleting a missing session: %v", err)
			}
		})
	}
}

// TestNewRefuses: settings that cannot work stop the start with a clear
// error.
func TestNewRefuses(t *testing.T) {
	db := filepath.Join(t.TempDir(), "hours.db")
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{PublicURL: "localhost:8080"}, "public URL"},
		{Config{PublicURL: "http://x", Issuer: "http://op", ProxyUserHeader: "X-User"}, "choose one"},
		{Config{PublicURL: "http://x", ClientID: "id"}, "--oidc-issuer"},
		{Config{PublicURL: "http://x", GroupMap: GroupMap{"a": {"admin"}}}, "no sign-in"},
		{Config{PublicURL: "http://x", ProxyUserHeader: "X-User"}, "--auth-proxy-addresses"},
		{Config{PublicURL: "http://x", Issuer: "http://op", ClientID: "id", DB: db, IdleTimeout: time.Hour, AbsoluteTimeout: time.Minute}, "longer than"},
	} {
		s, err := New(context.Background(), c.cfg)
		if err == nil {
			s.Close()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v): %v, want %q", c.cfg, err, c.want)
		}
	}
	s, err := New(context.Background(), Config{PublicURL: "http://x"})
	if err != nil || s.Configured() {
		t.Errorf("no settings: %v, configured %v", err, s.Configured())
	}
	if _, ok := s.Session(httptest.NewRequest(http.MethodGet, "/", nil)); ok {
		t.Error("a session without sign-in")
	}
}

// TestSecureCookieUnderHTTPS: with an https public URL the session
// cookie is Secure (and HttpOnly, SameSite=Lax, for the whole site).
func TestSecureCookieUnderHTTPS(t *testing.T) {
	p := testkit.StartOIDCProvider(t, testkit.OIDCProviderConfig{ClientID: "c", ClientSecret: "s"})
	s, err := New(context.Background(), Config{PublicURL: "https://lib.example.edu/svc", DB: filepath.Join(t.TempDir(), "hours.db"), Issuer: p.Issuer, ClientID: "c", ClientSecret: "s"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/login?return=/svc/hours/", nil))
	cookie := rec.Header().Get("Set-Cookie")
	for _, want := range []string{CookieName + "=", "Path=/svc/", "HttpOnly", "Secure", "SameSite=Lax"} {
		if !strings.Contains(cookie, want) {
			t.Errorf("Set-Cookie %q lacks %q", cookie, want)
		}
	}
	loc, _ := url.Parse(rec.Header().Get("Location"))
	if rec.Code != http.StatusFound || loc.Query().Get("redirect_uri") != "https://lib.example.edu/svc"+auth.CallbackPath {
		t.Errorf("login: %d to %s", rec.Code, loc)
	}
	// Every answer is about one browser's session (auth.SessionPages).
	if cc, nosniff := rec.Header().Get("Cache-Control"), rec.Header().Get("X-Content-Type-Options"); cc != "no-store" || nosniff != "nosniff" {
		t.Errorf("login: Cache-Control %q, X-Content-Type-Options %q", cc, nosniff)
	}

	// The pending sign-in lives PendingSignInTimeout, not a session's
	// 8 h; a second start reuses it (one row per browser).
	req := httptest.NewRequest(http.MethodGet, "/login", nil)
	req.Header.Set("Cookie", strings.Split(cookie, ";")[0])
	s.Handler().ServeHTTP(httptest.NewRecorder(), req)
	db, _ := s.store.SessionsDB()
	var rows int
	var expiry int64
	if err := db.QueryRow(`SELECT count(*), max(expiry) FROM signin_sessions`).Scan(&rows, &expiry); err != nil {
		t.Fatal(err)
	}
	if left := time.Until(time.UnixMilli(expiry)); rows != 1 || left > PendingSignInTimeout || left < PendingSignInTimeout-time.Minute {
		t.Errorf("%d pending sessions, the last expiring in %s (want 1, within %s)", rows, left, PendingSignInTimeout)
	}
}

var loopback = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
