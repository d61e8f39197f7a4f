package embed_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"image/jpeg"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// contractGet returns a GET of a path on srv through a client that
// validates every request and answer against api/embed.yaml.
func contractGet(t *testing.T, srv *testkit.Server) func(t *testing.T, path string) (*http.Response, []byte) {
	t.Helper()
	client := testkit.NewValidator(t, testkit.Spec(t, embedapi.GetSpec)).Mounted("/embed").Client(t)
	return func(t *testing.T, path string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		return testkit.Do(t, client, req)
	}
}

// TestRealServer asks the real binary, with the sample objects loaded by
// the PURL service, for the oEmbed response of every sample, validating
// every response against api/embed.yaml; the title comes from the PURL
// service's public XML.
func TestRealServer(t *testing.T) {
	t.Parallel()
	srv := testkit.StartServer(t, "--provider-name", "E2E Library")
	get := contractGet(t, srv)
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
	} else if r, _ := testkit.Get(t, string(up[1])); r.StatusCode != 200 {
		t.Errorf("the collection's PURL %s answers %d", up[1], r.StatusCode)
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
	resp, doc := srv.Get(t, "/embed/openapi.yaml")
	if resp.StatusCode != 200 || !strings.Contains(string(doc), "url: "+srv.URL+"/embed") {
		t.Errorf("openapi.yaml: %d, servers not the configured base URL", resp.StatusCode)
	}
}

// TestOEmbedThumbnail: image objects readable by anyone carry the
// thumbnail fields, whose URL answers a JPEG of exactly that size from the
// PURL service's image service; other objects carry none. Every answer is
// validated against api/embed.yaml.
func TestOEmbedThumbnail(t *testing.T) {
	t.Parallel()
	testkit.RequireTool(t, "vips")
	srv := testkit.StartServer(t)
	get := contractGet(t, srv)
	type thumb struct {
		URL    *string `json:"thumbnail_url" xml:"thumbnail_url"`
		Width  *int    `json:"thumbnail_width" xml:"thumbnail_width"`
		Height *int    `json:"thumbnail_height" xml:"thumbnail_height"`
	}
	for id, want := range map[string]bool{sampleImage: true, sampleBook: true, sampleMap: true, sampleMedia: false, samplePDF: false, sampleGroup: false, sampleCitation: false} {
		oembed := "/embed/embed?url=" + url.QueryEscape(srv.URL+"/purl/"+id)
		_, body := get(t, oembed)
		var j thumb
		if err := json.Unmarshal(body, &j); err != nil {
			t.Fatal(err)
		}
		_, body = get(t, oembed+"&format=xml")
		var x thumb
		if err := xml.Unmarshal(body, &x); err != nil {
			t.Fatal(err)
		}
		if (j.URL != nil) != want || (x.URL != nil) != want {
			t.Errorf("%s: thumbnail in JSON %v, XML %v, want %v", id, j.URL != nil, x.URL != nil, want)
			continue
		}
		if !want {
			continue
		}
		if *j.URL != *x.URL || *j.Width != *x.Width || *j.Height != *x.Height || max(*j.Width, *j.Height) > 256 {
			t.Errorf("%s: JSON %s %dx%d, XML %s %dx%d", id, *j.URL, *j.Width, *j.Height, *x.URL, *x.Width, *x.Height)
		}
		resp, body := testkit.Get(t, *j.URL)
		img, err := jpeg.Decode(bytes.NewReader(body))
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: thumbnail %s: %d %v", id, *j.URL, resp.StatusCode, err)
		}
		if b := img.Bounds(); b.Dx() != *j.Width || b.Dy() != *j.Height {
			t.Errorf("%s: thumbnail is %dx%d, oEmbed says %dx%d", id, b.Dx(), b.Dy(), *j.Width, *j.Height)
		}
	}
}
