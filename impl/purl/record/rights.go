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

// Grant is one way of reading files: anyone (world), members of a login
// group, or people at a location.
type Grant struct {
	Kind AccessKind // AccessWorld, AccessGroup or AccessLocation
	Name string     // the group or location name ("" for world)
	// Rule is the rule attribute as given (e.g. "no-download"), "" when
	// none. It says how the files may be presented, not who may read them.
	Rule string
}

// Access is who may read a file: anyone any one of the grants admits,
// once the embargo (if any) is over. No grant: nobody.
type Access struct {
	Grants       []Grant
	EmbargoUntil time.Time
}

// Embargoed reports whether the embargo is still in force at now.
func (a Access) Embargoed(now time.Time) bool {
	return !a.EmbargoUntil.IsZero() && now.Before(a.EmbargoUntil)
}

// World reports whether a grant admits anyone.
func (a Access) World() bool {
	for _, g := range a.Grants {
		if g.Kind == AccessWorld {
			return true
		}
	}
	return false
}

// WorldReadable reports whether anyone may read the file at now.
func (a Access) WorldReadable(now time.Time) bool { return a.World() && !a.Embargoed(now) }

// Rights is the content availability of an object (rightsMetadata), read
// with the repository's semantics (docs/purl.md, "Rights"): the object's
// read grants apply to every file but those named by a read access of
// their own, which override them; several grants for the same files mean
// any one of them admits a reader.
type Rights struct {
	// Discoverable is false for dark objects: the whole object is 404.
	Discoverable bool
	// Object is who may read the object's files (those without rights
	// of their own).
	Object Access
	// Files are the rights of files named in a read access of their own.
	Files map[string]Access
	// Read is the most open kind of Object's grants (world, else group,
	// else location, else none), ReadName and ReadRule those of its
	// first grant of that kind: the one-line view the Embed viewer uses.
	Read     AccessKind
	ReadName string
	ReadRule string
	// EmbargoUntil is the release date of Object's embargo (zero when none).
	EmbargoUntil time.Time
	UseStatement string
	License      string
	Copyright    string
	// Doubts says what of the rights was unclear and read as no access
	// (an unknown access element, an unreadable date, lending the service
	// cannot do): the service logs them.
	Doubts []string
}

// Dark reports whether the object is hidden entirely.
func (r Rights) Dark() bool { return !r.Discoverable }

// Embargoed reports whether the object's files are still under embargo at now.
func (r Rights) Embargoed(now time.Time) bool { return r.Object.Embargoed(now) }

// NextEmbargoEnd is the earliest release, after now, of an embargo of the
// object or of one of its files (zero when none is in force): until then,
// who may read what is as at now. What is built from the rights (the PURL
// page's links, the embed viewer's downloads) is out of date from then on.
func (r Rights) NextEmbargoEnd(now time.Time) time.Time {
	next := time.Time{}
	consider := func(a Access) {
		if a.Embargoed(now) && (next.IsZero() || a.EmbargoUntil.Before(next)) {
			next = a.EmbargoUntil
		}
	}
	consider(r.Object)
	for _, a := range r.Files {
		consider(a)
	}
	return next
}

// WorldReadable reports whether anyone may read every file of the object
// at now (a file with stricter rights of its own makes it false: what is
// served for the whole object is then not public).
func (r Rights) WorldReadable(now time.Time) bool {
	if !r.Discoverable || !r.Object.WorldReadable(now) {
		return false
	}
	for _, a := range r.Files {
		if !a.WorldReadable(now) {
			return false
		}
	}
	return true
}

// ForFile is who may read the file called name: its own rights when a
// read access names it, else the object's.
func (r Rights) ForFile(name string) Access {
	if a, ok := r.Files[name]; ok {
		return a
	}
	return r.Object
}

// FileWorldReadable reports whether anyone may read the file at now.
func (r Rights) FileWorldReadable(name string, now time.Time) bool {
	return r.Discoverable && r.ForFile(name).WorldReadable(now)
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

// anyXML is an element read whole: rightsMetadata has been written in
// many shapes, and is read by name at every level.
type anyXML struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Text    string     `xml:",chardata"`
	Kids    []anyXML   `xml:",any"`
	Inner   string     `xml:",innerxml"`
}

// statement is the text of a human statement with the text of the markup
// inside it, in order: the repository stored statements with HTML in
// them (a useAndReproduction ending "contact … at <a
// href="mailto:…">speccollref@stanford.edu</a>."), and the statement
// read without the link's text would name no one to contact.
func (e anyXML) statement() string {
	if len(e.Kids) == 0 {
		return strings.TrimSpace(e.Text)
	}
	var b strings.Builder
	dec := xml.NewDecoder(strings.NewReader(e.Inner))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		if t, ok := tok.(xml.CharData); ok {
			b.Write(t)
		}
	}
	return strings.TrimSpace(b.String())
}

