package embed_test

import (
	"encoding/json"
	"encoding/xml"
	"image/jpeg"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestOEmbedThumbnail: image objects readable by anyone carry the
// thumbnail fields, whose URL answers a JPEG of exactly that size from the
// PURL service's image service; other objects carry none. Every answer is
// validated against api/embed.yaml.
func TestOEmbedThumbnail(t *testing.T) {
	t.Parallel()
	testkit.RequireTool(t, "vips")
	srv := testkit.StartServer(t)
	spec, err := embedapi.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	client := testkit.NewValidator(t, spec).Mounted("/embed").Client(t)
	get := func(t *testing.T, u string) (*http.Response, []byte) {
		t.Helper()
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, body
	}
	type thumb struct {
		URL    *string `json:"thumbnail_url" xml:"thumbnail_url"`
		Width  *int    `json:"thumbnail_width" xml:"thumbnail_width"`
		Height *int    `json:"thumbnail_height" xml:"thumbnail_height"`
	}
	for id, want := range map[string]bool{sampleImage: true, sampleBook: true, sampleMap: true, sampleMedia: false, samplePDF: false, sampleGroup: false, sampleCitation: false} {
		oembed := srv.URL + "/embed/embed?url=" + url.QueryEscape(srv.URL+"/purl/"+id)
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
		resp, err := http.Get(*j.URL)
		if err != nil {
			t.Fatal(err)
		}
		img, err := jpeg.Decode(resp.Body)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s: thumbnail %s: %d %v", id, *j.URL, resp.StatusCode, err)
		}
		if b := img.Bounds(); b.Dx() != *j.Width || b.Dy() != *j.Height {
			t.Errorf("%s: thumbnail is %dx%d, oEmbed says %dx%d", id, b.Dx(), b.Dy(), *j.Width, *j.Height)
		}
	}
}
