package purl

import (
	"bytes"
	"net/http"
	"strings"
	"testing"
)

// Paths people already use (issue 14.4), every answer checked against the
// contract by the fixture's client.
func TestPathsPeopleUse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	canonical := base + "/bb000kk0000"
	for _, tc := range []struct {
		path, accept string
		status       int
		location     string
	}{
		{"/bb000kk0000/", "", 301, canonical},
		{"/druid:bb000kk0000", "", 301, canonical},
		{"/druid%3Abb000kk0000", "", 301, canonical},
		{"/BB000KK0000", "", 301, canonical},
		{"/druid:bb000kk0000/", "", 301, canonical},
		{"/bb000kk0000", "application/ld+json", 303, canonical + "/iiif/manifest"},
		{"/bb000kk0000", `application/ld+json;profile="http://iiif.io/api/presentation/3/context.json"`, 303, canonical + "/iiif/manifest"},
		{"/bb000kk0000", "text/html, application/ld+json;q=0.5", 200, ""},
		{"/bb000kk0000", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", 200, ""},
		{"/bb000kk0000", "", 200, ""},
		{"/not-a-druid/", "", 404, ""},
		{"/bp999bc9999", "application/ld+json", 404, ""}, // dark
	} {
		var headers []string
		if tc.accept != "" {
			headers = append(headers, "Accept: "+tc.accept)
		}
		resp, _ := f.get(t, tc.path, headers...)
		if resp.StatusCode != tc.status || resp.Header.Get("Location") != tc.location {
			t.Errorf("GET %s (Accept %q): %d Location %q, want %d %q", tc.path, tc.accept, resp.StatusCode, resp.Header.Get("Location"), tc.status, tc.location)
		}
		if tc.path == "/bb000kk0000" && !strings.Contains(strings.Join(resp.Header.Values("Vary"), ","), "Accept") {
			t.Errorf("GET %s (Accept %q): no Vary: Accept (%v)", tc.path, tc.accept, resp.Header)
		}
	}

	// iiif3 answers exactly like iiif, conditional requests included.
	r2, m2 := f.get(t, "/bb000kk0000/iiif/manifest")
	r3, m3 := f.get(t, "/bb000kk0000/iiif3/manifest")
	if r2.StatusCode != 200 || r3.StatusCode != 200 || !bytes.Equal(m2, m3) || r2.Header.Get("ETag") != r3.Header.Get("ETag") || r2.Header.Get("Content-Type") != r3.Header.Get("Content-Type") {
		t.Errorf("iiif3 manifest differs: %d %d %q %q", r2.StatusCode, r3.StatusCode, r2.Header.Get("ETag"), r3.Header.Get("ETag"))
	}
	if resp, _ := f.get(t, "/bb000kk0000/iiif3/manifest", "If-None-Match: "+r2.Header.Get("ETag")); resp.StatusCode != http.StatusNotModified {
		t.Errorf("iiif3 conditional GET: %d", resp.StatusCode)
	}
	if resp, _ := f.do(t, http.MethodHead, "/bb000kk0000/", nil); resp.StatusCode != 301 {
		t.Errorf("HEAD /{id}/: %d", resp.StatusCode)
	}
	// Decided against (docs/purl.md): no JSON rendering of the record.
	if resp, _ := f.raw(t, http.MethodGet, "/bb000kk0000.json"); resp.StatusCode != 404 {
		t.Errorf("/{id}.json: %d, want 404", resp.StatusCode)
	}
	if resp, _ := f.raw(t, http.MethodPut, "/bb000kk0000/"); resp.StatusCode != 405 {
		t.Errorf("PUT /{id}/: %d, want 405", resp.StatusCode)
	}
}
