package record

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// NSXSI is the XML Schema instance namespace (xsi:schemaLocation).
const NSXSI = "http://www.w3.org/2001/XMLSchema-instance"

// MODS36Location is the schema location the served MODS 3.6 records name.
const MODS36Location = "http://www.loc.gov/standards/mods/v3/mods-3-6.xsd"

// PrepareMODS checks a MODS record (3.4 to 3.8) and returns the form to
// serve. A 3.6 record is served as given, with the 3.6 schema location
// added when it names none (and must validate against the schema when one
// is given). Another version is served as MODS 3.6 — its
// version attribute and schema location changed — when that result
// validates against the MODS 3.6 schema; otherwise, or without a schema
// to show it, as given, in its own version, with a warning saying so.
// The service never claims 3.6 for a record it has not seen valid as 3.6.
// Errors wrap ErrMalformed, ErrUnacceptable or ErrSchemaCheck.
func PrepareMODS(ctx context.Context, data []byte, schema *MODSSchema) ([]byte, []string, error) {
	m, err := ParseMODS(data)
	if err != nil {
		return nil, nil, err
	}
	if m.Version == "3.6" {
		// The seed's MODS names the 3.6 schema location: a record without
		// it gets it (nothing else changes).
		if !bytes.Contains(data, []byte(MODS36Location)) {
			if data, err = withVersion36(data); err != nil {
				return nil, nil, err
			}
		}
		if schema != nil {
			if err := schema.Validate(ctx, data); err != nil {
				return nil, nil, err
			}
		}
		return data, nil, nil
	}
	if schema == nil {
		return data, []string{fmt.Sprintf("MODS %s is served as MODS %s: no MODS 3.6 schema is configured to show it is valid as 3.6", m.Version, m.Version)}, nil
	}
	conv, err := withVersion36(data)
	if err != nil {
		return nil, nil, err
	}
	switch err := schema.Validate(ctx, conv); {
	case err == nil:
		return conv, []string{fmt.Sprintf("MODS %s is valid MODS 3.6 after the version change: served as MODS 3.6", m.Version)}, nil
	case errors.Is(err, ErrSchemaCheck):
		return nil, nil, err
	default:
		return data, []string{fmt.Sprintf("MODS %s is not valid MODS 3.6 after the version change (%v): served as MODS %s", m.Version, strings.TrimPrefix(err.Error(), ErrUnacceptable.Error()+": "), m.Version)}, nil
	}
}

// withVersion36 sets mods/@version to 3.6 and its schema location for the
// MODS namespace to the 3.6 schema (declaring xsi when needed).
func withVersion36(data []byte) ([]byte, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	root.setAttr(xml.Name{Local: "version"}, "3.6")
	for i, a := range root.attrs {
		if a.Name.Local == "schemaLocation" && a.Name.Space != "" && a.Name.Space != "xmlns" && root.lookup(a.Name.Space) == NSXSI {
			root.attrs[i].Value = replaceLocation(a.Value, NSMODS, MODS36Location)
			return root.document(), nil
		}
	}
	prefix := ""
	for e := root; e != nil && prefix == ""; e = e.parent {
		for _, a := range e.attrs {
			if a.Name.Space == "xmlns" && a.Value == NSXSI {
				prefix = a.Name.Local
			}
		}
	}
	if prefix == "" {
		prefix = "xsi"
		for root.lookup(prefix) != "" {
			prefix += "x"
		}
		root.attrs = append(root.attrs, nsDecl(prefix, NSXSI))
	}
	root.attrs = append(root.attrs, xml.Attr{Name: xml.Name{Space: prefix, Local: "schemaLocation"}, Value: NSMODS + " " + MODS36Location})
	return root.document(), nil
}

// replaceLocation sets the location of ns in an xsi:schemaLocation value
// (namespace, location pairs), adding the pair when ns is not listed.
func replaceLocation(value, ns, location string) string {
	f := strings.Fields(value)
	for i := 0; i+1 < len(f); i += 2 {
		if f[i] == ns {
			f[i+1] = location
			return strings.Join(f, " ")
		}
	}
	return strings.TrimSpace(strings.Join(append(f, ns, location), " "))
}

// DerivedOrigin is the recordInfo/recordOrigin of MODS derived from
// Dublin Core; it marks the record as derived.
const DerivedOrigin = "Derived from the Dublin Core (oai_dc:dc) of the public XML record, following the Library of Congress Dublin Core to MODS mapping; not catalogued as MODS"

// dcmiTypes maps DCMI Type Vocabulary terms (lower case) to MODS
// typeOfResource values ("" when MODS has none).
var dcmiTypes = map[string]string{
	"collection": "", "dataset": "software, multimedia", "event": "", "image": "still image",
	"interactiveresource": "software, multimedia", "movingimage": "moving image",
	"physicalobject": "three dimensional object", "service": "", "software": "software, multimedia",
	"sound": "sound recording", "stillimage": "still image", "text": "text",
}

