package record

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// NSXSI is the XML Schema instance namespace (xsi:schemaLocation).
const NSXSI = "http://www.w3.org/2001/XMLSchema-instance"

// MODS36Location is the schema location the served MODS 3.6 records name.
const MODS36Location = "http://www.loc.gov/standards/mods/v3/mods-3-6.xsd"

// maxMODSRounds bounds the rounds of schema check and repair PrepareMODS
// makes (each round repairs every complaint xmllint made).
const maxMODSRounds = 12

// PrepareMODS returns the form of a MODS record (any MODS 3 version, or
// none) the service serves: MODS 3.6 (version="3.6" and the 3.6 schema
// location), valid against the MODS 3.6 schema. What the 3.6 schema
// rejects is repaired, each repair with a warning: a value outside the
// schema's list that matches a listed one but for case, spaces or
// punctuation is respelled; any other rejected attribute is dropped, and
// any other rejected element dropped with its content. Repairs follow
// xmllint's complaints, so they follow the schema itself, not a list of
// known differences. The record as published stays available where it was
// published (the public XML's embedded mods is served unchanged in .xml).
// Without a schema the record is served as 3.6 unchecked, with a warning.
// Errors wrap ErrMalformed, ErrUnacceptable (not MODS; a record the
// repairs cannot make valid) or ErrSchemaCheck.
func PrepareMODS(ctx context.Context, data []byte, schema *MODSSchema) ([]byte, []string, error) {
	if len(data) > MaxDocumentBytes {
		return nil, nil, fmt.Errorf("%w: document is %d bytes, more than %d", ErrUnacceptable, len(data), MaxDocumentBytes)
	}
	data, converted, err := utf8Document(data)
	if err != nil {
		return nil, nil, err
	}
	if _, _, err := scanTop(data); err != nil {
		return nil, nil, err
	}
	data, warnings, err := normalizeMODSNamespaces(data)
	if err != nil {
		return nil, nil, err
	}
	warnings = append(converted, warnings...)
	m, err := ParseMODS(data)
	if err != nil {
		return nil, nil, err
	}
	if m.Version != "3.6" {
		from := "MODS " + m.Version
		if m.Version == "" {
			from = "MODS with no version"
		}
		warnings = append(warnings, from+" is served as MODS 3.6")
	}
	doc := data
	if m.Version != "3.6" || !bytes.Contains(data, []byte(MODS36Location)) {
		if doc, err = withVersion36(data); err != nil {
			return nil, nil, err
		}
	}
	if schema == nil {
		if len(warnings) > 0 {
			warnings = append(warnings, "no MODS 3.6 schema is configured: the record was not checked against it")
		}
		return doc, warnings, nil
	}
	names := schema.names()
	if out, ws, err := respellAndDropUndeclared(doc, names); err != nil {
		return nil, nil, err
	} else if len(ws) > 0 {
		doc, warnings = out, append(warnings, ws...)
	}
	for round := 0; ; round++ {
		// Checked in the form where each element has a line of its own,
		// so that a complaint names one element.
		root, err := parseTree(doc)
		if err != nil {
			return nil, nil, err
		}
		lined := root.lineDocument()
		complaints, err := schema.Complaints(ctx, lined)
		if err != nil {
			return nil, nil, err
		}
		if len(complaints) == 0 {
			return doc, warnings, nil
		}
		if round == maxMODSRounds {
			return nil, nil, fmt.Errorf("%w: not valid against the MODS 3.6 schema after %d rounds of repair: %s", ErrUnacceptable, round, complaints[0].Message)
		}
		if root, err = parseTree(lined); err != nil {
			return nil, nil, err
		}
		fixed := 0
		for _, c := range complaints {
			w, ok := repair(root, c, names)
			if ok {
				fixed++
				warnings = append(warnings, w...)
			}
		}
		if fixed == 0 {
			return nil, nil, fmt.Errorf("%w: not valid against the MODS 3.6 schema: %s", ErrUnacceptable, complaints[0].Message)
		}
		doc = root.document()
	}
}

