package signin_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/signin"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// The people of the test provider: Ann edits the Law library's hours,
// Bob is an administrator and publisher, Carl is in no mapped group.
var testUsers = []testkit.OIDCUser{
	{Username: "ann", Password: "ann-pw", Name: "Ann Editor", Email: "ann@example.edu", Groups: []string{"law-hours", "staff"}},
	{Username: "bob", Password: "bob-pw", Name: "Bob Admin", Email: "bob@example.edu", Groups: []string{"it-admins", "readers"}},
	{Username: "carl", Password: "carl-pw", Name: "Carl Nobody", Groups: []string{"students"}},
}

const testGroupMap = "law-hours=editor:law; it-admins=admin,publisher; readers=group:stanford"

// site is a sitesvc binary signing in at a test provider.
type site struct {
	srv      *testkit.Server
	provider *testkit.OIDCProvider
}

func startSite(t *testing.T, cfg testkit.OIDCProviderConfig, extra ...string) site {
	t.Helper()
	if cfg.Users == nil {
		cfg.Users = testUsers
	}
	cfg.ClientID, cfg.ClientSecret = "sitesvc-test", "test-secret-0123456789"
	p := testkit.StartOIDCProvider(t, cfg)
	args := append([]string{"--services", "hours",
		"--oidc-issuer", p.Issuer, "--oidc-client-id", cfg.ClientID, "--oidc-client-secret", cfg.ClientSecret,
		"--group-map", testGroupMap}, extra...)
	srv := testkit.StartServer(t, args...)
	p.AllowRedirect(srv.URL+auth.CallbackPath, srv.URL+"/auth/")
	return site{srv: srv, provider: p}
}

// browser is a Go client with a cookie jar, as a browser signs in.
func browser(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Timeout: 20 * time.Second}
}

func get(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	return send(t, c, http.MethodGet, u, "")
}

var authRequestID = regexp.MustCompile(`name="authRequestID" value="([^"]+)"`)

// signIn goes through the provider's login form as username and returns
// the page the browser lands on.
func (s site) signIn(t *testing.T, c *http.Client, username, password, returnTo string) (*http.Response, string) {
	t.Helper()
	resp, body := get(t, c, s.srv.URL+auth.LoginPath+"?return="+url.QueryEscape(returnTo))
	m := authRequestID.FindStringSubmatch(body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Request.URL.String(), s.provider.Issuer+"/login") || m == nil {
		t.Fatalf("sign-in did not reach the provider's login form: %d at %s\n%.500s", resp.StatusCode, resp.Request.URL, body)
	}
	resp, err := c.PostForm(s.provider.Issuer+"/login", url.Values{"authRequestID": {m[1]}, "username": {username}, "password": {password}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

type whoami struct {
	Configured bool     `json:"configured"`
	Mode       string   `json:"mode"`
	SignedIn   bool     `json:"signedIn"`
	Name       string   `json:"name"`
	Roles      []string `json:"roles"`
}

func who(t *testing.T, c *http.Client, base string) whoami {
	t.Helper()
	resp, body := get(t, c, base+"/auth/whoami")
	var w whoami
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &w) != nil {
		t.Fatalf("whoami: %d %s", resp.StatusCode, body)
	}
	return w
}

var csrfMeta = regexp.MustCompile(`<meta name="csrf-token" content="([^"]+)">`)

// csrfToken is the token the signed-in pages carry.
func csrfToken(t *testing.T, c *http.Client, base string) string {
	t.Helper()
	_, body := get(t, c, base+"/auth/")
	m := csrfMeta.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("the status page of a signed-in browser has no csrf-token meta:\n%s", body)
	}
	return m[1]
}

func sessionCookie(c *http.Client, base string) string {
	u, _ := url.Parse(base)
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == signin.CookieName {
			return ck.Value
		}
	}
	return ""
}

