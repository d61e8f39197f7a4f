package embed

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

var stubRequest = regexp.MustCompile(`^GET /purl/[b-df-hjkmnp-tv-z]{2}[0-9]{3}[b-df-hjkmnp-tv-z]{2}[0-9]{4}\.xml `)

// FuzzURLParameter drives /embed and /iframe with arbitrary url values:
// the answer is 200 (a known object), 400 (empty) or 404, never 5xx; no
// input markup is reflected; and the PURL stand-in only ever sees requests
// for {druid}.xml under its base.
func FuzzURLParameter(f *testing.F) {
	e := newEnv(f)
	for _, s := range []string{
		e.purl(imageDruid),
		e.purl("druid:" + strings.ToUpper(mediaDruid)),
		e.purl(darkDruid),
		e.purl("zz999zz9999"),
		`"><script>alert(1)</script>`,
		"javascript:alert(1)",
		e.purl(imageDruid) + "/../../etc/passwd",
		e.stub.base() + "/%2e%2e/bb000kk0000",
		"http://169.254.169.254/latest/meta-data/",
		"",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	h := e.svc.Handler()
	f.Fuzz(func(t *testing.T, raw string, iframe bool) {
		path := "/embed"
		if iframe {
			path = "/iframe"
		}
		req := httptest.NewRequest(http.MethodGet, path+"?url="+url.QueryEscape(raw), nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		switch rec.Code {
		case 200, 400, 404:
		default:
			t.Fatalf("url %q: status %d: %s", raw, rec.Code, rec.Body)
		}
		// 400 only for what the contract refuses before lookup: an empty
		// url or one over maxLength (2048 characters).
		if rec.Code == 400 && raw != "" && utf8.RuneCountInString(raw) <= 2048 {
			t.Fatalf("url %q: 400 for a url within the contract: %s", raw, rec.Body)
		}
		// Asked again (now perhaps answered from a remembered rendering),
		// the answer is the same.
		again := httptest.NewRecorder()
		h.ServeHTTP(again, httptest.NewRequest(http.MethodGet, path+"?url="+url.QueryEscape(raw), nil))
		if again.Code != rec.Code || again.Body.String() != rec.Body.String() {
			t.Fatalf("url %q: %d then %d: %q vs %q", raw, rec.Code, again.Code, rec.Body, again.Body)
		}
		body := rec.Body.String()
		if strings.Contains(raw, "<") && strings.Contains(body, raw) {
			t.Fatalf("url %q reflected raw: %s", raw, body)
		}
		for _, r := range e.stub.log() {
			if !stubRequest.MatchString(r) {
				t.Fatalf("url %q made the service request %q", raw, r)
			}
		}
	})
}
