package iiifauth_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// The people of the test provider: Ann is library staff (the sample's
// group sitelib), Carl is a student.
var users = []testkit.OIDCUser{
	{Username: "ann", Password: "ann-pw", Name: "Ann Staff", Groups: []string{"library-staff"}},
	{Username: "carl", Password: "carl-pw", Name: "Carl Student", Groups: []string{"students"}},
}

// site runs the binary (PURL, Embed) signing in at the test provider,
// with a reading room at 192.0.2.0/24 behind a proxy at 127.0.0.1.
func site(t *testing.T, extra ...string) *testkit.Server {
	t.Helper()
	p := testkit.StartOIDCProvider(t, testkit.OIDCProviderConfig{Users: users, ClientID: "sitesvc-test", ClientSecret: "test-secret-0123456789"})
	args := []string{"--services", "purl,embed,hours",
		"--oidc-issuer", p.Issuer, "--oidc-client-id", "sitesvc-test", "--oidc-client-secret", "test-secret-0123456789",
		"--group-map", "library-staff=group:sitelib; students=group:students",
		"--purl-access-names", "group:sitelib=library staff;location:reading-room=the Reading Room",
		"--purl-access-contact", "access@library.example.org",
		"--purl-location-networks", "reading-room=192.0.2.0/24",
		"--trusted-proxies", "127.0.0.1",
		"--purl-location-hours", "reading-room=green/special-collections"}
	srv := testkit.StartServer(t, append(args, extra...)...)
	srv.RequireViewer(t) // every test here draws an image in Mirador
	p.AllowRedirect(srv.URL+auth.CallbackPath, srv.URL+"/auth/")
	return srv
}

// recordAuthorization makes every page remember the URLs it sent an
// Authorization header to (OpenSeadragon loads tiles with XHR).
const recordAuthorization = `window.__authSent = [];
(function () {
  var open = XMLHttpRequest.prototype.open, set = XMLHttpRequest.prototype.setRequestHeader;
  XMLHttpRequest.prototype.open = function (m, u) { this.__url = String(u); return open.apply(this, arguments); };
  XMLHttpRequest.prototype.setRequestHeader = function (k, v) {
    if (String(k).toLowerCase() === 'authorization' && /^Bearer ./.test(v)) { window.__authSent.push(this.__url); }
    return set.apply(this, arguments);
  };
})();`

// expectNone fails the test, saying why, when anything on the page
// matches the CSS selector.
func expectNone(t *testing.T, ctx context.Context, selector, why string) {
	t.Helper()
	if n := eval(t, ctx, `document.querySelectorAll(`+strconv.Quote(selector)+`).length`); n != "0" {
		t.Errorf("%s (%s elements match %s)", why, n, selector)
	}
}

func openBrowser(t *testing.T) context.Context {
	t.Helper()
	ctx := testkit.Browser(t, 3*time.Minute, chromedp.WindowSize(1024, 768))
	if err := chromedp.Run(ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(recordAuthorization).Do(ctx)
		return err
	})); err != nil {
		t.Fatal(err)
	}
	return ctx
}

func eval(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	var out string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`String(`+expr+`)`, &out)); err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return out
}

func wait(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	if err := testkit.WaitJS(ctx, expr, 45*time.Second); err != nil {
		t.Fatalf("%s: %v (viewer says: %q)", what, err, eval(t, ctx, `(document.getElementById('sitesvc-viewer')||document.body).innerText.slice(0, 400)`))
	}
}

