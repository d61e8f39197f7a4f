package soap

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
)

// node is one element of a parsed envelope. The codec needs a tree rather
// than a token stream because multiRef values (href="#id") may point to
// elements that come after the reference.
type node struct {
	name     xml.Name
	attrs    []xml.Attr
	children []*node
	text     string
	parent   *node
	// prefixes holds the namespace declarations of this element (nil when
	// it declares none), so that resolving a QName value costs one map
	// look-up per ancestor however many attributes the ancestors carry.
	prefixes map[string]string
}

// attr returns the value of the attribute space:local ("" space matches
// an unqualified attribute only).
func (n *node) attr(space, local string) (string, bool) {
	for _, a := range n.attrs {
		if a.Name.Local == local && a.Name.Space == space {
			return a.Value, true
		}
	}
	return "", false
}

// lookupPrefix resolves a namespace prefix in the scope of n, as needed for
// QName attribute values such as xsi:type="xsd:int".
func (n *node) lookupPrefix(prefix string) (string, bool) {
	for e := n; e != nil; e = e.parent {
		if ns, ok := e.prefixes[prefix]; ok {
			return ns, true
		}
	}
	if prefix == "xml" {
		return "http://www.w3.org/XML/1998/namespace", true
	}
	return "", prefix == ""
}

func (n *node) declare(prefix, ns string) {
	if n.prefixes == nil {
		n.prefixes = map[string]string{}
	}
	if _, dup := n.prefixes[prefix]; !dup { // the first declaration wins, as before
		n.prefixes[prefix] = ns
	}
}

// qnameAttr resolves a QName-valued attribute. ok is false when the
// attribute is absent. An unknown prefix keeps the prefix text as the
// namespace so that callers can still look at the local name.
func (n *node) qnameAttr(space, local string) (xml.Name, bool) {
	v, ok := n.attr(space, local)
	if !ok {
		return xml.Name{}, false
	}
	v = strings.TrimSpace(v)
	prefix, name, found := strings.Cut(v, ":")
	if !found {
		name, prefix = prefix, ""
	}
	ns, known := n.lookupPrefix(prefix)
	if !known {
		ns = prefix
	}
	return xml.Name{Space: ns, Local: name}, true
}

// elementChildren is n's child elements.
func (n *node) hasChildren() bool { return len(n.children) > 0 }

// Limits bound what a request may make the parser do.
type Limits struct {
	// MaxDepth is the deepest element nesting accepted.
	MaxDepth int
	// MaxElements is the most elements accepted in one envelope.
	MaxElements int
	// MaxTextBytes is the most text the decoded call may hold, counted as
	// href references are resolved: a value referenced n times counts n
	// times. Zero takes the handler's request size limit (a document
	// without references can carry no more), so a small request cannot
	// expand into megabytes of input before the operation's own limits
	// (nucleotides, samples) see it.
	MaxTextBytes int
}

// DefaultLimits are generous for real requests (a mutation list is four
// levels deep) and small enough to stop hostile ones early.
var defaultLimits = Limits{MaxDepth: 64, MaxElements: 200_000}

// errLimit marks a request rejected for its size or shape.
var errLimit = errors.New("request exceeds a limit")

// parseTree reads one XML document into a tree. DTDs are refused (no
// entity expansion of any kind); encoding/xml never fetches anything.
func parseTree(r io.Reader, lim Limits) (*node, error) {
	d := xml.NewDecoder(r)
	d.Strict = true
	d.CharsetReader = charsetReader
	var root, cur *node
	var text bytes.Buffer
	depth, count := 0, 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("malformed XML: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if root != nil && cur == nil {
				return nil, fmt.Errorf("malformed XML: more than one root element")
			}
			depth++
			count++
			if depth > lim.MaxDepth {
				return nil, fmt.Errorf("%w: elements nested deeper than %d", errLimit, lim.MaxDepth)
			}
			if count > lim.MaxElements {
				return nil, fmt.Errorf("%w: more than %d elements", errLimit, lim.MaxElements)
			}
			if cur != nil {
				cur.text = "" // mixed content: only leaf text counts
			}
			n := &node{name: t.Name, attrs: t.Attr, parent: cur}
			for _, a := range t.Attr {
				// encoding/xml reports xmlns="…" as {"" xmlns} and
				// xmlns:p="…" as {xmlns p}.
				switch {
				case a.Name.Space == "" && a.Name.Local == "xmlns":
					n.declare("", a.Value)
				case a.Name.Space == "xmlns":
					n.declare(a.Name.Local, a.Value)
				}
			}
			if cur == nil {
				root = n
			} else {
				cur.children = append(cur.children, n)
			}
			cur = n
			text.Reset()
		case xml.EndElement:
			if !cur.hasChildren() {
				cur.text = text.String()
			}
			text.Reset()
			cur = cur.parent
			depth--
		case xml.CharData:
			if cur != nil && !cur.hasChildren() {
				text.Write(t)
			}
		case xml.Directive:
			return nil, fmt.Errorf("malformed XML: document type declarations are not accepted")
		}
	}
	if root == nil {
		return nil, fmt.Errorf("malformed XML: no root element")
	}
	return root, nil
}

// charsetReader accepts the encodings SOAP 1.1 clients send: UTF-8 (any
// spelling) and US-ASCII, plus ISO-8859-1, which some old clients declare.
func charsetReader(label string, input io.Reader) (io.Reader, error) {
	switch strings.ToLower(strings.TrimSpace(label)) {
	case "utf-8", "utf8", "us-ascii", "ascii":
		return input, nil
	case "iso-8859-1", "latin1", "latin-1":
		return &latin1Reader{r: input}, nil
	}
	return nil, fmt.Errorf("unsupported character encoding %q", label)
}

// latin1Reader converts ISO-8859-1 bytes to UTF-8.
type latin1Reader struct {
	r   io.Reader
	buf []byte
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	if len(l.buf) == 0 {
		raw := make([]byte, (len(p)+1)/2)
		n, err := l.r.Read(raw)
		for _, b := range raw[:n] {
			if b < 0x80 {
				l.buf = append(l.buf, b)
			} else {
				l.buf = append(l.buf, 0xC0|b>>6, 0x80|b&0x3F)
			}
		}
		if n == 0 {
			return 0, err
		}
	}
	n := copy(p, l.buf)
	l.buf = l.buf[n:]
	return n, nil
}
