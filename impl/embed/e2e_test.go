package embed_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestRealServer asks the real binary, with the sample objects loaded by
// the PURL service, for the oEmbed response of every sample, validating
// every response against api/embed.yaml; the title comes from the PURL
// service's public XML.
func TestRealServer(t *testing.T) {
	t.Parallel()
	srv := testkit.StartServer(t, "--provider-name", "E2E Library")
	spec, err := embedapi.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	client := testkit.NewValidator(t, spec).Mounted("/embed").Client(t)
	get := func(t *testing.T, path string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, body := testkit.Do(t, client, req)
		return resp, body
	}
	purl := func(id string) string { return url.QueryEscape(srv.URL + "/purl/" + id) }

	titles := map[string]string{
		sampleImage:      "Two views of the reading room",
		sampleBook:       "A short book of ruled pages",
		sampleMap:        "Map of an imaginary coast",
		sampleCollection: "sitesvc sample collection",
		sampleMedia:      "A melody in eight notes",
		samplePDF:        "Annual report of the sample library",
		sampleFiles:      "Visitor counts, September 2025",
		sampleCitation:   "A photograph known only by its citation",
		sampleEmbargo:    "Thesis under embargo",
		sampleGroup:      "Staff-only floor plan",
		sampleLocation:   "Manuscript readable in the reading room",
	}
	for id, title := range titles {
		resp, body := get(t, "/embed/embed?url="+purl(id))
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", id, resp.StatusCode, body)
			continue
		}
		var o embedapi.OEmbed
		if err := json.Unmarshal(body, &o); err != nil {
			t.Fatal(err)
		}
		if o.Title != title || o.ProviderName != "E2E Library" || !strings.Contains(o.Html, srv.URL+"/embed/iframe?url="+purl(id)) {
			t.Errorf("%s: %+v", id, o)
		}
		resp, body = get(t, "/embed/embed?format=xml&url="+purl(id))
		if resp.StatusCode != 200 || !strings.Contains(string(body), "<oembed><type>rich</type>") {
			t.Errorf("%s XML: %d %s", id, resp.StatusCode, body)
		}
	}
	// Any site may frame the viewer: nothing between the service and the
	// client (the server's middleware) forbids it.
	resp, body := get(t, "/embed/iframe?url="+purl(sampleImage))
	if resp.StatusCode != 200 || !strings.Contains(string(body), `data-viewer-uri="`+srv.URL+"/purl/"+sampleImage+`/iiif/manifest"`) {
		t.Errorf("iframe: %d %s", resp.StatusCode, body)
	}
	// rel="up" names the collection's PURL, which the PURL service serves.
	up := regexp.MustCompile(`<link rel="up" href="([^"]+)">`).FindSubmatch(body)
	if up == nil || string(up[1]) != srv.URL+"/purl/bc000df0001" {
		t.Errorf("rel=up link %q, want the PURL of the sample collection", up)
	} else if r, err := http.Get(string(up[1])); err != nil || r.StatusCode != 200 {
		t.Errorf("the collection's PURL %s does not answer: %v", up[1], err)
	} else {
		r.Body.Close()
	}
	if xfo := resp.Header.Values("X-Frame-Options"); len(xfo) != 0 {
		t.Errorf("X-Frame-Options %q on the viewer document", xfo)
	}
	if csp := resp.Header.Values("Content-Security-Policy"); len(csp) != 1 || csp[0] != "frame-ancestors *" {
		t.Errorf("Content-Security-Policy %q on the viewer document", csp)
	}
	// The dark sample and an unknown object are 404; the PURL page of an
	// object is not a different object.
	for _, id := range []string{"bp999bc9999", "zz999zz9999"} {
		if resp, body := get(t, "/embed/embed?url="+purl(id)); resp.StatusCode != 404 {
			t.Errorf("%s: %d %s", id, resp.StatusCode, body)
		}
	}
	if resp, _ := get(t, "/embed/embed?format=yaml&url="+purl(sampleImage)); resp.StatusCode != 501 {
		t.Errorf("format=yaml: %d", resp.StatusCode)
	}
	// The published contract (served by apiserve, not part of the document).
	resp, err = http.Get(srv.URL + "/embed/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(doc), "url: "+srv.URL+"/embed") {
		t.Errorf("openapi.yaml: %d, servers not the configured base URL", resp.StatusCode)
	}
}