var iso6392 = regexp.MustCompile(`^[a-z]{3}$`)

// DeriveMODS makes a MODS 3.6 record from the record's Dublin Core, by
// the Library of Congress mapping of unqualified Dublin Core to MODS:
// title → titleInfo/title (further titles as alternative titles);
// creator and contributor → name/namePart with a role of that name;
// type → typeOfResource (DCMI types MODS has a value for) and genre
// (authority "dct" for DCMI types); publisher → originInfo/publisher;
// date → originInfo/dateOther (the mapping's default: DC does not say
// which date it is); language → language/languageTerm (an ISO 639-2
// code when it is three lower-case letters, text otherwise);
// format → physicalDescription/internetMediaType for media types, form
// otherwise; description → abstract (the mapping lists abstract, note
// and tableOfContents; abstract is what the page shows as the summary);
// subject → subject/topic; identifier → identifier (type uri for URLs);
// rights → accessCondition. purl is the object's persistent URL
// (location/url). recordInfo/recordOrigin marks it as derived.
func DeriveMODS(r *Record, purl string) []byte {
	m := element("", "mods", "", nsDecl("", NSMODS), nsDecl("xsi", NSXSI), attr("version", "3.6"),
		xml.Attr{Name: xml.Name{Space: "xsi", Local: "schemaLocation"}, Value: NSMODS + " " + MODS36Location})
	add := func(e *xnode) {
		m.kids = append(m.kids, xml.CharData("\n  "))
		m.add(e)
	}
	titles := r.DC.Title
	if len(titles) == 0 {
		titles = []string{r.Title()}
	}
	for i, t := range titles {
		ti := element("", "titleInfo", "")
		if i > 0 {
			ti.attrs = append(ti.attrs, attr("type", "alternative"))
		}
		add(ti.add(element("", "title", t)))
	}
	for _, n := range []struct {
		role   string
		values []string
	}{{"creator", r.DC.Creator}, {"contributor", r.DC.Contributor}} {
		for _, v := range n.values {
			add(element("", "name", "").add(
				element("", "namePart", v),
				element("", "role", "").add(element("", "roleTerm", n.role, attr("type", "text")))))
		}
	}
	for _, t := range r.DC.Type {
		key := strings.ToLower(strings.ReplaceAll(t, " ", ""))
		if tor := dcmiTypes[key]; tor != "" {
			add(element("", "typeOfResource", tor))
		}
	}
	for _, t := range r.DC.Type {
		g := element("", "genre", t)
		if _, ok := dcmiTypes[strings.ToLower(strings.ReplaceAll(t, " ", ""))]; ok {
			g.attrs = append(g.attrs, attr("authority", "dct"))
		}
		add(g)
	}
	if len(r.DC.Publisher)+len(r.DC.Date) > 0 {
		oi := element("", "originInfo", "")
		for _, p := range r.DC.Publisher {
			oi.add(element("", "publisher", p))
		}
		for _, d := range r.DC.Date {
			oi.add(element("", "dateOther", d))
		}
		add(oi)
	}
	for _, l := range r.DC.Language {
		term := element("", "languageTerm", l, attr("type", "text"))
		if iso6392.MatchString(l) {
			term.attrs = []xml.Attr{attr("type", "code"), attr("authority", "iso639-2b")}
		}
		add(element("", "language", "").add(term))
	}
	if len(r.DC.Format) > 0 {
		pd := element("", "physicalDescription", "")
		for _, f := range r.DC.Format {
			if strings.Contains(f, "/") && !strings.Contains(f, " ") {
				pd.add(element("", "internetMediaType", f))
			} else {
				pd.add(element("", "form", f))
			}
		}
		add(pd)
	}
	for _, d := range r.DC.Description {
		add(element("", "abstract", d))
	}
	for _, s := range r.DC.Subject {
		add(element("", "subject", "").add(element("", "topic", s)))
	}
	for _, id := range r.DC.Identifier {
		e := element("", "identifier", id)
		if strings.HasPrefix(id, "http://") || strings.HasPrefix(id, "https://") {
			e.attrs = append(e.attrs, attr("type", "uri"))
		}
		add(e)
	}
	add(element("", "location", "").add(element("", "url", purl, attr("usage", "primary display"))))
	for _, rt := range r.DC.Rights {
		add(element("", "accessCondition", rt, attr("type", "useAndReproduction")))
	}
	add(element("", "recordInfo", "").add(element("", "recordOrigin", DerivedOrigin)))
	m.kids = append(m.kids, xml.CharData("\n"))
	return m.document()
}
