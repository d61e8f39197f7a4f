package iiifimage

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Output limits of every image request, declared in info.json as
// maxWidth, maxHeight and maxArea (docs/purl.md, "IIIF Image API"): a
// 24-megapixel photograph's `max` is the whole image; larger images'
// `max` is scaled down to fit.
const (
	MaxWidth  = 10000
	MaxHeight = 10000
	MaxArea   = 25_000_000
)

// ErrNotImplemented: a valid IIIF request for a feature this service
// does not offer (the formats tif, gif, jp2, pdf): 501.
var ErrNotImplemented = errors.New("not implemented by this IIIF image service")

// Derivation is an image request in source pixels: the region, the
// output size before rotation, the rotation (mirrored first), the quality
// and the format.
type Derivation struct {
	X, Y, W, H    int // region
	Width, Height int // size
	Mirror        bool
	Rotation      float64 // degrees clockwise, [0, 360)
	Quality       string  // "default" (also for "color"), "gray" or "bitonal"
	Format        string  // "jpg", "png" or "webp"
}

// key names the derived image: two requests with the same pixels share it.
func (d Derivation) key() string {
	mirror := ""
	if d.Mirror {
		mirror = "!"
	}
	return fmt.Sprintf("%d,%d,%d,%d/%d,%d/%s%s/%s.%s", d.X, d.Y, d.W, d.H, d.Width, d.Height, mirror,
		strconv.FormatFloat(d.Rotation, 'f', -1, 64), d.Quality, d.Format)
}

func (d Derivation) fileName() string {
	h := sha256.Sum256([]byte(d.key()))
	return hex.EncodeToString(h[:16]) + "." + d.Format
}

// ContentType is the media type of the derived image.
func (d Derivation) ContentType() string { return FormatType(d.Format) }

// FormatType is the media type of an output format.
func FormatType(format string) string {
	switch format {
	case "png":
		return "image/png"
	case "webp":
		return "image/webp"
	}
	return "image/jpeg"
}

var (
	pctRE      = regexp.MustCompile(`^\d{1,9}(\.\d{1,9})?$`)
	rotationRE = regexp.MustCompile(`^!?\d{1,3}(\.\d{1,9})?$`)
	// knownFormats are the IIIF formats; the ones not served are 501.
	servedFormats = map[string]bool{"jpg": true, "png": true, "webp": true}
	otherFormats  = map[string]bool{"tif": true, "gif": true, "jp2": true, "pdf": true}
	qualities     = map[string]bool{"default": true, "color": true, "gray": true, "bitonal": true}
)

func badRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBadRequest, fmt.Sprintf(format, args...))
}

// Parse reads an image request against the image's size (IIIF Image API
// 3.0, sections 4.1–4.5): ErrBadRequest for invalid syntax, a region
// outside the image, a size beyond the region without `^` or beyond the
// output limits; ErrNotImplemented for the formats not served.
func Parse(width, height int, region, size, rotation, qualityFormat string) (Derivation, error) {
	var d Derivation
	if err := d.parseRegion(width, height, region); err != nil {
		return d, err
	}
	if err := d.parseSize(size); err != nil {
		return d, err
	}
	if !rotationRE.MatchString(rotation) {
		return d, badRequest("rotation %q is not a number of degrees (0–360, ! to mirror)", rotation)
	}
	d.Mirror = strings.HasPrefix(rotation, "!")
	deg, _ := strconv.ParseFloat(strings.TrimPrefix(rotation, "!"), 64)
	if deg > 360 {
		return d, badRequest("rotation %q is more than 360 degrees", rotation)
	}
	d.Rotation = math.Mod(deg, 360)
	quality, format, ok := strings.Cut(qualityFormat, ".")
	if !ok || !qualities[quality] {
		return d, badRequest("%q is not quality.format with quality default, color, gray or bitonal", qualityFormat)
	}
	switch {
	case servedFormats[format]:
	case otherFormats[format]:
		return d, fmt.Errorf("%w: format %s (jpg, png and webp are served)", ErrNotImplemented, format)
	default:
		return d, badRequest("format %q is not a IIIF format", format)
	}
	if quality == "color" {
		quality = "default" // the image's own colours: the same pixels
	}
	d.Quality, d.Format = quality, format
	return d, nil
}

