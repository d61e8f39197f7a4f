package purl

import (
	"net/url"
	"time"

	"github.com/sitelib/sitesvc/impl/embed/imagesizes"
	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
	"github.com/sitelib/sitesvc/impl/purl/record"
)

// imageSize is one JPEG the image service makes of an image file.
type imageSize = imagesizes.Size

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

// thumbnail is the page's thumbnail of image file f: the image service's
// ThumbnailEdge JPEG and its ShareEdge JPEG; ok is false when f has no
// image service (not an image the tiler reads, no size, no libvips).
func (s *Service) thumbnail(purl string, f record.File) (*pageThumb, bool) {
	if !s.hasImageService(f) {
		return nil, false
	}
	service := imagesizes.ServiceURL(purl, f.Name) + "/"
	path, w, h := iiifimage.ThumbnailRequest(f.Width, f.Height)
	t := &pageThumb{URL: service + path, Width: w, Height: h}
	path, w, h = imagesizes.Request(f.Width, f.Height, imagesizes.ShareEdge)
	t.Share = imageSize{URL: service + path, Width: w, Height: h}
	return t, true
}

// imageDownloads lists the object's image files with an image service,
// each with its JPEG sizes smaller than the image and its original.
func (s *Service) imageDownloads(purl string, rec *record.Record, now time.Time) []imageDownloads {
	var out []imageDownloads
	for _, f := range rec.Files() {
		if !s.hasImageService(f) || !rec.Rights.ForFile(f.Name).WorldReadable(now) {
			continue
		}
		out = append(out, imageDownloads{
			Name:        f.Name,
			Sizes:       imagesizes.Downloads(imagesizes.ServiceURL(purl, f.Name), f.Name, f.Width, f.Height),
			OriginalURL: purl + "/file/" + url.PathEscape(f.Name) + "?download=true",
			Format:      imagesizes.FormatName(f.MimeType),
			Width:       f.Width,
			Height:      f.Height,
			Size:        humanSize(f.Size),
		})
	}
	return out
}

// favicon is the pages' icon: a book on the library's blue, inline so
// that it costs no request and needs no route.
const favicon = "data:image/svg+xml," +
	"%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'%3E" +
	"%3Crect width='32' height='32' rx='6' fill='%230b5394'/%3E" +
	"%3Cpath d='M7 8h8a2 2 0 0 1 1 .3A2 2 0 0 1 17 8h8v16h-8a1 1 0 0 0-1 1 1 1 0 0 0-1-1H7z' fill='%23fff'/%3E" +
	"%3Cpath d='M16 9v15' stroke='%230b5394' stroke-width='1.2'/%3E%3C/svg%3E"