func (e anyXML) attr(local string) string {
	for _, a := range e.Attrs {
		if strings.EqualFold(a.Name.Local, local) {
			return a.Value
		}
	}
	return ""
}

func (e anyXML) is(local string) bool { return strings.EqualFold(e.XMLName.Local, local) }

type rightsXML struct {
	Kids []anyXML `xml:",any"`
}

// readAccess is what one machine element (or several) grants.
type readAccess struct {
	grants  []Grant
	none    bool
	embargo time.Time
	doubt   bool // something was unclear: no access is granted
}

// parse reads rightsMetadata with the repository's semantics. Nothing in
// it is refused: what is unclear grants nothing (a doubt, warned of and
// kept in Rights.Doubts for the log).
func (x rightsXML) parse(rec *Record, warn func(format string, args ...any)) Rights {
	var r Rights
	doubt := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		r.Doubts = append(r.Doubts, msg)
		warn("rightsMetadata: %s", msg)
	}
	discoverSeen, discoverWorld, discoverNone := false, false, false
	var object *readAccess
	files := map[string]*readAccess{}
	var fileOrder []string
	for _, a := range x.Kids {
		switch {
		case a.is("access"):
		case a.is("use"):
			for _, u := range a.Kids {
				switch {
				case u.is("human") && strings.EqualFold(u.attr("type"), "useAndReproduction"):
					r.UseStatement = u.statement()
				case u.is("license"):
					r.License = strings.TrimSpace(u.Text)
				case u.is("machine") && r.License == "":
					if uri := strings.TrimSpace(u.attr("uri")); strings.HasPrefix(uri, "http://") || strings.HasPrefix(uri, "https://") {
						r.License = uri
					} else if code := strings.TrimSpace(u.Text); code != "" {
						if uri, ok := licenseCodeURI(u.attr("type"), code); ok {
							r.License = uri
						} else {
							warn("rightsMetadata/use/machine: licence code %q (type %q) is not one the service knows: no licence link is shown", code, u.attr("type"))
						}
					}
				}
			}
			continue
		case a.is("copyright"):
			for _, c := range a.Kids {
				if c.is("human") && r.Copyright == "" {
					r.Copyright = c.statement()
				}
			}
			continue
		default:
			continue // reported by the vocabulary check
		}
		typ := strings.ToLower(strings.TrimSpace(a.attr("type")))
		var machines []anyXML
		var named []string
		for _, k := range a.Kids {
			switch {
			case k.is("machine"):
				machines = append(machines, k)
			case k.is("file"):
				if n := strings.TrimSpace(k.Text); n != "" {
					named = append(named, n)
				}
			}
		}
		switch typ {
		case "discover":
			discoverSeen = true
			for _, m := range machines {
				for _, k := range m.Kids {
					switch {
					case k.is("world"):
						discoverWorld = true
					case k.is("none"):
						discoverNone = true
					}
				}
			}
		case "read":
			got := readMachines(machines, doubt)
			if len(named) == 0 {
				object = merge(object, got)
				continue
			}
			for _, n := range named {
				if _, ok := rec.File(n); !ok {
					warn("rightsMetadata: a read access names the file %q, which is not a file of the object", n)
				}
				if files[n] == nil {
					fileOrder = append(fileOrder, n)
				}
				files[n] = merge(files[n], got)
			}
		default:
			warn("rightsMetadata: access type %q is not discover or read: not read", a.attr("type"))
		}
	}
	switch {
	case !discoverSeen:
		warn("rightsMetadata has no discover access: the object is discoverable (it was published)")
		r.Discoverable = true
	case discoverWorld && discoverNone:
		doubt("discover access is both world and none: the object is dark")
	case discoverNone:
	case discoverWorld:
		r.Discoverable = true
	default:
		warn("rightsMetadata: discover access is neither world nor none: the object is discoverable (it was published)")
		r.Discoverable = true
	}
	if object == nil {
		object = &readAccess{}
		if r.Discoverable {
			warn("rightsMetadata has no read access for the object: its files are readable by nobody")
		}
	}
	r.Object = object.access()
	if len(files) > 0 {
		r.Files = map[string]Access{}
		for _, n := range fileOrder {
			r.Files[n] = files[n].access()
		}
	}
	if !r.Discoverable {
		if len(r.Object.Grants) > 0 || len(r.Files) > 0 {
			warn("rightsMetadata: discover access is none (dark) but read access grants some: the object is dark")
		}
		r.Object, r.Files = Access{}, nil // dark: nothing of it is read
	}
	r.Read = AccessNone
	for _, kind := range []AccessKind{AccessWorld, AccessGroup, AccessLocation} {
		for _, g := range r.Object.Grants {
			if g.Kind == kind && r.Read == AccessNone {
				r.Read, r.ReadName, r.ReadRule = kind, g.Name, g.Rule
			}
		}
	}
	r.EmbargoUntil = r.Object.EmbargoUntil
	return r
}

