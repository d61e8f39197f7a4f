// Package record parses and validates the two documents of a PURL object:
// the public XML record (root publicObject, docs/purl.md) and its MODS 3.6
// record. It knows nothing of HTTP or storage; the service and the
// publisher use it to refuse bad documents before anything is written.
package record

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"mime"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/sitelib/sitesvc/impl/purl/druid"
)

// Namespaces of the public XML and MODS records.
const (
	NSRDF    = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	NSFedora = "info:fedora/fedora-system:def/relations-external#"
	NSOAIDC  = "http://www.openarchives.org/OAI/2.0/oai_dc/"
	NSDC     = "http://purl.org/dc/elements/1.1/"
	NSMODS   = "http://www.loc.gov/mods/v3"
)

// ErrMalformed wraps errors of documents that are not well-formed XML.
var ErrMalformed = errors.New("malformed XML")

// ErrUnacceptable wraps errors of well-formed documents that are not an
// acceptable record (wrong root, wrong order, missing or bad values).
var ErrUnacceptable = errors.New("unacceptable record")

// MaxDocumentBytes bounds a record; larger documents are refused unread.
const MaxDocumentBytes = 8 << 20

// Record is a validated public XML record.
type Record struct {
	Druid       druid.Druid
	Published   time.Time
	ObjectType  string // "item" or "collection"
	Label       string
	Source      string
	SourceID    string
	Releases    []Release
	Versions    []Version
	Collections []druid.Druid
	ContentType string
	Thumb       string // file name of the thumbnail, "" when none
	// ConstituentThumb is a virtual object's thumbnail, a constituent's
	// file (thumb "<druid>/<file>"); zero when none.
	ConstituentThumb ExternalThumb
	// ReadingOrder is contentMetadata/bookData/@readingOrder: "rtl" for a
	// book read right to left, "ltr" said outright, "" when not said.
	ReadingOrder string
	Resources    []Resource
	Rights       Rights
	DC           DublinCore
	// MODS is the embedded MODS record (a seventh child of publicObject)
	// as a document of its own, nil when the record embeds none.
	MODS []byte
	// Warnings says what the record lacked and how it is read instead
	// (a fallback title, a synthesised versionMetadata, …).
	Warnings []string
	// fallbackTitle is the title used when oai_dc:dc has no dc:title.
	fallbackTitle string
	// seenTypes are the unknown resource types already warned of.
	seenTypes map[string]bool
}

// Release says whether the object is released to a discovery target.
type Release struct {
	To       string
	Date     string
	Released bool
}

// Version is one entry of versionMetadata.
type Version struct {
	ID          int
	Date        string
	Description string
}

// Resource is one resource of contentMetadata.
type Resource struct {
	ID       string
	Sequence int
	Type     string // image, page, audio, video, document, file
	Label    string
	Files    []File
	// External are a virtual object's images of other objects (its
	// constituents), the resource's externalFile elements in order.
	External []ExternalFile
}

// ExternalThumb names a constituent's file as a virtual object's thumbnail.
type ExternalThumb struct {
	Object druid.Druid
	Name   string
}

// ExternalFile is a virtual object's image kept by another object.
type ExternalFile struct {
	Object     druid.Druid // the constituent
	ResourceID string      // the constituent's resource
	Name       string      // the file's name in the constituent
	MimeType   string
	Width      int // pixels, from its imageData (0: none)
	Height     int
}

// File is one file of a resource.
type File struct {
	Name     string
	MimeType string
	Size     int64   // bytes; -1 when the record gives no byte count (never in a stored record)
	Width    int     // pixels, images and pages
	Height   int     // pixels, images and pages
	Duration float64 // seconds, audio and video
}

// DublinCore is the oai_dc:dc element.
type DublinCore struct {
	Title, Creator, Contributor, Date, Description, Subject, Type, Format,
	Language, Publisher, Rights, Identifier []string
}

