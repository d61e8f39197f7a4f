package imagesizes

import (
	"reflect"
	"testing"
)

func TestDownloads(t *testing.T) {
	s := "http://p.test/purl/bb000kk0000/iiif/image/ceiling.jpg"
	got := Downloads(s, "ceiling.jpg", 6000, 4000)
	want := []Size{
		{"Small", s + "/full/512,/0/default.jpg", 512, 341, "ceiling-512x341.jpg"},
		{"Medium", s + "/full/1024,/0/default.jpg", 1024, 683, "ceiling-1024x683.jpg"},
		{"Large", s + "/full/2048,/0/default.jpg", 2048, 1365, "ceiling-2048x1365.jpg"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("6000×4000: %+v", got)
	}
	// Upright: the height is the edge.
	if got := Downloads(s, "page.tif", 480, 640); len(got) != 1 || got[0].URL != s+"/full/,512/0/default.jpg" || got[0].Width != 384 || got[0].Height != 512 {
		t.Errorf("480×640: %+v", got)
	}
	// No larger than the smallest edge: the original is it.
	if got := Downloads(s, "icon.png", 512, 300); len(got) != 0 {
		t.Errorf("512×300: %+v", got)
	}
	if p, w, h := Request(300, 200, ShareEdge); p != "full/max/0/default.jpg" || w != 300 || h != 200 {
		t.Errorf("share of a small image: %s %d×%d", p, w, h)
	}
	for mt, name := range map[string]string{"image/jp2": "JPEG 2000", "IMAGE/JPEG": "JPEG", "image/png": "PNG", "image/tiff": "TIFF", "image/x-odd": "image/x-odd"} {
		if got := FormatName(mt); got != name {
			t.Errorf("FormatName(%s) = %s", mt, got)
		}
	}
}
