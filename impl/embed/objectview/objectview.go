// Package objectview is the Embed service's view of the public XML record of
// a repository object (root publicObject, as the PURL service serves it at
// {purl}/{id}.xml): title, collections, content and access, and how the
// object is shown (Mirador, media players, PDF, file list).
//
// It does not read the XML itself: impl/purl/record parses and validates
// the record and evaluates its rightsMetadata, exactly as the PURL service
// does when it publishes and serves the object, so the viewer can never
// tell a reader something about access that the PURL service does not
// enforce. This package only derives what is the viewer's own business:
// the display kind (Viewer) and the sentences explaining a restriction.
package objectview

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	// Aliased: the tests have a helper called record.
	purlrecord "github.com/sitelib/sitesvc/impl/purl/record"
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
	// HasManifest says the PURL service serves a IIIF manifest for the
	// object (record.Record.HasManifest): without one the viewer names
	// none and does not use Mirador.
	HasManifest bool
	// ManifestUnknown: the record alone cannot say whether the PURL
	// service paints something, because it paints images the record
	// gives no pixel size (reading it from the files) and a virtual
	// object's constituents' images (when they are published there). The
	// Embed service asks the PURL service for the manifest and sets
	// HasManifest from its answer (docs/embed.md).
	ManifestUnknown bool
	// ExternalImages: the record names images of other objects (a virtual
	// object's externalFile elements), which its manifest paints.
	ExternalImages bool
	Thumb          string // contentMetadata/thumb: the file name of the object's thumbnail image, or ""
	// rightsChange is the earliest release of an embargo (the object's or
	// a file's) in force when the record was read (zero: none): from then
	// on Access and the files' Restricted flags are out of date.
	rightsChange time.Time
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
	// Restricted: anyone may not read this file (its own rights, else the
	// object's, as the PURL service applies them), when the record was
	// read. The viewer offers no download of it.
	Restricted bool
}

// Level is how the object may be read.
type Level string

// Read access levels, from record's evaluation of rightsMetadata at a
// given time.
const (
	World        Level = "world"         // anyone
	Group        Level = "group"         // members of an institution login group
	Location     Level = "location"      // only at a physical location
	CitationOnly Level = "citation-only" // metadata only (<none/>)
	Embargoed    Level = "embargoed"     // none until the release date
	// CDL is controlled digital lending. The public XML format has no
	// form for it (the PURL service refuses <cdl/>), so Parse never
	// yields it; the level stays because the viewer's contract
	// (data-cdl, the access message) names it.
	CDL  Level = "cdl"
	Dark Level = "dark" // not discoverable at all
)

// Access is the object-level read access.
type Access struct {
	Level      Level
	Group      string    // for Group
	Location   string    // for Location
	Release    time.Time // for Embargoed: when the embargo ends
	NoDownload bool      // world access with rule="no-download"
}

// ExpiredBy reports whether this access, read from the record at an
// earlier time, no longer holds at now: an embargo whose release day has
// come. The record must then be read again, even if it did not change.
func (a Access) ExpiredBy(now time.Time) bool {
	return a.Level == Embargoed && !a.Release.IsZero() && !now.UTC().Before(a.Release)
}

// ExpiredBy reports whether what was read of the record's rights no longer
// holds at now: the object's embargo or a file's own has been released.
// The record must then be read again, even if it did not change.
func (o *Object) ExpiredBy(now time.Time) bool {
	return !o.rightsChange.IsZero() && !now.Before(o.rightsChange)
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
	// ViewerCollection lists a collection's members (from its IIIF
	// Collection) with links to their pages.
	ViewerCollection Viewer = "collection"
)

