package record

import (
	"encoding/xml"
	"fmt"
	"sort"
	"strings"
)

// NSXLink is the XLink namespace (MODS's xlink:href).
const NSXLink = "http://www.w3.org/1999/xlink"

// conventionalPrefixes are the namespaces records use under a fixed
// prefix. Real records use some of them without declaring them (a MODS
// accessCondition with xlink:href and no xmlns:xlink): such a record is
// well-formed XML but not namespace-well-formed, and the prefix can only
// mean its conventional namespace.
var conventionalPrefixes = map[string]string{
	"xlink":  NSXLink,
	"xsi":    NSXSI,
	"rdf":    NSRDF,
	"dc":     NSDC,
	"oai_dc": NSOAIDC,
	"mods":   NSMODS,
	"fedora": NSFedora,
}

// undeclaredNamespace is the namespace given to a prefix a record uses
// without declaring it and that has no conventional namespace: the names
// are kept as written, in a namespace that says what happened.
const undeclaredNamespace = "urn:sitesvc:undeclared-prefix:"

// declarePrefixes declares, on the element that uses it, every prefix used
// in root's tree but declared nowhere in scope: its conventional namespace
// (conventionalPrefixes), else undeclaredNamespace+prefix. where names
// root in the warnings. It returns the warnings (one per prefix); none
// means nothing changed.
func declarePrefixes(root *xnode, where string) []string {
	used := map[string]string{} // prefix → namespace given
	var walk func(n *xnode)
	walk = func(n *xnode) {
		prefixes := []string{n.name.Space}
		for _, a := range n.attrs {
			if !isNSDecl(a) {
				prefixes = append(prefixes, a.Name.Space)
			}
		}
		for _, p := range prefixes {
			if p == "" || p == "xml" || p == "xmlns" || n.lookup(p) != "" {
				continue
			}
			ns, ok := conventionalPrefixes[p]
			if !ok {
				ns = undeclaredNamespace + p
			}
			// setAttr: an xmlns:p="" here (not XML 1.0, but read) is
			// replaced, not repeated.
			n.setAttr(xml.Name{Space: "xmlns", Local: p}, ns)
			used[p] = ns
		}
		for _, k := range n.elements() {
			walk(k)
		}
	}
	walk(root)
	var warnings []string
	for p, ns := range used {
		how := "its conventional namespace"
		if strings.HasPrefix(ns, undeclaredNamespace) {
			how = "a namespace that says it was undeclared"
		}
		warnings = append(warnings, fmt.Sprintf("%s uses the prefix %q without declaring it: it is declared as %s (%s)", where, p, ns, how))
	}
	sort.Strings(warnings)
	return warnings
}

// namespacedTopLevel are the children of publicObject that belong to a
// namespace, by their local name in lower case. Records have embedded
// MODS with no namespace at all (<mods> with unprefixed children): with
// none declared, the element and its unprefixed descendants can only be
// MODS.
var namespacedTopLevel = map[string]xml.Name{
	"mods":           {Space: NSMODS, Local: "mods"},
	"modscollection": {Space: NSMODS, Local: "modsCollection"},
}

// nameMODSCollection is MODS's wrapper of several records. Repositories
// export and embed a single record in one (a modsCollection holding one
// mods: Kramerius, the ACL Anthology's MODS export).
var nameMODSCollection = xml.Name{Space: NSMODS, Local: "modsCollection"}

// collectedMODS returns the mods records a modsCollection e holds (nil,
// false when e is not one). A collection of exactly one record is that
// record; the callers decide what a collection of none or several is.
func collectedMODS(e *xnode) ([]*xnode, bool) {
	q := e.qname()
	if q.Space != NSMODS || !strings.EqualFold(q.Local, nameMODSCollection.Local) {
		return nil, false
	}
	var records []*xnode
	for _, k := range e.elements() {
		if kq := k.qname(); kq.Space == NSMODS && strings.EqualFold(kq.Local, "mods") {
			records = append(records, k)
		}
	}
	return records, true
}