// respellAndDropUndeclared repairs, in one pass, what no place in the
// schema allows: an element in the MODS namespace, or an unprefixed
// attribute, whose name the schema declares in another case is respelled
// (keydate, dateissued); one whose name the schema declares nowhere, and
// an element of another namespace, is dropped, each with a warning.
// Inside an element with open content (extension, accessCondition:
// names.open) everything is allowed and nothing is touched. xmllint stops
// checking an element's content at the first child it does not expect,
// so repairing these by its complaints took a round each: a record with
// a dozen local elements was refused when the rounds ran out.
func respellAndDropUndeclared(doc []byte, names schemaSpellings) ([]byte, []string, error) {
	if len(names.elements) == 0 {
		return doc, nil, nil
	}
	root, err := parseTree(doc)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	var walk func(e *xnode)
	walk = func(e *xnode) {
		if e.qname().Space == NSMODS && names.open[e.name.Local] {
			return
		}
		kept := e.attrs[:0]
		for _, a := range e.attrs {
			switch {
			case isNSDecl(a) || a.Name.Space != "":
			case !names.declares(a.Name.Local, true):
				warnings = append(warnings, fmt.Sprintf("%s/@%s %q is not allowed by MODS 3.6 (no MODS attribute has this name): dropped", e.path(), a.Name.Local, truncate(a.Value, 60)))
				continue
			default:
				if v, ok := names.respelling(a.Name.Local, true); ok {
					if _, taken := e.attr(v); !taken {
						warnings = append(warnings, fmt.Sprintf("%s/@%s is not a MODS 3.6 name: served as @%s", e.path(), a.Name.Local, v))
						a.Name.Local = v
					}
				}
			}
			kept = append(kept, a)
		}
		e.attrs = kept
		kids := e.kids[:0]
		for _, k := range e.kids {
			c, ok := k.(*xnode)
			if !ok {
				kids = append(kids, k)
				continue
			}
			q := c.qname()
			if q.Space != NSMODS || !names.declares(q.Local, false) {
				what := strings.TrimSpace(truncate(c.text(), 60))
				if what != "" {
					what = fmt.Sprintf(" %q", what)
				}
				why := "no MODS element has this name"
				if q.Space != NSMODS {
					why = "an element of another namespace, outside extension"
				}
				warnings = append(warnings, fmt.Sprintf("%s%s is not allowed by MODS 3.6 (%s): dropped", c.path(), what, why))
				continue
			}
			if v, ok := names.respelling(q.Local, false); ok {
				warnings = append(warnings, fmt.Sprintf("%s is not a MODS 3.6 name: served as %s", c.path(), v))
				c.name.Local = v
			}
			walk(c)
			kids = append(kids, c)
		}
		e.kids = kids
	}
	walk(root)
	if len(warnings) == 0 {
		return doc, nil, nil
	}
	return root.document(), warnings, nil
}