// Files lists every file of the record in resource order.
func (r *Record) Files() []File {
	var out []File
	for _, res := range r.Resources {
		out = append(out, res.Files...)
	}
	return out
}

// File returns the file called name.
func (r *Record) File(name string) (File, bool) {
	for _, res := range r.Resources {
		for _, f := range res.Files {
			if f.Name == name {
				return f, true
			}
		}
	}
	return File{}, false
}

// Title is the record's display title: the first dc:title, else the
// embedded MODS record's title, else the object label, else the druid.
// It is one line: runs of white space (the line breaks and indentation
// of a title written over several lines, a doubled space) are one space,
// as a reader of the XML would see them (the page, manifest label and
// oEmbed title are the same words).
func (r *Record) Title() string {
	if len(r.DC.Title) > 0 {
		return oneLine(r.DC.Title[0])
	}
	if r.fallbackTitle != "" {
		return oneLine(r.fallbackTitle)
	}
	return r.Druid.Qualified()
}

// otherObjectsFile reports whether name is "<druid>/<file>" with a druid
// other than id: how virtual objects name their constituents' images.
func otherObjectsFile(name string, id druid.Druid) bool {
	dir, _, ok := strings.Cut(name, "/")
	if !ok {
		return false
	}
	other, err := druid.Parse(dir)
	return err == nil && other != id
}

// oneLine is s with every run of white space one space, trimmed.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// CurrentVersion is the last version entry (zero Version when none).
func (r *Record) CurrentVersion() Version {
	if len(r.Versions) == 0 {
		return Version{}
	}
	return r.Versions[len(r.Versions)-1]
}

var (
	objectTypes   = set("item", "collection")
	contentTypes  = set("image", "book", "map", "media", "document", "file", "collection")
	resourceTypes = set("image", "page", "audio", "video", "document", "file")
	// rootChildren are the seed's six children, in its order; the served
	// record may have the embedded MODS record after them.
	rootChildren = seedChildren[:6]
)

