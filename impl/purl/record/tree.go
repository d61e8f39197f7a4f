package record

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// xnode is an element as written: names keep their prefixes (Name.Space
// is the prefix, not the namespace) and attributes include the xmlns
// declarations. Ingest rearranges records at this level because
// encoding/xml's encoder rewrites namespaces on output; keeping the
// prefixes as written lets a child be moved or re-serialised without
// changing what its names mean.
type xnode struct {
	name   xml.Name
	attrs  []xml.Attr
	kids   []any // *xnode, xml.CharData, xml.Comment or xml.ProcInst
	parent *xnode
	// line is where the start tag ends in the parsed document (0 for
	// elements made here): xmllint's complaints name lines.
	line int
}

// parseTree reads data (already checked well-formed by scanTop) into an
// element tree. Content outside the root element is dropped.
func parseTree(data []byte) (*xnode, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	var root, cur *xnode
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			line, _ := dec.InputPos()
			n := &xnode{name: t.Name, attrs: append([]xml.Attr(nil), t.Attr...), parent: cur, line: line}
			if cur == nil {
				if root != nil {
					return nil, fmt.Errorf("%w: more than one root element", ErrMalformed)
				}
				root = n
			} else {
				cur.kids = append(cur.kids, n)
			}
			cur = n
		case xml.EndElement:
			if cur == nil || t.Name != cur.name {
				return nil, fmt.Errorf("%w: unexpected end element %s", ErrMalformed, t.Name.Local)
			}
			cur = cur.parent
		case xml.CharData:
			if cur != nil {
				cur.kids = append(cur.kids, xml.CharData(bytes.Clone(t)))
			}
		case xml.Comment:
			if cur != nil {
				cur.kids = append(cur.kids, xml.Comment(bytes.Clone(t)))
			}
		case xml.ProcInst:
			if cur != nil {
				cur.kids = append(cur.kids, xml.ProcInst{Target: t.Target, Inst: bytes.Clone(t.Inst)})
			}
		case xml.Directive:
			return nil, fmt.Errorf("%w: DOCTYPE and other directives are not allowed", ErrUnacceptable)
		}
	}
	if root == nil {
		return nil, fmt.Errorf("%w: no root element", ErrMalformed)
	}
	return root, nil
}

// lookup resolves a prefix ("" for the default namespace) in n's scope.
func (n *xnode) lookup(prefix string) string {
	if prefix == "xml" {
		return "http://www.w3.org/XML/1998/namespace"
	}
	for e := n; e != nil; e = e.parent {
		for _, a := range e.attrs {
			if (prefix == "" && a.Name.Space == "" && a.Name.Local == "xmlns") ||
				(prefix != "" && a.Name.Space == "xmlns" && a.Name.Local == prefix) {
				return a.Value
			}
		}
	}
	return ""
}

// qname is n's name with its namespace resolved.
func (n *xnode) qname() xml.Name {
	return xml.Name{Space: n.lookup(n.name.Space), Local: n.name.Local}
}

