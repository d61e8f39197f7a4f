package purl

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"image/jpeg"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// requireVips skips without libvips, or fails when SITESVC_REQUIRE_TOOLS
// is set (CI).
func requireVips(t *testing.T) {
	t.Helper()
	testkit.RequireTool(t, "vips")
}

// TestImageService: info.json and tiles through the HTTP surface, each
// response validated against the contract, and the manifest naming them.
func TestImageService(t *testing.T) {
	t.Parallel()
	requireVips(t)
	f := newFixture(t)
	svc := "/bb000kk0000/iiif/image/reading-room-north.png"
	resp, body := f.get(t, svc+"/info.json", "Accept: application/ld+json")
	expect(t, resp, body, http.StatusOK, typeImageInfo)
	var info struct {
		ID      string `json:"id"`
		Type    string `json:"type"`
		Profile string `json:"profile"`
		Width   int    `json:"width"`
		Height  int    `json:"height"`
		Sizes   []iiifimage.Size
		Tiles   []struct {
			Width        int   `json:"width"`
			ScaleFactors []int `json:"scaleFactors"`
		}
	}
	if err := json.Unmarshal(body, &info); err != nil {
		t.Fatal(err)
	}
	if info.ID != base+svc || info.Type != "ImageService3" || info.Profile != "level2" || info.Width != 640 || info.Height != 480 || len(info.Sizes) == 0 || len(info.Tiles) != 1 {
		t.Fatalf("info.json: %s", body)
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Error("info.json without CORS")
	}
	etag := resp.Header.Get("ETag")
	resp, body = f.get(t, svc+"/info.json", "If-None-Match: "+etag, "Accept: application/ld+json")
	expect(t, resp, body, http.StatusNotModified, "")

	for _, sz := range info.Sizes {
		resp, body = f.get(t, svc+"/full/"+itoa(sz.Width)+","+itoa(sz.Height)+"/0/default.jpg")
		expect(t, resp, body, http.StatusOK, "image/jpeg")
		img, err := jpeg.Decode(bytes.NewReader(body))
		if err != nil || img.Bounds().Dx() != sz.Width || img.Bounds().Dy() != sz.Height {
			t.Fatalf("size %v: %v %v", sz, err, img.Bounds())
		}
	}
	resp, body = f.get(t, svc+"/0,0,512,480/512,/0/default.jpg")
	expect(t, resp, body, http.StatusOK, "image/jpeg")
	tileETag := resp.Header.Get("ETag")
	resp, body = f.do(t, http.MethodHead, svc+"/0,0,512,480/512,/0/default.jpg", nil)
	expect(t, resp, body, http.StatusOK, "image/jpeg")
	if len(body) != 0 || resp.Header.Get("ETag") != tileETag {
		t.Errorf("HEAD of a tile: %d bytes, ETag %q", len(body), resp.Header.Get("ETag"))
	}
	resp, body = f.get(t, svc+"/0,0,512,480/512,/0/default.jpg", "If-None-Match: "+tileETag)
	expect(t, resp, body, http.StatusNotModified, "")
	// Served from memory after the first request (iiifimage.Tiler.Held):
	// the same bytes, validators and Cache-Control every time.
	resp, tile := f.get(t, svc+"/0,0,512,480/512,/0/default.jpg")
	expect(t, resp, tile, http.StatusOK, "image/jpeg")
	for range 2 {
		again, body := f.get(t, svc+"/0,0,512,480/512,/0/default.jpg")
		if !bytes.Equal(body, tile) || again.Header.Get("ETag") != tileETag || again.Header.Get("Last-Modified") != resp.Header.Get("Last-Modified") ||
			again.Header.Get("Last-Modified") == "" || again.Header.Get("Cache-Control") != resp.Header.Get("Cache-Control") {
			t.Errorf("a tile again: %d bytes (first %d), header %v (first %v)", len(body), len(tile), again.Header, resp.Header)
		}
	}

	for path, status := range map[string]int{
		svc + "/full/huge/0/default.jpg":                            http.StatusBadRequest,
		svc + "/a,b,c,d/max/0/default.jpg":                          http.StatusBadRequest,
		"/bb000kk0000/iiif/image/nothere.png/info.json":             http.StatusNotFound,
		"/bh444pq4444/iiif/image/annual-report.pdf/info.json":       http.StatusNotFound,
		"/bb000kk0000/iiif/image/reading-room-north.png/full/max/0": http.StatusNotFound,
	} {
		resp, body := f.raw(t, http.MethodGet, path)
		if resp.StatusCode != status {
			t.Errorf("%s: %d %s, want %d", path, resp.StatusCode, body, status)
		}
	}

	// The manifest names the service on the image and a thumbnail from it.
	_, body = f.get(t, "/bb000kk0000/iiif/manifest")
	var m struct {
		Thumbnail []struct{ ID string }
		Items     []struct {
			Thumbnail []struct{ ID string }
			Items     []struct {
				Items []struct {
					Body struct {
						Service []struct{ ID, Type, Profile string }
					}
				}
			}
		}
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	for i, c := range m.Items {
		s := c.Items[0].Items[0].Body.Service
		if len(s) != 1 || s[0].Type != "ImageService3" || !strings.HasPrefix(s[0].ID, base+"/bb000kk0000/iiif/image/") {
			t.Errorf("canvas %d: service %+v", i, s)
		}
		if len(c.Thumbnail) != 1 {
			t.Fatalf("canvas %d without thumbnail", i)
		}
		resp, body := f.get(t, strings.TrimPrefix(c.Thumbnail[0].ID, base))
		expect(t, resp, body, http.StatusOK, "image/jpeg")
	}
	if len(m.Thumbnail) != 1 || !strings.Contains(m.Thumbnail[0].ID, "/iiif/image/") {
		t.Errorf("manifest thumbnail %+v", m.Thumbnail)
	}
}

// TestDeleteDropsPyramids: deleting an object removes its pyramids.
func TestDeleteDropsPyramids(t *testing.T) {
	t.Parallel()
	requireVips(t)
	f := newFixture(t)
	resp, body := f.get(t, "/bf222jk2222/iiif/image/coast-map.png/info.json")
	expect(t, resp, body, http.StatusOK, "application/json")
	dir := filepath.Join(f.svc.tiler.Root(), "bf222jk2222")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("no pyramid: %v", err)
	}
	resp, body = f.do(t, http.MethodDelete, "/bf222jk2222", nil, "Authorization: Bearer pub")
	expect(t, resp, body, http.StatusNoContent, "")
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("pyramids of the deleted object are still there: %v", err)
	}
	resp, body = f.get(t, "/bf222jk2222/iiif/image/coast-map.png/info.json")
	expect(t, resp, body, http.StatusNotFound, "")
}

