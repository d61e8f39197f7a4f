package record

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/druid"
)

// How records are read is described in docs/purl.md ("Ingest: tolerant by
// principle, output exact"). In short: every well-formed record with an
// identifier is accepted and served in the seed's shape; what the service
// does not know is kept and reported; only what cannot be served safely or
// truthfully is refused. Top-level thumb and releaseData are mapped into
// contentMetadata and identityMetadata (where the seed's kinds 8 and 7
// live); an embedded MODS record is kept, as published, after the seed's
// six children, and unknown children after it.

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
	// extras are the children the service does not read (unknown ones,
	// second copies), kept after the seed's children.
	extras   []*xnode
	warnings []string
	// conflict says why the record names another object in one of its
	// parts ("" when it does not): such a record is refused.
	conflict string
}

// normalize reads a public XML record in any accepted form and rewrites
// it into the seed's shape. A record already in that shape is returned
// byte for byte. now is the publication time used when the record names
// none it can be read by.
//
// The principle (docs/purl.md, "Ingest"): every well-formed record with an
// identifier is accepted; what the service does not know is kept and
// reported, never a reason to refuse. It refuses only what cannot be served
// truthfully: not well-formed, a DTD, not a publicObject, no identifier, an
// identifier (or a child's objectId) naming another object.
func normalize(data []byte, now time.Time, fallbackID druid.Druid) (*normalized, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrUnacceptable}, args...)...)
	}
	if len(data) > MaxDocumentBytes {
		return nil, bad("document is %d bytes, more than %d", len(data), MaxDocumentBytes)
	}
	data, converted, err := utf8Document(data)
	if err != nil {
		return nil, err
	}
	rootName, _, err := scanTop(data)
	if err != nil {
		return nil, err
	}
	if rootName.Space != "" || !strings.EqualFold(rootName.Local, "publicObject") {
		return nil, bad("root element is %s, want publicObject (no namespace): this is not a public XML record", fmtName(rootName))
	}
	root, err := parseTree(data)
	if err != nil {
		return nil, err
	}
	n := &normalized{root: root, children: map[xml.Name]*xnode{}}
	warn := func(format string, args ...any) { n.warnings = append(n.warnings, fmt.Sprintf(format, args...)) }
	for _, w := range converted {
		warn("%s", w)
		n.changed = true
	}
	if root.name.Local != "publicObject" {
		warn("root element %s is read as publicObject", root.name.Local)
		root.name.Local = "publicObject"
		n.changed = true
	}
	// Namespaces first: a child written in none that can only be in one
	// (MODS), and prefixes used without a declaration, so that every
	// name below means what the record meant.
	for _, e := range root.elements() {
		if w := adoptNamespace(e, "publicObject"); w != "" {
			warn("%s", w)
			n.changed = true
		}
		if w := dropNamespace(e, "publicObject"); w != "" {
			warn("%s", w)
			n.changed = true
		}
		if w := respellNamespaced(e); w != "" {
			warn("%s", w)
			n.changed = true
		}
	}
	if ws := declarePrefixes(root, "the record"); len(ws) > 0 {
		n.warnings = append(n.warnings, ws...)
		n.changed = true
	}
	for _, e := range root.elements() {
		if w := adoptUnqualifiedMODS(e, "publicObject/"); w != "" {
			warn("%s", w)
			n.changed = true
		}
	}
	// An embedded modsCollection of one record is that record (one of
	// several records is not this object's alone: kept, not read).
	for i, k := range root.kids {
		if e, ok := k.(*xnode); ok {
			if m, w := unwrapMODSCollection(e, "publicObject/"); m != nil {
				m.parent = root
				root.kids[i] = m
				warn("%s", w)
				n.changed = true
			}
		}
	}
	var unknown unknownNames
	if canonicalize(root, "", &unknown) {
		n.changed = true
	}

	// The children, by kind; the first of each kind is read, anything
	// else is kept after them.
	var order []xml.Name
	var thumb, releaseData *xnode
	for _, k := range root.kids {
		switch t := k.(type) {
		case xml.CharData:
			if len(bytes.TrimSpace(t)) > 0 {
				warn("publicObject has text %q between its child elements: not kept", truncate(strings.TrimSpace(string(t)), 40))
				n.changed = true
			}
			continue
		case xml.Comment, xml.ProcInst:
			n.changed = true // comments between the children are not kept
			continue
		}
		e := k.(*xnode)
		q := e.qname()
		switch {
		case q == nameThumb && thumb == nil:
			thumb = e
			n.changed = true
			continue
		case q == nameReleaseData && releaseData == nil:
			releaseData = e
			n.changed = true
			continue
		case !knownTopLevel(q):
			// canonicalize reported it (no namespace); one in a namespace
			// of its own is reported here.
			if q.Space != "" {
				warn("publicObject/%s is not an element the service knows: kept as it is", fmtName(q))
			}
			n.extras = append(n.extras, e)
			n.changed = true
			continue
		case q == nameThumb || q == nameReleaseData:
			// Kept at the top level, it would be read as the first on the
			// next reading of the served record.
			warn("publicObject has more than one %s: the first is read, the others are not kept", q.Local)
			n.changed = true
			continue
		case n.children[q] != nil:
			warn("publicObject has more than one %s: the first is read, the others are kept after the record's children", q.Local)
			n.extras = append(n.extras, e)
			n.changed = true
			continue
		}
		n.children[q] = e
		order = append(order, q)
	}
	for i := 1; i < len(order); i++ {
		if indexName(seedChildren, order[i]) < indexName(seedChildren, order[i-1]) {
			n.changed = true
		}
	}
	identity := n.children[xml.Name{Local: "identityMetadata"}]
	content := n.children[xml.Name{Local: "contentMetadata"}]
	version := n.children[xml.Name{Local: "versionMetadata"}]
	rights := n.children[xml.Name{Local: "rightsMetadata"}]
	rdf := n.children[xml.Name{Space: NSRDF, Local: "RDF"}]

	// The identifier: @objectId (the seed) or @id (older records), else
	// the objectId its children give (records trimmed of their root's).
	id, err := n.identifier(identity, content, version, rights, rdf, fallbackID)
	if err != nil {
		return nil, err
	}

	published, ok := root.attr("published")
	if t, err := parseTimestamp(published); ok && err == nil {
		if s := t.Format(time.RFC3339); s != published {
			if _, strict := time.Parse(time.RFC3339, published); strict != nil {
				warn("publicObject/@published %q is read as %s", published, s)
				published = s
				n.changed = true
			}
		}
	} else {
		fallback, from := now.UTC().Truncate(time.Second), "the time of publication"
		if version != nil {
			for _, v := range version.elements() {
				if d, ok := v.attr("date"); ok && v.name.Local == "version" {
					if t, err := parseTimestamp(d); err == nil {
						fallback, from = t.UTC(), "the date of its last version"
					}
				}
			}
		}
		if ok {
			warn("publicObject/@published %q is not a date-time: %s is served (%s)", published, fallback.Format(time.RFC3339), from)
		} else {
			warn("publicObject has no @published: %s is served (%s)", fallback.Format(time.RFC3339), from)
		}
		published = fallback.Format(time.RFC3339)
		n.changed = true
	}
	// The served root carries the namespace declarations (children may
	// rely on them), objectId and published. Other attributes (such as a
	// publishVersion naming the software that wrote the record) describe
	// the producer, not the object; the seed's root has no others.
	attrs := []xml.Attr{}
	for _, a := range root.attrs {
		switch {
		case isNSDecl(a):
			attrs = append(attrs, a)
		case a.Name.Space == "" && (a.Name.Local == "objectId" || a.Name.Local == "published"):
		default:
			if a.Name.Local != "id" && a.Name.Local != "publishVersion" {
				warn("publicObject/@%s is not served: the seed's publicObject has only objectId and published", fmtAttrName(a.Name))
			}
			n.changed = true
		}
	}
	attrs = append(attrs, attr("objectId", id.Qualified()), attr("published", published))

	if identity == nil {
		identity = element("", "identityMetadata", "").add(element("", "objectType", "item"))
		n.children[xml.Name{Local: "identityMetadata"}] = identity
		n.changed = true
		warn("the record has no identityMetadata: it is served as an item with no label or source")
	} else if n.respellIdentityObjectID(identity, id) {
		n.changed = true
	}
	if version == nil {
		n.changed = true
		n.children[xml.Name{Local: "versionMetadata"}] = element("", "versionMetadata", "", attr("objectId", id.Qualified())).add(
			element("", "version", "", attr("versionId", "1"), attr("date", published)).add(
				element("", "description", "Published "+published)))
		warn("the record has no versionMetadata: it is served with version 1 dated %s, the publication date", published)
	} else if n.respellID(version, id, "versionMetadata") {
		n.changed = true
	}
	if rdf == nil {
		n.changed = true
		n.children[xml.Name{Space: NSRDF, Local: "RDF"}] = element("rdf", "RDF", "", nsDecl("rdf", NSRDF), nsDecl("fedora", NSFedora)).add(
			element("rdf", "Description", "", xml.Attr{Name: xml.Name{Space: "rdf", Local: "about"}, Value: "info:fedora/" + id.Qualified()}))
	}
	if content == nil {
		content = element("", "contentMetadata", "", attr("objectId", id.Qualified()))
		n.children[xml.Name{Local: "contentMetadata"}] = content
		n.changed = true
		warn("the record has no contentMetadata: it is served with an empty one (no files)")
	} else if n.respellID(content, id, "contentMetadata") {
		n.changed = true
	}
	if n.conflict != "" {
		return nil, bad("%s", n.conflict)
	}
	if rights == nil {
		rights = element("", "rightsMetadata", "")
		n.children[xml.Name{Local: "rightsMetadata"}] = rights
		n.changed = true
		warn("the record has no rightsMetadata: it is served with an empty one (discoverable, files readable by nobody)")
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
				continue // reported by canonicalize; the release targets are all the service reads
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
	for i, e := range n.extras {
		n.extras[i] = e.standalone()
	}
	// A file whose name would leave the object's folder cannot be served
	// truthfully from it.
	if _, _, err := checkFiles(content, nil); err != nil {
		return nil, err
	}
	n.warnings = append(n.warnings, unknown.warnings()...)

	n.attrs = attrs
	if !n.changed {
		n.data = data
		return n, nil
	}
	n.assemble()
	return n, nil
}

