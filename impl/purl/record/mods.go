package record

import (
	"encoding/xml"
	"fmt"
	"strings"
)

// MODS is what the HTML page shows from a MODS record.
type MODS struct {
	// Version is mods/@version as given ("" when none).
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

type modsXML struct {
	XMLName   xml.Name `xml:"http://www.loc.gov/mods/v3 mods"`
	Version   string   `xml:"version,attr"`
	TitleInfo []struct {
		Type     string `xml:"type,attr"`
		NonSort  string `xml:"http://www.loc.gov/mods/v3 nonSort"`
		Title    string `xml:"http://www.loc.gov/mods/v3 title"`
		SubTitle string `xml:"http://www.loc.gov/mods/v3 subTitle"`
		// Parts are partNumber and partName in document order.
		Parts []titlePart `xml:",any"`
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

// ParseMODS checks that data is a MODS record (root mods in the MODS v3
// namespace, of any version or none) and returns what the page shows
// (Title is "" when it has none). What the MODS 3.6 schema does not allow
// is PrepareMODS's concern. Errors wrap ErrMalformed or ErrUnacceptable.
func ParseMODS(data []byte) (*MODS, error) {
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("%w: document is %d bytes, more than %d", ErrUnacceptable, len(data), MaxDocumentBytes)
	}
	root, _, err := scanTop(data)
	if err != nil {
		return nil, err
	}
	if root != (xml.Name{Space: NSMODS, Local: "mods"}) {
		return nil, fmt.Errorf("%w: root element is %s, want mods in the namespace %s", ErrUnacceptable, fmtName(root), NSMODS)
	}
	var x modsXML
	if err := xml.Unmarshal(data, &x); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	m := &MODS{Version: strings.TrimSpace(x.Version)}
	for _, t := range x.TitleInfo {
		if t.Type != "" || strings.TrimSpace(t.Title) == "" {
			continue
		}
		m.Title = strings.TrimSpace(strings.TrimSpace(t.NonSort) + " " + strings.TrimSpace(t.Title))
		if st := strings.TrimSpace(t.SubTitle); st != "" {
			m.Title += ": " + st
		}
		m.Title = withParts(m.Title, t.Parts)
		break
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

// titlePart is a child of titleInfo other than nonSort, title and subTitle
// (withParts keeps partNumber and partName).
type titlePart struct {
	XMLName xml.Name
	Value   string `xml:",chardata"`
}

// withParts appends a titleInfo's partNumber and partName values, in their
// order, to title: the issues of a serial and the volumes of a set share a
// title and differ only by them ("The Catgut Acoustical Society
// Newsletter. Number 20. 1973-11-01"). Each follows a full stop, as in the
// Dublin Core the repository derives from its MODS; after a title that
// already ends in one, a space.
func withParts(title string, parts []titlePart) string {
	for _, p := range parts {
		if p.XMLName.Space != NSMODS || (p.XMLName.Local != "partNumber" && p.XMLName.Local != "partName") {
			continue
		}
		v := strings.Join(strings.Fields(p.Value), " ")
		if v == "" {
			continue
		}
		if strings.HasSuffix(title, ".") {
			title += " " + v
		} else {
			title += ". " + v
		}
	}
	return title
}