// The XML shapes below mirror docs/purl.md.
type publicObjectXML struct {
	XMLName   xml.Name `xml:"publicObject"`
	ObjectID  string   `xml:"objectId,attr"`
	Published string   `xml:"published,attr"`
	Identity  struct {
		ObjectType  []string `xml:"objectType"`
		ObjectLabel string   `xml:"objectLabel"`
		SourceID    struct {
			Source string `xml:"source,attr"`
			Value  string `xml:",chardata"`
		} `xml:"sourceId"`
		Releases []struct {
			To    string `xml:"to,attr"`
			Date  string `xml:"date,attr"`
			Value string `xml:",chardata"`
		} `xml:"release"`
	} `xml:"identityMetadata"`
	Version struct {
		ObjectID string `xml:"objectId,attr"`
		Versions []struct {
			ID          string `xml:"versionId,attr"`
			Date        string `xml:"date,attr"`
			Description string `xml:"description"`
		} `xml:"version"`
	} `xml:"versionMetadata"`
	RDF struct {
		Descriptions []struct {
			About   string `xml:"http://www.w3.org/1999/02/22-rdf-syntax-ns# about,attr"`
			Members []struct {
				Resource string `xml:"http://www.w3.org/1999/02/22-rdf-syntax-ns# resource,attr"`
			} `xml:"info:fedora/fedora-system:def/relations-external# isMemberOfCollection"`
		} `xml:"http://www.w3.org/1999/02/22-rdf-syntax-ns# Description"`
	} `xml:"http://www.w3.org/1999/02/22-rdf-syntax-ns# RDF"`
	Content struct {
		ObjectID string   `xml:"objectId,attr"`
		Type     string   `xml:"type,attr"`
		Thumbs   []string `xml:"thumb"`
		BookData []struct {
			ReadingOrder string `xml:"readingOrder,attr"`
		} `xml:"bookData"`
		Resources []struct {
			ID       string `xml:"id,attr"`
			Sequence string `xml:"sequence,attr"`
			Type     string `xml:"type,attr"`
			Thumb    string `xml:"thumb,attr"`
			Label    string `xml:"label"`
			Files    []struct {
				ID        string `xml:"id,attr"`
				MimeType  string `xml:"mimetype,attr"`
				Size      string `xml:"size,attr"`
				Publish   string `xml:"publish,attr"`
				Shelve    string `xml:"shelve,attr"`
				ImageData *struct {
					Width  string `xml:"width,attr"`
					Height string `xml:"height,attr"`
				} `xml:"imageData"`
				// mediaData is the seed's; videoData and audioData are
				// the older records' (the same duration, in seconds or
				// as an ISO 8601 duration).
				MediaData []struct {
					XMLName  xml.Name
					Duration string `xml:"duration,attr"`
				} `xml:",any"`
			} `xml:"file"`
			External []struct {
				ObjectID   string `xml:"objectId,attr"`
				ResourceID string `xml:"resourceId,attr"`
				FileID     string `xml:"fileId,attr"`
				MimeType   string `xml:"mimetype,attr"`
				ImageData  *struct {
					Width  string `xml:"width,attr"`
					Height string `xml:"height,attr"`
				} `xml:"imageData"`
			} `xml:"externalFile"`
		} `xml:"resource"`
	} `xml:"contentMetadata"`
	Rights rightsXML `xml:"rightsMetadata"`
	DC     struct {
		Title       []string `xml:"http://purl.org/dc/elements/1.1/ title"`
		Creator     []string `xml:"http://purl.org/dc/elements/1.1/ creator"`
		Contributor []string `xml:"http://purl.org/dc/elements/1.1/ contributor"`
		Date        []string `xml:"http://purl.org/dc/elements/1.1/ date"`
		Description []string `xml:"http://purl.org/dc/elements/1.1/ description"`
		Subject     []string `xml:"http://purl.org/dc/elements/1.1/ subject"`
		Type        []string `xml:"http://purl.org/dc/elements/1.1/ type"`
		Format      []string `xml:"http://purl.org/dc/elements/1.1/ format"`
		Language    []string `xml:"http://purl.org/dc/elements/1.1/ language"`
		Publisher   []string `xml:"http://purl.org/dc/elements/1.1/ publisher"`
		Rights      []string `xml:"http://purl.org/dc/elements/1.1/ rights"`
		Identifier  []string `xml:"http://purl.org/dc/elements/1.1/ identifier"`
	} `xml:"http://www.openarchives.org/OAI/2.0/oai_dc/ dc"`
}

// Parse reads a public XML record in any accepted form (docs/purl.md,
// "Ingest: tolerant by principle, output exact") and returns it as served: the same reading
// whether it is given the publisher's input or the stored, normalised
// record. It does not check an embedded MODS record against the XML
// Schema (Ingest does, when publishing). Errors wrap ErrMalformed or
// ErrUnacceptable.
func Parse(data []byte) (*Record, error) {
	n, err := normalize(data, time.Now(), "")
	if err != nil {
		return nil, err
	}
	r, warnings, err := parseServed(n.readable())
	if err != nil {
		return nil, err
	}
	r.Warnings = append(n.warnings, warnings...)
	var modsTitle string
	if n.mods != nil {
		r.MODS = n.mods.document()
		if m, err := ParseMODS(r.MODS); err == nil {
			modsTitle = m.Title
		}
	}
	if len(r.DC.Title) == 0 {
		switch {
		case modsTitle != "":
			r.fallbackTitle = modsTitle
			r.Warnings = append(r.Warnings, fmt.Sprintf("oai_dc:dc has no dc:title: the title shown is the embedded MODS title %q", modsTitle))
		case r.Label != "":
			r.fallbackTitle = r.Label
			r.Warnings = append(r.Warnings, fmt.Sprintf("oai_dc:dc has no dc:title and there is no MODS title: the title shown is the objectLabel %q", r.Label))
		default:
			r.Warnings = append(r.Warnings, fmt.Sprintf("the record has no title (no dc:title, MODS title or objectLabel): the title shown is the identifier %s", r.Druid.Qualified()))
		}
	}
	return r, nil
}

