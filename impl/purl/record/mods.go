package record

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// MODS is what the HTML page shows from a MODS record.
type MODS struct {
	// Version is mods/@version (3.4 to 3.8).
	Version           string
	Title             string
	Names             []Name
	Dates             []string
	Abstract          []string
	Subjects          []string
	Language          []string
	TypeOfResource    string
	UseStatement      string
	License           string
	PreferredCitation string
}

// Name is a creator or contributor with its roles.
type Name struct {
	Display string
	Roles   []string
}

// modsVersions are the MODS versions accepted as input (PrepareMODS
// serves them as 3.6 when they are valid as such).
var modsVersions = set("3.4", "3.5", "3.6", "3.7", "3.8")

// modsTopLevel are the top-level elements MODS 3.4 to 3.8 allow (the
// same twenty in each).
var modsTopLevel = set("abstract", "accessCondition", "classification", "extension", "genre",
	"identifier", "language", "location", "name", "note", "originInfo", "part",
	"physicalDescription", "recordInfo", "relatedItem", "subject", "tableOfContents",
	"targetAudience", "titleInfo", "typeOfResource")

type modsXML struct {
	XMLName   xml.Name `xml:"http://www.loc.gov/mods/v3 mods"`
	Version   string   `xml:"version,attr"`
	TitleInfo []struct {
		Type     string `xml:"type,attr"`
		NonSort  string `xml:"http://www.loc.gov/mods/v3 nonSort"`
		Title    string `xml:"http://www.loc.gov/mods/v3 title"`
		SubTitle string `xml:"http://www.loc.gov/mods/v3 subTitle"`
	} `xml:"http://www.loc.gov/mods/v3 titleInfo"`
	Names []struct {
		NameParts []struct {
			Type  string `xml:"type,attr"`
			Value string `xml:",chardata"`
		} `xml:"http://www.loc.gov/mods/v3 namePart"`
		Roles []struct {
			Terms []struct {
				Type  string `xml:"type,attr"`
				Value string `xml:",chardata"`
			} `xml:"http://www.loc.gov/mods/v3 roleTerm"`
		} `xml:"http://www.loc.gov/mods/v3 role"`
	} `xml:"http://www.loc.gov/mods/v3 name"`
	OriginInfo []struct {
		Dates []struct {
			XMLName xml.Name
			Value   string `xml:",chardata"`
		} `xml:",any"`
	} `xml:"http://www.loc.gov/mods/v3 originInfo"`
	Abstract []string `xml:"http://www.loc.gov/mods/v3 abstract"`
	Subject  []struct {
		Terms []struct {
			XMLName xml.Name
			Value   string `xml:",chardata"`
		} `xml:",any"`
	} `xml:"http://www.loc.gov/mods/v3 subject"`
	Language []struct {
		Terms []struct {
			Type  string `xml:"type,attr"`
			Value string `xml:",chardata"`
		} `xml:"http://www.loc.gov/mods/v3 languageTerm"`
	} `xml:"http://www.loc.gov/mods/v3 language"`
	TypeOfResource  []string `xml:"http://www.loc.gov/mods/v3 typeOfResource"`
	AccessCondition []struct {
		Type  string `xml:"type,attr"`
		Value string `xml:",chardata"`
	} `xml:"http://www.loc.gov/mods/v3 accessCondition"`
	Notes []struct {
		Type  string `xml:"type,attr"`
		Value string `xml:",chardata"`
	} `xml:"http://www.loc.gov/mods/v3 note"`
}

