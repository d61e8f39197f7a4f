package purl

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/embed/imagesizes"
	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// unsizedImage is an image file of a test object whose record gives no
// pixel size.
type unsizedImage struct {
	name, mimetype string
	data           []byte
	width, height  int // the file's real size; 0: not a readable image
}

// gradient is a w×h image with something to see in it.
func gradient(w, h int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 90, 255})
		}
	}
	return img
}

func encodedPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, gradient(w, h)); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodedJPEG(t *testing.T, w, h int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, gradient(w, h), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// vipsConverted is a w×h image written by vips in the format of ext
// (".tif", ".jp2").
func vipsConverted(t *testing.T, w, h int, ext string) []byte {
	t.Helper()
	dir := t.TempDir()
	src, dst := filepath.Join(dir, "src.png"), filepath.Join(dir, "dst"+ext)
	if err := os.WriteFile(src, encodedPNG(t, w, h), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("vips", "copy", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("vips copy to %s: %v %s", ext, err, out)
	}
	data, err := os.ReadFile(dst)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// vipsReadsJP2 says whether this libvips has the JPEG 2000 loader.
func vipsReadsJP2(t *testing.T) bool {
	out, err := exec.Command("vips", "-l").CombinedOutput()
	return err == nil && bytes.Contains(out, []byte("jp2kload"))
}

// unsizedObject writes object id into dir/id: the sample bb000kk0000's
// record with one image resource per image (no imageData), the first
// image the thumbnail.
func unsizedObject(t *testing.T, dir, id string, images []unsizedImage) {
	t.Helper()
	obj := filepath.Join(dir, id)
	if err := os.MkdirAll(obj, 0o755); err != nil {
		t.Fatal(err)
	}
	pub := testkit.RepoFile(t, "samples/purl/bb000kk0000/public.xml")
	var content strings.Builder
	fmt.Fprintf(&content, "<contentMetadata objectId=\"druid:%s\" type=\"image\">\n<thumb>%s</thumb>\n", id, images[0].name)
	for i, im := range images {
		fmt.Fprintf(&content, "<resource id=\"%s_%d\" sequence=\"%d\" type=\"image\"><label>Image %d</label><file id=\"%s\" mimetype=\"%s\" size=\"%d\"/></resource>\n",
			id, i+1, i+1, i+1, im.name, im.mimetype, len(im.data))
		if err := os.WriteFile(filepath.Join(obj, im.name), im.data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	content.WriteString("</contentMetadata>")
	s := regexp.MustCompile(`(?s)<contentMetadata.*</contentMetadata>`).ReplaceAllLiteralString(string(pub), content.String())
	s = strings.ReplaceAll(s, "bb000kk0000", id)
	if err := os.WriteFile(filepath.Join(obj, "public.xml"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUnsizedImagesArePainted: images whose record gives no pixel size
// (no imageData) are painted on canvases of their real size, read from
// the files; the image service's info.json, the manifest's thumbnail and
// the page's thumbnail agree; a file that is not a readable image is left
// out, with a log line, and the object is still served.
func TestUnsizedImagesArePainted(t *testing.T) {
	t.Parallel()
	requireVips(t)
	images := []unsizedImage{
		{name: "a.jpg", mimetype: "image/jpeg", data: encodedJPEG(t, 223, 311), width: 223, height: 311},
		{name: "b.png", mimetype: "image/png", data: encodedPNG(t, 301, 157), width: 301, height: 157},
		{name: "c.tif", mimetype: "image/tiff", data: vipsConverted(t, 150, 91, ".tif"), width: 150, height: 91},
		{name: "broken.jpg", mimetype: "image/jpeg", data: []byte("\xff\xd8\xff not a JPEG at all")},
	}
	if vipsReadsJP2(t) {
		images = append(images, unsizedImage{name: "d.jp2", mimetype: "image/jp2", data: vipsConverted(t, 257, 129, ".jp2"), width: 257, height: 129})
	} else {
		t.Log("this libvips has no JPEG 2000 loader (vips -l has no jp2kload): the JP2 case is not run")
	}
	srv := testkit.StartServer(t)
	const id = "bz123cd4567"
	dir := t.TempDir()
	unsizedObject(t, dir, id, images)
	if out, err := runPublish(t, srv.DataDir, filepath.Join(dir, id)); err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}

	resp, body := srv.Get(t, "/purl/"+id+"/iiif/manifest")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("manifest: %d %s", resp.StatusCode, body)
	}
	var man struct {
		Thumbnail []struct {
			ID            string `json:"id"`
			Width, Height int
		} `json:"thumbnail"`
		Items []struct {
			Width, Height int
			Items         []struct {
				Items []struct {
					Body struct {
						ID            string `json:"id"`
						Width, Height int
						Service       []struct {
							ID string `json:"id"`
						} `json:"service"`
					} `json:"body"`
				} `json:"items"`
			} `json:"items"`
		} `json:"items"`
	}
	if err := json.Unmarshal(body, &man); err != nil {
		t.Fatal(err)
	}
	var painted []unsizedImage
	for _, im := range images {
		if im.width > 0 {
			painted = append(painted, im)
		}
	}
	if len(man.Items) != len(painted) {
		t.Fatalf("%d canvases, want %d (one per readable image):\n%s", len(man.Items), len(painted), body)
	}
	for i, im := range painted {
		c := man.Items[i]
		if c.Width != im.width || c.Height != im.height {
			t.Errorf("%s: canvas %d×%d, want the file's %d×%d", im.name, c.Width, c.Height, im.width, im.height)
		}
		b := c.Items[0].Items[0].Body
		if b.Width != im.width || b.Height != im.height || len(b.Service) != 1 {
			t.Errorf("%s: body %+v", im.name, b)
			continue
		}
		want := srv.URL + "/purl/" + id + "/iiif/image/" + im.name
		if b.Service[0].ID != want {
			t.Errorf("%s: image service %s, want %s", im.name, b.Service[0].ID, want)
		}
		resp, info := srv.Get(t, "/purl/"+id+"/iiif/image/"+im.name+"/info.json")
		var got struct{ Width, Height int }
		if resp.StatusCode != http.StatusOK || json.Unmarshal(info, &got) != nil || got.Width != im.width || got.Height != im.height {
			t.Errorf("%s: info.json %d %s, want %d×%d", im.name, resp.StatusCode, info, im.width, im.height)
		}
	}
	_, tw, th := iiifimage.ThumbnailRequest(223, 311)
	if len(man.Thumbnail) != 1 || man.Thumbnail[0].Width != tw || man.Thumbnail[0].Height != th {
		t.Errorf("manifest thumbnail %+v, want %d×%d", man.Thumbnail, tw, th)
	}
	resp, page := srv.Get(t, "/purl/"+id)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("page: %d", resp.StatusCode)
	}
	// The page's share image (og:image) is the thumbnail's image at its size.
	sharePath, sw, sh := imagesizes.Request(223, 311, imagesizes.ShareEdge)
	for _, want := range []string{
		"/purl/" + id + "/iiif/image/a.jpg/" + sharePath,
		fmt.Sprintf(`<meta property="og:image:width" content="%d">`, sw),
		fmt.Sprintf(`<meta property="og:image:height" content="%d">`, sh),
	} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page has no %s", want)
		}
	}
	if !strings.Contains(string(page), "/iiif/manifest") {
		t.Error("the page names no manifest")
	}
	// The Embed service (the page's viewer) shows it in Mirador: the
	// record alone has no sized image, Embed asks for the manifest.
	if _, iframe := testkit.Get(t, srv.EmbedIframe(id)); !strings.Contains(string(iframe), `data-viewer-uri="`+srv.URL+"/purl/"+id+`/iiif/manifest"`) {
		t.Errorf("the embed viewer does not open the manifest:\n%.2000s", iframe)
	}
	// Its oEmbed answer has the thumbnail at the size read from the file
	// (Embed takes it from the manifest).
	resp, oembed := srv.Get(t, "/embed/embed?url="+url.QueryEscape(srv.URL+"/purl/"+id))
	var oe struct {
		ThumbnailURL    string `json:"thumbnail_url"`
		ThumbnailWidth  int    `json:"thumbnail_width"`
		ThumbnailHeight int    `json:"thumbnail_height"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(oembed, &oe) != nil || oe.ThumbnailWidth != tw || oe.ThumbnailHeight != th || !strings.Contains(oe.ThumbnailURL, "/purl/"+id+"/iiif/image/a.jpg/") {
		t.Errorf("oEmbed: %d %s; want a.jpg's thumbnail, %d×%d", resp.StatusCode, oembed, tw, th)
	}
	if !strings.Contains(srv.Logs(), "not a readable image") || !strings.Contains(srv.Logs(), "broken.jpg") {
		t.Error("no log line of the unreadable broken.jpg")
	}
}

// TestImageSizesOncePerVersion: the sizes read from an object's files are
// kept with the cached object; a build of the same version reuses them
// (the file is not read again), a build with nothing cached reads it.
func TestImageSizesOncePerVersion(t *testing.T) {
	t.Parallel()
	requireVips(t)
	dir := t.TempDir()
	const id = "bz765cd4321"
	unsizedObject(t, dir, id, []unsizedImage{{name: "a.png", mimetype: "image/png", data: encodedPNG(t, 120, 80), width: 120, height: 80}})
	f := newFixture(t, func(c *Config) { c.SamplesDir = dir })
	resp, body := f.get(t, "/"+id+"/iiif/manifest")
	expect(t, resp, body, http.StatusOK, typeManifest)
	var man struct{ Items []struct{ Width, Height int } }
	if err := json.Unmarshal(body, &man); err != nil || len(man.Items) != 1 || man.Items[0].Width != 120 || man.Items[0].Height != 80 {
		t.Fatalf("manifest without the one 120×80 canvas (%v): %s", err, body)
	}
	ctx := context.Background()
	d, err := druid.Parse(id)
	if err != nil {
		t.Fatal(err)
	}
	cached, err := f.svc.object(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if got := cached.imageSizes.sizes["a.png"]; got != (pixelSize{120, 80}) || cached.imageSizes.version != cached.version {
		t.Fatalf("cached sizes %+v of version %q (object version %q)", cached.imageSizes.sizes, cached.imageSizes.version, cached.version)
	}
	// Change the stored bytes behind the service's back (a stored file
	// never changes within a version): only a read would see it.
	blob, err := f.svc.store.OpenAt(ctx, d, cached.version, "a.png")
	if err != nil {
		t.Fatal(err)
	}
	path := blob.File.Name()
	blob.File.Close()
	if err := os.WriteFile(path, encodedPNG(t, 60, 40), 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := f.svc.load(ctx, d, f.now, cached)
	if err != nil {
		t.Fatal(err)
	}
	if c := again.rec.Canvases(); len(c) != 1 || c[0].File.Width != 120 || c[0].File.Height != 80 || !again.sizesRetry.IsZero() {
		t.Errorf("rebuilt from the same version: canvases %+v (retry at %v), want the size read before, 120×80", c, again.sizesRetry)
	}
	fresh, err := f.svc.load(ctx, d, f.now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c := fresh.rec.Canvases(); len(c) != 1 || c[0].File.Width != 60 || c[0].File.Height != 40 {
		t.Errorf("built with nothing cached: canvases %+v, want the file read, 60×40", c)
	}
	// A read that cannot be made now (here: the request gone) leaves the
	// image unpainted and the object to be built again soon, when the
	// read is made.
	gone, cancel := context.WithCancel(ctx)
	cancel()
	partial, err := f.svc.load(gone, d, f.now, nil)
	if err != nil {
		t.Fatal(err)
	}
	if partial.hasManifest() || !partial.sizesRetry.Equal(f.now.Add(imageSizeRetry)) || len(partial.imageSizes.sizes) != 0 {
		t.Errorf("size not read: manifest %v, retry at %v, sizes %v; want none, now + %v, none", partial.hasManifest(), partial.sizesRetry, partial.imageSizes.sizes, imageSizeRetry)
	}
	retried, err := f.svc.load(ctx, d, f.now, partial)
	if err != nil {
		t.Fatal(err)
	}
	if c := retried.rec.Canvases(); len(c) != 1 || c[0].File.Width != 60 || !retried.sizesRetry.IsZero() {
		t.Errorf("built again: canvases %+v, retry at %v; want 60×40 and no retry", c, retried.sizesRetry)
	}
}