// parseServed reads a record in the served shape (the output of
// normalize): the seed's six children in order, the embedded MODS record,
// then what the service keeps without reading.
func parseServed(data []byte) (*Record, []string, error) {
	root, children, err := scanTop(data)
	if err != nil {
		return nil, nil, err
	}
	if root != (xml.Name{Local: "publicObject"}) {
		return nil, nil, fmt.Errorf("%w: root element is %s, want publicObject (no namespace)", ErrUnacceptable, fmtName(root))
	}
	if len(children) < len(rootChildren) {
		return nil, nil, fmt.Errorf("%w: publicObject has %d child elements (%s), want at least %d: %s", ErrUnacceptable, len(children), fmtNames(children), len(rootChildren), fmtNames(rootChildren))
	}
	for i, have := range children[:len(rootChildren)] {
		if have != seedChildren[i] {
			return nil, nil, fmt.Errorf("%w: child %d of publicObject is %s, want %s (order: %s)", ErrUnacceptable, i+1, fmtName(have), fmtName(seedChildren[i]), fmtNames(seedChildren))
		}
	}
	var x publicObjectXML
	if err := xml.Unmarshal(data, &x); err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	var warnings []string
	r, err := x.validate(func(format string, args ...any) {
		warnings = append(warnings, fmt.Sprintf(format, args...))
	})
	return r, warnings, err
}