// unwrapMODSCollection returns the one mods record of the modsCollection e
// as an element of its own (every namespace it relied on declared on it),
// and the warning to give; nil when e is not a collection of exactly one.
func unwrapMODSCollection(e *xnode, where string) (*xnode, string) {
	records, ok := collectedMODS(e)
	if !ok || len(records) != 1 {
		return nil, ""
	}
	m := records[0].standalone()
	m.name.Local = "mods"
	return m, fmt.Sprintf("%s%s holds one mods record: it is read as that record", where, e.name.Local)
}

// adoptNamespace puts e, a child of publicObject (or the root of a MODS
// document) written in no namespace, into the namespace its name says
// (namespacedTopLevel) by declaring it as e's default namespace, so its
// unprefixed descendants are in it too. It returns a warning, "" when e
// is not such an element.
func adoptNamespace(e *xnode, where string) string {
	if e.name.Space != "" || e.lookup("") != "" {
		return ""
	}
	q, ok := namespacedTopLevel[strings.ToLower(e.name.Local)]
	if !ok {
		return ""
	}
	spelled := ""
	if e.name.Local != q.Local {
		spelled = fmt.Sprintf(" (spelled %s)", e.name.Local)
	}
	e.name.Local = q.Local
	attrs := []xml.Attr{nsDecl("", q.Space)}
	for _, a := range e.attrs {
		if a.Name.Space == "" && a.Name.Local == "xmlns" {
			continue // an xmlns="" undeclaring it: replaced, not repeated
		}
		attrs = append(attrs, a)
	}
	e.attrs = attrs
	return fmt.Sprintf("%s/%s%s has no namespace: it and its unprefixed descendants are read in %s", where, q.Local, spelled, q.Space)
}

// namespacedChildren are the children of publicObject the service reads
// in a namespace, by namespace and local name in lower case.
var namespacedChildren = map[xml.Name]string{
	{Space: NSMODS, Local: "mods"}:           "mods",
	{Space: NSMODS, Local: "modscollection"}: "modsCollection",
	{Space: NSOAIDC, Local: "dc"}:            "dc",
	{Space: NSRDF, Local: "rdf"}:             "RDF",
}

// respellNamespaced gives e, a child of publicObject in the namespace of
// one the service reads (MODS, Dublin Core, RDF) but named in another
// case (<MODS xmlns="http://www.loc.gov/mods/v3">), that child's name, as
// case variants of the children in no namespace are. Left as written it
// would be an unknown element, and the object's MODS lost with it. It
// returns a warning, "" when e is not such an element.
func respellNamespaced(e *xnode) string {
	q := e.qname()
	spelled, ok := namespacedChildren[xml.Name{Space: q.Space, Local: strings.ToLower(q.Local)}]
	if !ok || spelled == q.Local {
		return ""
	}
	e.name.Local = spelled
	return fmt.Sprintf("publicObject/%s is read as %s (in %s)", q.Local, spelled, q.Space)
}

// modsOpenContent are the MODS elements whose content is open (of the
// schema's extensionDefinition): elements in no namespace inside them are
// another vocabulary's, not MODS written without its namespace.
var modsOpenContent = map[string]bool{"extension": true, "accessCondition": true, "holdingExternal": true, "cartographicExtension": true}

// adoptUnqualifiedMODS puts the elements of a MODS record written in no
// namespace (unprefixed, no default namespace in scope) inside a mods in
// the MODS namespace (<mods:mods xmlns:mods="…"><titleInfo>…) into the
// MODS namespace, by declaring it as the default namespace on the
// topmost of them: in MODS they can only be MODS. Left in none, every one
// was dropped and the record refused as empty. Elements inside open
// content (extension, accessCondition) are left as written. It returns
// a warning, "" when there is no such element.
func adoptUnqualifiedMODS(m *xnode, where string) string {
	if q := m.qname(); q.Space != NSMODS || !strings.EqualFold(q.Local, "mods") {
		return ""
	}
	adopted := 0
	var walk func(e *xnode)
	walk = func(e *xnode) {
		if e.qname().Space == NSMODS && modsOpenContent[e.name.Local] {
			return
		}
		for _, k := range e.elements() {
			if k.name.Space == "" && k.lookup("") == "" {
				k.setAttr(xml.Name{Local: "xmlns"}, NSMODS)
				adopted++
			}
			walk(k)
		}
	}
	walk(m)
	if adopted == 0 {
		return ""
	}
	return fmt.Sprintf("%s%s has %d child elements in no namespace: they and their unprefixed descendants are read in %s", where, m.name.Local, adopted, NSMODS)
}

