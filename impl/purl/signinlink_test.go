package purl

import (
	"net/http"
	"strings"
	"testing"
)

// TestPageSignInLink: the page of a group-restricted object links the
// site's sign-in, returning to the page, when the site has one; without a
// sign-in, and for a location-only object, there is no link to follow.
func TestPageSignInLink(t *testing.T) {
	signedIn := newFixture(t, func(c *Config) {
		c.Sessions = testSessions
		c.SignInURL = "http://purl.test/auth/login"
	})
	resp, page := signedIn.get(t, "/bn888yz8888")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	want := `<a id="sign-in" class="sign-in" href="http://purl.test/auth/login?return=http%3a%2f%2fpurl.test%2fpurl%2fbn888yz8888">Sign in</a>`
	if !strings.Contains(strings.ToLower(string(page)), strings.ToLower(want)) {
		t.Errorf("no sign-in link %s on the restricted page", want)
	}
	if resp, page := signedIn.get(t, "/bb000kk0000"); resp.StatusCode != http.StatusOK || strings.Contains(string(page), `id="sign-in"`) {
		t.Errorf("an open object's page: %d, with a sign-in link %v", resp.StatusCode, strings.Contains(string(page), `id="sign-in"`))
	}
	plain := newFixture(t)
	if _, page := plain.get(t, "/bn888yz8888"); strings.Contains(string(page), `id="sign-in"`) {
		t.Error("a sign-in link without a site sign-in")
	}
}
