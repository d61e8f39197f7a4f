package purl

import (
	"net/http"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// Authorisation before work (issue 11.6): a write without a publishing
// token is refused before its body is read. With a body that never ends,
// only such an answer can come back; the old code read up to the 8 MiB
// document limit first and answered 413 whatever the token.
func TestWriteAuthorisedBeforeBody(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tc := range []struct {
		method, path, token string
		status              int
	}{
		{http.MethodPut, "/bc123df4567.xml", "", 401},
		{http.MethodPut, "/bc123df4567.xml", "nonsense", 401},
		{http.MethodPut, "/bc123df4567.xml", "editor", 403},
		{http.MethodPut, "/bc123df4567.mods", "member", 403},
		{http.MethodDelete, "/bc123df4567", "reader", 403},
		{http.MethodPut, "/bc123df4567.xml", "pub", 413},
		{http.MethodDelete, "/bc123df4567", "pub", 413},
	} {
		header := http.Header{"Content-Type": {"application/xml"}}
		if tc.token != "" {
			header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, body := testkit.SendEndless(t, tc.method, f.srv.URL+tc.path, header)
		if resp.StatusCode != tc.status {
			t.Errorf("%s %s as %q with an endless body: %d, want %d: %s", tc.method, tc.path, tc.token, resp.StatusCode, tc.status, body)
		}
	}
}
