package purl

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
	"github.com/sitelib/sitesvc/impl/purl/record"
)

// imageSize is one JPEG the image service makes of an image file.
type imageSize struct {
	Label         string // "Small", "Medium", "Large"
	URL           string
	Width, Height int
	FileName      string // suggested name of the download
}

// imageDownloads is an image file offered by size: JPEGs from the image
// service, then the original as published.
type imageDownloads struct {
	Name        string
	Sizes       []imageSize
	OriginalURL string
	Format      string // "JPEG 2000", "PNG", …
	Width       int
	Height      int
	Size        string
}

// downloadEdges are the longer edges of the JPEG sizes offered for
// download. Each is a size every pyramid of a larger image lists in its
// info.json (powers of two from iiifimage.MaxSizeEdge down), so the image
// service answers them from its cache; an image no larger than an edge
// gets no JPEG of that size (the next one, or the original, is it).
var downloadEdges = []struct {
	label string
	edge  int
}{{"Small", 512}, {"Medium", 1024}, {"Large", iiifimage.MaxSizeEdge}}

// shareEdge is the longer edge of the sharing preview (og:image), a size
// the pyramids list: large enough for link cards, a fraction of a photograph.
const shareEdge = 1024

// sizeRequest is the image request (relative to the image service) of the
// whole image scaled to edge pixels on its longer side, and its size:
// "w," for a landscape image, ",h" for an upright one, rounded as the
// image service rounds; the whole image ("max") when it is no larger.
func sizeRequest(width, height, edge int) (path string, w, h int) {
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

// thumbnail is the page's thumbnail of image file f: the image service's
// ThumbnailEdge JPEG and its shareEdge JPEG; ok is false when f has no
// image service (not an image the tiler reads, no size, no libvips).
func (s *Service) thumbnail(purl string, f record.File) (*pageThumb, bool) {
	if !s.hasImageService(f) {
		return nil, false
	}
	service := purl + "/iiif/image/" + url.PathEscape(f.Name) + "/"
	path, w, h := iiifimage.ThumbnailRequest(f.Width, f.Height)
	t := &pageThumb{URL: service + path, Width: w, Height: h}
	path, w, h = sizeRequest(f.Width, f.Height, shareEdge)
	t.Share = imageSize{URL: service + path, Width: w, Height: h}
	return t, true
}

// imageDownloads lists the object's image files with an image service,
// each with its JPEG sizes smaller than the image and its original.
func (s *Service) imageDownloads(purl string, rec *record.Record) []imageDownloads {
	var out []imageDownloads
	for _, f := range rec.Files() {
		if !s.hasImageService(f) {
			continue
		}
		service := purl + "/iiif/image/" + url.PathEscape(f.Name) + "/"
		stem := strings.TrimSuffix(f.Name, pathExt(f.Name))
		d := imageDownloads{
			Name:        f.Name,
			OriginalURL: purl + "/file/" + url.PathEscape(f.Name) + "?download=true",
			Format:      formatName(f.MimeType),
			Width:       f.Width,
			Height:      f.Height,
			Size:        humanSize(f.Size),
		}
		for _, e := range downloadEdges {
			if max(f.Width, f.Height) <= e.edge {
				break
			}
			path, w, h := sizeRequest(f.Width, f.Height, e.edge)
			d.Sizes = append(d.Sizes, imageSize{Label: e.label, URL: service + path, Width: w, Height: h,
				FileName: fmt.Sprintf("%s-%dx%d.jpg", stem, w, h)})
		}
		out = append(out, d)
	}
	return out
}

func pathExt(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[i:]
	}
	return ""
}

// formatName names an image media type for a person.
func formatName(mimetype string) string {
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

// favicon is the pages' icon: a book on the library's blue, inline so
// that it costs no request and needs no route.
const favicon = "data:image/svg+xml," +
	"%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E" +
	"%3Crect width='32' height='32' rx='6' fill='%230b5394'/%3E" +
	"%3Cpath d='M7 8h8a2 2 0 0 1 1 .3A2 2 0 0 1 17 8h8v16h-8a1 1 0 0 0-1 1 1 1 0 0 0-1-1H7z' fill='%23fff'/%3E" +
	"%3Cpath d='M16 9v15' stroke='%230b5394' stroke-width='1.2'/%3E%3C/svg%3E"
