package purl

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// flowGet sends a request to the IIIF Authorization Flow's services.
func flowGet(t *testing.T, h http.Handler, path string, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for _, hd := range headers {
		k, v, _ := strings.Cut(hd, ": ")
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var postedMessage = regexp.MustCompile(`window\.parent\.postMessage\((\{.*\}), ("[^"]*")\);`)

// tokenMessage reads the message a token page posts and its target origin.
func tokenMessage(t *testing.T, rec *httptest.ResponseRecorder) (map[string]any, string) {
	t.Helper()
	body, _ := io.ReadAll(rec.Body)
	m := postedMessage.FindSubmatch(body)
	if m == nil {
		t.Fatalf("token page posts no message: %d %s", rec.Code, body)
	}
	var msg map[string]any
	var origin string
	if err := json.Unmarshal(m[1], &msg); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(m[2], &origin); err != nil {
		t.Fatal(err)
	}
	return msg, origin
}

func probeStatus(t *testing.T, h http.Handler, headers ...string) (int, map[string]any) {
	t.Helper()
	rec := flowGet(t, h, "/probe/bn888yz8888/floor-plan.png", headers...)
	if rec.Code != http.StatusOK || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("probe answered %d, CORS %q", rec.Code, rec.Header().Get("Access-Control-Allow-Origin"))
	}
	var res map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res["type"] != "AuthProbeResult2" || res["@context"] != "http://iiif.io/api/auth/2/context.json" {
		t.Errorf("probe result: %v", res)
	}
	return int(res["status"].(float64)), res
}

// TestAuthFlow walks the IIIF Authorization Flow 2.0 as a viewer does:
// probe (401), access service (to the sign-in, back to a page that
// closes itself), token service (origin checked, messageId echoed), the
// token on probe and tiles (200), logout (token revoked, probe 401).
func TestAuthFlow(t *testing.T) {
	t.Parallel()
	f, flow := authFixture(t)
	h := flow.Handler()
	const site = "http://purl.test"

	if status, res := probeStatus(t, h); status != 401 || !strings.Contains(mustJSON(res["heading"]), "Sign in to view") {
		t.Errorf("anonymous probe: %d %v", status, res)
	}
	if status, _ := probeStatus(t, h, "Authorization: Bearer made-up"); status != 401 {
		t.Errorf("probe with an unknown token: %d", status)
	}
	if rec := flowGet(t, h, "/probe/bb000kk0000/reading-room-north.png"); !strings.Contains(rec.Body.String(), `"status":200`) {
		t.Errorf("probe of an open file: %s", rec.Body)
	}
	if rec := flowGet(t, h, "/probe/bn888yz8888/nothing.png"); rec.Code != 404 {
		t.Errorf("probe of a missing file: %d", rec.Code)
	}
	if rec := flowGet(t, h, "/probe/zz999zz9999/x.png"); rec.Code != 404 {
		t.Errorf("probe of a missing object: %d", rec.Code)
	}
	preflight := httptest.NewRequest(http.MethodOptions, "/probe/bn888yz8888/floor-plan.png", nil)
	pre := httptest.NewRecorder()
	h.ServeHTTP(pre, preflight)
	if pre.Code != 204 || !strings.Contains(pre.Header().Get("Access-Control-Allow-Headers"), "Authorization") {
		t.Errorf("probe preflight: %d %v", pre.Code, pre.Header())
	}

	// Access service: anonymous goes to the sign-in, returning to /done.
	rec := flowGet(t, h, "/access?origin=http%3A%2F%2Fpurl.test")
	if rec.Code != 303 || rec.Header().Get("Location") != site+"/auth/login?return=http%3A%2F%2Fpurl.test%2Fiiif-auth%2Fdone" {
		t.Errorf("access service, anonymous: %d %q", rec.Code, rec.Header().Get("Location"))
	}
	rec = flowGet(t, h, "/access", "Cookie: session=member")
	if rec.Code != 303 || rec.Header().Get("Location") != site+"/iiif-auth/done" {
		t.Errorf("access service, signed in: %d %q", rec.Code, rec.Header().Get("Location"))
	}
	rec = flowGet(t, h, "/done", "Cookie: session=member")
	if !strings.Contains(rec.Body.String(), "window.close()") || !strings.Contains(rec.Header().Get("Content-Security-Policy"), "nonce-") {
		t.Errorf("done page does not close itself under a nonce: %s", rec.Body)
	}

	// Token service: anonymous gets missingAspect, posted to the origin.
	msg, origin := tokenMessage(t, flowGet(t, h, "/token?messageId=m1&origin="+site))
	if msg["type"] != "AuthAccessTokenError2" || msg["profile"] != "missingAspect" || msg["messageId"] != "m1" || origin != site {
		t.Errorf("anonymous token: %v to %q", msg, origin)
	}
	// A foreign origin gets invalidOrigin, never a token.
	rec = flowGet(t, h, "/token?messageId=m2&origin=https://evil.example", "Cookie: session=member")
	msg, origin = tokenMessage(t, rec)
	if msg["profile"] != "invalidOrigin" || msg["accessToken"] != nil || origin != "https://evil.example" {
		t.Errorf("foreign origin: %v to %q", msg, origin)
	}
	if rec := flowGet(t, h, "/token?messageId=m3"); rec.Code != 400 || strings.Contains(rec.Body.String(), "postMessage") {
		t.Errorf("token without origin: %d %s", rec.Code, rec.Body)
	}
	// Signed in, own origin: a token, messageId echoed, framable by that origin only.
	rec = flowGet(t, h, "/token?messageId=abc%3Cx&origin="+site, "Cookie: session=member")
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors *") || !strings.Contains(csp, "script-src 'nonce-") {
		t.Errorf("token page CSP %q", csp)
	}
	msg, origin = tokenMessage(t, rec)
	token, _ := msg["accessToken"].(string)
	if msg["type"] != "AuthAccessToken2" || token == "" || msg["messageId"] != "abc<x" || origin != site || msg["expiresIn"].(float64) <= 0 {
		t.Fatalf("token: %v to %q", msg, origin)
	}

	// The token admits the probe and the content, without a cookie.
	if status, _ := probeStatus(t, h, "Authorization: Bearer "+token); status != 200 {
		t.Errorf("probe with the token: %d", status)
	}
	resp, _ := f.get(t, "/bn888yz8888/file/floor-plan.png", "Authorization: Bearer "+token)
	if resp.StatusCode != 200 {
		t.Errorf("file with the access token: %d", resp.StatusCode)
	}
	if f.svc.tiler.Available() {
		resp, _ = f.get(t, "/bn888yz8888/iiif/image/floor-plan.png/full/max/0/default.jpg", "Authorization: Bearer "+token)
		if resp.StatusCode != 200 {
			t.Errorf("tile with the access token: %d", resp.StatusCode)
		}
	}

	// Another group's member: a token, but the probe refuses in words.
	msg, _ = tokenMessage(t, flowGet(t, h, "/token?messageId=b&origin="+site, "Cookie: session=other"))
	other := msg["accessToken"].(string)
	status, res := probeStatus(t, h, "Authorization: Bearer "+other)
	if status != 403 || !strings.Contains(mustJSON(res["heading"]), "Your account does not include access to this item") {
		t.Errorf("other group's probe: %d %v", status, res)
	}

	// Logout revokes the session's tokens (not another session's) and
	// posts the site's sign-out with the session's CSRF token.
	rec = flowGet(t, h, "/logout", "Cookie: session=member")
	if !strings.Contains(rec.Body.String(), `action="http://purl.test/auth/logout"`) || !strings.Contains(rec.Body.String(), `value="csrf-ann"`) {
		t.Errorf("logout page: %s", rec.Body)
	}
	if status, _ := probeStatus(t, h, "Authorization: Bearer "+token); status != 401 {
		t.Errorf("probe with a revoked token: %d", status)
	}
	resp, _ = f.get(t, "/bn888yz8888/file/floor-plan.png", "Authorization: Bearer "+token)
	if resp.StatusCode != 401 {
		t.Errorf("file with a revoked token: %d", resp.StatusCode)
	}
	if status, _ := probeStatus(t, h, "Authorization: Bearer "+other); status != 403 {
		t.Errorf("another session's token after logout: %d", status)
	}
}

