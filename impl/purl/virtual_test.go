package purl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// externalImage is one externalFile of a test virtual object.
type externalImage struct {
	object, file, mimetype, label string
	width, height                 int
}

// virtualRecord is the sample bb000kk0000's record made virtual object
// id: one image resource per external image, no files of its own, the
// first image its thumb; a member of the sample collection bc000df0001.
func virtualRecord(t *testing.T, id string, images []externalImage) []byte {
	t.Helper()
	pub, err := os.ReadFile(filepath.Join(testkit.RepoRoot(t), "samples", "purl", "bb000kk0000", "public.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var content strings.Builder
	fmt.Fprintf(&content, "<contentMetadata objectId=\"druid:%s\" type=\"image\">\n<thumb>%s/%s</thumb>\n", id, images[0].object, images[0].file)
	for i, im := range images {
		fmt.Fprintf(&content, `<resource id="%s_%d" sequence="%d" type="image"><label>%s</label>`+
			`<externalFile fileId="%s" objectId="druid:%s" resourceId="%s_1" mimetype="%s"><imageData width="%d" height="%d"/></externalFile>`+
			`<relationship objectId="druid:%s" type="alsoAvailableAs"/></resource>`+"\n",
			id, i+1, i+1, im.label, im.file, im.object, im.object, im.mimetype, im.width, im.height, im.object)
	}
	content.WriteString("</contentMetadata>")
	s := strings.ReplaceAll(string(pub), "bb000kk0000", id)
	return []byte(regexp.MustCompile(`(?s)<contentMetadata.*</contentMetadata>`).ReplaceAllLiteralString(s, content.String()))
}

// virtualManifest is what the tests read of a manifest's canvases.
type virtualManifest struct {
	Thumbnail []struct {
		ID string `json:"id"`
	} `json:"thumbnail"`
	Items []struct {
		Label         map[string][]string `json:"label"`
		Width, Height int
		Items         []struct {
			Items []struct {
				Body struct {
					ID      string           `json:"id"`
					Service []map[string]any `json:"service"`
				} `json:"body"`
			} `json:"items"`
		} `json:"items"`
	} `json:"items"`
}

// canvases is the label, size and image service of each canvas.
func (m virtualManifest) canvases() []string {
	var out []string
	for _, c := range m.Items {
		service := ""
		for _, s := range c.Items[0].Items[0].Body.Service {
			if s["type"] == "ImageService3" {
				service, _ = s["id"].(string)
			}
		}
		out = append(out, fmt.Sprintf("%s %d×%d %s", strings.Join(c.Label["none"], ""), c.Width, c.Height, service))
	}
	return out
}

// TestVirtualObjectManifest: a virtual object's manifest paints its
// constituents' images, served by the constituents (their image
// services), in its resource order; a constituent not published, or not
// listing the file, is left out; republishing a constituent (by another
// process) or deleting one (through the service) changes the virtual
// object's manifest.
func TestVirtualObjectManifest(t *testing.T) {
	t.Parallel()
	requireVips(t)
	srv := testkit.StartServer(t)
	const a, b, missing, virtual = "bz111cd1111", "bz222cd2222", "bz444cd4444", "bz333cd3333"
	dir := t.TempDir()
	publish := func(id string, images []unsizedImage, sizes bool) {
		t.Helper()
		sub := filepath.Join(dir, fmt.Sprint(time.Now().UnixNano()))
		unsizedObject(t, sub, id, images)
		if sizes {
			pub := filepath.Join(sub, id, "public.xml")
			raw, err := os.ReadFile(pub)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range images {
				raw = bytes.Replace(raw, []byte(fmt.Sprintf(`size="%d"/>`, len(im.data))), []byte(fmt.Sprintf(`size="%d"><imageData width="%d" height="%d"/></file>`, len(im.data), im.width, im.height)), 1)
			}
			if err := os.WriteFile(pub, raw, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if out, err := runPublish(t, srv.DataDir, filepath.Join(sub, id)); err != nil {
			t.Fatalf("publish %s: %v\n%s", id, err, out)
		}
	}
	publish(a, []unsizedImage{{name: "a.png", mimetype: "image/png", data: encodedPNG(t, 200, 100), width: 200, height: 100}}, true)
	publish(b, []unsizedImage{{name: "b.jpg", mimetype: "image/jpeg", data: encodedJPEG(t, 90, 60), width: 90, height: 60}}, true)
	vdir := filepath.Join(dir, "virtual", virtual)
	if err := os.MkdirAll(vdir, 0o755); err != nil {
		t.Fatal(err)
	}
	rec := virtualRecord(t, virtual, []externalImage{
		{object: a, file: "a.png", mimetype: "image/png", label: "First view", width: 200, height: 100},
		{object: missing, file: "c.jp2", mimetype: "image/jp2", label: "Not published", width: 10, height: 10},
		{object: a, file: "not-there.png", mimetype: "image/png", label: "Not listed", width: 10, height: 10},
		{object: b, file: "b.jpg", mimetype: "image/jpeg", label: "Second view", width: 90, height: 60},
	})
	if err := os.WriteFile(filepath.Join(vdir, "public.xml"), rec, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := runPublish(t, srv.DataDir, vdir); err != nil {
		t.Fatalf("publish %s: %v\n%s", virtual, err, out)
	}
	manifest := func() virtualManifest {
		t.Helper()
		resp, body := srv.Get(t, "/purl/"+virtual+"/iiif/manifest")
		var m virtualManifest
		if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &m) != nil {
			t.Fatalf("manifest: %d %s", resp.StatusCode, body)
		}
		return m
	}
	service := func(id, name string) string { return srv.URL + "/purl/" + id + "/iiif/image/" + name }
	want := []string{"First view 200×100 " + service(a, "a.png"), "Second view 90×60 " + service(b, "b.jpg")}
	if got := manifest().canvases(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("canvases\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if m := manifest(); len(m.Thumbnail) != 1 || !strings.HasPrefix(m.Thumbnail[0].ID, service(a, "a.png")+"/") {
		t.Errorf("the virtual object's thumbnail %+v is not its thumb, %s's a.png", m.Thumbnail, a)
	}
	if _, page := srv.Get(t, "/purl/"+virtual); !strings.Contains(string(page), "/purl/"+virtual+"/iiif/manifest") {
		t.Error("the virtual object's page names no manifest")
	}
	if _, iframe := testkit.Get(t, srv.EmbedIframe(virtual)); !strings.Contains(string(iframe), `data-viewer-uri="`+srv.URL+"/purl/"+virtual+`/iiif/manifest"`) {
		t.Errorf("the embed viewer does not open the virtual object's manifest:\n%.2000s", iframe)
	}
	for _, name := range []string{missing, "not-there.png"} {
		if !strings.Contains(srv.Logs(), name) {
			t.Errorf("no log line of %s, left out", name)
		}
	}

	// Republished by another process with a larger image: seen once the
	// server looks at the store again (Config.Recheck, 1 s).
	publish(a, []unsizedImage{{name: "a.png", mimetype: "image/png", data: encodedPNG(t, 300, 150), width: 300, height: 150}}, true)
	want[0] = "First view 300×150 " + service(a, "a.png")
	deadline := time.Now().Add(15 * time.Second)
	for got := manifest().canvases(); strings.Join(got, "\n") != strings.Join(want, "\n"); got = manifest().canvases() {
		if time.Now().After(deadline) {
			t.Fatalf("after republishing %s, canvases\n%s\nwant\n%s", a, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Deleted through the service: gone from the virtual object at once.
	token := testkit.AddToken(t, srv.DataDir, "publisher", "tester")
	req, err := http.NewRequest(http.MethodDelete, srv.URL+"/purl/"+b, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE %s: %d", b, resp.StatusCode)
	}
	if got := manifest().canvases(); len(got) != 1 || got[0] != want[0] {
		t.Errorf("after deleting %s, canvases %q, want only %q", b, got, want[0])
	}
}

// TestVirtualObjectRestrictedConstituent: a restricted constituent's
// image carries its own auth services in the virtual object's manifest;
// an open one's none. The virtual object is published by PUT (it has no
// files of its own).
func TestVirtualObjectRestrictedConstituent(t *testing.T) {
	t.Parallel()
	f, _ := authFixture(t)
	const virtual = "bz555cd5555"
	rec := virtualRecord(t, virtual, []externalImage{
		{object: "bb000kk0000", file: "reading-room-north.png", mimetype: "image/png", label: "Open"},
		{object: "bn888yz8888", file: "floor-plan.png", mimetype: "image/png", label: "Restricted"},
	})
	resp, body := f.do(t, http.MethodPut, "/"+virtual+".xml", rec, xmlType, bearer("pub"))
	expect(t, resp, body, http.StatusCreated, "application/json")
	resp, body = f.get(t, "/"+virtual+"/iiif/manifest")
	expect(t, resp, body, http.StatusOK, typeManifest)
	var m virtualManifest
	if err := json.Unmarshal(body, &m); err != nil || len(m.Items) != 2 {
		t.Fatalf("canvases %q (%v), want 2", m.canvases(), err)
	}
	probe := func(i int) string {
		for _, s := range m.Items[i].Items[0].Items[0].Body.Service {
			if s["type"] == "AuthProbeService2" {
				id, _ := s["id"].(string)
				return id
			}
		}
		return ""
	}
	if p := probe(0); p != "" {
		t.Errorf("the open constituent's image has a probe service %s", p)
	}
	if p := probe(1); p != "http://purl.test/iiif-auth/probe/bn888yz8888/floor-plan.png" {
		t.Errorf("the restricted constituent's image: probe service %q, want the constituent's", p)
	}
	if id := m.Items[1].Items[0].Items[0].Body.ID; id != base+"/bn888yz8888/file/floor-plan.png" {
		t.Errorf("restricted body %s, want the constituent's file", id)
	}
	// Its collection's IIIF Collection lists it: it has a manifest,
	// though its record alone has nothing to paint.
	resp, body = f.get(t, "/bc000df0001/iiif/manifest")
	expect(t, resp, body, http.StatusOK, typeManifest)
	if !strings.Contains(string(body), `"id": "`+base+"/"+virtual+`/iiif/manifest"`) {
		t.Errorf("the collection does not list the virtual object's manifest:\n%s", body)
	}
}