// signInPopup clicks the viewer's sign-in button and signs in as
// username in the window it opens, which closes itself.
func signInPopup(t *testing.T, ctx context.Context, username, password string) {
	t.Helper()
	opened := chromedp.WaitNewTarget(ctx, func(i *target.Info) bool { return i.Type == "page" })
	if err := chromedp.Run(ctx, chromedp.Click(`button.sitesvc-signin`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	signInAt(t, ctx, opened, username, password)
}

// signInAt signs in as username in the window opened announces.
func signInAt(t *testing.T, ctx context.Context, opened <-chan target.ID, username, password string) {
	t.Helper()
	var id target.ID
	select {
	case id = <-opened:
	case <-time.After(20 * time.Second):
		t.Fatal("the sign-in button opened no window")
	}
	// Cancelling the popup's context would close its window: it closes
	// itself once signed in, and the context goes when the test ends.
	popup, cancel := chromedp.NewContext(ctx, chromedp.WithTargetID(id))
	t.Cleanup(cancel)
	if err := chromedp.Run(popup,
		chromedp.WaitVisible(`#username`, chromedp.ByID),
		chromedp.SendKeys(`#username`, username, chromedp.ByID),
		chromedp.SendKeys(`#password`, password, chromedp.ByID),
		chromedp.Click(`#submit`, chromedp.ByID),
	); err != nil {
		t.Fatalf("signing in in the popup: %v", err)
	}
}

// sourceColours are two colours of the sample image (a blue and a
// green region), as the pixel check looks for them on Mirador's canvas.
func sourceColours(t *testing.T) [2][3]int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(testkit.RepoFile(t, "samples/purl/bn888yz8888/floor-plan.png")))
	if err != nil {
		t.Fatal(err)
	}
	at := func(p image.Point) [3]int {
		r, g, b, _ := img.At(p.X, p.Y).RGBA()
		return [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
	}
	return [2][3]int{at(image.Pt(70, 130)), at(image.Pt(230, 20))}
}

// share is the fraction of the Mirador canvas's pixels within 40 of colour c.
func share(t *testing.T, ctx context.Context, c [3]int) float64 {
	t.Helper()
	expr := fmt.Sprintf(`(function(){var cv=document.querySelector('#sitesvc-mirador .openseadragon-canvas canvas'); if(!cv) return -1;
var d=cv.getContext('2d').getImageData(0,0,cv.width,cv.height).data, n=0, near=0;
for (var i=0;i<d.length;i+=16){ n++; if (Math.abs(d[i]-%d)+Math.abs(d[i+1]-%d)+Math.abs(d[i+2]-%d) < 40) near++; }
return near/n;})()`, c[0], c[1], c[2])
	v, err := strconv.ParseFloat(eval(t, ctx, expr), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRestrictedItemInBrowser: the embed viewer of the group-restricted
// sample in Chromium, signing in at a real OpenID Connect provider.
func TestRestrictedItemInBrowser(t *testing.T) {
	t.Parallel()
	srv := site(t)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", srv.Logs())
		}
	})
	iframe := srv.EmbedIframe("bn888yz8888")
	colours := sourceColours(t)
	tiles := `performance.getEntriesByType('resource').filter(function(e){return /\/iiif\/image\/floor-plan\.png\/[^/]+\/[^/]+\/0\/default\.jpg$/.test(e.name);}).length`

	ctx := openBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(iframe)); err != nil {
		t.Fatal(err)
	}
	// Anonymous: the sign-in button, and no image requested.
	wait(t, ctx, "anonymous sign-in button", `!!document.querySelector('button.sitesvc-signin')`)
	testkit.Screenshot(t, ctx, "restricted-anonymous")
	if n := eval(t, ctx, tiles); n != "0" {
		t.Errorf("an anonymous viewer requested %s tiles", n)
	}
	if got := eval(t, ctx, `document.querySelectorAll('#sitesvc-mirador').length`); got != "0" {
		t.Errorf("Mirador started for an anonymous reader")
	}

	// Sign in through the provider: the image is drawn, without a reload.
	eval(t, ctx, `(window.__notReloaded = true)`)
	signInPopup(t, ctx, "ann", "ann-pw")
	wait(t, ctx, "image drawn after sign-in", `(function(){var c=document.querySelector('#sitesvc-mirador .openseadragon-canvas canvas'); return !!c && c.width > 0;})()`)
	wait(t, ctx, "tiles loaded", tiles+` > 0`)
	deadline := time.Now().Add(20 * time.Second)
	var blue, green float64
	for time.Now().Before(deadline) {
		if blue, green = share(t, ctx, colours[0]), share(t, ctx, colours[1]); blue > 0.1 && green > 0.1 {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if blue <= 0.1 || green <= 0.1 {
		t.Errorf("Mirador's canvas does not show the source: %.2f of its pixels are the source's blue %v, %.2f its green %v", blue, colours[0], green, colours[1])
	}
	if eval(t, ctx, `window.__notReloaded === true`) != "true" {
		t.Error("the page reloaded to show the item")
	}
	if n := eval(t, ctx, `window.__authSent.filter(function(u){return /\/iiif\/image\/floor-plan\.png\/.+default\.jpg$/.test(u);}).length`); n == "0" {
		t.Errorf("no tile was requested with the access token (sent to: %s)", eval(t, ctx, `JSON.stringify(window.__authSent)`))
	}
	testkit.Screenshot(t, ctx, "restricted-signed-in")

	// Sign out: the item is hidden again and the sign-in button is back.
	if err := chromedp.Run(ctx, chromedp.Click(`button.sitesvc-signout`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "sign-in button after sign-out", `!!document.querySelector('button.sitesvc-signin') && !document.querySelector('#sitesvc-mirador')`)
	testkit.Screenshot(t, ctx, "restricted-signed-out")
	// The sign-out reached the site: a new probe from the page is 401.
	wait(t, ctx, "session ended", `(function(){ if (!window.__probe) { window.__probe = 'pending'; fetch('/iiif-auth/probe/bn888yz8888/floor-plan.png').then(function(r){return r.json();}).then(function(j){ window.__probe = j.status; }); } if (window.__probe === 401) return true; if (window.__probe !== 'pending') window.__probe = null; return false; })()`)
}

// TestRefusedAndLocationInBrowser: a student signs in and reads why the
// item is not for them and whom to ask; a reader in the reading room
// (X-Forwarded-For from the trusted proxy) sees the location item
// without signing in, one elsewhere does not.
func TestRefusedAndLocationInBrowser(t *testing.T) {
	t.Parallel()
	srv := site(t)
	ctx := openBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.EmbedIframe("bn888yz8888"))); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "sign-in button", `!!document.querySelector('button.sitesvc-signin')`)
	signInPopup(t, ctx, "carl", "carl-pw")
	wait(t, ctx, "refusal", `/your account does not include access to this item/i.test(document.getElementById('sitesvc-viewer').innerText)`)
	text := eval(t, ctx, `document.getElementById('sitesvc-viewer').innerText`)
	if !strings.Contains(text, "access@library.example.org") || !strings.Contains(text, "library staff") {
		t.Errorf("the refusal does not say who may read it and whom to ask: %q", text)
	}
	expectNone(t, ctx, "#sitesvc-mirador", "Mirador started for a refused reader")
	testkit.Screenshot(t, ctx, "restricted-refused")

	// The reading room, through the proxy: shown without sign-in, and its
	// files served; elsewhere neither. Only the proxy's X-Forwarded-For
	// counts.
	for _, c := range []struct {
		xff        string
		shown      bool
		fileStatus int
	}{{"192.0.2.7", true, http.StatusOK}, {"198.51.100.4", false, http.StatusUnauthorized}} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/purl/bq121cd1212/file/leaf.png", nil)
		req.Header.Set("X-Forwarded-For", c.xff)
		if resp, _ := testkit.Do(t, nil, req); resp.StatusCode != c.fileStatus {
			t.Errorf("file from %s through the proxy: %d, want %d", c.xff, resp.StatusCode, c.fileStatus)
		}
		room := testkit.Browser(t, 2*time.Minute, chromedp.WindowSize(1024, 768))
		if err := chromedp.Run(room,
			network.Enable(),
			network.SetExtraHTTPHeaders(network.Headers{"X-Forwarded-For": c.xff}),
			chromedp.Navigate(srv.EmbedIframe("bq121cd1212")),
		); err != nil {
			t.Fatal(err)
		}
		if c.shown {
			wait(t, room, "location item shown in the reading room", `(function(){var c=document.querySelector('#sitesvc-mirador .openseadragon-canvas canvas'); return !!c && c.width > 0;})()`)
			testkit.Screenshot(t, room, "location-in-room")
		} else {
			wait(t, room, "location message elsewhere", `/Visit the Reading Room, (open|closed) today/.test(document.getElementById('sitesvc-viewer').innerText) && document.getElementById('sitesvc-viewer').getAttribute('data-access') === 'sign-in'`)
			if link := eval(t, room, `(document.querySelector('.sitesvc-access-message a')||{}).href`); link != srv.URL+"/hours/libraries/green.html" {
				t.Errorf("the location message links %q, not the location's page on the Hours service", link)
			}
			expectNone(t, room, "#sitesvc-mirador, button.sitesvc-signin", "a reader elsewhere got the viewer or a sign-in button for a location item")
			testkit.Screenshot(t, room, "location-elsewhere")
		}
	}
}

