package record

import "strings"

// Canvas is a file the IIIF manifest paints on a canvas of its own.
type Canvas struct {
	Resource Resource
	File     File
}

// Canvases lists the files the manifest shows, in resource order: image
// and page files with a pixel size, audio and video files with a
// duration; in resources of a type the service does not know (or none),
// the files whose media type and data say they can be painted (an image
// with a pixel size, audio or video with a duration). When there are none
// but the thumbnail has a pixel size, the thumbnail is the one canvas (a
// document's or data set's cover).
func (r *Record) Canvases() []Canvas {
	var out []Canvas
	for _, res := range r.Resources {
		for _, f := range res.Files {
			switch {
			case (res.Type == "image" || res.Type == "page") && f.Width > 0,
				(res.Type == "audio" || res.Type == "video") && f.Duration > 0,
				!resourceTypes[res.Type] && paintable(f):
				out = append(out, Canvas{Resource: res, File: f})
			}
		}
	}
	if len(out) == 0 && r.Thumb != "" {
		for _, res := range r.Resources {
			for _, f := range res.Files {
				if f.Name == r.Thumb && f.Width > 0 && strings.HasPrefix(f.MimeType, "image/") {
					out = append(out, Canvas{Resource: res, File: f})
				}
			}
		}
	}
	return out
}

// HasManifest reports whether the object has a IIIF manifest: a
// collection always has one (a IIIF Collection); an item only when it has
// something to paint on a canvas, because a Manifest must have at least
// one canvas. Without one, neither the page nor the embed viewer names a
// manifest, and /{id}/iiif/manifest is 404.
func (r *Record) HasManifest() bool {
	return r.ObjectType == "collection" || len(r.Canvases()) > 0
}

// paintable reports whether a file's media type and data let a canvas show
// it: an image with a pixel size, audio or video with a duration.
func paintable(f File) bool {
	mt := strings.ToLower(f.MimeType)
	return (strings.HasPrefix(mt, "image/") && f.Width > 0) ||
		((strings.HasPrefix(mt, "audio/") || strings.HasPrefix(mt, "video/")) && f.Duration > 0)
}

// UnsizedImages lists, once each in resource order, the image files the
// manifest would paint if the record gave their pixel size, and gives
// none: image/* files of image and page resources, of resources of an
// unknown type (or none), and the thumbnail. The service reads their size
// from the files themselves (docs/purl.md, "Images without a size").
func (r *Record) UnsizedImages() []string {
	var out []string
	seen := map[string]bool{}
	for _, res := range r.Resources {
		for _, f := range res.Files {
			if f.Width > 0 && f.Height > 0 || !strings.HasPrefix(strings.ToLower(f.MimeType), "image/") || seen[f.Name] {
				continue
			}
			if res.Type == "image" || res.Type == "page" || !resourceTypes[res.Type] || f.Name == r.Thumb {
				seen[f.Name] = true
				out = append(out, f.Name)
			}
		}
	}
	return out
}

// HasExternalImages reports whether the record names images of other
// objects (a virtual object's externalFile elements).
func (r *Record) HasExternalImages() bool {
	for _, res := range r.Resources {
		for _, x := range res.External {
			if strings.HasPrefix(strings.ToLower(x.MimeType), "image/") {
				return true
			}
		}
	}
	return false
}

// SetImageSize gives the file called name a pixel size, read from the file
// when the record gives none.
func (r *Record) SetImageSize(name string, width, height int) {
	for i := range r.Resources {
		for j := range r.Resources[i].Files {
			if f := &r.Resources[i].Files[j]; f.Name == name {
				f.Width, f.Height = width, height
			}
		}
	}
}