// validate reads the served record. Only what makes the record untrue is
// an error (its identifier, an objectId naming another object); values
// the service does not know are read as well as they can be, with a
// warning (warn), and kept in the record as given.
func (x *publicObjectXML) validate(warn func(format string, args ...any)) (*Record, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrUnacceptable}, args...)...)
	}
	r := &Record{}
	id, err := druid.Parse(x.ObjectID)
	if err != nil || id.Qualified() != x.ObjectID {
		return nil, bad("publicObject/@objectId %q is not a lower-case druid:<id>", x.ObjectID)
	}
	r.Druid = id
	if r.Published, err = time.Parse(time.RFC3339, x.Published); err != nil {
		return nil, bad("publicObject/@published %q is not an RFC 3339 date-time", x.Published)
	}

	// Fedora-era collections say what they are more than once
	// (<objectType>collection</objectType><objectType>set</objectType>):
	// the object is of the first type the service knows.
	var unknownTypes []string
	for _, t := range x.Identity.ObjectType {
		v := strings.ToLower(strings.TrimSpace(t))
		switch {
		case objectTypes[v] && r.ObjectType == "":
			r.ObjectType = v
		case objectTypes[v] && v != r.ObjectType:
			warn("identityMetadata names the objectTypes %s and %s: the object is served as the first", r.ObjectType, v)
		case v != "" && !objectTypes[v]:
			unknownTypes = append(unknownTypes, fmt.Sprintf("%q", strings.TrimSpace(t)))
		}
	}
	switch {
	case r.ObjectType == "" && len(unknownTypes) > 0:
		warn("identityMetadata/objectType %s is not item or collection: the object is served as an item", strings.Join(unknownTypes, ", "))
	case len(unknownTypes) > 0:
		warn("identityMetadata/objectType %s is not item or collection: the object is served as the %s its other objectType says", strings.Join(unknownTypes, ", "), r.ObjectType)
	}
	if r.ObjectType == "" {
		r.ObjectType = "item"
	}
	r.Label = strings.TrimSpace(x.Identity.ObjectLabel)
	r.Source, r.SourceID = x.Identity.SourceID.Source, strings.TrimSpace(x.Identity.SourceID.Value)
	for _, rel := range x.Identity.Releases {
		v := strings.ToLower(strings.TrimSpace(rel.Value))
		if rel.To == "" || (v != "true" && v != "false") {
			warn("identityMetadata/release to %q with the value %q is not read (a release needs a 'to' and true or false)", rel.To, strings.TrimSpace(rel.Value))
			continue
		}
		r.Releases = append(r.Releases, Release{To: rel.To, Date: rel.Date, Released: v == "true"})
	}

	for i, v := range x.Version.Versions {
		n, err := strconv.Atoi(strings.TrimSpace(v.ID))
		if err != nil || n < 1 || (i > 0 && n <= r.Versions[i-1].ID) {
			warn("versionMetadata/version[%d]/@versionId %q is not a positive integer greater than the previous one: read as the next number", i+1, v.ID)
			n = i + 1
			if i > 0 {
				n = r.Versions[i-1].ID + 1
			}
		}
		r.Versions = append(r.Versions, Version{ID: n, Date: v.Date, Description: strings.TrimSpace(v.Description)})
	}

	for _, d := range x.RDF.Descriptions {
		about := strings.TrimSpace(d.About)
		if about != "" && !sameDruid(strings.TrimPrefix(about, "info:fedora/"), x.ObjectID) {
			// A description of another resource says nothing of this
			// object's collections.
			if len(d.Members) > 0 {
				warn("rdf:Description/@rdf:about %q is not this object: its isMemberOfCollection statements are not read", d.About)
			}
			continue
		}
		for _, m := range d.Members {
			coll, _ := strings.CutPrefix(strings.TrimSpace(m.Resource), "info:fedora/")
			cid, err := druid.Parse(coll)
			switch {
			case err != nil:
				warn("isMemberOfCollection/@rdf:resource %q does not name a druid: not read", m.Resource)
				continue
			case cid == id:
				warn("object %s names itself as its collection: not read", x.ObjectID)
				continue
			case slices.Contains(r.Collections, cid):
				continue
			}
			r.Collections = append(r.Collections, cid)
		}
	}

	x.readContent(r, warn)
	r.Rights = x.Rights.parse(r, warn)

	dc := x.DC
	r.DC = DublinCore{
		Title: trimAll(dc.Title), Creator: trimAll(dc.Creator), Contributor: trimAll(dc.Contributor),
		Date: trimAll(dc.Date), Description: trimAll(dc.Description), Subject: trimAll(dc.Subject),
		Type: trimAll(dc.Type), Format: trimAll(dc.Format), Language: trimAll(dc.Language),
		Publisher: trimAll(dc.Publisher), Rights: trimAll(dc.Rights), Identifier: trimAll(dc.Identifier),
	}
	return r, nil
}