// repair changes root so that the complaint c no longer holds (and the
// same fault of the siblings the complaint implies): respells
// a name the schema declares but for case (an attribute keydate, an
// element dateissued: names declares them), an enumerated value that
// matches a listed one but for case, spaces or punctuation, else drops
// the attribute or the element. It returns the warnings to give and
// whether it found what c names. A respelled name the schema still
// rejects where it stands is dropped in a later round.
func repair(root *xnode, c Complaint, names schemaSpellings) ([]string, bool) {
	e := findAt(root, c.Line, c.Element)
	if e == nil {
		return nil, false
	}
	path := e.path()
	if c.Attribute != "" {
		for i, a := range e.attrs {
			if a.Name.Local != c.Attribute || isNSDecl(a) {
				continue
			}
			if v, ok := names.respelling(a.Name.Local, true); ok && a.Name.Space == "" {
				if _, taken := e.attr(v); !taken {
					e.attrs[i].Name.Local = v
					return []string{fmt.Sprintf("%s/@%s is not a MODS 3.6 name: served as @%s", path, a.Name.Local, v)}, true
				}
			}
			if v, ok := closest(a.Value, c.Allowed); ok {
				e.attrs[i].Value = v
				return []string{fmt.Sprintf("%s/@%s %q is not a MODS 3.6 value: served as %q", path, c.Attribute, a.Value, v)}, true
			}
			e.attrs = append(e.attrs[:i], e.attrs[i+1:]...)
			return []string{fmt.Sprintf("%s/@%s %q is not allowed by MODS 3.6 (%s): dropped", path, c.Attribute, a.Value, c.Reason)}, true
		}
		return nil, false
	}
	if len(c.Allowed) > 0 {
		was := e.text()
		if v, ok := closest(was, c.Allowed); ok {
			e.kids = []any{xml.CharData(v)}
			return []string{fmt.Sprintf("%s %q is not a MODS 3.6 value: served as %q", path, was, v)}, true
		}
	}
	if e.parent == nil {
		return nil, false
	}
	if w := names.wrapper(e.parent.name.Local, e.name.Local); w != "" && strings.Contains(c.Reason, "not expected") && e.qname().Space == NSMODS {
		// Written a level too high (a placeTerm directly in originInfo):
		// put it in the element that holds it; the next round checks.
		// Its name is not in its parent's content at all, so every
		// sibling of that name is misplaced too: all are put in one
		// round (the schema check stops at the first).
		q, parent := e.qname(), e.parent
		var out []string
		for i, k := range parent.kids {
			s, ok := k.(*xnode)
			if !ok || s.qname() != q {
				continue
			}
			wrap := element(s.name.Space, w, "")
			wrap.parent = parent
			parent.kids[i] = wrap
			wrap.add(s)
			out = append(out, fmt.Sprintf("%s is not allowed where it stands by MODS 3.6: served inside a new %s", path, w))
		}
		return out, true
	}
	if v, ok := names.respelling(e.name.Local, false); ok && e.parent != nil && e.qname().Space == NSMODS {
		e.name.Local = v
		return []string{fmt.Sprintf("%s is not a MODS 3.6 name: served as %s", path, v)}, true
	}
	// Dropped; with every sibling of its name when the name is not in
	// the parent's content at all (misplaced wherever it stands there).
	parent := e.parent
	q := e.qname()
	model := names.children[parent.name.Local]
	all := strings.Contains(c.Reason, "not expected") && q.Space == NSMODS && model != nil && !model[q.Local]
	var out []string
	kept := parent.kids[:0:0]
	for _, k := range parent.kids {
		s, ok := k.(*xnode)
		if !ok || (s != e && !(all && s.qname() == q)) {
			kept = append(kept, k)
			continue
		}
		what := strings.TrimSpace(truncate(s.text(), 60))
		if what != "" {
			what = fmt.Sprintf(" %q", what)
		}
		out = append(out, fmt.Sprintf("%s%s is not allowed by MODS 3.6 (%s): dropped", path, what, c.Reason))
	}
	parent.kids = kept
	return out, true
}

// findAt finds the element called local whose start tag ends on line.
func findAt(n *xnode, line int, local string) *xnode {
	if n.line == line && n.name.Local == local {
		return n
	}
	for _, k := range n.elements() {
		if k.line > line {
			break
		}
		if f := findAt(k, line, local); f != nil {
			return f
		}
	}
	return nil
}

// path is the element's place in its document, by local names.
func (n *xnode) path() string {
	if n.parent == nil {
		return n.name.Local
	}
	return n.parent.path() + "/" + n.name.Local
}

// closest is the allowed value v matches but for case, spaces, hyphens,
// underscores and full stops.
func closest(v string, allowed []string) (string, bool) {
	norm := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch r {
			case ' ', '-', '_', '.', '\t', '\n':
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	for _, a := range allowed {
		if norm(a) == norm(v) && norm(v) != "" {
			return a, true
		}
	}
	return "", false
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
// (namespace, location pairs), adding the pair when ns is not listed. A
// value that is not a list of pairs (a location alone, as records wrote
// "http://www.loc.gov/standards/mods/v3/mods-3-4.xsd") pairs nothing, and
// adding a pair to it would pair the wrong tokens: it is replaced by the
// one pair.
func replaceLocation(value, ns, location string) string {
	f := strings.Fields(value)
	if len(f)%2 != 0 {
		return ns + " " + location
	}
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
