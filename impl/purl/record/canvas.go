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
