package record

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/druid"
)

// The accepted input forms and how each is read are listed in
// docs/purl.md ("Accepted input forms"). In short: the record is read in
// any child order, with the identifier in @objectId or @id, with or
// without versionMetadata and rdf:RDF, with top-level thumb and
// releaseData (mapped into contentMetadata and identityMetadata, where
// the seed's kinds 8 and 7 live) and an embedded MODS record (kept as a
// seventh child after the seed's six); it is served in the seed's shape.

// Ingested is a public XML record read in any accepted form, with the
// bytes to store and serve (the seed's shape) and what the publisher
// should be told.
type Ingested struct {
	Data     []byte
	Record   *Record
	Warnings []string
}

// seedChildren names the kinds of top-level children by position in the
// served record. The embedded MODS record, when there is one, follows them.
var seedChildren = []xml.Name{
	{Local: "identityMetadata"},
	{Local: "versionMetadata"},
	{Space: NSRDF, Local: "RDF"},
	{Local: "contentMetadata"},
	{Local: "rightsMetadata"},
	{Space: NSOAIDC, Local: "dc"},
	{Space: NSMODS, Local: "mods"},
}

var (
	nameThumb       = xml.Name{Local: "thumb"}
	nameReleaseData = xml.Name{Local: "releaseData"}
)

// normalized is the result of normalize: the record in the seed's shape.
type normalized struct {
	data     []byte
	changed  bool // data differs from the input
	mods     *xnode
	root     *xnode
	attrs    []xml.Attr // of the served root
	children map[xml.Name]*xnode
	warnings []string
}