// TestImageServiceRights: tiles, info.json and derived images follow the
// file's rights (issue 24.1, "access rights as for files"); what a
// restricted file answers is cached privately, per Authorization.
func TestImageServiceRights(t *testing.T) {
	t.Parallel()
	requireVips(t)
	f := newFixture(t)
	for _, c := range []struct {
		path, token string
		status      int
	}{
		{"/bn888yz8888/iiif/image/floor-plan.png/info.json", "", 401},
		{"/bn888yz8888/iiif/image/floor-plan.png/info.json", "other", 403},
		{"/bn888yz8888/iiif/image/floor-plan.png/info.json", "member", 200},
		{"/bn888yz8888/iiif/image/floor-plan.png/full/max/0/default.jpg", "", 401},
		{"/bn888yz8888/iiif/image/floor-plan.png/full/max/0/default.jpg", "member", 200},
		{"/bq121cd1212/iiif/image/leaf.png/info.json", "", 401},
		{"/bq121cd1212/iiif/image/leaf.png/info.json", "reader", 200},
		{"/bk666tv6666/iiif/image/photograph.png/info.json", "admin", 403},
		{"/bk666tv6666/iiif/image/photograph.png/full/max/0/default.jpg", "", 403},
		{"/bn888yz8888/iiif/image/floor-plan.png/full/100,/90/gray.png", "", 401},
		{"/bn888yz8888/iiif/image/floor-plan.png/full/100,/90/gray.png", "other", 403},
		{"/bn888yz8888/iiif/image/floor-plan.png/full/100,/90/gray.png", "member", 200},
		{"/bk666tv6666/iiif/image/photograph.png/square/100,/0/default.jpg", "", 403},
	} {
		var headers []string
		if c.token != "" {
			headers = append(headers, "Authorization: Bearer "+c.token)
		}
		resp, body := f.get(t, c.path, headers...)
		if resp.StatusCode != c.status {
			t.Errorf("%s with %q: %d %s, want %d", c.path, c.token, resp.StatusCode, body, c.status)
		}
		if c.status == 200 && (!strings.HasPrefix(resp.Header.Get("Cache-Control"), "private") || !strings.Contains(strings.Join(resp.Header.Values("Vary"), ", "), "Authorization")) {
			t.Errorf("%s: a restricted image is cached publicly: Cache-Control %q, Vary %q", c.path, resp.Header.Get("Cache-Control"), resp.Header.Values("Vary"))
		}
	}
}