// TestSignInCodeFlow: the full authorization code flow with PKCE through
// the binary and a real provider: the browser fills the provider's form,
// lands on the page it asked for, signed in with the roles its groups
// map to; the session cookie is HttpOnly and SameSite=Lax and gets a new
// id at sign-in (the pre-sign-in id signs nobody in).
func TestSignInCodeFlow(t *testing.T) {
	s := startSite(t, testkit.OIDCProviderConfig{})
	c := browser(t)
	if w := who(t, c, s.srv.URL); !w.Configured || w.Mode != "oidc" || w.SignedIn {
		t.Fatalf("before sign-in: %+v", w)
	}

	// The start: a cookie, then the provider's form.
	noFollow := *c
	noFollow.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, _ := get(t, &noFollow, s.srv.URL+auth.LoginPath+"?return=/hours/libraries.json")
	setCookie := resp.Header.Get("Set-Cookie")
	if resp.StatusCode != http.StatusFound || !strings.HasPrefix(resp.Header.Get("Location"), s.provider.Issuer) ||
		!strings.Contains(setCookie, "HttpOnly") || !strings.Contains(setCookie, "SameSite=Lax") || strings.Contains(setCookie, "Secure") {
		t.Fatalf("login: %d to %s, cookie %q", resp.StatusCode, resp.Header.Get("Location"), setCookie)
	}
	before := sessionCookie(c, s.srv.URL)
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if q := loc.Query(); q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("nonce") == "" || q.Get("state") == "" || q.Get("redirect_uri") != s.srv.URL+auth.CallbackPath {
		t.Fatalf("authorization request without PKCE, nonce or state, or with the wrong redirect URI: %s", loc)
	}

	resp, body := s.signIn(t, c, "ann", "ann-pw", "/hours/libraries.json")
	if resp.StatusCode != 200 || resp.Request.URL.String() != s.srv.URL+"/hours/libraries.json" {
		t.Fatalf("after the provider's form: %d at %s: %.300s", resp.StatusCode, resp.Request.URL, body)
	}
	w := who(t, c, s.srv.URL)
	if !w.SignedIn || w.Name != "ann" || !slices.Equal(w.Roles, []string{"editor:law"}) {
		t.Errorf("signed in as %+v, want ann with editor:law", w)
	}
	if reqs := s.provider.AuthRequests(); len(reqs) != 1 || reqs[0].CodeChallengeMethod != "S256" || reqs[0].ClientID != "sitesvc-test" {
		t.Errorf("the provider saw %+v", reqs)
	}
	after := sessionCookie(c, s.srv.URL)
	if after == "" || after == before {
		t.Errorf("the session id was not renewed at sign-in (%q before, %q after)", before, after)
	}
	old := browser(t)
	u, _ := url.Parse(s.srv.URL)
	old.Jar.SetCookies(u, []*http.Cookie{{Name: signin.CookieName, Value: before}})
	if w := who(t, old, s.srv.URL); w.SignedIn {
		t.Errorf("the session id from before sign-in is signed in: %+v", w)
	}
	_, page := get(t, c, s.srv.URL+"/auth/")
	if !strings.Contains(page, "Signed in as <strong>ann</strong>") || !strings.Contains(page, "Sign out") {
		t.Errorf("status page of a signed-in browser:\n%s", page)
	}

	// Signing in again while signed in goes straight to the return page.
	resp, _ = get(t, c, s.srv.URL+auth.LoginPath+"?return=/hours/")
	if resp.Request.URL.String() != s.srv.URL+"/hours/" || len(s.provider.AuthRequests()) != 1 {
		t.Errorf("login while signed in: at %s after %d authorization requests", resp.Request.URL, len(s.provider.AuthRequests()))
	}

	// A wrong password stays at the provider; nobody is signed in.
	c2 := browser(t)
	resp, body = s.signIn(t, c2, "ann", "wrong", "/hours/")
	if resp.StatusCode != 401 || !strings.Contains(body, "Wrong username or password") || who(t, c2, s.srv.URL).SignedIn {
		t.Errorf("a wrong password: %d %.200s", resp.StatusCode, body)
	}
}