// TestCompactRestrictedPage: on the PURL page, a restricted item's viewer
// box is as tall as its message, not the viewer's 500 px; an item the
// reader may see (the reading room) keeps the full height.
func TestCompactRestrictedPage(t *testing.T) {
	t.Parallel()
	srv := site(t)
	frameHeight := `(function(){var f=document.querySelector('#viewer iframe'); return f ? Math.round(f.getBoundingClientRect().height) : 0;})()`
	ctx := openBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(srv.URL+"/purl/bn888yz8888")); err != nil {
		t.Fatal(err)
	}
	wait(t, ctx, "compact viewer box", `document.getElementById('viewer').hasAttribute('data-compact')`)
	// The frame is resized again when the flow adds the button.
	wait(t, ctx, "sign-in button inside the compact frame", `(function(){var f=document.querySelector('#viewer iframe'); var b=f.contentDocument.querySelector('.sitesvc-signin'); return !!b && b.getBoundingClientRect().bottom <= f.clientHeight;})()`)
	h, _ := strconv.Atoi(eval(t, ctx, frameHeight))
	if h < 80 || h > 260 {
		t.Errorf("the restricted item's viewer frame is %d px tall, want its message's height", h)
	}
	if text := eval(t, ctx, `document.body.innerText`); !strings.Contains(text, "sign in with your library account") {
		t.Errorf("the page does not tell a patron to sign in: %.300s", text)
	}
	testkit.Screenshot(t, ctx, "page-restricted-compact")

	room := testkit.Browser(t, 2*time.Minute, chromedp.WindowSize(1024, 768))
	if err := chromedp.Run(room, network.Enable(), network.SetExtraHTTPHeaders(network.Headers{"X-Forwarded-For": "192.0.2.9"}),
		chromedp.Navigate(srv.URL+"/purl/bq121cd1212")); err != nil {
		t.Fatal(err)
	}
	wait(t, room, "location item shown on its page", `(function(){var f=document.querySelector('#viewer iframe'); var d=f&&f.contentDocument; var c=d&&d.querySelector('#sitesvc-mirador .openseadragon-canvas canvas'); return !!c && c.width > 0;})()`)
	if h, _ := strconv.Atoi(eval(t, room, frameHeight)); h < 400 {
		t.Errorf("the shown item's frame is %d px tall", h)
	}
}