// ParseMODS checks that data is a MODS record the service can publish
// (root mods in the MODS v3 namespace, version 3.4 to 3.8, only MODS top-level
// elements, a titleInfo with a title) and returns what the page shows.
// This check is structural; the full check against the MODS 3.6 XML Schema
// is MODSSchema's (xmllint), which PrepareMODS runs after it when the
// service has a schema. Errors wrap ErrMalformed or ErrUnacceptable.
func ParseMODS(data []byte) (*MODS, error) {
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("%w: document is %d bytes, more than %d", ErrUnacceptable, len(data), MaxDocumentBytes)
	}
	root, children, err := scanTop(data)
	if err != nil {
		return nil, err
	}
	if root != (xml.Name{Space: NSMODS, Local: "mods"}) {
		return nil, fmt.Errorf("%w: root element is %s, want mods in the namespace %s", ErrUnacceptable, fmtName(root), NSMODS)
	}
	for _, c := range children {
		if c.Space != NSMODS || !modsTopLevel[c.Local] {
			return nil, fmt.Errorf("%w: %s is not a MODS top-level element", ErrUnacceptable, fmtName(c))
		}
	}
	var x modsXML
	if err := xml.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if !modsVersions[x.Version] {
		return nil, fmt.Errorf("%w: mods/@version is %q, want one of 3.4, 3.5, 3.6, 3.7, 3.8", ErrUnacceptable, x.Version)
	}
	m := &MODS{Version: x.Version}
	for _, t := range x.TitleInfo {
		if t.Type != "" || strings.TrimSpace(t.Title) == "" {
			continue
		}
		m.Title = strings.TrimSpace(strings.TrimSpace(t.NonSort) + " " + strings.TrimSpace(t.Title))
		if st := strings.TrimSpace(t.SubTitle); st != "" {
			m.Title += ": " + st
		}
		break
	}
	if m.Title == "" {
		return nil, fmt.Errorf("%w: mods has no titleInfo with a title", ErrUnacceptable)
	}
	for _, n := range x.Names {
		var parts, given, family []string
		for _, p := range n.NameParts {
			v := strings.TrimSpace(p.Value)
			switch p.Type {
			case "given":
				given = append(given, v)
			case "family":
				family = append(family, v)
			case "date", "termsOfAddress":
			default:
				parts = append(parts, v)
			}
		}
		display := strings.Join(parts, " ")
		if len(family) > 0 {
			display = strings.Join(family, " ")
			if len(given) > 0 {
				display += ", " + strings.Join(given, " ")
			}
		}
		if display == "" {
			continue
		}
		name := Name{Display: display}
		for _, role := range n.Roles {
			for _, t := range role.Terms {
				if v := strings.TrimSpace(t.Value); v != "" && t.Type != "code" {
					name.Roles = append(name.Roles, v)
				}
			}
		}
		m.Names = append(m.Names, name)
	}
	for _, o := range x.OriginInfo {
		for _, d := range o.Dates {
			if strings.HasPrefix(d.XMLName.Local, "date") || d.XMLName.Local == "copyrightDate" {
				if v := strings.TrimSpace(d.Value); v != "" {
					m.Dates = append(m.Dates, v)
				}
			}
		}
	}
	m.Abstract = trimAll(x.Abstract)
	for _, s := range x.Subject {
		var terms []string
		for _, t := range s.Terms {
			if v := strings.TrimSpace(t.Value); v != "" {
				terms = append(terms, v)
			}
		}
		if len(terms) > 0 {
			m.Subjects = append(m.Subjects, strings.Join(terms, " -- "))
		}
	}
	for _, l := range x.Language {
		for _, t := range l.Terms {
			if v := strings.TrimSpace(t.Value); v != "" && t.Type == "text" {
				m.Language = append(m.Language, v)
			}
		}
	}
	if len(x.TypeOfResource) > 0 {
		m.TypeOfResource = strings.TrimSpace(x.TypeOfResource[0])
	}
	for _, a := range x.AccessCondition {
		switch a.Type {
		case "useAndReproduction", "use and reproduction":
			m.UseStatement = strings.TrimSpace(a.Value)
		case "license":
			m.License = strings.TrimSpace(a.Value)
		}
	}
	for _, n := range x.Notes {
		if n.Type == "preferred citation" || n.Type == "preferredCitation" {
			m.PreferredCitation = strings.TrimSpace(n.Value)
		}
	}
	return m, nil
}
