package signin_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// proxyHeaders are what a sign-in proxy sets for Ann.
var proxyHeaders = []string{"X-Remote-User", "ann@example.edu", "X-Remote-Groups", "law-hours;staff"}

func startProxySite(t *testing.T, addresses string) *testkit.Server {
	t.Helper()
	return testkit.StartServer(t, "--services", "hours",
		"--auth-proxy-user-header", "X-Remote-User", "--auth-proxy-groups-header", "X-Remote-Groups",
		"--auth-proxy-addresses", addresses, "--group-map", testGroupMap,
		"--auth-proxy-logout-url", "https://idp.example.edu/Shibboleth.sso/Logout")
}

// proxied sends a request as the proxy would, with its headers.
func proxied(t *testing.T, method, u, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	return send(t, http.DefaultClient, method, u, body, hdr...)
}

// TestProxyHeaders: behind a sign-in proxy, the user and groups come from
// its headers on requests from its address: Ann is signed in with the
// roles her groups map to, and her writes need the CSRF token her pages
// carry, as a cookie session's do.
func TestProxyHeaders(t *testing.T) {
	srv := startProxySite(t, "127.0.0.1/32, ::1")
	resp, body := proxied(t, http.MethodGet, srv.URL+"/auth/whoami", "", proxyHeaders...)
	if resp.StatusCode != 200 || !strings.Contains(body, `"mode":"proxy"`) || !strings.Contains(body, `"name":"ann@example.edu"`) || !strings.Contains(body, `"roles":["editor:law"]`) {
		t.Fatalf("whoami through the proxy: %d %s", resp.StatusCode, body)
	}
	_, page := proxied(t, http.MethodGet, srv.URL+"/auth/", "", proxyHeaders...)
	m := csrfMeta.FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, "Signed in as <strong>ann@example.edu</strong>") {
		t.Fatalf("status page through the proxy:\n%s", page)
	}
	doc := `{"data":{"type":"libraries","attributes":{"name":"Law (proxy)"}}}`
	if resp, body := proxied(t, http.MethodPatch, srv.URL+"/hours/libraries/law", doc, proxyHeaders...); resp.StatusCode != 403 || !strings.Contains(body, auth.CSRFHeader) {
		t.Errorf("proxy write without the CSRF token: %d %s", resp.StatusCode, body)
	}
	if got := lawName(t, srv.URL); got == "Law (proxy)" {
		t.Fatal("a refused write changed the library")
	}
	if resp, body := proxied(t, http.MethodPatch, srv.URL+"/hours/libraries/law", doc, append(slices.Clone(proxyHeaders), auth.CSRFHeader, m[1])...); resp.StatusCode != 200 || lawName(t, srv.URL) != "Law (proxy)" {
		t.Errorf("proxy write with the CSRF token: %d %s", resp.StatusCode, body)
	}
	// Other groups, another token: a token is bound to who and what.
	other := []string{"X-Remote-User", "ann@example.edu", "X-Remote-Groups", "law-hours;staff;it-admins", auth.CSRFHeader, m[1]}
	if resp, _ := proxied(t, http.MethodPatch, srv.URL+"/hours/libraries/law", doc, other...); resp.StatusCode != 403 {
		t.Errorf("the token of other groups: %d", resp.StatusCode)
	}
	// Signed in at the proxy, /auth/login goes straight back.
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+auth.LoginPath+"?return=/hours/", nil)
	req.Header.Set(proxyHeaders[0], proxyHeaders[1])
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != srv.URL+"/hours/" {
		t.Errorf("login through the proxy: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Sign out goes to the proxy's logout (with the token).
	req, _ = http.NewRequest(http.MethodPost, srv.URL+auth.LogoutPath, nil)
	req.Header.Set(proxyHeaders[0], proxyHeaders[1])
	req.Header.Set(proxyHeaders[2], proxyHeaders[3])
	req.Header.Set(auth.CSRFHeader, m[1])
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "https://idp.example.edu/Shibboleth.sso/Logout" {
		t.Errorf("sign-out through the proxy: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// Without the headers (the proxy let an anonymous request through).
	if resp, body := proxied(t, http.MethodGet, srv.URL+"/auth/whoami", ""); !strings.Contains(body, `"signedIn":false`) {
		t.Errorf("whoami without the headers: %d %s", resp.StatusCode, body)
	}
}

// TestProxyHeadersFromElsewhere: the same headers from an address that
// is not the proxy's sign nobody in and authorise nothing.
func TestProxyHeadersFromElsewhere(t *testing.T) {
	srv := startProxySite(t, "192.0.2.10")
	if resp, body := proxied(t, http.MethodGet, srv.URL+"/auth/whoami", "", proxyHeaders...); resp.StatusCode != 200 || !strings.Contains(body, `"signedIn":false`) {
		t.Errorf("whoami with headers from elsewhere: %d %s", resp.StatusCode, body)
	}
	_, page := proxied(t, http.MethodGet, srv.URL+"/auth/", "", proxyHeaders...)
	if csrfMeta.MatchString(page) || !strings.Contains(page, "Not signed in") {
		t.Errorf("status page with headers from elsewhere:\n%s", page)
	}
	doc := `{"data":{"type":"libraries","attributes":{"name":"Forged"}}}`
	if resp, _ := proxied(t, http.MethodPatch, srv.URL+"/hours/libraries/law", doc, append(slices.Clone(proxyHeaders), auth.CSRFHeader, "x")...); resp.StatusCode != 401 {
		t.Errorf("a write with forged headers: %d", resp.StatusCode)
	}
	if lawName(t, srv.URL) == "Forged" {
		t.Error("forged headers changed the library")
	}
	if resp, body := proxied(t, http.MethodGet, srv.URL+auth.LoginPath, "", proxyHeaders...); resp.StatusCode != 401 || !strings.Contains(body, "must protect") {
		t.Errorf("login from elsewhere: %d %s", resp.StatusCode, body)
	}
}