// normalize reads a public XML record in any accepted form and rewrites
// it into the seed's shape. A record already in that shape is returned
// byte for byte.
func normalize(data []byte) (*normalized, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrUnacceptable}, args...)...)
	}
	if len(data) > MaxDocumentBytes {
		return nil, bad("document is %d bytes, more than %d", len(data), MaxDocumentBytes)
	}
	rootName, _, err := scanTop(data)
	if err != nil {
		return nil, err
	}
	if rootName != (xml.Name{Local: "publicObject"}) {
		return nil, bad("root element is %s, want publicObject (no namespace)", fmtName(rootName))
	}
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	n := &normalized{root: root, children: map[xml.Name]*xnode{}}
	warn := func(format string, args ...any) { n.warnings = append(n.warnings, fmt.Sprintf(format, args...)) }

	// The identifier: @objectId (the seed) or @id (older records).
	objectID, hasObjectID := root.attr("objectId")
	altID, hasID := root.attr("id")
	rawID := objectID
	switch {
	case hasObjectID && hasID && !sameDruid(objectID, altID):
		return nil, bad("publicObject/@objectId %q and publicObject/@id %q name different objects", objectID, altID)
	case !hasObjectID && hasID:
		rawID = altID
		n.changed = true
	case !hasObjectID:
		return nil, bad("publicObject has neither @objectId nor @id")
	}
	id, err := druid.Parse(strings.TrimSpace(rawID))
	if err != nil {
		attrName := "objectId"
		if !hasObjectID {
			attrName = "id"
		}
		return nil, bad("publicObject/@%s %q is not a druid (druid:<id>)", attrName, rawID)
	}
	if rawID != id.Qualified() {
		n.changed = true
	}
	published, ok := root.attr("published")
	if !ok {
		return nil, bad("publicObject has no @published")
	}
	if _, err := time.Parse(time.RFC3339, published); err != nil {
		return nil, bad("publicObject/@published %q is not an RFC 3339 date-time", published)
	}
	// The served root carries the namespace declarations (children may
	// rely on them), objectId and published. Other attributes (such as a
	// publishVersion naming the software that wrote the record) describe
	// the producer, not the object, and are dropped.
	attrs := []xml.Attr{}
	for _, a := range root.attrs {
		switch {
		case isNSDecl(a):
			attrs = append(attrs, a)
		case a.Name.Space == "" && (a.Name.Local == "objectId" || a.Name.Local == "published"):
		default:
			n.changed = true
		}
	}
	attrs = append(attrs, attr("objectId", id.Qualified()), attr("published", published))

	// The children, by kind.
	var order []xml.Name
	var thumb, releaseData *xnode
	for _, k := range root.kids {
		switch t := k.(type) {
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				return nil, bad("publicObject has text %q between its child elements", truncate(strings.TrimSpace(string(t)), 40))
			}
			continue
		case xml.Comment, xml.ProcInst:
			n.changed = true // comments between the children are not kept
			continue
		}
		e := k.(*xnode)
		q := e.qname()
		switch {
		case q == nameThumb || q == nameReleaseData:
			if (q == nameThumb && thumb != nil) || (q == nameReleaseData && releaseData != nil) {
				return nil, bad("publicObject has more than one %s", q.Local)
			}
			if q == nameThumb {
				thumb = e
			} else {
				releaseData = e
			}
			n.changed = true
			continue
		case !containsName(seedChildren, q):
			return nil, bad("publicObject has an unknown child element %s (accepted: %s, thumb, releaseData)", fmtName(q), fmtNames(seedChildren))
		case n.children[q] != nil:
			return nil, bad("publicObject has more than one %s", fmtName(q))
		}
		n.children[q] = e
		order = append(order, q)
	}
	for i := 1; i < len(order); i++ {
		if indexName(seedChildren, order[i]) < indexName(seedChildren, order[i-1]) {
			n.changed = true
		}
	}
	for _, q := range []xml.Name{{Local: "identityMetadata"}, {Local: "contentMetadata"}, {Local: "rightsMetadata"}} {
		if n.children[q] == nil {
			return nil, bad("publicObject has no %s", q.Local)
		}
	}
	identity := n.children[xml.Name{Local: "identityMetadata"}]
	content := n.children[xml.Name{Local: "contentMetadata"}]

	if v := n.children[xml.Name{Local: "versionMetadata"}]; v == nil {
		n.changed = true
		n.children[xml.Name{Local: "versionMetadata"}] = element("", "versionMetadata", "", attr("objectId", id.Qualified())).add(
			element("", "version", "", attr("versionId", "1"), attr("date", published)).add(
				element("", "description", "Published "+published)))
		warn("the record has no versionMetadata: it is served with version 1 dated %s, the publication date", published)
	} else if oid, ok := v.attr("objectId"); ok && oid != id.Qualified() {
		if !sameDruid(oid, id.Qualified()) {
			return nil, bad("versionMetadata/@objectId %q differs from %q", oid, id.Qualified())
		}
		v.setAttr(xml.Name{Local: "objectId"}, id.Qualified())
		n.changed = true
	}
	if n.children[xml.Name{Space: NSRDF, Local: "RDF"}] == nil {
		n.changed = true
		n.children[xml.Name{Space: NSRDF, Local: "RDF"}] = element("rdf", "RDF", "", nsDecl("rdf", NSRDF), nsDecl("fedora", NSFedora)).add(
			element("rdf", "Description", "", xml.Attr{Name: xml.Name{Space: "rdf", Local: "about"}, Value: "info:fedora/" + id.Qualified()}))
	}
	if oid, ok := content.attr("objectId"); ok && oid != id.Qualified() {
		if !sameDruid(oid, id.Qualified()) {
			return nil, bad("contentMetadata/@objectId %q differs from %q", oid, id.Qualified())
		}
		content.setAttr(xml.Name{Local: "objectId"}, id.Qualified())
		n.changed = true
	}
	if n.children[xml.Name{Space: NSOAIDC, Local: "dc"}] == nil {
		n.changed = true
		n.children[xml.Name{Space: NSOAIDC, Local: "dc"}] = element("oai_dc", "dc", "", nsDecl("oai_dc", NSOAIDC), nsDecl("dc", NSDC))
		warn("the record has no oai_dc:dc: an empty one is served")
	}

	// A top-level thumb (older records: "<druid>/<file>") is the seed's
	// contentMetadata/thumb (kind 8).
	if thumb != nil {
		name := thumb.text()
		if dir, file, ok := strings.Cut(name, "/"); ok && sameDruid(dir, id.Qualified()) {
			name = file
		}
		var inner *xnode
		for _, e := range content.elements() {
			if e.qname() == nameThumb {
				inner = e
			}
		}
		switch {
		case inner == nil:
			t := element("", "thumb", name)
			t.parent = content
			content.kids = append([]any{xml.CharData("\n    "), t}, content.kids...)
		case inner.text() != name:
			warn("publicObject/thumb %q differs from contentMetadata/thumb %q: the latter is kept", thumb.text(), inner.text())
		}
	}
	// releaseData/release elements are the seed's identityMetadata/release (kind 7).
	if releaseData != nil {
		have := map[string]string{}
		for _, e := range identity.elements() {
			if e.qname().Local == "release" {
				to, _ := e.attr("to")
				have[to] = e.text()
			}
		}
		for _, e := range releaseData.elements() {
			if e.qname() != (xml.Name{Local: "release"}) {
				return nil, bad("releaseData has an unknown child element %s (want release)", fmtName(e.qname()))
			}
			to, _ := e.attr("to")
			if v, dup := have[to]; dup {
				if v != e.text() {
					warn("releaseData/release to %q (%s) differs from identityMetadata/release (%s): the latter is kept", to, e.text(), v)
				}
				continue
			}
			have[to] = e.text()
			rel := element("", "release", e.text())
			for _, a := range e.attrs {
				if !isNSDecl(a) {
					rel.attrs = append(rel.attrs, a)
				}
			}
			identity.kids = append(identity.kids, xml.CharData("  "))
			identity.add(rel)
			identity.kids = append(identity.kids, xml.CharData("\n  "))
		}
	}
	if m := n.children[xml.Name{Space: NSMODS, Local: "mods"}]; m != nil {
		n.mods = m.standalone()
		n.children[xml.Name{Space: NSMODS, Local: "mods"}] = n.mods
	}

	n.attrs = attrs
	if !n.changed {
		n.data = data
		return n, nil
	}
	n.assemble()
	return n, nil
}

