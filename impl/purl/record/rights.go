package record

import (
	"encoding/xml"
	"fmt"
	"strings"
	"time"
)

// AccessKind is who may read an object's files.
type AccessKind int

// Access kinds, from the read access of rightsMetadata.
const (
	AccessWorld    AccessKind = iota // anyone
	AccessGroup                      // members of a login group
	AccessLocation                   // people at a location
	AccessNone                       // nobody: citation only (or dark)
)

func (k AccessKind) String() string {
	switch k {
	case AccessWorld:
		return "world"
	case AccessGroup:
		return "group"
	case AccessLocation:
		return "location"
	default:
		return "none"
	}
}

// Rights is the content availability of an object (rightsMetadata).
type Rights struct {
	// Discoverable is false for dark objects: the whole object is 404.
	Discoverable bool
	// Read is who gets the files (after the embargo, if any).
	Read AccessKind
	// ReadName is the group or location name for AccessGroup/AccessLocation.
	ReadName string
	// ReadRule is the rule attribute of the read form, as given (e.g.
	// "no-download" in <world rule="no-download"/>), "" when none. The
	// format carries it to say how the files may be presented; it does
	// not change who may read them, so the PURL service does not use it.
	ReadRule string
	// EmbargoUntil is the release date of an embargo (zero when none).
	EmbargoUntil time.Time
	UseStatement string
	License      string
	Copyright    string
}

// Dark reports whether the object is hidden entirely.
func (r Rights) Dark() bool { return !r.Discoverable }

// Embargoed reports whether the files are still under embargo at now.
func (r Rights) Embargoed(now time.Time) bool {
	return !r.EmbargoUntil.IsZero() && now.Before(r.EmbargoUntil)
}

// WorldReadable reports whether anyone may read the files at now.
func (r Rights) WorldReadable(now time.Time) bool {
	return r.Discoverable && r.Read == AccessWorld && !r.Embargoed(now)
}

// Summary is a one-line statement of who may read the files at now.
func (r Rights) Summary(now time.Time) string {
	var s string
	switch r.Read {
	case AccessWorld:
		s = "Available to anyone"
	case AccessGroup:
		s = fmt.Sprintf("Available to members of the login group %q", r.ReadName)
	case AccessLocation:
		s = fmt.Sprintf("Available at the location %q", r.ReadName)
	default:
		s = "Citation only: the files of this object are not available"
	}
	if r.Embargoed(now) && r.Read == AccessNone {
		return fmt.Sprintf("Embargoed until %s; the files are not available before then", r.EmbargoUntil.Format("2006-01-02"))
	}
	if r.Embargoed(now) {
		s = fmt.Sprintf("Embargoed until %s; then: %s", r.EmbargoUntil.Format("2006-01-02"), strings.ToLower(s[:1])+s[1:])
	}
	return s
}

type rightsXML struct {
	Access []struct {
		Type    string      `xml:"type,attr"`
		Machine *machineXML `xml:"machine"`
	} `xml:"access"`
	Use struct {
		Human []struct {
			Type  string `xml:"type,attr"`
			Value string `xml:",chardata"`
		} `xml:"human"`
		License string `xml:"license"`
	} `xml:"use"`
	Copyright struct {
		Human string `xml:"human"`
	} `xml:"copyright"`
}

// machineXML keeps the machine element's children in order.
type machineXML struct {
	Children []struct {
		XMLName xml.Name
		Rule    string `xml:"rule,attr"`
		Value   string `xml:",chardata"`
	} `xml:",any"`
}

func (x rightsXML) parse() (Rights, error) {
	bad := func(format string, args ...any) (Rights, error) {
		return Rights{}, fmt.Errorf("%w: rightsMetadata: "+format, append([]any{ErrUnacceptable}, args...)...)
	}
	var r Rights
	var discover, read *machineXML
	for _, a := range x.Access {
		switch a.Type {
		case "discover":
			if discover != nil {
				return bad("more than one discover access")
			}
			discover = a.Machine
		case "read":
			if read != nil {
				return bad("more than one read access")
			}
			read = a.Machine
		default:
			return bad("access type %q is not discover or read", a.Type)
		}
		if a.Machine == nil {
			return bad("access %q has no machine element", a.Type)
		}
	}
	if discover == nil || read == nil {
		return bad("needs one access type=\"discover\" and one access type=\"read\"")
	}
	switch names := childNames(discover); names {
	case "world":
		r.Discoverable = true
	case "none":
	default:
		return bad("discover access must be <world/> or <none/>, not %q", names)
	}
	for _, c := range read.Children {
		v := strings.TrimSpace(c.Value)
		switch c.XMLName.Local {
		case "embargoReleaseDate":
			if !r.EmbargoUntil.IsZero() {
				return bad("more than one embargoReleaseDate")
			}
			t, err := parseDate(v)
			if err != nil {
				return bad("embargoReleaseDate %q is not a date (YYYY-MM-DD) or date-time", v)
			}
			r.EmbargoUntil = t
		}
	}
	forms := 0
	for _, c := range read.Children {
		v := strings.TrimSpace(c.Value)
		switch c.XMLName.Local {
		case "embargoReleaseDate":
			continue
		case "world":
			r.Read = AccessWorld
		case "group":
			r.Read, r.ReadName = AccessGroup, v
		case "location":
			r.Read, r.ReadName = AccessLocation, v
		case "none":
			r.Read = AccessNone
		default:
			return bad("read access element %q is not world, group, location, none or embargoReleaseDate", c.XMLName.Local)
		}
		r.ReadRule = strings.TrimSpace(c.Rule)
		if (r.Read == AccessGroup || r.Read == AccessLocation) && !validName(v) {
			return bad("%s name %q must be letters, digits, '-', '_' or '.'", c.XMLName.Local, v)
		}
		forms++
	}
	if forms != 1 {
		return bad("read access needs exactly one of world, group, location, none (found %d)", forms)
	}
	if !r.Discoverable && r.Read != AccessNone {
		return bad("a dark object (discover none) must have read none")
	}
	// <none/> with an embargoReleaseDate (a form real repositories
	// publish) says nobody reads the files before the date and names no
	// access after it: the files stay unavailable until the publisher
	// republishes the record with the access that applies (docs/purl.md).
	for _, h := range x.Use.Human {
		if h.Type == "useAndReproduction" {
			r.UseStatement = strings.TrimSpace(h.Value)
		}
	}
	r.License = strings.TrimSpace(x.Use.License)
	r.Copyright = strings.TrimSpace(x.Copyright.Human)
	return r, nil
}

func childNames(m *machineXML) string {
	var names []string
	for _, c := range m.Children {
		names = append(names, c.XMLName.Local)
	}
	return strings.Join(names, ",")
}

func parseDate(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