// TestWithoutVips: the service starts, says so once, serves the files and
// names no image service.
func TestWithoutVips(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var logs bytes.Buffer
	f := newFixture(t, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
	if n := strings.Count(logs.String(), "libvips"); n != 1 {
		t.Errorf("log mentions libvips %d times: %s", n, logs.String())
	}
	resp, body := f.get(t, "/bb000kk0000/file/reading-room-north.png")
	expect(t, resp, body, http.StatusOK, "image/png")
	_, body = f.get(t, "/bb000kk0000/iiif/manifest")
	if strings.Contains(string(body), "ImageService3") {
		t.Error("manifest names an image service without libvips")
	}
	resp, body = f.get(t, "/bb000kk0000/iiif/image/reading-room-north.png/info.json")
	expect(t, resp, body, http.StatusServiceUnavailable, "")
}

func itoa(n int) string { return strconv.Itoa(n) }

// imageFixture serves the sample objects bb000kk0000, with its image
// reading-room-north.png replaced by data (a width × height PNG), and
// bf222jk2222.
func imageFixture(t *testing.T, data []byte, width, height int, mutate ...func(*Config)) *fixture {
	t.Helper()
	dir := t.TempDir()
	imageObject(t, dir, data, width, height)
	copySample(t, "bf222jk2222", dir)
	return newFixture(t, append([]func(*Config){func(c *Config) { c.SamplesDir = dir }}, mutate...)...)
}

// imageObject writes the sample object bb000kk0000 into dir with its
// image reading-room-north.png replaced by data (a width × height PNG).
func imageObject(t *testing.T, dir string, data []byte, width, height int) {
	t.Helper()
	obj := copySample(t, "bb000kk0000", dir)
	pub, err := os.ReadFile(filepath.Join(obj, "public.xml"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(pub), `<file id="reading-room-north.png" mimetype="image/png" size="2076">
        <imageData width="640" height="480"/>`, fmt.Sprintf(`<file id="reading-room-north.png" mimetype="image/png" size="%d">
        <imageData width="%d" height="%d"/>`, len(data), width, height), 1)
	if s == string(pub) {
		t.Fatal("the sample's image entry changed; update imageFixture")
	}
	if err := os.WriteFile(filepath.Join(obj, "public.xml"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(obj, "reading-room-north.png"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// blackPNG is a width × height black RGB PNG made by vips: small on disk,
// slow to tile.
func blackPNG(t *testing.T, width, height int) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "black.png")
	if out, err := exec.Command("vips", "black", path, itoa(width), itoa(height), "--bands", "3").CombinedOutput(); err != nil {
		t.Fatalf("vips black: %v %s", err, out)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestImageBuildQueueFull (issue 23.4): with one build slot and a queue
// of one, a first view of a third image while two are being made is 503
// with Retry-After, and is served once there is room.
func TestImageBuildQueueFull(t *testing.T) {
	t.Parallel()
	requireVips(t)
	f := imageFixture(t, blackPNG(t, 6000, 6000), 6000, 6000, func(c *Config) { c.IIIF = iiifimage.Options{MaxBuilds: 1, MaxQueue: 1} })
	done := make(chan int, 2)
	first := func(path string) {
		resp, _ := f.raw(t, http.MethodGet, path)
		done <- resp.StatusCode
	}
	go first("/bb000kk0000/iiif/image/reading-room-north.png/info.json")
	testkit.WaitUntil(t, "the first build", 60*time.Second, func() bool { st := f.svc.tiler.Stats(); return st.Running == 1 && st.Builds == 1 })
	go first("/bb000kk0000/iiif/image/reading-room-south.png/info.json")
	testkit.WaitUntil(t, "a build waiting", 60*time.Second, func() bool { return f.svc.tiler.Stats().Waiting == 1 })
	third := "/bf222jk2222/iiif/image/coast-map.png/info.json"
	resp, body := f.get(t, third)
	expect(t, resp, body, http.StatusServiceUnavailable, typeText)
	if resp.Header.Get("Retry-After") != retryAfterBusy || !strings.Contains(string(body), "busy") {
		t.Errorf("Retry-After %q: %s", resp.Header.Get("Retry-After"), body)
	}
	for range 2 {
		if code := <-done; code != http.StatusOK {
			t.Errorf("a build in the slot or the queue: %d", code)
		}
	}
	resp, body = f.get(t, third)
	expect(t, resp, body, http.StatusOK, "application/json")
}

// declaredPNG is a small PNG whose header declares width × height RGB
// pixels while its data holds a few rows only: what a decoder would
// spend minutes and gigabytes on.
func declaredPNG(width, height int) []byte {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(kind string, data []byte) {
		binary.Write(&out, binary.BigEndian, uint32(len(data)))
		out.WriteString(kind)
		out.Write(data)
		binary.Write(&out, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(kind), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(height))
	ihdr[8], ihdr[9] = 8, 2 // 8 bits, RGB
	chunk("IHDR", ihdr)
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(make([]byte, (width*3+1)*4))
	zw.Close()
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	return out.Bytes()
}

// TestImageRefusedByHeader (issue 23.3): a small PNG declaring 50,000 ×
// 50,000 pixels is refused from its header, before any decoding: 422 for
// info.json and images, no build started, and the refusal remembered for
// that file version (a repeat reads no header either).
func TestImageRefusedByHeader(t *testing.T) {
	t.Parallel()
	requireVips(t)
	data := declaredPNG(50000, 50000)
	f := imageFixture(t, data, 50000, 50000)
	svc := "/bb000kk0000/iiif/image/reading-room-north.png"
	for _, path := range []string{svc + "/info.json", svc + "/full/max/0/default.jpg", svc + "/0,0,512,512/512,/0/default.jpg", svc + "/info.json"} {
		resp, body := f.get(t, path)
		expect(t, resp, body, http.StatusUnprocessableEntity, typeText)
		if !strings.Contains(string(body), "50000 × 50000 pixels") || !strings.Contains(string(body), "/file/reading-room-north.png") {
			t.Errorf("%s: %s", path, body)
		}
	}
	st := f.svc.tiler.Stats()
	if st.Builds != 0 || st.HeaderRefusals != 1 {
		t.Errorf("builds %d, header refusals %d; want no build and one header read", st.Builds, st.HeaderRefusals)
	}
	// The file itself is still served.
	resp, body := f.get(t, "/bb000kk0000/file/reading-room-north.png")
	expect(t, resp, body, http.StatusOK, "image/png")
}