// identifier finds the object's druid: publicObject/@objectId, else @id,
// else the objectId one of its children gives. Two that name different
// objects are refused.
func (n *normalized) identifier(identity, content, version, rights, rdf *xnode, fallback druid.Druid) (druid.Druid, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrUnacceptable}, args...)...)
	}
	objectID, hasObjectID := n.root.attr("objectId")
	altID, hasID := n.root.attr("id")
	switch {
	case hasObjectID && hasID && !sameDruid(objectID, altID):
		return "", bad("publicObject/@objectId %q and publicObject/@id %q name different objects", objectID, altID)
	case hasObjectID:
		id, err := druid.Parse(strings.TrimSpace(objectID))
		if err != nil {
			return n.notADruid("@objectId", objectID, fallback)
		}
		if objectID != id.Qualified() {
			n.changed = true
		}
		return id, nil
	case hasID:
		id, err := druid.Parse(strings.TrimSpace(altID))
		if err != nil {
			return n.notADruid("@id", altID, fallback)
		}
		n.changed = true
		return id, nil
	}
	// Records trimmed of their root's identifier still name the object
	// in their parts.
	var candidates []struct{ where, value string }
	if identity != nil {
		for _, e := range identity.elements() {
			if e.name.Local == "objectId" {
				candidates = append(candidates, struct{ where, value string }{"identityMetadata/objectId", e.text()})
			}
		}
	}
	for _, c := range []struct {
		e    *xnode
		name string
	}{{content, "contentMetadata"}, {version, "versionMetadata"}, {rights, "rightsMetadata"}} {
		if c.e == nil {
			continue
		}
		if v, ok := c.e.attr("objectId"); ok {
			candidates = append(candidates, struct{ where, value string }{c.name + "/@objectId", v})
		}
	}
	if rdf != nil {
		for _, d := range rdf.elements() {
			for _, a := range d.attrs {
				if a.Name.Local == "about" && d.lookup(a.Name.Space) == NSRDF {
					candidates = append(candidates, struct{ where, value string }{"rdf:Description/@rdf:about", strings.TrimPrefix(a.Value, "info:fedora/")})
				}
			}
		}
	}
	var found druid.Druid
	var from string
	for _, c := range candidates {
		id, err := druid.Parse(strings.TrimSpace(c.value))
		if err != nil {
			continue
		}
		if found == "" {
			found, from = id, c.where
		} else if id != found && !strings.HasPrefix(c.where, "rdf:") {
			return "", bad("publicObject has neither @objectId nor @id, and %s (%s) and %s (%s) name different objects", from, found.Qualified(), c.where, id.Qualified())
		}
	}
	if found == "" && fallback != "" {
		n.changed = true
		n.warnings = append(n.warnings, fmt.Sprintf("the record names no identifier (neither @objectId nor @id, nor one in its parts): it is published as %s, where it was published", fallback.Qualified()))
		return fallback, nil
	}
	if found == "" {
		return "", bad("publicObject has no identifier: neither @objectId nor @id, and none of its parts names the object")
	}
	n.changed = true
	n.warnings = append(n.warnings, fmt.Sprintf("publicObject has neither @objectId nor @id: the identifier is %s, from %s", found.Qualified(), from))
	return found, nil
}