// attr returns the value of the unprefixed attribute local.
func (n *xnode) attr(local string) (string, bool) {
	for _, a := range n.attrs {
		if a.Name.Space == "" && a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

// setAttr sets (or adds) the attribute name as written (prefix in Space).
func (n *xnode) setAttr(name xml.Name, value string) {
	for i, a := range n.attrs {
		if a.Name == name {
			n.attrs[i].Value = value
			return
		}
	}
	n.attrs = append(n.attrs, xml.Attr{Name: name, Value: value})
}

// elements returns n's child elements.
func (n *xnode) elements() []*xnode {
	var out []*xnode
	for _, k := range n.kids {
		if e, ok := k.(*xnode); ok {
			out = append(out, e)
		}
	}
	return out
}

// text is the concatenated character data of n's direct children.
func (n *xnode) text() string {
	var b strings.Builder
	for _, k := range n.kids {
		if t, ok := k.(xml.CharData); ok {
			b.Write(t)
		}
	}
	return strings.TrimSpace(b.String())
}

// isNSDecl reports whether a is a namespace declaration.
func isNSDecl(a xml.Attr) bool {
	return a.Name.Space == "xmlns" || (a.Name.Space == "" && a.Name.Local == "xmlns")
}

// standalone returns a copy of n detached from its parent that declares
// every namespace in scope at n itself, so that it means the same as a
// document of its own or as a child of another element.
func (n *xnode) standalone() *xnode {
	c := &xnode{name: n.name, attrs: append([]xml.Attr(nil), n.attrs...), kids: n.kids}
	declared := map[xml.Name]bool{}
	for _, a := range c.attrs {
		if isNSDecl(a) {
			declared[a.Name] = true
		}
	}
	for e := n.parent; e != nil; e = e.parent {
		for _, a := range e.attrs {
			if isNSDecl(a) && !declared[a.Name] {
				declared[a.Name] = true
				c.attrs = append(c.attrs, a)
			}
		}
	}
	for _, k := range c.kids {
		if e, ok := k.(*xnode); ok {
			e.parent = c
		}
	}
	return c
}

// element builds a new element with text content.
func element(prefix, local, text string, attrs ...xml.Attr) *xnode {
	n := &xnode{name: xml.Name{Space: prefix, Local: local}, attrs: attrs}
	if text != "" {
		n.kids = []any{xml.CharData(text)}
	}
	return n
}

// add appends child elements to n.
func (n *xnode) add(kids ...*xnode) *xnode {
	for _, k := range kids {
		k.parent = n
		n.kids = append(n.kids, k)
	}
	return n
}

func attr(local, value string) xml.Attr {
	return xml.Attr{Name: xml.Name{Local: local}, Value: value}
}

func nsDecl(prefix, uri string) xml.Attr {
	if prefix == "" {
		return xml.Attr{Name: xml.Name{Local: "xmlns"}, Value: uri}
	}
	return xml.Attr{Name: xml.Name{Space: "xmlns", Local: prefix}, Value: uri}
}

// write serialises n as written (prefixes and declarations unchanged).
func (n *xnode) write(b *bytes.Buffer) { n.writeTags(b, false) }

// writeTags is write; with tagLines, every start tag ends on a line of its
// own (a line break before its closing ">", where white space means
// nothing), so that each element is named by a line of its own.
func (n *xnode) writeTags(b *bytes.Buffer, tagLines bool) {
	b.WriteByte('<')
	writeName(b, n.name)
	for _, a := range n.attrs {
		b.WriteByte(' ')
		writeName(b, a.Name)
		b.WriteString(`="`)
		escapeAttr(b, a.Value)
		b.WriteByte('"')
	}
	if tagLines {
		b.WriteByte('\n')
	}
	if len(n.kids) == 0 {
		b.WriteString("/>")
		return
	}
	b.WriteByte('>')
	for _, k := range n.kids {
		switch t := k.(type) {
		case *xnode:
			t.writeTags(b, tagLines)
		case xml.CharData:
			escapeText(b, string(t))
		case xml.Comment:
			b.WriteString("<!--")
			b.Write(t)
			b.WriteString("-->")
		case xml.ProcInst:
			b.WriteString("<?" + t.Target + " ")
			b.Write(t.Inst)
			b.WriteString("?>")
		}
	}
	b.WriteString("</")
	writeName(b, n.name)
	b.WriteByte('>')
}

func writeName(b *bytes.Buffer, n xml.Name) {
	if n.Space != "" {
		b.WriteString(n.Space)
		b.WriteByte(':')
	}
	b.WriteString(n.Local)
}

// textEscapes are the characters escapeText writes as references: line
// breaks and tabs stay as they are (xml.EscapeText would write them as
// character references); a carriage return would be read as a line break.
var textEscapes = map[rune]string{'&': "&amp;", '<': "&lt;", '>': "&gt;", '\r': "&#xD;"}

// attrEscapes are those escapeAttr writes: also the quote and the white
// space an attribute value would otherwise have normalised to spaces.
var attrEscapes = map[rune]string{'&': "&amp;", '<': "&lt;", '"': "&quot;", '\n': "&#xA;", '\r': "&#xD;", '\t': "&#x9;"}

// escapeText escapes character data.
func escapeText(b *bytes.Buffer, s string) { escape(b, s, textEscapes) }

// escapeAttr escapes an attribute value written between double quotes.
func escapeAttr(b *bytes.Buffer, s string) { escape(b, s, attrEscapes) }

func escape(b *bytes.Buffer, s string, refs map[rune]string) {
	for _, c := range s {
		if ref, ok := refs[c]; ok {
			b.WriteString(ref)
		} else {
			b.WriteRune(c)
		}
	}
}

// document serialises n as a whole XML document.
func (n *xnode) document() []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	n.write(&b)
	b.WriteByte('\n')
	return b.Bytes()
}

// lineDocument is document with every start tag ending on a line of its
// own: the same document (white space inside a tag is not content), in
// which a line names one element. xmllint names the elements it
// complains of by the line their start tag ends on; in a record written
// on one line, every element had the same line, and a repair could fall
// on a valid element of the same name (the title of a titleInfo dropped
// for a title written outside one).
func (n *xnode) lineDocument() []byte {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	n.writeTags(&b, true)
	b.WriteByte('\n')
	return b.Bytes()
}