// readContent reads contentMetadata. Types the service does not know
// (content or resource) are kept as given: their files are served, and
// shown by their media types. A file whose name could leave the object's
// folder is never read (Ingest refuses such records).
func (x *publicObjectXML) readContent(r *Record, warn func(format string, args ...any)) {
	c := x.Content
	r.ContentType = strings.ToLower(strings.TrimSpace(c.Type))
	if r.ContentType != "" && !contentTypes[r.ContentType] {
		warn("contentMetadata/@type %q is not a type the service knows: its files are served and shown by their media types", c.Type)
	}
	// The reading order the repository writes for books (cocina's
	// viewingDirection, written as <bookData readingOrder="rtl"/>).
	for _, b := range c.BookData {
		switch o := strings.ToLower(strings.TrimSpace(b.ReadingOrder)); o {
		case "":
		case "rtl", "right-to-left":
			r.ReadingOrder = "rtl"
		case "ltr", "left-to-right":
			r.ReadingOrder = "ltr"
		default:
			warn("contentMetadata/bookData/@readingOrder %q is not one the service knows (ltr, rtl): the book is read left to right", b.ReadingOrder)
		}
	}
	names := map[string]bool{}
	for i, res := range c.Resources {
		where := fmt.Sprintf("contentMetadata/resource[%d]", i+1)
		seq, err := strconv.Atoi(strings.TrimSpace(res.Sequence))
		if err != nil || seq < 1 {
			if res.Sequence != "" {
				warn("%s/@sequence %q is not a positive integer: the resource's position, %d, is used", where, res.Sequence, i+1)
			}
			seq = i + 1
		}
		typ := strings.ToLower(strings.TrimSpace(res.Type))
		if typ != "" && !resourceTypes[typ] {
			unknownResourceType(r, typ, warn)
		}
		out := Resource{ID: res.ID, Sequence: seq, Type: typ, Label: strings.TrimSpace(res.Label)}
		for j, f := range res.Files {
			fwhere := fmt.Sprintf("%s/file[%d]", where, j+1)
			if err := CheckFilePath(f.ID); err != nil {
				warn("%s/@id: %v: not served", fwhere, err)
				continue
			}
			if notShelved(f.Publish, f.Shelve) {
				warn("%s: file %q is marked publish=%q shelve=%q: the repository does not make it available; it stays in the record, and is neither required nor served", fwhere, f.ID, f.Publish, f.Shelve)
				continue
			}
			if names[f.ID] {
				warn("%s/@id %q is named twice: the first is served", fwhere, f.ID)
				continue
			}
			names[f.ID] = true
			file := File{Name: f.ID, MimeType: strings.TrimSpace(f.MimeType), Size: -1}
			mt, _, err := mime.ParseMediaType(file.MimeType)
			if err != nil || !strings.Contains(mt, "/") {
				warn("%s/@mimetype %q is not a media type: served as application/octet-stream", fwhere, f.MimeType)
				file.MimeType, mt = "application/octet-stream", "application/octet-stream"
			}
			if size, err := strconv.ParseInt(strings.TrimSpace(f.Size), 10, 64); err == nil && size >= 0 {
				file.Size = size
			} else {
				warn("%s/@size %q is not a byte count", fwhere, f.Size)
			}
			if f.ImageData != nil && strings.HasPrefix(mt, "image/") {
				w, err1 := strconv.Atoi(strings.TrimSpace(f.ImageData.Width))
				h, err2 := strconv.Atoi(strings.TrimSpace(f.ImageData.Height))
				if err1 == nil && err2 == nil && w > 0 && h > 0 {
					file.Width, file.Height = w, h
				} else {
					warn("%s/imageData: width %q and height %q are not positive integers: the image is served as a file", fwhere, f.ImageData.Width, f.ImageData.Height)
				}
			} else if strings.HasPrefix(mt, "image/") && (typ == "image" || typ == "page") {
				warn("%s: image %q has no imageData (pixel size): the viewer shows it at the size read from the file when the image service can read it, else it is served as a file only", fwhere, f.ID)
			}
			av := strings.HasPrefix(mt, "audio/") || strings.HasPrefix(mt, "video/")
			for _, md := range f.MediaData {
				if !av || file.Duration > 0 || !mediaDataNames[md.XMLName.Local] || md.XMLName.Space != "" {
					continue
				}
				if d, ok := parseDuration(md.Duration); ok {
					file.Duration = d
				} else if md.Duration != "" {
					warn("%s/%s/@duration %q is not a positive duration (seconds, or ISO 8601 such as PT1H2M3S)", fwhere, md.XMLName.Local, md.Duration)
				}
			}
			if av && file.Duration == 0 && (typ == "audio" || typ == "video") {
				warn("%s: %s %q has no mediaData duration: it is played from the page and the file list, not shown in the IIIF viewer", fwhere, typ, f.ID)
			}
			out.Files = append(out.Files, file)
		}
		for j, x := range res.External {
			xwhere := fmt.Sprintf("%s/externalFile[%d]", where, j+1)
			obj, err := druid.Parse(strings.TrimSpace(x.ObjectID))
			if err != nil {
				warn("%s/@objectId %q is not a druid: the image is not shown", xwhere, x.ObjectID)
				continue
			}
			name := strings.TrimSpace(x.FileID)
			if err := CheckFilePath(name); err != nil {
				warn("%s/@fileId: %v: the image is not shown", xwhere, err)
				continue
			}
			ext := ExternalFile{Object: obj, ResourceID: strings.TrimSpace(x.ResourceID), Name: name, MimeType: strings.TrimSpace(x.MimeType)}
			if x.ImageData != nil {
				w, err1 := strconv.Atoi(strings.TrimSpace(x.ImageData.Width))
				h, err2 := strconv.Atoi(strings.TrimSpace(x.ImageData.Height))
				if err1 == nil && err2 == nil && w > 0 && h > 0 {
					ext.Width, ext.Height = w, h
				}
			}
			out.External = append(out.External, ext)
		}
		r.Resources = append(r.Resources, out)
	}
	for i, t := range c.Thumbs {
		name := strings.TrimSpace(t)
		if i > 0 {
			warn("contentMetadata has more than one thumb: the first is read")
			break
		}
		f, ok := r.File(name)
		switch {
		case !ok && otherObjectsFile(name, r.Druid):
			warn("contentMetadata/thumb %q names a file of another object (a virtual object's constituent): the object has no thumbnail of its own", name)
			dir, file, _ := strings.Cut(name, "/")
			other, _ := druid.Parse(dir)
			r.ConstituentThumb = ExternalThumb{Object: other, Name: file}
		case !ok:
			warn("contentMetadata/thumb %q is not a file of the object: the object has no thumbnail", name)
		case !strings.HasPrefix(f.MimeType, "image/"):
			warn("contentMetadata/thumb %q is not an image: the object has no thumbnail", name)
		default:
			r.Thumb = name
		}
	}
	// Older records mark the thumbnail's resource (thumb="yes") instead
	// of naming the file: its first image is the thumbnail.
	if len(c.Thumbs) == 0 {
		for i, res := range c.Resources {
			if v := strings.ToLower(strings.TrimSpace(res.Thumb)); v != "yes" && v != "true" {
				continue
			}
			for _, f := range r.Resources[i].Files {
				if strings.HasPrefix(f.MimeType, "image/") {
					r.Thumb = f.Name
					break
				}
			}
			if r.Thumb != "" {
				break
			}
		}
	}
}

