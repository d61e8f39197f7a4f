package purl

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/purl/iiifauth"
)

// cookieSessions is a SessionReader for tests: the cookie "session"
// names one of its sessions.
type cookieSessions map[string]auth.Session

func (c cookieSessions) Session(r *http.Request) (auth.Session, bool) {
	ck, err := r.Cookie("session")
	if err != nil {
		return auth.Session{}, false
	}
	s, ok := c[ck.Value]
	return s, ok
}

func (c cookieSessions) Configured() bool { return true }

var testSessions = cookieSessions{
	"member": {Principal: auth.Principal{Name: "ann", Roles: []string{"group:sitelib"}}, CSRFToken: "csrf-ann"},
	"other":  {Principal: auth.Principal{Name: "bob", Roles: []string{"group:elsewhere"}}, CSRFToken: "csrf-bob"},
}

// TestSessionGroupRights: a signed-in person whose groups map to
// group:sitelib reads the group's files every way they leave the
// service (file, Range, zip, IIIF info.json and tiles); another group's
// member is refused with the reason; a bearer token still works.
func TestSessionGroupRights(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) {
		c.Sessions = testSessions
		c.SignInURL = "http://purl.test/auth/login"
	})
	file := "/bn888yz8888/file/floor-plan.png"
	resp, body := f.get(t, file)
	if resp.StatusCode != 401 || !strings.Contains(string(body), "sign in at http://purl.test/auth/login") {
		t.Fatalf("anonymous: %d %q", resp.StatusCode, body)
	}
	resp, body = f.get(t, file, "Cookie: session=member")
	expect(t, resp, body, http.StatusOK, "image/png")
	if !strings.HasPrefix(resp.Header.Get("Cache-Control"), "private") || !strings.Contains(resp.Header.Get("Vary"), "Cookie") {
		t.Errorf("a session's file: Cache-Control %q Vary %q", resp.Header.Get("Cache-Control"), resp.Header.Get("Vary"))
	}
	resp, part := f.get(t, file, "Cookie: session=member", "Range: bytes=0-9")
	if resp.StatusCode != http.StatusPartialContent || string(part) != string(body[:10]) {
		t.Errorf("Range with a session: %d %d bytes", resp.StatusCode, len(part))
	}
	resp, body = f.get(t, file, "Cookie: session=other")
	if resp.StatusCode != 403 || !strings.Contains(string(body), `the account "bob" lacks the role group:sitelib`) {
		t.Errorf("other group: %d %q", resp.StatusCode, body)
	}
	resp, body = f.get(t, file, "Cookie: session=forged")
	if resp.StatusCode != 401 {
		t.Errorf("unknown session: %d %q", resp.StatusCode, body)
	}
	resp, _ = f.get(t, file, "Authorization: Bearer member")
	if resp.StatusCode != 200 {
		t.Errorf("bearer token with the group: %d", resp.StatusCode)
	}
	// A bearer token nobody issued is refused even with a good session:
	// a script's mistake is not hidden by a browser's cookie.
	resp, _ = f.get(t, file, "Authorization: Bearer nonsense", "Cookie: session=member")
	if resp.StatusCode != 401 {
		t.Errorf("bad token with a session: %d", resp.StatusCode)
	}
	resp, _ = f.get(t, "/bn888yz8888.zip")
	if resp.StatusCode != 401 {
		t.Errorf("zip anonymous: %d", resp.StatusCode)
	}
	resp, body = f.get(t, "/bn888yz8888.zip", "Cookie: session=member")
	if resp.StatusCode != 200 || len(body) == 0 {
		t.Errorf("zip with a session: %d", resp.StatusCode)
	}
	if !f.svc.tiler.Available() {
		t.Skip("libvips is not installed: the image service is not tested")
	}
	resp, _ = f.raw(t, http.MethodGet, "/bn888yz8888/iiif/image/floor-plan.png/info.json")
	if resp.StatusCode != 401 {
		t.Errorf("info.json anonymous: %d", resp.StatusCode)
	}
	resp, body = f.get(t, "/bn888yz8888/iiif/image/floor-plan.png/info.json", "Cookie: session=member")
	if resp.StatusCode != 200 {
		t.Fatalf("info.json with a session: %d %q", resp.StatusCode, body)
	}
	resp, _ = f.get(t, "/bn888yz8888/iiif/image/floor-plan.png/full/max/0/default.jpg")
	if resp.StatusCode != 401 {
		t.Errorf("tile anonymous: %d", resp.StatusCode)
	}
	resp, _ = f.get(t, "/bn888yz8888/iiif/image/floor-plan.png/full/max/0/default.jpg", "Cookie: session=member")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/jpeg" {
		t.Errorf("tile with a session: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// TestLocationBehindProxy: the client address is the connection's, or
// X-Forwarded-For's only from a trusted proxy, read from the right.
func TestLocationBehindProxy(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) {
		c.LocationNetworks = map[string][]netip.Prefix{"reading-room": {netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("2001:db8::/32")}}
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("10.9.0.0/16")}
	})
	cases := []struct {
		peer, xff string
		status    int
	}{
		{"192.0.2.7:4000", "", 200},
		{"[2001:db8::5]:4000", "", 200},
		{"[::ffff:192.0.2.7]:4000", "", 200},
		{"198.51.100.1:4000", "", 401},
		{"198.51.100.1:4000", "192.0.2.7", 401},           // not a proxy: its header is ignored
		{"10.9.0.1:4000", "192.0.2.7", 200},               // the proxy names a reader in the room
		{"10.9.0.1:4000", "198.51.100.1", 401},            // the proxy names someone elsewhere
		{"10.9.0.1:4000", "192.0.2.7, 198.51.100.1", 401}, // a client's forged hop comes first
		{"10.9.0.1:4000", "198.51.100.1, 192.0.2.7, 10.9.0.2", 200},
		{"10.9.0.1:4000", "192.0.2.7, garbage", 401},
		{"192.0.2.7:4000", "198.51.100.1", 200}, // a reader's own header changes nothing
	}
	for _, c := range cases {
		req := httptest.NewRequest(http.MethodGet, "/bq121cd1212/file/leaf.png", nil)
		req.RemoteAddr = c.peer
		if c.xff != "" {
			req.Header.Set("X-Forwarded-For", c.xff)
		}
		rec := httptest.NewRecorder()
		f.svc.Handler().ServeHTTP(rec, req)
		if rec.Code != c.status {
			t.Errorf("peer %s X-Forwarded-For %q: %d, want %d", c.peer, c.xff, rec.Code, c.status)
		}
	}
}

