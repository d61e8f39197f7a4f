// Package imagesizes names the JPEGs of an image the project offers, made
// by the PURL service's IIIF image service: the downloads by size (the
// same in the embedded viewer's download panel and on the PURL page) and
// the sharing preview. Each is a size the image service lists in the
// image's info.json (powers of two from iiifimage.MaxSizeEdge down), so it
// is answered from the image service's cache.
package imagesizes

import (
	"fmt"
	"net/url"
	"strings"
)

// Size is one JPEG of an image.
type Size struct {
	Label    string `json:"label"` // "Small", "Medium", "Large"
	URL      string `json:"url"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	FileName string `json:"filename"` // suggested name of the download
}

// Edges are the longer edges of the JPEG sizes offered for download (the
// largest is iiifimage.MaxSizeEdge, the largest size pyramids list).
var Edges = []struct {
	Label string
	Edge  int
}{{"Small", 512}, {"Medium", 1024}, {"Large", 2048}}

// ShareEdge is the longer edge of the sharing preview (og:image): large
// enough for link cards, a fraction of a photograph.
const ShareEdge = 1024

// Request is the image request (relative to the image service) of the
// whole image scaled to edge pixels on its longer side, and its size:
// "w," for a landscape image, ",h" for an upright one, rounded as the
// image service rounds; the whole image ("max") when it is no larger.
func Request(width, height, edge int) (path string, w, h int) {
	if max(width, height) <= edge {
		return "full/max/0/default.jpg", width, height
	}
	if width >= height {
		h = max(1, int(float64(height)*float64(edge)/float64(width)+0.5))
		return fmt.Sprintf("full/%d,/0/default.jpg", edge), edge, h
	}
	w = max(1, int(float64(width)*float64(edge)/float64(height)+0.5))
	return fmt.Sprintf("full/,%d/0/default.jpg", edge), w, edge
}

// ServiceURL is the image service of file name of the object at purl.
func ServiceURL(purl, name string) string {
	return purl + "/iiif/image/" + url.PathEscape(name)
}

// Downloads are the JPEG sizes of Edges smaller than a width × height
// image named name (an image no larger than an edge gets no JPEG of that
// size: the next one, or the original, is it).
func Downloads(service, name string, width, height int) []Size {
	stem := name
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		stem = name[:i]
	}
	var out []Size
	for _, e := range Edges {
		if max(width, height) <= e.Edge {
			break
		}
		path, w, h := Request(width, height, e.Edge)
		out = append(out, Size{Label: e.Label, URL: service + "/" + path, Width: w, Height: h,
			FileName: fmt.Sprintf("%s-%dx%d.jpg", stem, w, h)})
	}
	return out
}

// FormatName names an image media type for a person ("JPEG 2000").
func FormatName(mimetype string) string {
	switch strings.ToLower(mimetype) {
	case "image/jpeg", "image/jpg":
		return "JPEG"
	case "image/jp2", "image/jpx", "image/jpm":
		return "JPEG 2000"
	case "image/png":
		return "PNG"
	case "image/tiff":
		return "TIFF"
	case "image/gif":
		return "GIF"
	case "image/webp":
		return "WebP"
	}
	return mimetype
}
