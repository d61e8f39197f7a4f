// Package publicxml reads the public XML record of a repository object (root
// publicObject, as the PURL service serves it at {purl}/{id}.xml) into what
// the Embed service needs: title, collection, content and access rights, and
// decides how the object is shown (Mirador, media players, PDF, file list).
package publicxml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"time"
)

// Object is what the Embed service knows about a repository object.
type Object struct {
	Druid       string
	Title       string
	Collections []string // druids of the collections the object belongs to
	ContentType string   // contentMetadata/@type: image, book, map, media, document, file, …
	Resources   []Resource
	Access      Access
	Use         string // use and reproduction statement
	Copyright   string
	License     string // license URI
}

// Resource is one resource of contentMetadata.
type Resource struct {
	ID    string
	Type  string
	Label string
	Files []File
}

// File is one published file of a resource.
type File struct {
	Name     string
	MimeType string
	Size     int64
	Width    int
	Height   int
}

// Level is how the object may be read.
type Level string

// Read access levels, from rightsMetadata access[@type=read]/machine.
const (
	World        Level = "world"         // anyone
	Group        Level = "group"         // members of an institution login group
	Location     Level = "location"      // only at a physical location
	CitationOnly Level = "citation-only" // metadata only (<none/>)
	Embargoed    Level = "embargoed"     // none until the release date
	CDL          Level = "cdl"           // controlled digital lending
	Dark         Level = "dark"          // not discoverable at all
)

// Access is the object-level read access.
type Access struct {
	Level      Level
	Group      string    // for Group
	Location   string    // for Location
	Release    time.Time // for Embargoed; zero when not given
	NoDownload bool      // world access with rule="no-download"
}

// ExpiredBy reports whether this access, read from the record at an
// earlier time, no longer holds at now: an embargo whose release day has
// come. The record must then be read again, even if it did not change.
func (a Access) ExpiredBy(now time.Time) bool {
	return a.Level == Embargoed && !a.Release.IsZero() && !now.UTC().Before(a.Release)
}

// Restricted reports whether a person on the open web cannot view the
// object's content in the embedded viewer.
func (a Access) Restricted() bool { return a.Level != World }

// Message is a sentence explaining a restriction, for a person; "" when the
// object is world-readable.
func (a Access) Message() string {
	switch a.Level {
	case World:
		return ""
	case Group:
		return fmt.Sprintf("Access is restricted to members of %s. Log in at the institution to view this item.", displayName(a.Group, "the institution"))
	case Location:
		return fmt.Sprintf("Access is restricted to the %s location. Visit the library to view this item.", displayName(a.Location, "library's reading room"))
	case CitationOnly:
		return "This item is citation only: its content is not available online."
	case Embargoed:
		if a.Release.IsZero() {
			return "Access is restricted: this item is under embargo."
		}
		return "Access is restricted: this item is under embargo until " + a.Release.Format("January 2, 2006") + "."
	case CDL:
		return "This item is available through controlled digital lending only: borrow it from the library to view it."
	default:
		return "This item is not available."
	}
}