// notADruid handles a root identifier (attr, its value) that is not a
// druid. Specifications and fixtures name objects with placeholders such as
// druid:oo000oo0000; such a value names no object, so it cannot describe
// another one: where the record is published under a druid (the PUT path,
// the object folder's name), it is served as that druid, with a warning.
// With nowhere to publish it, it is refused.
func (n *normalized) notADruid(attr, value string, fallback druid.Druid) (druid.Druid, error) {
	if fallback == "" {
		return "", fmt.Errorf("%w: publicObject/%s %q is not a druid (druid:<id>)", ErrUnacceptable, attr, value)
	}
	n.changed = true
	n.warnings = append(n.warnings, fmt.Sprintf("publicObject/%s %q is not a druid: the record is published as %s, where it was published", attr, value, fallback.Qualified()))
	return fallback, nil
}

// respellID writes e's objectId attribute as druid:<id> when it names the
// object in another spelling (or is not a druid at all, with a warning);
// one naming another object is noted in n.conflict, which the caller
// refuses. It returns whether e changed.
func (n *normalized) respellID(e *xnode, id druid.Druid, where string) bool {
	oid, ok := e.attr("objectId")
	if !ok || oid == id.Qualified() {
		return false
	}
	if other, err := druid.Parse(strings.TrimSpace(oid)); err == nil && other != id {
		n.conflict = fmt.Sprintf("%s/@objectId %q names another object than %s", where, oid, id.Qualified())
		return false
	}
	if !sameDruid(oid, id.Qualified()) {
		n.warnings = append(n.warnings, fmt.Sprintf("%s/@objectId %q is not a druid: served as %s", where, oid, id.Qualified()))
	}
	e.setAttr(xml.Name{Local: "objectId"}, id.Qualified())
	return true
}