// normalizeMODSNamespaces makes a standalone MODS document namespace-well-
// formed and in the MODS namespace (adoptNamespace, declarePrefixes). It
// returns data unchanged, with no warnings, when there is nothing to do.
func normalizeMODSNamespaces(data []byte) ([]byte, []string, error) {
	root, err := parseTree(data)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	if w := adoptNamespace(root, ""); w != "" {
		warnings = append(warnings, strings.TrimPrefix(w, "/"))
	}
	warnings = append(warnings, declarePrefixes(root, "mods")...)
	if w := adoptUnqualifiedMODS(root, ""); w != "" {
		warnings = append(warnings, w)
	}
	if records, ok := collectedMODS(root); ok {
		if len(records) != 1 {
			return nil, nil, fmt.Errorf("%w: the document is a modsCollection of %d mods records: a PURL describes one object, publish its one mods record", ErrUnacceptable, len(records))
		}
		m, w := unwrapMODSCollection(root, "")
		m.parent = nil
		root = m
		warnings = append(warnings, w)
	}
	// The root's name in another case (<MODS>, <mods:Mods> in the MODS
	// namespace) is mods: MODS has no other element of that name.
	if q := root.qname(); q.Space == NSMODS && q.Local != "mods" && strings.EqualFold(q.Local, "mods") {
		warnings = append(warnings, fmt.Sprintf("the root element %s is read as mods", q.Local))
		root.name.Local = "mods"
	}
	if len(warnings) == 0 {
		return data, nil, nil
	}
	return root.document(), warnings, nil
}

// unqualifiedTopLevel are the children of publicObject that are in no
// namespace, by their local name in lower case. The repository published
// some of them in a namespace of its own schemas (a rightsMetadata in
// xmlns="http://hydra-collab.stanford.edu/schemas/rightsMetadata/v1",
// which dor-services' publishing took as it came): the element is the
// same, and what it says (who may discover and read the object) must not
// be lost to its namespace.
var unqualifiedTopLevel = map[string]bool{
	"identitymetadata": true, "versionmetadata": true, "contentmetadata": true, "rightsmetadata": true,
}

// dropNamespace puts e, a child of publicObject written in a namespace
// but named as one of the seed's children in none (unqualifiedTopLevel),
// and every element and attribute of its tree in that namespace, into no
// namespace, removing the namespace's declarations there. It returns a
// warning, "" when e is not such an element.
func dropNamespace(e *xnode, where string) string {
	q := e.qname()
	if q.Space == "" || !unqualifiedTopLevel[strings.ToLower(q.Local)] {
		return ""
	}
	ns := q.Space
	// Resolve every name first: the declarations change below.
	var elems []*xnode
	type attrRef struct {
		n *xnode
		i int
	}
	var attrs []attrRef
	var walk func(n *xnode)
	walk = func(n *xnode) {
		if n.qname().Space == ns {
			elems = append(elems, n)
		}
		for i, a := range n.attrs {
			if !isNSDecl(a) && a.Name.Space != "" && n.lookup(a.Name.Space) == ns {
				attrs = append(attrs, attrRef{n, i})
			}
		}
		for _, k := range n.elements() {
			walk(k)
		}
	}
	walk(e)
	for _, n := range elems {
		n.name.Space = ""
	}
	for _, r := range attrs {
		r.n.attrs[r.i].Name.Space = ""
	}
	var strip func(n *xnode)
	strip = func(n *xnode) {
		kept := n.attrs[:0]
		for _, a := range n.attrs {
			if !(isNSDecl(a) && a.Value == ns) {
				kept = append(kept, a)
			}
		}
		n.attrs = kept
		for _, k := range n.elements() {
			strip(k)
		}
	}
	strip(e)
	if e.parent != nil && e.parent.lookup("") != "" {
		e.attrs = append([]xml.Attr{nsDecl("", "")}, e.attrs...)
	}
	return fmt.Sprintf("%s/%s is in the namespace %s: it is read as the seed's %s, in no namespace", where, q.Local, ns, q.Local)
}