func displayName(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// Viewer is how the embedded viewer shows an object.
type Viewer string

// Viewers.
const (
	ViewerMirador Viewer = "mirador" // images, books, maps, manuscripts: IIIF manifest in Mirador
	ViewerMedia   Viewer = "media"   // HTML5 audio and video players
	ViewerPDF     Viewer = "pdf"     // the browser's PDF viewer
	ViewerFiles   Viewer = "files"   // a list of files with sizes and download links
)

// Viewer decides how the object is shown, from its content type and, when
// that says nothing specific, from its files' media types.
func (o *Object) Viewer() Viewer {
	switch o.ContentType {
	case "image", "book", "map", "manuscript":
		if o.hasFile(func(f File) bool { return strings.HasPrefix(f.MimeType, "image/") }) {
			return ViewerMirador
		}
	case "media":
		if o.hasFile(isMedia) {
			return ViewerMedia
		}
	case "document":
		if o.hasFile(isPDF) {
			return ViewerPDF
		}
	}
	all := func(pred func(File) bool) bool {
		n := 0
		for _, r := range o.Resources {
			for _, f := range r.Files {
				if !pred(f) {
					return false
				}
				n++
			}
		}
		return n > 0
	}
	switch {
	case all(func(f File) bool { return strings.HasPrefix(f.MimeType, "image/") }):
		return ViewerMirador
	case all(isMedia):
		return ViewerMedia
	case all(isPDF):
		return ViewerPDF
	}
	return ViewerFiles
}

func isMedia(f File) bool {
	return strings.HasPrefix(f.MimeType, "audio/") || strings.HasPrefix(f.MimeType, "video/")
}

func isPDF(f File) bool { return f.MimeType == "application/pdf" }

func (o *Object) hasFile(pred func(File) bool) bool {
	for _, r := range o.Resources {
		for _, f := range r.Files {
			if pred(f) {
				return true
			}
		}
	}
	return false
}

// Files is every published file, in resource order.
func (o *Object) Files() []File {
	var out []File
	for _, r := range o.Resources {
		out = append(out, r.Files...)
	}
	return out
}

// ErrInvalid wraps every parse failure.
var ErrInvalid = errors.New("invalid public XML")

// MaxSize is the largest record Parse accepts.
const MaxSize = 8 << 20

// Parse reads a public XML record. druid is the object's normalised druid,
// used when the record does not name a title; now decides whether an
// embargo is still in force.
func Parse(data []byte, druid string, now time.Time) (*Object, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("%w: record of %d bytes exceeds %d", ErrInvalid, len(data), MaxSize)
	}
	var doc publicObject
	dec := xml.NewDecoder(bytes.NewReader(data))
	// encoding/xml never fetches external entities or DTDs; Strict keeps
	// malformed records from being half-read.
	dec.Strict = true
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if doc.XMLName.Local != "publicObject" {
		return nil, fmt.Errorf("%w: root element is %q, want publicObject", ErrInvalid, doc.XMLName.Local)
	}
	o := &Object{Druid: druid}
	for _, t := range doc.DC.Titles {
		if t = strings.TrimSpace(t); t != "" {
			o.Title = t
			break
		}
	}
	if o.Title == "" {
		o.Title = strings.TrimSpace(doc.Identity.ObjectLabel)
	}
	if o.Title == "" {
		o.Title = druid
	}
	for _, d := range doc.RDF.Descriptions {
		for _, m := range d.MemberOf {
			id := strings.TrimPrefix(strings.TrimSpace(m.Resource), "info:fedora/")
			id = strings.TrimPrefix(id, "druid:")
			if id != "" {
				o.Collections = append(o.Collections, id)
			}
		}
	}
	o.ContentType = strings.ToLower(strings.TrimSpace(doc.Content.Type))
	for _, r := range doc.Content.Resources {
		res := Resource{ID: r.ID, Type: strings.ToLower(r.Type), Label: strings.TrimSpace(r.Label)}
		for _, f := range r.Files {
			if strings.EqualFold(f.Publish, "no") {
				continue
			}
			name := strings.TrimSpace(f.ID)
			if name == "" || name != path.Base(name) || name == "." || name == ".." {
				return nil, fmt.Errorf("%w: file name %q", ErrInvalid, f.ID)
			}
			file := File{Name: name, MimeType: strings.ToLower(strings.TrimSpace(f.MimeType))}
			if f.Size != "" {
				n, err := strconv.ParseInt(strings.TrimSpace(f.Size), 10, 64)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("%w: size %q of file %q", ErrInvalid, f.Size, name)
				}
				file.Size = n
			}
			file.Width, _ = strconv.Atoi(f.Image.Width)
			file.Height, _ = strconv.Atoi(f.Image.Height)
			res.Files = append(res.Files, file)
		}
		o.Resources = append(o.Resources, res)
	}
	o.Access = readAccess(doc.Rights.Access, now)
	o.Use = strings.TrimSpace(firstHuman(doc.Rights.Use.Human, "useAndReproduction"))
	o.Copyright = strings.TrimSpace(firstHuman(doc.Rights.Copyright.Human, ""))
	o.License = strings.TrimSpace(doc.Rights.Use.License)
	return o, nil
}

