package purl

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	_ "image/jpeg" // decoding answers
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
)

// Quadrant colours of the test image (quadrantsPNG).
var (
	red    = color.RGBA{200, 30, 30, 255}
	green  = color.RGBA{30, 160, 30, 255}
	blue   = color.RGBA{30, 30, 200, 255}
	yellow = color.RGBA{220, 200, 30, 255}
	white  = color.RGBA{255, 255, 255, 255}
)

// quadrantsPNG is a width × height PNG whose quadrants are red (top
// left), green (top right), blue (bottom left) and yellow, so that every
// crop, scale, mirror and rotation can be checked by its pixels.
func quadrantsPNG(t *testing.T, width, height int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	for y := range height {
		for x := range width {
			img.Set(x, y, [2][2]color.RGBA{{red, green}, {blue, yellow}}[y*2/height][x*2/width])
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func nearColour(a, b color.Color) bool {
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	d := func(x, y uint32) bool { return int(x>>8)-int(y>>8) < 30 && int(y>>8)-int(x>>8) < 30 }
	return d(r1, r2) && d(g1, g2) && d(b1, b2) && d(a1, a2)
}

type pixel struct {
	x, y int
	c    color.Color
}

// TestImageServiceLevel2 (issue 24.1): every IIIF Image API 3.0 level 2
// rule the service claims, and the extra features info.json names,
// through HTTP against the contract, checked by size and pixels.
func TestImageServiceLevel2(t *testing.T) {
	t.Parallel()
	requireVips(t)
	f := imageFixture(t, quadrantsPNG(t, 1500, 1000), 1500, 1000)
	svc := "/bb000kk0000/iiif/image/reading-room-north.png"

	// info.json states the level, the limits and exactly the extras.
	// JSON unless JSON-LD is asked for (jsonldMediaType), same document.
	resp, plain := f.get(t, svc+"/info.json")
	expect(t, resp, plain, http.StatusOK, "application/json")
	if !strings.Contains(resp.Header.Get("Vary"), "Accept") {
		t.Errorf("info.json Vary %q", resp.Header.Get("Vary"))
	}
	for _, accept := range []string{"application/ld+json", `application/ld+json;profile="http://iiif.io/api/image/3/context.json"`, "application/json, application/ld+json;q=0.9"} {
		resp, body := f.get(t, svc+"/info.json", "Accept: "+accept)
		expect(t, resp, body, http.StatusOK, typeImageInfo)
		if !bytes.Equal(body, plain) {
			t.Errorf("Accept %s: another document", accept)
		}
	}
	resp, body := f.get(t, svc+"/info.json", "Accept: application/ld+json;q=0, application/json")
	expect(t, resp, body, http.StatusOK, "application/json")
	var info map[string]any
	if err := json.Unmarshal(body, &info); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]any{
		"profile": "level2", "maxWidth": float64(iiifimage.MaxWidth), "maxHeight": float64(iiifimage.MaxHeight), "maxArea": float64(iiifimage.MaxArea),
		"extraFeatures": []any{"mirroring", "rotationArbitrary", "sizeUpscaling"}, "extraQualities": []any{"bitonal"}, "extraFormats": []any{"webp"},
	} {
		if got, _ := json.Marshal(info[k]); string(got) != string(must(json.Marshal(want))) {
			t.Errorf("info.json %s: %s, want %v", k, got, want)
		}
	}

	// baseUriRedirect: the service's id is sent to its info.json.
	resp, body = f.get(t, svc)
	expect(t, resp, body, http.StatusSeeOther, "")
	if resp.Header.Get("Location") != base+svc+"/info.json" || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("base URI: Location %q, CORS %q", resp.Header.Get("Location"), resp.Header.Get("Access-Control-Allow-Origin"))
	}

	for _, c := range []struct {
		path   string
		ctype  string
		w, h   int
		pixels []pixel
	}{
		// Regions.
		{"full/max/0/default.jpg", "image/jpeg", 1500, 1000, []pixel{{10, 10, red}, {1490, 990, yellow}}},
		{"750,500,750,500/max/0/default.jpg", "image/jpeg", 750, 500, []pixel{{10, 10, yellow}, {740, 490, yellow}}},
		{"700,0,100,100/max/0/default.jpg", "image/jpeg", 100, 100, []pixel{{10, 50, red}, {90, 50, green}}},
		{"1400,900,500,500/max/0/default.jpg", "image/jpeg", 100, 100, []pixel{{50, 50, yellow}}}, // clipped to the image
		{"pct:0,0,50,50/max/0/default.jpg", "image/jpeg", 750, 500, []pixel{{10, 10, red}, {740, 490, red}}},
		{"pct:50,0,50,50/375,/0/default.jpg", "image/jpeg", 375, 250, []pixel{{10, 10, green}, {365, 240, green}}},
		{"square/200,/0/default.jpg", "image/jpeg", 200, 200, []pixel{{10, 10, red}, {190, 190, yellow}}},
		// Sizes.
		{"full/,100/0/default.jpg", "image/jpeg", 150, 100, []pixel{{5, 5, red}, {145, 95, yellow}}},
		{"full/pct:10/0/default.jpg", "image/jpeg", 150, 100, []pixel{{5, 5, red}}},
		{"full/!300,300/0/default.jpg", "image/jpeg", 300, 200, []pixel{{290, 10, green}}},
		{"full/!3000,3000/0/default.jpg", "image/jpeg", 1500, 1000, nil}, // not upscaled without ^
		{"full/300,300/0/default.jpg", "image/jpeg", 300, 300, []pixel{{10, 10, red}, {290, 290, yellow}}},
		{"full/^2000,/0/default.jpg", "image/jpeg", 2000, 1333, []pixel{{1990, 1320, yellow}}},
		{"full/^pct:150/0/default.jpg", "image/jpeg", 2250, 1500, nil},
		{"full/^!3000,3000/0/default.jpg", "image/jpeg", 3000, 2000, nil},
		{"0,0,100,100/^max/0/default.jpg", "image/jpeg", 5000, 5000, nil}, // up to maxArea
		// Rotation (clockwise) and mirroring (first).
		{"full/150,/90/default.jpg", "image/jpeg", 100, 150, []pixel{{5, 5, blue}, {95, 5, red}, {95, 145, green}}},
		{"full/150,/180/default.jpg", "image/jpeg", 150, 100, []pixel{{5, 5, yellow}, {145, 95, red}}},
		{"full/150,/270/default.jpg", "image/jpeg", 100, 150, []pixel{{5, 5, green}, {5, 145, red}}},
		{"full/150,/!0/default.jpg", "image/jpeg", 150, 100, []pixel{{5, 5, green}, {145, 5, red}}},
		{"full/150,/!90/default.jpg", "image/jpeg", 100, 150, []pixel{{5, 5, yellow}, {95, 5, green}}},
		{"full/150,/45/default.jpg", "image/jpeg", 177, 177, []pixel{{1, 1, white}, {88, 30, red}}},
		{"full/150,/45/default.png", "image/png", 177, 177, []pixel{{1, 1, color.RGBA{}}, {88, 30, red}}},
		{"full/150,/360/default.jpg", "image/jpeg", 150, 100, []pixel{{5, 5, red}}},
		// Qualities and formats.
		{"full/150,/0/color.jpg", "image/jpeg", 150, 100, []pixel{{5, 5, red}}},
		{"full/150,/0/default.png", "image/png", 150, 100, []pixel{{5, 5, red}, {145, 95, yellow}}},
		{"full/150,/0/gray.png", "image/png", 150, 100, nil},
		{"full/150,/0/bitonal.png", "image/png", 150, 100, nil},
		{"full/150,/0/default.webp", "image/webp", 0, 0, nil},
	} {
		resp, body := f.get(t, svc+"/"+c.path)
		expect(t, resp, body, http.StatusOK, c.ctype)
		if resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: no CORS", c.path)
		}
		if c.ctype == "image/webp" {
			if len(body) < 12 || string(body[:4]) != "RIFF" || string(body[8:12]) != "WEBP" {
				t.Errorf("%s: not a WebP: %q", c.path, body[:min(12, len(body))])
			}
			continue
		}
		img, _, err := image.Decode(bytes.NewReader(body))
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		if b := img.Bounds(); b.Dx() < c.w-1 || b.Dx() > c.w+1 || b.Dy() < c.h-1 || b.Dy() > c.h+1 || (!strings.Contains(c.path, "/45/") && (b.Dx() != c.w || b.Dy() != c.h)) {
			t.Errorf("%s: %d × %d, want %d × %d", c.path, b.Dx(), b.Dy(), c.w, c.h)
			continue
		}
		for _, p := range c.pixels {
			if got := img.At(p.x, p.y); !nearColour(got, p.c) {
				t.Errorf("%s: pixel %d,%d is %v, want %v", c.path, p.x, p.y, got, p.c)
			}
		}
		switch {
		case strings.Contains(c.path, "gray"), strings.Contains(c.path, "bitonal"):
			for y := 0; y < c.h; y += 7 {
				for x := 0; x < c.w; x += 7 {
					r, g, b, _ := img.At(x, y).RGBA()
					if r != g || g != b {
						t.Fatalf("%s: pixel %d,%d is not gray", c.path, x, y)
					}
					if strings.Contains(c.path, "bitonal") && r != 0 && r != 0xffff {
						t.Fatalf("%s: pixel %d,%d is neither black nor white", c.path, x, y)
					}
				}
			}
		}
	}

	// A derived image is made once, then served from disk.
	before := f.svc.tiler.Stats().Derivations
	resp1, _ := f.get(t, svc+"/700,0,100,100/max/0/default.jpg")
	resp2, _ := f.get(t, svc+"/700,0,100,100/max/0/default.jpg")
	if got := f.svc.tiler.Stats().Derivations; got != before || resp1.Header.Get("ETag") != resp2.Header.Get("ETag") {
		t.Errorf("a repeated derived image was made again (%d → %d derivations) or changed ETag", before, got)
	}
	// The listed tiles and sizes are never derived.
	before = f.svc.tiler.Stats().Derivations
	for _, path := range []string{"full/max/0/default.jpg", "full/1500,1000/0/default.jpg", "full/256,/0/default.jpg", "0,0,1024,1000/512,/0/default.jpg", "0,0,512,512/512,/0/color.jpg"} {
		resp, body := f.get(t, svc+"/"+path)
		expect(t, resp, body, http.StatusOK, "image/jpeg")
	}
	if got := f.svc.tiler.Stats().Derivations; got != before {
		t.Errorf("tiles and sizes made %d derived images", got-before)
	}

	// What is refused, as the specification says.
	for path, status := range map[string]int{
		"full/2000,/0/default.jpg":            http.StatusBadRequest, // upscaling without ^
		"full/pct:101/0/default.jpg":          http.StatusBadRequest,
		"full/1500,1001/0/default.jpg":        http.StatusBadRequest,
		"full/^20000,/0/default.jpg":          http.StatusBadRequest, // beyond maxWidth
		"full/^9000,9000/0/default.jpg":       http.StatusBadRequest, // beyond maxArea
		"full/^,10001/0/default.jpg":          http.StatusBadRequest, // beyond maxHeight
		"1500,0,10,10/max/0/default.jpg":      http.StatusBadRequest, // outside the image
		"0,0,0,10/max/0/default.jpg":          http.StatusBadRequest,
		"pct:0,0,0,10/max/0/default.jpg":      http.StatusBadRequest,
		"pct:a,0,10,10/max/0/default.jpg":     http.StatusBadRequest,
		"full/0,/0/default.jpg":               http.StatusBadRequest,
		"full/,/0/default.jpg":                http.StatusBadRequest,
		"full/!10,/0/default.jpg":             http.StatusBadRequest,
		"full/max/361/default.jpg":            http.StatusBadRequest,
		"full/max/-90/default.jpg":            http.StatusBadRequest,
		"full/max/abc/default.jpg":            http.StatusBadRequest,
		"full/max/0/sepia.jpg":                http.StatusBadRequest,
		"full/max/0/default.bmp":              http.StatusBadRequest,
		"full/max/0/default.tif":              http.StatusNotImplemented,
		"full/max/0/default.gif":              http.StatusNotImplemented,
		"full/max/0/default.jp2":              http.StatusNotImplemented,
		"full/max/0/default.pdf":              http.StatusNotImplemented,
		"full/max/0/default":                  http.StatusBadRequest,
		"full/max/0/default.jpg.jpg":          http.StatusBadRequest,
		"0,0,512,512,1/512,/0/default.jpg":    http.StatusBadRequest,
		"0,0,99999999999,1/max/0/default.jpg": http.StatusBadRequest,
	} {
		resp, body := f.get(t, svc+"/"+path)
		if resp.StatusCode != status {
			t.Errorf("%s: %d %s, want %d", path, resp.StatusCode, body, status)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