// TestMirador3SignsInThroughAuth1: Mirador 3 on its own, with its default
// settings, on another origin of the same site (allowed by
// --iiif-auth-origins): it reads the IIIF Auth 1.0 login service from
// the image's 401 info.json, shows its sign-in banner, signs in through
// it at the provider, gets a token from the 1.0 token service and the
// full info.json with it, then draws the image: its OpenSeadragon loads
// tiles as plain images, without the token, which the site's session
// cookie admits (docs/purl.md, "IIIF Authorization Flow").
func TestMirador3SignsInThroughAuth1(t *testing.T) {
	t.Parallel()
	var siteURL string
	pageSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Mirador</title>
<script src="%[1]s/embed/viewer/mirador.min.js"></script></head>
<body><div id="m" style="position:absolute;inset:0"></div>
<script>Mirador.viewer({id: 'm', windows: [{manifestId: '%[1]s/purl/bn888yz8888/iiif/manifest'}]});</script></body></html>`, siteURL)
	}))
	t.Cleanup(pageSrv.Close)
	srv := site(t, "--iiif-auth-origins", pageSrv.URL)
	siteURL = srv.URL
	ctx := openBrowser(t)
	if err := chromedp.Run(ctx, chromedp.Navigate(pageSrv.URL)); err != nil {
		t.Fatal(err)
	}
	signIn := `Array.prototype.find.call(document.querySelectorAll('button'), function(b){ return /sign in/i.test(b.textContent); })`
	wait(t, ctx, "Mirador's sign-in banner", `!!`+signIn)
	testkit.Screenshot(t, ctx, "mirador3-banner")
	opened := chromedp.WaitNewTarget(ctx, func(i *target.Info) bool { return i.Type == "page" })
	popup := make(chan target.ID, 1)
	// The banner may first unfold its description, whose own button
	// opens the window.
	for i := 0; i < 4 && len(popup) == 0; i++ {
		eval(t, ctx, `(function(){var b=`+signIn+`; if (b) { b.click(); } return true;})()`)
		select {
		case id := <-opened:
			popup <- id
		case <-time.After(2 * time.Second):
		}
	}
	signInAt(t, ctx, popup, "ann", "ann-pw")
	// Mirador then asks for info.json again with the token in an
	// Authorization header, and gets the full description.
	full := regexp.MustCompile(`method=GET path=/purl/bn888yz8888/iiif/image/floor-plan\.png/info\.json status=200`)
	deadline := time.Now().Add(30 * time.Second)
	for !full.MatchString(srv.Logs()) {
		if time.Now().After(deadline) {
			t.Fatalf("Mirador did not get the full info.json after its sign-in (it shows %q)", eval(t, ctx, `document.body.innerText.slice(0, 300)`))
		}
		time.Sleep(300 * time.Millisecond)
	}
	wait(t, ctx, "Mirador's sign-out button", `/sign out/i.test(document.body.innerText)`)
	// The 401 info.json is a tile source OpenSeadragon can lay out (it
	// stopped drawing for good at one without sizes or tiles): its one
	// image is refused before the sign-in, the tiles are served after.
	tile := regexp.MustCompile(`method=GET path=/purl/bn888yz8888/iiif/image/floor-plan\.png/[^/ ]+/[^/ ]+/0/default\.jpg status=(\d+)`)
	for time.Now().Before(deadline) && !strings.Contains(fmt.Sprint(tile.FindAllStringSubmatch(srv.Logs(), -1)), " 200]") {
		time.Sleep(300 * time.Millisecond)
	}
	var statuses []string
	for _, m := range tile.FindAllStringSubmatch(srv.Logs(), -1) {
		statuses = append(statuses, m[1])
	}
	if len(statuses) == 0 || statuses[len(statuses)-1] != "200" {
		t.Fatalf("Mirador got no tile after its sign-in (tile answers: %v)", statuses)
	}
	colours := sourceColours(t)
	var blue, green float64
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		if blue, green = screenShare(t, ctx, `#m .openseadragon-canvas`, colours[0]), screenShare(t, ctx, `#m .openseadragon-canvas`, colours[1]); blue > 0.05 && green > 0.05 {
			break
		}
	}
	testkit.Screenshot(t, ctx, "mirador3-signed-in")
	if blue <= 0.05 || green <= 0.05 {
		t.Errorf("Mirador 3 does not show the image after its sign-in: %.3f of its canvas is the source's blue %v, %.3f its green %v", blue, colours[0], green, colours[1])
	}
}

// screenShare is the fraction of the pixels of the element at selector,
// as a screenshot shows them, within 40 of colour c: the tiles come from
// another origin without CORS, so the canvas itself cannot be read.
func screenShare(t *testing.T, ctx context.Context, selector string, c [3]int) float64 {
	t.Helper()
	var shot []byte
	if err := chromedp.Run(ctx, chromedp.Screenshot(selector, &shot, chromedp.ByQuery)); err != nil {
		t.Fatalf("screenshot of %s: %v", selector, err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	n, near := 0, 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			n++
			if abs(int(r>>8)-c[0])+abs(int(g>>8)-c[1])+abs(int(bl>>8)-c[2]) < 40 {
				near++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return float64(near) / float64(n)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