// respellIdentityObjectID is respellID for identityMetadata/objectId,
// which names the object in its text: written as druid:<id> when it names
// the object in another spelling, and when it is not a druid at all (a
// placeholder such as druid:oo000oo0000, which a specification published
// beside its real @id), with a warning; one naming another druid is noted
// in n.conflict. Left as it was, the served record would name two objects.
// It returns whether identity changed.
func (n *normalized) respellIdentityObjectID(identity *xnode, id druid.Druid) bool {
	changed := false
	for _, e := range identity.elements() {
		if e.name.Local != "objectId" || e.name.Space != "" {
			continue
		}
		v := e.text()
		if v == id.Qualified() {
			continue
		}
		if other, err := druid.Parse(v); err == nil && other != id {
			n.conflict = fmt.Sprintf("identityMetadata/objectId %q names another object than %s", v, id.Qualified())
			continue
		} else if err != nil {
			n.warnings = append(n.warnings, fmt.Sprintf("identityMetadata/objectId %q is not a druid: served as %s", v, id.Qualified()))
		}
		e.kids = []any{xml.CharData(id.Qualified())}
		changed = true
	}
	return changed
}

// timestampLayouts are the date-time forms records have carried
// (RFC 3339 first; the others without a zone are read as UTC).
var timestampLayouts = []string{
	time.RFC3339, "2006-01-02T15:04:05Z0700", "2006-01-02 15:04:05 -0700", "2006-01-02 15:04:05 MST",
	"2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02",
}