// assemble writes the served record: the root's attributes, then the
// children in the seed's order.
func (n *normalized) assemble() {
	out := &xnode{name: xml.Name{Local: "publicObject"}, attrs: n.attrs}
	for _, q := range seedChildren {
		if c := n.children[q]; c != nil {
			out.kids = append(out.kids, xml.CharData("\n  "))
			out.add(c)
		}
	}
	out.kids = append(out.kids, xml.CharData("\n"))
	n.data = out.document()
}

// setMODS replaces the embedded MODS record by doc (a MODS document).
func (n *normalized) setMODS(doc []byte) error {
	m, err := parseTree(doc)
	if err != nil {
		return err
	}
	n.mods = m
	n.children[xml.Name{Space: NSMODS, Local: "mods"}] = m
	n.assemble()
	return nil
}

// Ingest reads a public XML record in any accepted form (docs/purl.md)
// and returns it in the served form: the seed's shape, with an embedded
// MODS record brought to MODS 3.6 when it is valid as such (PrepareMODS,
// checked with schema when not nil). Warnings say what the publisher
// should know (a fallback title, a synthesised versionMetadata, a MODS
// record served as its own version). Errors wrap ErrMalformed,
// ErrUnacceptable or ErrSchemaCheck.
func Ingest(ctx context.Context, data []byte, schema *MODSSchema) (*Ingested, error) {
	n, err := normalize(data)
	if err != nil {
		return nil, err
	}
	warnings := n.warnings
	if n.mods != nil {
		doc := n.mods.document()
		prepared, mw, err := PrepareMODS(ctx, doc, schema)
		if err != nil {
			return nil, fmt.Errorf("publicObject/mods: %w", err)
		}
		for _, w := range mw {
			warnings = append(warnings, "publicObject/mods: "+w)
		}
		if !bytes.Equal(prepared, doc) {
			if err := n.setMODS(prepared); err != nil {
				return nil, err
			}
		}
	}
	rec, err := Parse(n.data)
	if err != nil {
		return nil, err
	}
	// This Parse read the served form, so its warnings are only about
	// what that lacks (the title); the input's are already in.
	warnings = append(warnings, rec.Warnings...)
	rec.Warnings = warnings
	return &Ingested{Data: n.data, Record: rec, Warnings: warnings}, nil
}

func sameDruid(a, b string) bool {
	x, err1 := druid.Parse(strings.TrimSpace(a))
	y, err2 := druid.Parse(strings.TrimSpace(b))
	return err1 == nil && err2 == nil && x == y
}

func containsName(names []xml.Name, n xml.Name) bool { return indexName(names, n) >= 0 }

func indexName(names []xml.Name, n xml.Name) int {
	for i, m := range names {
		if m == n {
			return i
		}
	}
	return -1
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
