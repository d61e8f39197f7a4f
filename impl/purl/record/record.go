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
	Resources   []Resource
	Rights      Rights
	DC          DublinCore
	// MODS is the embedded MODS record (a seventh child of publicObject)
	// as a document of its own, nil when the record embeds none.
	MODS []byte
	// Warnings says what the record lacked and how it is read instead
	// (a fallback title, a synthesised versionMetadata, …).
	Warnings []string
	// fallbackTitle is the title used when oai_dc:dc has no dc:title.
	fallbackTitle string
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
}

// File is one file of a resource.
type File struct {
	Name     string
	MimeType string
	Size     int64
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
func (r *Record) Title() string {
	if len(r.DC.Title) > 0 {
		return r.DC.Title[0]
	}
	if r.fallbackTitle != "" {
		return r.fallbackTitle
	}
	return r.Druid.Qualified()
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
		ObjectType  string `xml:"objectType"`
		ObjectLabel string `xml:"objectLabel"`
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
		ObjectID  string   `xml:"objectId,attr"`
		Type      string   `xml:"type,attr"`
		Thumbs    []string `xml:"thumb"`
		Resources []struct {
			ID       string `xml:"id,attr"`
			Sequence string `xml:"sequence,attr"`
			Type     string `xml:"type,attr"`
			Label    string `xml:"label"`
			Files    []struct {
				ID        string `xml:"id,attr"`
				MimeType  string `xml:"mimetype,attr"`
				Size      string `xml:"size,attr"`
				ImageData *struct {
					Width  string `xml:"width,attr"`
					Height string `xml:"height,attr"`
				} `xml:"imageData"`
				MediaData *struct {
					Duration string `xml:"duration,attr"`
				} `xml:"mediaData"`
			} `xml:"file"`
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
// "Accepted input forms") and returns it as served: the same reading
// whether it is given the publisher's input or the stored, normalised
// record. It does not check an embedded MODS record against the XML
// Schema (Ingest does, when publishing). Errors wrap ErrMalformed or
// ErrUnacceptable.
func Parse(data []byte) (*Record, error) {
	n, err := normalize(data)
	if err != nil {
		return nil, err
	}
	r, err := parseServed(n.data)
	if err != nil {
		return nil, err
	}
	r.Warnings = n.warnings
	var modsTitle string
	if n.mods != nil {
		r.MODS = n.mods.document()
		m, err := ParseMODS(r.MODS)
		if err != nil {
			return nil, fmt.Errorf("publicObject/mods: %w", err)
		}
		modsTitle = m.Title
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

// parseServed validates a record in the served shape (the output of
// normalize).
func parseServed(data []byte) (*Record, error) {
	root, children, err := scanTop(data)
	if err != nil {
		return nil, err
	}
	if root != (xml.Name{Local: "publicObject"}) {
		return nil, fmt.Errorf("%w: root element is %s, want publicObject (no namespace)", ErrUnacceptable, fmtName(root))
	}
	if len(children) < len(rootChildren) || len(children) > len(seedChildren) {
		return nil, fmt.Errorf("%w: publicObject has %d child elements (%s), want %d: %s", ErrUnacceptable, len(children), fmtNames(children), len(rootChildren), fmtNames(rootChildren))
	}
	for i, have := range children {
		if have != seedChildren[i] {
			return nil, fmt.Errorf("%w: child %d of publicObject is %s, want %s (order: %s)", ErrUnacceptable, i+1, fmtName(have), fmtName(seedChildren[i]), fmtNames(seedChildren))
		}
	}
	var x publicObjectXML
	if err := xml.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return x.validate()
}

func (x *publicObjectXML) validate() (*Record, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrUnacceptable}, args...)...)
	}
	r := &Record{}
	if !strings.HasPrefix(x.ObjectID, druid.Prefix) {
		return nil, bad("publicObject/@objectId %q is not of the form druid:<id>", x.ObjectID)
	}
	id, err := druid.Parse(x.ObjectID)
	if err != nil || id.Qualified() != x.ObjectID {
		return nil, bad("publicObject/@objectId %q is not a lower-case druid:<id>", x.ObjectID)
	}
	r.Druid = id
	if r.Published, err = time.Parse(time.RFC3339, x.Published); err != nil {
		return nil, bad("publicObject/@published %q is not an RFC 3339 date-time", x.Published)
	}

	r.ObjectType = strings.TrimSpace(x.Identity.ObjectType)
	if !objectTypes[r.ObjectType] {
		return nil, bad("identityMetadata/objectType %q is not item or collection", r.ObjectType)
	}
	r.Label = strings.TrimSpace(x.Identity.ObjectLabel)
	r.Source, r.SourceID = x.Identity.SourceID.Source, strings.TrimSpace(x.Identity.SourceID.Value)
	for _, rel := range x.Identity.Releases {
		v := strings.TrimSpace(rel.Value)
		if rel.To == "" || (v != "true" && v != "false") {
			return nil, bad("identityMetadata/release needs a 'to' attribute and the value true or false")
		}
		r.Releases = append(r.Releases, Release{To: rel.To, Date: rel.Date, Released: v == "true"})
	}

	if x.Version.ObjectID != "" && x.Version.ObjectID != x.ObjectID {
		return nil, bad("versionMetadata/@objectId %q differs from %q", x.Version.ObjectID, x.ObjectID)
	}
	if len(x.Version.Versions) == 0 {
		return nil, bad("versionMetadata has no version")
	}
	for i, v := range x.Version.Versions {
		n, err := strconv.Atoi(v.ID)
		if err != nil || n < 1 || (i > 0 && n <= r.Versions[i-1].ID) {
			return nil, bad("versionMetadata/version[%d]/@versionId %q is not a positive integer greater than the previous one", i+1, v.ID)
		}
		r.Versions = append(r.Versions, Version{ID: n, Date: v.Date, Description: strings.TrimSpace(v.Description)})
	}

	for _, d := range x.RDF.Descriptions {
		if d.About != "info:fedora/"+x.ObjectID {
			return nil, bad("rdf:Description/@rdf:about %q is not info:fedora/%s", d.About, x.ObjectID)
		}
		for _, m := range d.Members {
			coll, ok := strings.CutPrefix(m.Resource, "info:fedora/")
			cid, err := druid.Parse(coll)
			if !ok || err != nil || !strings.HasPrefix(coll, druid.Prefix) {
				return nil, bad("isMemberOfCollection/@rdf:resource %q is not info:fedora/druid:<id>", m.Resource)
			}
			if cid == id {
				return nil, bad("object %s cannot be a member of itself", x.ObjectID)
			}
			r.Collections = append(r.Collections, cid)
		}
	}

	if err := x.validateContent(r); err != nil {
		return nil, err
	}
	if r.Rights, err = x.Rights.parse(); err != nil {
		return nil, err
	}

	dc := x.DC
	r.DC = DublinCore{
		Title: trimAll(dc.Title), Creator: trimAll(dc.Creator), Contributor: trimAll(dc.Contributor),
		Date: trimAll(dc.Date), Description: trimAll(dc.Description), Subject: trimAll(dc.Subject),
		Type: trimAll(dc.Type), Format: trimAll(dc.Format), Language: trimAll(dc.Language),
		Publisher: trimAll(dc.Publisher), Rights: trimAll(dc.Rights), Identifier: trimAll(dc.Identifier),
	}
	return r, nil
}

func (x *publicObjectXML) validateContent(r *Record) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrUnacceptable}, args...)...)
	}
	c := x.Content
	if c.ObjectID != "" && c.ObjectID != x.ObjectID {
		return bad("contentMetadata/@objectId %q differs from %q", c.ObjectID, x.ObjectID)
	}
	r.ContentType = c.Type
	if !contentTypes[c.Type] {
		return bad("contentMetadata/@type %q is not one of image, book, map, media, document, file, collection", c.Type)
	}
	if len(c.Thumbs) > 1 {
		return bad("contentMetadata has %d thumb elements, at most one", len(c.Thumbs))
	}
	names := map[string]bool{}
	for i, res := range c.Resources {
		where := fmt.Sprintf("contentMetadata/resource[%d]", i+1)
		seq, err := strconv.Atoi(res.Sequence)
		if err != nil || seq < 1 {
			return bad("%s/@sequence %q is not a positive integer", where, res.Sequence)
		}
		if !resourceTypes[res.Type] {
			return bad("%s/@type %q is not one of image, page, audio, video, document, file", where, res.Type)
		}
		if len(res.Files) == 0 {
			return bad("%s has no file", where)
		}
		out := Resource{ID: res.ID, Sequence: seq, Type: res.Type, Label: strings.TrimSpace(res.Label)}
		for j, f := range res.Files {
			fwhere := fmt.Sprintf("%s/file[%d]", where, j+1)
			if err := CheckFileName(f.ID); err != nil {
				return bad("%s/@id: %v", fwhere, err)
			}
			if names[f.ID] {
				return bad("%s/@id %q is listed twice", fwhere, f.ID)
			}
			names[f.ID] = true
			mt, _, err := mime.ParseMediaType(f.MimeType)
			if err != nil || !strings.Contains(mt, "/") {
				return bad("%s/@mimetype %q is not a media type", fwhere, f.MimeType)
			}
			size, err := strconv.ParseInt(f.Size, 10, 64)
			if err != nil || size < 0 {
				return bad("%s/@size %q is not a byte count", fwhere, f.Size)
			}
			file := File{Name: f.ID, MimeType: f.MimeType, Size: size}
			isImage := strings.HasPrefix(mt, "image/")
			// imageData is required of images in image and page resources
			// and read when given for an image anywhere else (a document's
			// cover, which the manifest can show).
			if isImage && (res.Type == "image" || res.Type == "page" || f.ImageData != nil) {
				if f.ImageData == nil {
					return bad("%s: image file %q has no imageData", fwhere, f.ID)
				}
				file.Width, _ = strconv.Atoi(f.ImageData.Width)
				file.Height, _ = strconv.Atoi(f.ImageData.Height)
				if file.Width < 1 || file.Height < 1 {
					return bad("%s/imageData: width %q and height %q must be positive integers", fwhere, f.ImageData.Width, f.ImageData.Height)
				}
			}
			if res.Type == "audio" || res.Type == "video" {
				if f.MediaData == nil {
					return bad("%s: %s file %q has no mediaData", fwhere, res.Type, f.ID)
				}
				file.Duration, err = strconv.ParseFloat(f.MediaData.Duration, 64)
				if err != nil || !(file.Duration > 0) || file.Duration > 1e7 {
					return bad("%s/mediaData/@duration %q is not a positive number of seconds", fwhere, f.MediaData.Duration)
				}
			}
			out.Files = append(out.Files, file)
		}
		r.Resources = append(r.Resources, out)
	}
	if len(c.Thumbs) == 1 {
		r.Thumb = strings.TrimSpace(c.Thumbs[0])
		f, ok := r.File(r.Thumb)
		if !ok {
			return bad("contentMetadata/thumb %q is not a file of the object", r.Thumb)
		}
		if !strings.HasPrefix(f.MimeType, "image/") {
			return bad("contentMetadata/thumb %q is not an image", r.Thumb)
		}
	}
	return nil
}

// CheckFileName reports why name cannot be the name of an object's file:
// file names are single path elements that can never leave the object's
// directory nor clash with its records.
func CheckFileName(name string) error {
	switch {
	case name == "":
		return errors.New("empty file name")
	case len(name) > 255:
		return errors.New("file name longer than 255 bytes")
	case !utf8.ValidString(name):
		return errors.New("file name is not UTF-8")
	case strings.HasPrefix(name, "."):
		return fmt.Errorf("file name %q starts with a dot", name)
	case name == "public.xml" || name == "mods.xml":
		return fmt.Errorf("file name %q is reserved for the object's records", name)
	}
	for _, c := range name {
		if c == '/' || c == '\\' || c == ':' || unicode.IsControl(c) {
			return fmt.Errorf("file name %q contains %q", name, c)
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
