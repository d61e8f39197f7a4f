package purl

// inlineTypes are the media types a published file is shown inline as: types browsers
// display without running anything of the document on the service's origin (images,
// audio, video, PDF, plain text and tabular text). Every other type, and any type a
// publisher invents, is sent as an attachment: a list of what may run (HTML, XHTML, SVG,
// XSL, XML with a stylesheet processing instruction, JavaScript, …) could never be
// complete, so the service only names what is safe. SVG is an image that runs script, so
// it is not here.
var inlineTypes = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true,
	"image/avif": true, "image/bmp": true, "image/tiff": true, "image/jp2": true,
	"image/x-icon": true,
	"audio/mpeg":   true, "audio/mp4": true, "audio/aac": true, "audio/ogg": true,
	"audio/opus": true, "audio/wav": true, "audio/x-wav": true, "audio/webm": true,
	"audio/flac": true,
	"video/mp4":  true, "video/webm": true, "video/ogg": true, "video/quicktime": true,
	"application/pdf": true,
	"text/plain":      true, "text/csv": true, "text/tab-separated-values": true,
}

// fileCSP is the Content-Security-Policy of every file response, inline or attachment: a
// browser that shows the file anyway (or a type on the list above it treats differently
// than expected) puts it in a unique opaque origin with scripts, forms, plugins and
// top-level navigation off, so nothing in a published file acts as the service.
var fileCSP = []string{"sandbox"} // a header value, shared read-only like those in handler.go

// inlineType reports whether a file of this media type may be shown inline.
func inlineType(mimetype string) bool { return inlineTypes[baseType(mimetype)] }