// Viewer decides how the object is shown, from its content type and, when
// that says nothing specific, from its files' media types.
func (o *Object) Viewer() Viewer {
	switch o.ContentType {
	case "collection":
		if o.HasManifest {
			return ViewerCollection
		}
	case "image", "book", "map":
		if o.HasManifest && (o.ExternalImages || o.hasFile(func(f File) bool { return strings.HasPrefix(f.MimeType, "image/") })) {
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
	case o.HasManifest && all(func(f File) bool { return strings.HasPrefix(f.MimeType, "image/") }):
		return ViewerMirador
	case o.HasManifest && o.ExternalImages && !o.hasFile(func(File) bool { return true }):
		// a virtual object: its constituents' images, none of its own
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

// ErrInvalid wraps every parse failure, and with it record's own error
// (record.ErrMalformed or record.ErrUnacceptable).
var ErrInvalid = errors.New("invalid public XML")

// MaxSize is the largest record Parse accepts.
const MaxSize = purlrecord.MaxDocumentBytes

// Parse reads a public XML record with record.Parse, so Embed accepts
// exactly the records the PURL service publishes and serves, and refuses
// the rest with ErrInvalid. druid is the object's normalised druid (the
// one the record was fetched for); now decides whether an embargo is
// still in force.
func Parse(data []byte, druid string, now time.Time) (*Object, error) {
	rec, err := purlrecord.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return FromRecord(rec, druid, now), nil
}

// FromRecord is the viewer's view of a record record.Parse has read (the
// PURL page uses it to hand out the Embed service's embed code).
func FromRecord(rec *purlrecord.Record, druid string, now time.Time) *Object {
	o := &Object{
		Druid: druid,
		// Title falls back to the embedded MODS title, the label and
		// the druid: never empty.
		Title:       rec.Title(),
		HasManifest: rec.HasManifest(),
		ContentType: rec.ContentType,
		Access:      accessOf(rec.Rights, now),
		Use:         rec.Rights.UseStatement,
		Copyright:   rec.Rights.Copyright,
		License:     rec.Rights.License,
		Thumb:       rec.Thumb,
		// the record's one rule for when its rights next change (purl's too)
		rightsChange: rec.Rights.NextEmbargoEnd(now),
	}
	for _, c := range rec.Collections {
		o.Collections = append(o.Collections, c.String())
	}
	for _, r := range rec.Resources {
		res := Resource{ID: r.ID, Type: r.Type, Label: r.Label}
		for _, f := range r.Files {
			a := rec.Rights.ForFile(f.Name)
			res.Files = append(res.Files, File{
				Name: f.Name,
				// record checked it is a media type; the viewer compares
				// it as a lower-case string (image/*, application/pdf).
				MimeType:   strings.ToLower(strings.TrimSpace(f.MimeType)),
				Size:       f.Size,
				Width:      f.Width,
				Height:     f.Height,
				Restricted: rec.Rights.Dark() || !a.WorldReadable(now),
			})
		}
		for _, x := range r.External {
			o.ExternalImages = o.ExternalImages || strings.HasPrefix(strings.ToLower(x.MimeType), "image/")
		}
		o.Resources = append(o.Resources, res)
	}
	o.ManifestUnknown = !o.HasManifest && rec.ObjectType != "collection" && !rec.Rights.Dark() && (o.ExternalImages || len(rec.UnsizedImages()) > 0)
	return o
}

// SizeFromManifest gives the object's image files that have no pixel size
// the size its IIIF manifest paints them at (the PURL service reads it
// from the files, docs/purl.md "Images without a size"). manifest is the
// manifest's JSON, purl the object's PURL: a painting body
// "<purl>/file/<name>" names the file.
func (o *Object) SizeFromManifest(manifest []byte, purl string) error {
	if manifest == nil {
		return nil
	}
	var m struct {
		Items []struct {
			Items []struct {
				Items []struct {
					Body struct {
						ID     string `json:"id"`
						Width  int    `json:"width"`
						Height int    `json:"height"`
					} `json:"body"`
				} `json:"items"`
			} `json:"items"`
		} `json:"items"`
	}
	if err := json.Unmarshal(manifest, &m); err != nil {
		return fmt.Errorf("reading the manifest: %w", err)
	}
	sizes := map[string][2]int{}
	prefix := strings.TrimRight(purl, "/") + "/file/"
	for _, c := range m.Items {
		for _, page := range c.Items {
			for _, a := range page.Items {
				escaped, ok := strings.CutPrefix(a.Body.ID, prefix)
				if !ok || a.Body.Width <= 0 || a.Body.Height <= 0 {
					continue
				}
				if name, err := url.PathUnescape(escaped); err == nil {
					sizes[name] = [2]int{a.Body.Width, a.Body.Height}
				}
			}
		}
	}
	for i := range o.Resources {
		for j := range o.Resources[i].Files {
			f := &o.Resources[i].Files[j]
			if size, ok := sizes[f.Name]; ok && (f.Width <= 0 || f.Height <= 0) && strings.HasPrefix(f.MimeType, "image/") {
				f.Width, f.Height = size[0], size[1]
			}
		}
	}
	return nil
}

// accessOf turns record's rights into the viewer's access level at now:
// a dark object is Dark; an embargo in force wins over the access that
// follows it; once released, that access applies.
func accessOf(r purlrecord.Rights, now time.Time) Access {
	switch {
	case r.Dark():
		return Access{Level: Dark}
	case r.Embargoed(now):
		return Access{Level: Embargoed, Release: r.EmbargoUntil}
	}
	switch r.Read {
	case purlrecord.AccessWorld:
		return Access{Level: World, NoDownload: r.ReadRule == "no-download"}
	case purlrecord.AccessGroup:
		return Access{Level: Group, Group: r.ReadName}
	case purlrecord.AccessLocation:
		return Access{Level: Location, Location: r.ReadName}
	default:
		return Access{Level: CitationOnly}
	}
}