// readMachines reads the machine elements of one read access: every grant
// they name (any one admits a reader), an embargo, or none.
func readMachines(machines []anyXML, doubt func(format string, args ...any)) *readAccess {
	got := &readAccess{}
	for _, m := range machines {
		for _, k := range m.Kids {
			v := strings.TrimSpace(k.Text)
			rule := strings.TrimSpace(k.attr("rule"))
			switch {
			case k.is("world"):
				got.grants = append(got.grants, Grant{Kind: AccessWorld, Rule: rule})
			case k.is("group"), k.is("location"):
				kind := AccessGroup
				if k.is("location") {
					kind = AccessLocation
				}
				if !validName(v) {
					doubt("%s name %q is not letters, digits, '-', '_', '.' or '&': it grants nothing", k.XMLName.Local, v)
					continue
				}
				got.grants = append(got.grants, Grant{Kind: kind, Name: v, Rule: rule})
			case k.is("none"):
				got.none = true
			case k.is("embargoReleaseDate"):
				t, err := parseDate(v)
				if err != nil {
					doubt("embargoReleaseDate %q is not a date: the files it covers are readable by nobody", v)
					got.doubt = true
					continue
				}
				if t.After(got.embargo) {
					got.embargo = t
				}
			case k.is("agent"):
				// Access for a named application, which this service
				// does not serve: it grants patrons nothing.
			case k.is("cdl"):
				doubt("controlled digital lending (cdl) is not offered by this service: it grants nothing")
			default:
				doubt("read access element %q is not one the service knows: it grants nothing", k.XMLName.Local)
			}
		}
	}
	if got.none && len(got.grants) > 0 {
		doubt("read access names both none and %s: the files it covers are readable by nobody", got.grants[0].Kind)
		got.doubt = true
	}
	return got
}

// merge combines two read accesses for the same files: any grant of
// either admits a reader, the later embargo holds, and a doubt in either
// denies.
func merge(a, b *readAccess) *readAccess {
	if a == nil {
		return b
	}
	out := &readAccess{grants: append(append([]Grant(nil), a.grants...), b.grants...), none: a.none || b.none, doubt: a.doubt || b.doubt, embargo: a.embargo}
	if b.embargo.After(out.embargo) {
		out.embargo = b.embargo
	}
	return out
}

func (a *readAccess) access() Access {
	if a.doubt {
		return Access{EmbargoUntil: a.embargo}
	}
	return Access{Grants: a.grants, EmbargoUntil: a.embargo}
}

// licenseCodes are the licence codes older records give in
// use/machine[@type] with no uri, by type (lower case) and code: the
// Creative Commons codes stand for the 3.0 (unported) licences, which is
// what the repository offered under them (later records name the licence
// by its URI, 3.0 or 4.0); the Open Data Commons codes for the 1.0
// licences. "none" is a code for no licence.
var licenseCodes = map[string]map[string]string{
	"creativecommons": {
		"by":       "https://creativecommons.org/licenses/by/3.0/legalcode",
		"by-sa":    "https://creativecommons.org/licenses/by-sa/3.0/legalcode",
		"by-nd":    "https://creativecommons.org/licenses/by-nd/3.0/legalcode",
		"by-nc":    "https://creativecommons.org/licenses/by-nc/3.0/legalcode",
		"by-nc-sa": "https://creativecommons.org/licenses/by-nc-sa/3.0/legalcode",
		"by-nc-nd": "https://creativecommons.org/licenses/by-nc-nd/3.0/legalcode",
		"cc0":      "https://creativecommons.org/publicdomain/zero/1.0/legalcode",
		"pdm":      "https://creativecommons.org/publicdomain/mark/1.0/",
		"none":     "",
	},
	"opendatacommons": {
		"odc-by":   "https://opendatacommons.org/licenses/by/1-0/",
		"odc-odbl": "https://opendatacommons.org/licenses/odbl/1-0/",
		"odc-pddl": "https://opendatacommons.org/licenses/pddl/1-0/",
		"pddl":     "https://opendatacommons.org/licenses/pddl/1-0/",
		"none":     "",
	},
}

// licenseCodeURI is the licence a use/machine code names: ok is false for
// a code (or type) the service does not know.
func licenseCodeURI(typ, code string) (string, bool) {
	codes, ok := licenseCodes[strings.ToLower(strings.TrimSpace(typ))]
	if !ok {
		return "", false
	}
	uri, ok := codes[strings.ToLower(strings.ReplaceAll(code, "_", "-"))]
	return uri, ok
}

func parseDate(s string) (time.Time, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	return time.Parse(time.RFC3339, s)
}

// validName reports whether s can name a login group or a location: the
// repository's codes are letters, digits, '-', '_', '.' and '&' (the
// location "m&m", media and microtext). Other characters (spaces, markup,
// ':' or ',' that would change a role's meaning) make the grant a doubt.
func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '&') {
			return false
		}
	}
	return true
}