// TestAuthFlow1: the 1.0 token service Mirador 3 uses: message with
// messageId, accessToken, expiresIn; errors by name; JSON without them.
func TestAuthFlow1(t *testing.T) {
	t.Parallel()
	_, flow := authFixture(t)
	h := flow.Handler()
	msg, _ := tokenMessage(t, flowGet(t, h, "/token1?messageId=7&origin=http://purl.test"))
	if msg["error"] != "missingCredentials" || msg["messageId"] != "7" {
		t.Errorf("anonymous 1.0 token: %v", msg)
	}
	msg, _ = tokenMessage(t, flowGet(t, h, "/token1?messageId=8&origin=http://purl.test", "Cookie: session=member"))
	if msg["accessToken"] == nil || msg["messageId"] != "8" || msg["expiresIn"] == nil {
		t.Errorf("1.0 token: %v", msg)
	}
	msg, _ = tokenMessage(t, flowGet(t, h, "/token1?messageId=9&origin=http://other.example", "Cookie: session=member"))
	if msg["error"] != "invalidOrigin" || msg["accessToken"] != nil {
		t.Errorf("1.0 foreign origin: %v", msg)
	}
	rec := flowGet(t, h, "/token1", "Cookie: session=member")
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"accessToken"`) || rec.Header().Get("Content-Type") != "application/json" {
		t.Errorf("1.0 JSON token: %d %s", rec.Code, rec.Body)
	}
	if rec := flowGet(t, h, "/token1"); rec.Code != 401 || !strings.Contains(rec.Body.String(), "missingCredentials") {
		t.Errorf("1.0 JSON token, anonymous: %d %s", rec.Code, rec.Body)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