// authFixture is the PURL service with the IIIF Authorization Flow.
func authFixture(t *testing.T) (*fixture, *iiifauth.Service) {
	var flow *iiifauth.Service
	var f *fixture
	f = newFixture(t, func(c *Config) {
		var err error
		flow, err = iiifauth.New(iiifauth.Config{PublicURL: "http://purl.test", BaseURL: "http://purl.test/iiif-auth", Sessions: testSessions,
			Probe: iiifauth.ProberFunc(func(r *http.Request, object, file string) (int, string, string) {
				return f.svc.ProbeAccess(r, object, file)
			})})
		if err != nil {
			t.Fatal(err)
		}
		c.Sessions, c.AccessTokens, c.AuthServices = testSessions, flow, flow
		c.AccessNames = map[string]string{"group:sitelib": "library staff"}
	})
	return f, flow
}

// TestAuthServicesDescribed: the manifest's restricted image carries the
// probe service with the access (active), token and logout services; its
// info.json the 1.0 login only (Mirador 3 fails on a service without a profile there); an open item carries
// none; an anonymous info.json is a 401 that still describes them.
func TestAuthServicesDescribed(t *testing.T) {
	t.Parallel()
	f, _ := authFixture(t)
	_, body := f.get(t, "/bn888yz8888/iiif/manifest")
	var m struct {
		Items []struct {
			Items []struct {
				Items []struct {
					Body struct {
						Service []map[string]any `json:"service"`
					} `json:"body"`
				} `json:"items"`
			} `json:"items"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	services := m.Items[0].Items[0].Items[0].Body.Service
	var probe map[string]any
	for _, s := range services {
		if s["type"] == "AuthProbeService2" {
			probe = s
		}
	}
	if probe == nil || probe["id"] != "http://purl.test/iiif-auth/probe/bn888yz8888/floor-plan.png" {
		t.Fatalf("no probe service on the restricted image: %v", services)
	}
	access := probe["service"].([]any)[0].(map[string]any)
	if access["type"] != "AuthAccessService2" || access["profile"] != "active" || access["id"] != "http://purl.test/iiif-auth/access" {
		t.Errorf("access service: %v", access)
	}
	if note, _ := json.Marshal(access["note"]); !strings.Contains(string(note), `This item is available to library staff. Sign in`) {
		t.Errorf("the access service's note does not name the readers: %s", note)
	}
	inner := access["service"].([]any)
	if inner[0].(map[string]any)["type"] != "AuthAccessTokenService2" || inner[1].(map[string]any)["type"] != "AuthLogoutService2" {
		t.Errorf("token and logout services: %v", inner)
	}
	for _, open := range []string{"/bb000kk0000/iiif/manifest", "/bk666tv6666/iiif/manifest", "/bm777wx7777/iiif/manifest"} {
		if _, body := f.get(t, open); strings.Contains(string(body), "iiif-auth") {
			t.Errorf("%s (open, citation only or embargoed) describes auth services", open)
		}
	}
	// A location's item: the probe alone (no sign-in admits).
	if _, body := f.get(t, "/bq121cd1212/iiif/manifest"); !strings.Contains(string(body), "iiif-auth/probe/bq121cd1212") || strings.Contains(string(body), "AuthAccessService2") {
		t.Errorf("location item's services: %s", body)
	}
	if !f.svc.tiler.Available() {
		t.Skip("libvips is not installed: info.json is not tested")
	}
	resp, body := f.get(t, "/bn888yz8888/iiif/image/floor-plan.png/info.json") // validated against the contract
	if resp.StatusCode != 401 || !strings.Contains(string(body), `"profile":"http://iiif.io/api/auth/1/login"`) || strings.Contains(string(body), "AuthProbeService2") || !strings.Contains(string(body), `"width":`) {
		t.Errorf("anonymous info.json: %d %s", resp.StatusCode, body)
	}
	// Mirador 3's OpenSeadragon lays the 401 description out too: it
	// needs sizes or tiles, here the whole image as the one size.
	var degraded struct {
		Width, Height int
		Sizes         []struct{ Width, Height int }
	}
	if err := json.Unmarshal(body, &degraded); err != nil || len(degraded.Sizes) != 1 || degraded.Width == 0 ||
		degraded.Sizes[0].Width != degraded.Width || degraded.Sizes[0].Height != degraded.Height {
		t.Errorf("anonymous info.json does not give the whole image as its one size (%v): %s", err, body)
	}
	resp, body = f.get(t, "/bn888yz8888/iiif/image/floor-plan.png/info.json", "Cookie: session=member")
	if resp.StatusCode != 200 || !strings.Contains(string(body), "http://iiif.io/api/auth/1/token") || !strings.Contains(string(body), `"tiles"`) {
		t.Errorf("signed-in info.json: %d %s", resp.StatusCode, body)
	}
	if _, body := f.get(t, "/bb000kk0000/iiif/image/reading-room-north.png/info.json"); strings.Contains(string(body), "iiif-auth") {
		t.Errorf("an open image's info.json describes auth services: %s", body)
	}
}