// releaseDay reads an embargo release date, a date or a date-time (the day
// is what a person is told).
func releaseDay(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	return time.Parse("2006-01-02", s[:min(10, len(s))])
}

// embargoed reports whether an embargo releasing on s is still in force at
// now (UTC days). An unreadable date keeps the embargo: failing closed.
func embargoed(s string, now time.Time) bool {
	t, err := releaseDay(s)
	if err != nil {
		return true
	}
	return now.UTC().Before(t)
}

func firstHuman(hs []human, typ string) string {
	for _, h := range hs {
		if typ == "" || h.Type == typ {
			return h.Text
		}
	}
	return ""
}

// readAccess reads the object-level access: discover none makes it dark;
// otherwise the first object-level (no <file>) read rule decides. An
// embargo in force until a date after now wins over the rest of the rule;
// once released, the rest of the rule applies.
func readAccess(rules []accessRule, now time.Time) Access {
	for _, r := range rules {
		if r.Type == "discover" && len(r.Files) == 0 && r.Machine.None != nil && r.Machine.World == nil {
			return Access{Level: Dark}
		}
	}
	for _, r := range rules {
		if r.Type != "read" || len(r.Files) > 0 {
			continue
		}
		m := r.Machine
		switch {
		case m.Embargo != "" && embargoed(m.Embargo, now):
			a := Access{Level: Embargoed}
			a.Release, _ = releaseDay(m.Embargo)
			return a
		case m.World != nil:
			return Access{Level: World, NoDownload: m.World.Rule == "no-download"}
		case m.CDL != nil:
			return Access{Level: CDL}
		case m.Group != "":
			return Access{Level: Group, Group: strings.TrimSpace(m.Group)}
		case m.Location != "":
			return Access{Level: Location, Location: strings.TrimSpace(m.Location)}
		case m.None != nil:
			return Access{Level: CitationOnly}
		}
	}
	// No read rule at all: nothing grants access.
	return Access{Level: CitationOnly}
}

type publicObject struct {
	XMLName  xml.Name
	Identity struct {
		ObjectLabel string `xml:"objectLabel"`
	} `xml:"identityMetadata"`
	RDF struct {
		Descriptions []struct {
			MemberOf []struct {
				Resource string `xml:"resource,attr"`
			} `xml:"isMemberOfCollection"`
		} `xml:"Description"`
	} `xml:"RDF"`
	Content struct {
		Type      string `xml:"type,attr"`
		Resources []struct {
			ID    string `xml:"id,attr"`
			Type  string `xml:"type,attr"`
			Label string `xml:"label"`
			Files []struct {
				ID       string `xml:"id,attr"`
				MimeType string `xml:"mimetype,attr"`
				Size     string `xml:"size,attr"`
				Publish  string `xml:"publish,attr"`
				Image    struct {
					Width  string `xml:"width,attr"`
					Height string `xml:"height,attr"`
				} `xml:"imageData"`
			} `xml:"file"`
		} `xml:"resource"`
	} `xml:"contentMetadata"`
	Rights struct {
		Access []accessRule `xml:"access"`
		Use    struct {
			Human   []human `xml:"human"`
			License string  `xml:"license"`
		} `xml:"use"`
		Copyright struct {
			Human []human `xml:"human"`
		} `xml:"copyright"`
	} `xml:"rightsMetadata"`
	DC struct {
		Titles []string `xml:"title"`
	} `xml:"dc"`
}

type human struct {
	Type string `xml:"type,attr"`
	Text string `xml:",chardata"`
}

type accessRule struct {
	Type    string   `xml:"type,attr"`
	Files   []string `xml:"file"`
	Machine struct {
		World *struct {
			Rule string `xml:"rule,attr"`
		} `xml:"world"`
		Group    string    `xml:"group"`
		Location string    `xml:"location"`
		None     *struct{} `xml:"none"`
		CDL      *struct{} `xml:"cdl"`
		Embargo  string    `xml:"embargoReleaseDate"`
	} `xml:"machine"`
}