func (d *Derivation) parseRegion(width, height int, region string) error {
	switch {
	case region == "full":
		d.X, d.Y, d.W, d.H = 0, 0, width, height
		return nil
	case region == "square":
		side := min(width, height)
		d.X, d.Y, d.W, d.H = (width-side)/2, (height-side)/2, side, side
		return nil
	}
	pct := strings.HasPrefix(region, "pct:")
	parts := strings.Split(strings.TrimPrefix(region, "pct:"), ",")
	if len(parts) != 4 {
		return badRequest("region %q is not full, square, x,y,w,h or pct:x,y,w,h", region)
	}
	var v [4]int
	for i, s := range parts {
		if pct {
			if !pctRE.MatchString(s) {
				return badRequest("region %q: %q is not a percentage", region, s)
			}
			f, _ := strconv.ParseFloat(s, 64)
			total := width
			if i%2 == 1 {
				total = height
			}
			v[i] = int(math.Round(f * float64(total) / 100))
			if f > 0 && v[i] == 0 && i >= 2 {
				v[i] = 1 // a sliver of a small image is one pixel, not nothing
			}
			continue
		}
		if !digits(s) {
			return badRequest("region %q: %q is not a whole number of pixels", region, s)
		}
		v[i], _ = strconv.Atoi(s)
	}
	x, y, w, h := v[0], v[1], v[2], v[3]
	if w <= 0 || h <= 0 {
		return badRequest("region %q has no area", region)
	}
	if x >= width || y >= height {
		return badRequest("region %q is outside the %d × %d image", region, width, height)
	}
	d.X, d.Y, d.W, d.H = x, y, min(w, width-x), min(h, height-y)
	return nil
}

func (d *Derivation) parseSize(size string) error {
	upscale := strings.HasPrefix(size, "^")
	s := strings.TrimPrefix(size, "^")
	rw, rh := float64(d.W), float64(d.H)
	var w, h int
	switch {
	case s == "max":
		scale := math.Min(float64(MaxWidth)/rw, math.Min(float64(MaxHeight)/rh, math.Sqrt(MaxArea/(rw*rh))))
		if !upscale {
			scale = math.Min(scale, 1)
		}
		w, h = d.W, d.H
		if scale != 1 {
			w, h = max(1, int(rw*scale)), max(1, int(rh*scale))
		}
	case strings.HasPrefix(s, "pct:"):
		n := strings.TrimPrefix(s, "pct:")
		if !pctRE.MatchString(n) {
			return badRequest("size %q: %q is not a percentage", size, n)
		}
		f, _ := strconv.ParseFloat(n, 64)
		if f > 100 && !upscale {
			return badRequest("size %q is more than 100%% without ^", size)
		}
		w, h = int(math.Round(rw*f/100)), int(math.Round(rh*f/100))
	case strings.HasPrefix(s, "!"):
		ws, hs, ok := strings.Cut(s[1:], ",")
		if !ok || !digits(ws) || !digits(hs) {
			return badRequest("size %q is not !w,h", size)
		}
		bw, _ := strconv.Atoi(ws)
		bh, _ := strconv.Atoi(hs)
		scale := math.Min(float64(bw)/rw, float64(bh)/rh)
		if !upscale {
			scale = math.Min(scale, 1)
		}
		w, h = min(bw, int(math.Round(rw*scale))), min(bh, int(math.Round(rh*scale)))
		if scale == 1 {
			w, h = d.W, d.H
		}
	default:
		ws, hs, ok := strings.Cut(s, ",")
		if !ok || (ws != "" && !digits(ws)) || (hs != "" && !digits(hs)) || (ws == "" && hs == "") {
			return badRequest("size %q is not max, w,, ,h, pct:n, w,h or !w,h", size)
		}
		w, _ = strconv.Atoi(ws)
		h, _ = strconv.Atoi(hs)
		switch {
		case hs == "":
			h = int(math.Round(rh * float64(w) / rw))
		case ws == "":
			w = int(math.Round(rw * float64(h) / rh))
		}
	}
	if w <= 0 || h <= 0 {
		return badRequest("size %q of a %d × %d region has no pixels", size, d.W, d.H)
	}
	if !upscale && (w > d.W || h > d.H) {
		return badRequest("size %q is larger than the %d × %d region: upscaling needs ^", size, d.W, d.H)
	}
	if w > MaxWidth || h > MaxHeight || int64(w)*int64(h) > MaxArea {
		return badRequest("size %q is %d × %d, beyond this service's maxWidth %d, maxHeight %d or maxArea %d", size, w, h, MaxWidth, MaxHeight, MaxArea)
	}
	d.Width, d.Height = w, h
	return nil
}
