package purl

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestBinary runs the real sitesvc: the index page lists the samples, the
// generated client reads them, `sitesvc tokens add` makes a token that can
// publish, and `sitesvc purl publish` validates before it writes.
func TestBinary(t *testing.T) {
	t.Parallel()
	// Loopback is the reading room, so the location-restricted sample is
	// readable without a token.
	srv := testkit.StartServer(t, "--purl-location-networks", "reading-room=127.0.0.0/8,::1/128")
	resp, index := srv.Get(t, "/")
	if resp.StatusCode != 200 || !strings.Contains(string(index), srv.URL+"/purl/bb000kk0000") || strings.Contains(string(index), "bp999bc9999") {
		t.Fatalf("index page does not list the samples (or lists the dark one): %d", resp.StatusCode)
	}

	// Through the real server's prefix stripping too, a druid never reaches
	// outside the store.
	for _, p := range []string{"/purl/..%2F..%2Fetc%2Fpasswd", "/purl/bb000kk0000%2F..%2F..%2Fpublic.xml", "/purl/bb000kk0000/file/..%2Fmods.xml", "/purl/bb000kk0000%00.xml"} {
		if resp, body := srv.Get(t, p); resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d %s", p, resp.StatusCode, body)
		}
	}

	client, err := purlapi.NewClientWithResponses(srv.URL + "/purl")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	man, err := client.GetManifestWithResponse(ctx, "bb000kk0000", nil)
	if err != nil || man.ApplicationldJSON200 == nil {
		t.Fatalf("manifest through the generated client: %v %v", err, man)
	}
	if m, err := man.ApplicationldJSON200.AsManifest(); err != nil || len(m.Items) != 2 {
		t.Fatalf("manifest through the generated client: %v %v", err, m)
	}
	x, err := client.GetPublicXmlWithResponse(ctx, "druid:bb000kk0000", nil)
	if err != nil || x.StatusCode() != 200 || !bytes.Contains(x.Body, []byte(`objectId="druid:bb000kk0000"`)) {
		t.Fatalf("public XML through the generated client: %v", err)
	}

	bin := testkit.Binary(t)
	token := testkit.AddToken(t, srv.DataDir, "publisher", "e2e")

	// Rights through the real server: a login-group file needs a token
	// with the group's role, made by tokens add; the location's network
	// needs none.
	groupToken := testkit.AddToken(t, srv.DataDir, "group:sitelib", "reader")
	for _, c := range []struct {
		path, token string
		status      int
	}{
		{"/purl/bn888yz8888/file/floor-plan.png", "", http.StatusUnauthorized},
		{"/purl/bn888yz8888/file/floor-plan.png", token, http.StatusForbidden},
		{"/purl/bn888yz8888/file/floor-plan.png", groupToken, http.StatusOK},
		{"/purl/bq121cd1212/file/leaf.png", "", http.StatusOK},
		{"/purl/bk666tv6666/file/photograph.png", groupToken, http.StatusForbidden},
	} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+c.path, nil)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.status {
			t.Errorf("GET %s (token %t): %d, want %d", c.path, c.token != "", resp.StatusCode, c.status)
		}
	}
	// Requests are validated against the contract in the real server too.
	if resp, body := srv.Get(t, "/purl/bb000kk0000/file/reading-room-north.png?download=maybe"); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("request validation through the real server: %d %s", resp.StatusCode, body)
	}
	doc := strings.Replace(string(x.Body), "<objectLabel>Two views", "<objectLabel>Re-published views", 1)
	put, err := client.PutPublicXmlWithBodyWithResponse(ctx, "bb000kk0000", "application/xml", strings.NewReader(doc), func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	})
	if err != nil || put.StatusCode() != http.StatusOK || put.JSON200 == nil {
		t.Fatalf("PUT with a token from tokens add: %v %s", err, put.Body)
	}

	// The real server checks MODS records against the MODS 3.6 schema
	// (../shared's XSD, found by default) with xmllint.
	t.Run("schema-invalid MODS", func(t *testing.T) {
		testkit.RequireTool(t, "xmllint")
		mods := testkit.RepoFile(t, "samples/purl/bb000kk0000/mods.xml")
		bad := strings.Replace(string(mods), "<title>", "<bogus/><title>", 1)
		put, err := client.PutModsWithBodyWithResponse(ctx, "bb000kk0000", "application/xml", strings.NewReader(bad), func(_ context.Context, r *http.Request) error {
			r.Header.Set("Authorization", "Bearer "+token)
			return nil
		})
		// Repaired, not refused: the element the schema rejects is
		// dropped, with a warning naming it.
		if err != nil || put.StatusCode() != http.StatusOK || !strings.Contains(string(put.Body), "titleInfo/bogus is not allowed by MODS 3.6") {
			t.Errorf("schema-invalid MODS through the real server: %v %s", err, put.Body)
		}
		if _, served := srv.Get(t, "/purl/bb000kk0000.mods"); strings.Contains(string(served), "bogus") {
			t.Errorf("the element MODS 3.6 rejects is served:\n%s", served)
		}
	})

	// Publish a new object from a directory: a copy of a sample under another druid.
	objDir := filepath.Join(t.TempDir(), "obj")
	testkit.CopyPURLSample(t, "bf222jk2222", objDir, "bt314vw1592")
	cmd := publishCmd(bin, srv.DataDir, objDir)
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "published druid:bt314vw1592") {
		t.Fatalf("purl publish: %v\n%s", err, out)
	}
	resp, body := srv.Get(t, "/purl/bt314vw1592/iiif/manifest")
	if resp.StatusCode != 200 || !strings.Contains(string(body), "/purl/bt314vw1592/file/coast-map.png") {
		t.Fatalf("published object not served: %d %s", resp.StatusCode, body)
	}

	// A bad object is refused and nothing of it is written.
	badDir := filepath.Join(t.TempDir(), "bad")
	testkit.CopyPURLSample(t, "bf222jk2222", badDir, "bv271mn8281")
	os.Remove(filepath.Join(badDir, "coast-map.png"))
	if out, err := publishCmd(bin, srv.DataDir, badDir).CombinedOutput(); err == nil || !strings.Contains(string(out), "coast-map.png") {
		t.Fatalf("purl publish of a bad object: %v\n%s", err, out)
	}
	resp, _ = srv.Get(t, "/purl/bv271mn8281")
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("refused object is served: %d", resp.StatusCode)
	}
}