func parseTimestamp(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, l := range timestampLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date-time", s)
}

func fmtAttrName(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

// assemble writes the served record: the root's attributes, then the
// children in the seed's order.
func (n *normalized) assemble() { n.data = n.document(true) }

// readable is the served record without the children kept but not read
// (the reader merges repeated elements, so a second contentMetadata kept
// after the seed's children must not be seen by it).
func (n *normalized) readable() []byte {
	if len(n.extras) == 0 {
		return n.data
	}
	return n.document(false)
}

func (n *normalized) document(extras bool) []byte {
	out := &xnode{name: xml.Name{Local: "publicObject"}, attrs: n.attrs}
	for _, q := range seedChildren {
		if c := n.children[q]; c != nil {
			out.kids = append(out.kids, xml.CharData("\n  "))
			out.add(c)
		}
	}
	if extras {
		for _, e := range n.extras {
			out.kids = append(out.kids, xml.CharData("\n  "))
			out.add(e)
		}
	}
	out.kids = append(out.kids, xml.CharData("\n"))
	return out.document()
}

// IngestOptions says what Ingest checks a record against.
type IngestOptions struct {
	// Schema checks the embedded MODS record (nil: its structure only).
	Schema *MODSSchema
	// Now is the time of publication, served when the record names none
	// (zero: time.Now()).
	Now time.Time
	// ID, when set, is the object the record is published as (the PUT
	// path's druid, the object folder's name when it is a druid): the
	// identifier of a record that names none. A record that names another
	// is refused by the caller.
	ID druid.Druid
	// Files, when set, returns the size of the object's file of that name,
	// or why it cannot be published (not there, not a regular file): every
	// file the record names must be there, and the size served is the
	// file's own.
	Files func(name string) (size int64, err error)
}

// Ingest reads a public XML record in any accepted form (docs/purl.md)
// and returns it in the served form; see IngestWith.
func Ingest(ctx context.Context, data []byte, schema *MODSSchema) (*Ingested, error) {
	return IngestWith(ctx, data, IngestOptions{Schema: schema})
}

// IngestWith reads a public XML record in any accepted form (docs/purl.md)
// and returns it in the served form: the seed's shape, with an embedded
// MODS record kept as published (the service serves it as MODS 3.6 at
// /{id}.mods: PrepareMODS, which must succeed here). Warnings say what the
// publisher should know (unknown names kept, a fallback title, a
// synthesised versionMetadata, MODS values dropped for 3.6). Errors wrap
// ErrMalformed, ErrUnacceptable or ErrSchemaCheck.
func IngestWith(ctx context.Context, data []byte, opt IngestOptions) (*Ingested, error) {
	now := opt.Now
	if now.IsZero() {
		now = time.Now()
	}
	n, err := normalize(data, now, opt.ID)
	if err != nil {
		return nil, err
	}
	warnings := n.warnings
	{
		changed, fw, err := checkFiles(n.children[xml.Name{Local: "contentMetadata"}], opt.Files)
		if err != nil {
			return nil, err
		}
		warnings = append(warnings, fw...)
		if changed {
			n.assemble()
		}
	}
	if n.mods != nil {
		doc := n.mods.document()
		_, mw, err := PrepareMODS(ctx, doc, opt.Schema)
		if err != nil {
			return nil, fmt.Errorf("publicObject/mods: %w", err)
		}
		for _, w := range mw {
			warnings = append(warnings, "publicObject/mods: "+w)
		}
	}
	rec, err := Parse(n.data)
	if err != nil {
		return nil, err
	}
	// This Parse read the served form, so its warnings are only about
	// what that holds (values the service does not know, the title); the
	// input's are already in.
	seen := map[string]bool{}
	for _, w := range warnings {
		seen[w] = true
	}
	for _, w := range rec.Warnings {
		if !seen[w] {
			seen[w] = true
			warnings = append(warnings, w)
		}
	}
	rec.Warnings = warnings
	return &Ingested{Data: n.data, Record: rec, Warnings: warnings}, nil
}

// checkFiles checks that every file contentMetadata names can be in the
// object's folder and, with files, is there (files(name)); it sets each
// file's size to the size it has there, with a warning when the record
// said another.
func checkFiles(content *xnode, files func(string) (int64, error)) (bool, []string, error) {
	if content == nil {
		return false, nil, nil
	}
	changed := false
	var warnings []string
	for _, res := range content.elements() {
		if res.name.Local != "resource" {
			continue
		}
		for _, f := range res.elements() {
			if f.name.Local != "file" {
				continue
			}
			name, _ := f.attr("id")
			if err := CheckFilePath(name); err != nil {
				if strings.TrimSpace(name) == "" || hiddenFileName(name) {
					// A file with no name, or a hidden file (.DS_Store),
					// is not served (Parse says so): the record stays
					// true without it.
					continue
				}
				return false, nil, fmt.Errorf("%w: contentMetadata names a file that cannot be in the object folder: %v", ErrUnacceptable, err)
			}
			publish, _ := f.attr("publish")
			shelve, _ := f.attr("shelve")
			if files == nil || notShelved(publish, shelve) {
				continue // not in the stacks: not served, so not required
			}
			size, err := files(name)
			if err != nil {
				return false, nil, fmt.Errorf("%w: file %q, named by contentMetadata, is not in the object: %v", ErrUnacceptable, name, err)
			}
			want := strconv.FormatInt(size, 10)
			if given, _ := f.attr("size"); given != want {
				warnings = append(warnings, fmt.Sprintf("contentMetadata/resource/file %q: @size %q is not the file's size: %s is served", name, given, want))
				f.setAttr(xml.Name{Local: "size"}, want)
				changed = true
			}
		}
	}
	return changed, warnings, nil
}

// hiddenFileName reports whether name is refused by CheckFilePath only
// because an element of it starts with a dot (.DS_Store, a/.thumbs/b.png):
// a hidden file, which the store reserves for itself, but which names no
// other folder than the object's ("." and ".." are not hidden files).
func hiddenFileName(name string) bool {
	elems := strings.Split(name, "/")
	hidden := false
	for i, e := range elems {
		if strings.HasPrefix(e, ".") && e != "." && e != ".." {
			elems[i], hidden = "_"+e[1:], true
		}
	}
	return hidden && CheckFilePath(strings.Join(elems, "/")) == nil
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