// TestGroupMapRoles: the provider's groups become roles and rights
// groups through --group-map; groups that map to nothing give none; a
// provider that sends groups only from userinfo is read there.
func TestGroupMapRoles(t *testing.T) {
	for _, onlyUserinfo := range []bool{false, true} {
		s := startSite(t, testkit.OIDCProviderConfig{GroupsOnlyInUserinfo: onlyUserinfo})
		for user, want := range map[string][]string{
			"ann":  {"editor:law"},
			"bob":  {"admin", "group:stanford", "publisher"},
			"carl": nil,
		} {
			c := browser(t)
			s.signIn(t, c, user, user+"-pw", "/")
			if w := who(t, c, s.srv.URL); !w.SignedIn || w.Name != user || !slices.Equal(w.Roles, want) {
				t.Errorf("groups only in userinfo %v: %s signed in as %+v, want roles %q", onlyUserinfo, user, w, want)
			}
		}
	}
}

// TestOpenRedirectRefused: a return address off this site is refused
// before anything is sent to the provider.
func TestOpenRedirectRefused(t *testing.T) {
	s := startSite(t, testkit.OIDCProviderConfig{})
	c := browser(t)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, bad := range []string{
		"https://evil.example/", "//evil.example/x", "/\\evil.example", "\\\\evil.example",
		"javascript:alert(1)", "http://127.0.0.1:1/hours/", "https:evil.example", "/\r\nLocation: http://evil.example",
		"http://user@evil.example", "data:text/html,hi", "hours/relative",
	} {
		resp, body := get(t, c, s.srv.URL+auth.LoginPath+"?return="+url.QueryEscape(bad))
		if resp.StatusCode != 400 || !strings.Contains(body, "must be a page of this site") || resp.Header.Get("Location") != "" {
			t.Errorf("return=%q: %d Location %q", bad, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	if n := len(s.provider.AuthRequests()); n != 0 {
		t.Errorf("%d authorization requests reached the provider", n)
	}
	for _, good := range []string{"/hours/", s.srv.URL + "/hours/?week=2026-03-09", ""} {
		resp, _ := get(t, c, s.srv.URL+auth.LoginPath+"?return="+url.QueryEscape(good))
		if resp.StatusCode != http.StatusFound || !strings.HasPrefix(resp.Header.Get("Location"), s.provider.Issuer) {
			t.Errorf("return=%q: %d to %q", good, resp.StatusCode, resp.Header.Get("Location"))
		}
	}
	// The return address comes back after the provider, as given.
	c2 := browser(t)
	resp, _ := s.signIn(t, c2, "ann", "ann-pw", "/hours/libraries.json?x=1")
	if resp.Request.URL.String() != s.srv.URL+"/hours/libraries.json?x=1" {
		t.Errorf("landed at %s", resp.Request.URL)
	}
}

// lawName reads the Law library's name through the JSON:API.
func lawName(t *testing.T, base string) string {
	t.Helper()
	resp, body := get(t, http.DefaultClient, base+"/hours/libraries/law.json")
	var doc struct {
		Data struct {
			Attributes struct {
				Name string `json:"name"`
			} `json:"attributes"`
		} `json:"data"`
	}
	if resp.StatusCode != 200 || json.Unmarshal([]byte(body), &doc) != nil {
		t.Fatalf("law.json: %d %.300s", resp.StatusCode, body)
	}
	return doc.Data.Attributes.Name
}

func patchLaw(t *testing.T, c *http.Client, base, name string, hdr ...string) (*http.Response, string) {
	t.Helper()
	return patch(t, c, base+"/hours/libraries/law", `{"data":{"type":"libraries","attributes":{"name":"`+name+`"}}}`, hdr...)
}

// patch sends a JSON:API document to u with PATCH through c.
func patch(t *testing.T, c *http.Client, u, doc string, hdr ...string) (*http.Response, string) {
	t.Helper()
	return send(t, c, http.MethodPatch, u, doc, hdr...)
}

// send sends method u through c with the header fields hdr (name, value,
// …) and body, a JSON:API document when not empty, and returns the answer
// with its body read.
func send(t *testing.T, c *http.Client, method, u, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/vnd.api+json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, b := testkit.Do(t, c, req)
	return resp, string(b)
}

// TestSessionWritesNeedCSRF: a write the session cookie authorises
// without the page's CSRF token is 403 and changes nothing; with it, it
// is the JSON:API write a bearer token makes; the editor's role is
// checked as a token's (another library is 403); bearer tokens work as
// before, without a CSRF token.
func TestSessionWritesNeedCSRF(t *testing.T) {
	s := startSite(t, testkit.OIDCProviderConfig{})
	c := browser(t)
	s.signIn(t, c, "ann", "ann-pw", "/")
	original := lawName(t, s.srv.URL)

	for _, hdr := range [][]string{nil, {auth.CSRFHeader, "not-the-token"}} {
		resp, body := patchLaw(t, c, s.srv.URL, "Changed without a token", hdr...)
		if resp.StatusCode != 403 || !strings.Contains(body, auth.CSRFHeader) {
			t.Errorf("session write with CSRF header %q: %d %s", hdr, resp.StatusCode, body)
		}
	}
	if got := lawName(t, s.srv.URL); got != original {
		t.Fatalf("a refused write changed the name to %q", got)
	}

	token := csrfToken(t, c, s.srv.URL)
	resp, body := patchLaw(t, c, s.srv.URL, "Law Library (session)", auth.CSRFHeader, token)
	if resp.StatusCode != 200 || lawName(t, s.srv.URL) != "Law Library (session)" {
		t.Fatalf("session write with its CSRF token: %d %s", resp.StatusCode, body)
	}
	resp, body = patch(t, c, s.srv.URL+"/hours/libraries/green", `{"data":{"type":"libraries","attributes":{"name":"Not ann's"}}}`, auth.CSRFHeader, token)
	if resp.StatusCode != 403 {
		t.Errorf("ann (editor:law) writing green: %d %s", resp.StatusCode, body)
	}

	// Another signed-in browser's token is not this one's.
	c2 := browser(t)
	s.signIn(t, c2, "bob", "bob-pw", "/")
	if resp, _ := patchLaw(t, c2, s.srv.URL, "Bob with Ann's token", auth.CSRFHeader, token); resp.StatusCode != 403 {
		t.Errorf("bob's session with ann's CSRF token: %d", resp.StatusCode)
	}

	bearer := testkit.AddToken(t, s.srv.DataDir, "editor:law", "script")
	resp, body = patchLaw(t, http.DefaultClient, s.srv.URL, "Law Library (token)", "Authorization", "Bearer "+bearer)
	if resp.StatusCode != 200 || lawName(t, s.srv.URL) != "Law Library (token)" {
		t.Errorf("bearer write: %d %s", resp.StatusCode, body)
	}
	if resp, _ := patchLaw(t, http.DefaultClient, s.srv.URL, "Nobody"); resp.StatusCode != 401 {
		t.Errorf("write without credentials: %d", resp.StatusCode)
	}
}

// TestSignOut: sign-out needs the CSRF token (a bare POST leaves the
// session), ends the session here and, through end_session, at the
// provider; afterwards the browser is anonymous, its old cookie is
// worth nothing, and signing in shows the provider's form again.
func TestSignOut(t *testing.T) {
	s := startSite(t, testkit.OIDCProviderConfig{})
	c := browser(t)
	s.signIn(t, c, "ann", "ann-pw", "/")
	cookie := sessionCookie(c, s.srv.URL)
	token := csrfToken(t, c, s.srv.URL)

	resp, err := c.PostForm(s.srv.URL+auth.LogoutPath, url.Values{"csrf_token": {"wrong"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 403 || !who(t, c, s.srv.URL).SignedIn {
		t.Fatalf("sign-out without the token: %d, signed in %v", resp.StatusCode, who(t, c, s.srv.URL).SignedIn)
	}
	// A logged-in provider session signs in again without the form.
	c2 := browser(t)
	c2.Jar = c.Jar
	resp, _ = get(t, c2, s.srv.URL+auth.LogoutPath)
	if resp.StatusCode != 200 {
		t.Errorf("GET logout (confirmation): %d", resp.StatusCode)
	}

	resp, err = c.PostForm(s.srv.URL+auth.LogoutPath, url.Values{"csrf_token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.String() != s.srv.URL+"/auth/" {
		t.Errorf("sign-out landed at %s, want the status page", resp.Request.URL)
	}
	if w := who(t, c, s.srv.URL); w.SignedIn {
		t.Errorf("after sign-out: %+v", w)
	}
	if ended := s.provider.EndedSessions(); !slices.Equal(ended, []string{"ann"}) {
		t.Errorf("the provider ended the sessions of %q, want ann's", ended)
	}
	old := browser(t)
	u, _ := url.Parse(s.srv.URL)
	old.Jar.SetCookies(u, []*http.Cookie{{Name: signin.CookieName, Value: cookie}})
	if who(t, old, s.srv.URL).SignedIn {
		t.Error("the signed-out session's cookie still signs in")
	}
	if resp, _ := patchLaw(t, old, s.srv.URL, "After sign-out", auth.CSRFHeader, token); resp.StatusCode != 401 {
		t.Errorf("a write with the signed-out session: %d", resp.StatusCode)
	}
	// Back to sign-in: the provider asks for the password again.
	resp, body := get(t, c, s.srv.URL+auth.LoginPath+"?return=/")
	if !strings.HasPrefix(resp.Request.URL.String(), s.provider.Issuer+"/login") || !strings.Contains(body, `name="password"`) {
		t.Errorf("signing in after sign-out: at %s without the provider's form", resp.Request.URL)
	}
}

// TestSessionExpires: use keeps a session past its idle timeout, disuse
// ends it at the idle timeout, and use does not keep it past the
// absolute timeout; an ended session's browser is anonymous (the status
// page offers sign-in) and its writes are 401.
func TestSessionExpires(t *testing.T) {
	const idle, absolute = 2 * time.Second, 5 * time.Second
	s := startSite(t, testkit.OIDCProviderConfig{}, "--session-idle-timeout", idle.String(), "--session-absolute-timeout", absolute.String())

	// In use: signed in past the idle timeout, not past the absolute one.
	busy := browser(t)
	s.signIn(t, busy, "bob", "bob-pw", "/")
	signedIn := time.Now()
	for time.Since(signedIn) < idle+idle/2 {
		if !who(t, busy, s.srv.URL).SignedIn {
			t.Fatalf("a session in use ended after %s (idle timeout %s)", time.Since(signedIn), idle)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for who(t, busy, s.srv.URL).SignedIn {
		if time.Since(signedIn) > absolute+2*time.Second {
			t.Fatalf("a session in use outlived the absolute timeout %s", absolute)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if time.Since(signedIn) < absolute-time.Second {
		t.Errorf("a session in use ended after %s, before the absolute timeout %s", time.Since(signedIn), absolute)
	}

	// Unused: ended at the idle timeout.
	c := browser(t)
	s.signIn(t, c, "ann", "ann-pw", "/")
	token := csrfToken(t, c, s.srv.URL)
	time.Sleep(idle + 500*time.Millisecond)
	_, page := get(t, c, s.srv.URL+"/auth/")
	if !strings.Contains(page, "Not signed in") || !strings.Contains(page, auth.LoginPath) {
		t.Errorf("after the idle timeout the status page is:\n%s", page)
	}
	if resp, _ := patchLaw(t, c, s.srv.URL, "Expired", auth.CSRFHeader, token); resp.StatusCode != 401 {
		t.Errorf("a write with an expired session: %d", resp.StatusCode)
	}
}

// TestInstancesShareSessions: two instances on one Hours database (a
// SQLite file here; PostgreSQL in production, and in TestSessionStore)
// know the same sessions: signed in at one, signed in at the other, and
// signed out at both.
func TestInstancesShareSessions(t *testing.T) {
	db := t.TempDir() + "/hours.db"
	s := startSite(t, testkit.OIDCProviderConfig{}, "--hours-db", db)
	other := testkit.StartServer(t, "--services", "hours", "--hours-db", db,
		"--oidc-issuer", s.provider.Issuer, "--oidc-client-id", "sitesvc-test", "--oidc-client-secret", "test-secret-0123456789")
	c := browser(t)
	s.signIn(t, c, "ann", "ann-pw", "/")
	u, _ := url.Parse(other.URL)
	c.Jar.SetCookies(u, []*http.Cookie{{Name: signin.CookieName, Value: sessionCookie(c, s.srv.URL)}})
	if w := who(t, c, other.URL); !w.SignedIn || w.Name != "ann" {
		t.Fatalf("the other instance sees %+v", w)
	}
	token := csrfToken(t, c, other.URL)
	resp, err := c.PostForm(s.srv.URL+auth.LogoutPath, url.Values{"csrf_token": {token}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if who(t, c, other.URL).SignedIn {
		t.Error("signed out at one instance, still signed in at the other")
	}
}

// TestNotConfigured: without a sign-in setting the services run as
// before and the sign-in says it is not configured.
func TestNotConfigured(t *testing.T) {
	srv := testkit.StartServer(t, "--services", "hours")
	c := browser(t)
	if w := who(t, c, srv.URL); w.Configured || w.SignedIn {
		t.Errorf("whoami: %+v", w)
	}
	resp, body := get(t, c, srv.URL+"/auth/")
	if resp.StatusCode != 200 || !strings.Contains(body, "Sign-in is not configured") {
		t.Errorf("status page: %d %s", resp.StatusCode, body)
	}
	if resp, _ := get(t, c, srv.URL+auth.LoginPath); resp.StatusCode != 404 {
		t.Errorf("login: %d", resp.StatusCode)
	}
	if resp, _ := get(t, c, srv.URL+"/"); resp.StatusCode != 200 {
		t.Errorf("index: %d", resp.StatusCode)
	}
}

// TestCallbackState: the callback takes only the state of a sign-in this
// browser started, once: a replayed callback, one carried into another
// browser (login CSRF) and one with a forged state are refused and sign
// nobody in; a provider's refusal is shown with a way to try again.
func TestCallbackState(t *testing.T) {
	s := startSite(t, testkit.OIDCProviderConfig{})
	c := browser(t)
	var callback string
	c.CheckRedirect = func(req *http.Request, _ []*http.Request) error {
		if req.URL.Path == auth.CallbackPath {
			callback = req.URL.String()
		}
		return nil
	}
	s.signIn(t, c, "ann", "ann-pw", "/")
	if callback == "" || !who(t, c, s.srv.URL).SignedIn {
		t.Fatal("no signed-in callback to replay")
	}
	resp, body := get(t, c, callback)
	if resp.StatusCode != 400 || !strings.Contains(body, "already used") {
		t.Errorf("replayed callback: %d %.300s", resp.StatusCode, body)
	}
	victim := browser(t)
	if resp, _ := get(t, victim, callback); resp.StatusCode != 400 || who(t, victim, s.srv.URL).SignedIn {
		t.Errorf("a callback carried into another browser: %d", resp.StatusCode)
	}

	// A started sign-in: a forged state is refused; the provider's error
	// is shown with a link to start again.
	pending := browser(t)
	pending.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, _ = get(t, pending, s.srv.URL+auth.LoginPath+"?return=/hours/")
	loc, _ := url.Parse(resp.Header.Get("Location"))
	state := loc.Query().Get("state")
	if resp, _ := get(t, pending, s.srv.URL+auth.CallbackPath+"?code=x&state=forged"); resp.StatusCode != 400 {
		t.Errorf("forged state: %d", resp.StatusCode)
	}
	resp, body = get(t, pending, s.srv.URL+auth.CallbackPath+"?error=access_denied&error_description=not+allowed&state="+url.QueryEscape(state))
	if resp.StatusCode != 403 || !strings.Contains(body, "access_denied") || !strings.Contains(body, "/auth/login?return=") {
		t.Errorf("the provider's refusal: %d %.400s", resp.StatusCode, body)
	}
	if who(t, pending, s.srv.URL).SignedIn {
		t.Error("a refused sign-in is signed in")
	}
}