// notShelved reports whether a file's publish and shelve attributes say
// the repository does not make the file available (publish="no" or
// shelve="no": not in the digital stacks). Absent, they say nothing.
func notShelved(publish, shelve string) bool {
	return strings.EqualFold(strings.TrimSpace(publish), "no") || strings.EqualFold(strings.TrimSpace(shelve), "no")
}

// mediaDataNames are the elements of a file that give an audio or video
// file's duration: the seed's mediaData and the older videoData and
// audioData.
var mediaDataNames = map[string]bool{"mediaData": true, "videoData": true, "audioData": true}

// maxDuration bounds a duration read from a record (about 115 days): a
// larger one is not a recording's.
const maxDuration = 1e7

// isoDuration is an ISO 8601 duration of days, hours, minutes and seconds
// (P0DT1H2M3S, PT1M30.5S), the form older records give.
var isoDuration = regexp.MustCompile(`^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// parseDuration reads a duration in seconds ("3723", "12.5") or as an
// ISO 8601 duration ("P0DT1H2M3S"); ok is false unless it is positive and
// at most maxDuration seconds.
func parseDuration(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	if d, err := strconv.ParseFloat(s, 64); err == nil {
		return d, d > 0 && d <= maxDuration
	}
	m := isoDuration.FindStringSubmatch(strings.ToUpper(s))
	if m == nil || s == "P" || strings.HasSuffix(strings.ToUpper(s), "T") {
		return 0, false
	}
	var d float64
	for i, unit := range []float64{86400, 3600, 60, 1} {
		if m[i+1] != "" {
			v, err := strconv.ParseFloat(m[i+1], 64)
			if err != nil {
				return 0, false
			}
			d += v * unit
		}
	}
	return d, d > 0 && d <= maxDuration
}

// unknownResourceType warns once per record and type.
func unknownResourceType(r *Record, typ string, warn func(format string, args ...any)) {
	if r.seenTypes == nil {
		r.seenTypes = map[string]bool{}
	}
	if !r.seenTypes[typ] {
		r.seenTypes[typ] = true
		warn("contentMetadata/resource/@type %q is not a type the service knows: its files are served and shown by their media types", typ)
	}
}

// CheckFileName reports why name cannot be the name of an object's file
// in the object's own folder (no folders): see CheckFilePath.
func CheckFileName(name string) error {
	if strings.Contains(name, "/") {
		return fmt.Errorf("file name %q contains '/'", name)
	}
	return CheckFilePath(name)
}

// CheckFilePath reports why name cannot be the name of an object's file:
// a relative path of one or more names separated by '/' (files in
// folders), which can never leave the object's folder nor clash with its
// records: no empty, "." or ".." element, no element starting with a dot,
// no '\', ':', NUL or control character, not public.xml or mods.xml, at
// most 1024 bytes and 255 per element.
func CheckFilePath(name string) error {
	switch {
	case name == "":
		return errors.New("empty file name")
	case len(name) > 1024:
		return errors.New("file name longer than 1024 bytes")
	case !utf8.ValidString(name):
		return errors.New("file name is not UTF-8")
	case name == "public.xml" || name == "mods.xml":
		return fmt.Errorf("file name %q is reserved for the object's records", name)
	}
	for _, c := range name {
		if c == '\\' || c == ':' || unicode.IsControl(c) {
			return fmt.Errorf("file name %q contains %q", name, c)
		}
	}
	for _, elem := range strings.Split(name, "/") {
		switch {
		case elem == "":
			return fmt.Errorf("file name %q has an empty folder name (a leading, trailing or double '/')", name)
		case len(elem) > 255:
			return fmt.Errorf("file name %q has an element longer than 255 bytes", name)
		case strings.HasPrefix(elem, "."):
			return fmt.Errorf("file name %q has an element starting with a dot (%q)", name, elem)
		}
	}
	return nil
}

// scanTop reads the whole document token by token (so any syntax error
// anywhere is reported) and returns the root element's name and the names
// of its child elements in order. DTDs are refused: records never need one
// and refusing them rules out entity tricks.
func scanTop(data []byte) (xml.Name, []xml.Name, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	var root xml.Name
	var children []xml.Name
	depth := 0
	seenRoot := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return root, nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			// encoding/xml does not check this rule of well-formedness.
			for i, a := range t.Attr {
				for _, b := range t.Attr[:i] {
					if a.Name == b.Name {
						return root, nil, fmt.Errorf("%w: element %s repeats the attribute %s", ErrMalformed, t.Name.Local, a.Name.Local)
					}
				}
			}
			if depth == 0 {
				if seenRoot {
					return root, nil, fmt.Errorf("%w: more than one root element", ErrMalformed)
				}
				seenRoot = true
				root = t.Name
			} else if depth == 1 {
				children = append(children, t.Name)
			}
			depth++
		case xml.EndElement:
			depth--
		case xml.Directive:
			return root, nil, fmt.Errorf("%w: DOCTYPE and other directives are not allowed", ErrUnacceptable)
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return root, nil, fmt.Errorf("%w: text outside the root element", ErrMalformed)
			}
		}
	}
	if !seenRoot {
		return root, nil, fmt.Errorf("%w: no root element", ErrMalformed)
	}
	return root, children, nil
}

func fmtName(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return "{" + n.Space + "}" + n.Local
}

func fmtNames(ns []xml.Name) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmtName(n)
	}
	return strings.Join(s, ", ")
}

func set(values ...string) map[string]bool {
	m := make(map[string]bool, len(values))
	for _, v := range values {
		m[v] = true
	}
	return m
}

func trimAll(in []string) []string {
	var out []string
	for _, s := range in {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
