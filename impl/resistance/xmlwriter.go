package resistance

import (
	"strings"
	"unicode/utf8"
)

// xmlWriter writes an indented XML document element by element. Reports are written with it
// rather than encoding/xml's reflection-driven Marshal, which cost several times the
// evaluation itself (see BenchmarkMutationLists).
type xmlWriter struct {
	b     strings.Builder
	depth int
}

func newXMLWriter(sizeHint int) *xmlWriter {
	w := &xmlWriter{}
	w.b.Grow(sizeHint)
	w.b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>`)
	return w
}

// newFragment starts a piece of a report at depth (no XML declaration), for reports
// written in parts (Batch).
func newFragment(depth, sizeHint int) *xmlWriter {
	w := &xmlWriter{depth: depth}
	w.b.Grow(sizeHint)
	return w
}

// newlineIndent is a newline and enough indentation for any report depth.
const newlineIndent = "\n                                "

func (w *xmlWriter) indent() {
	n := 1 + 2*w.depth
	if n > len(newlineIndent) {
		n = len(newlineIndent)
	}
	w.b.WriteString(newlineIndent[:n])
}

// open writes a start tag with attributes given as name, value pairs.
func (w *xmlWriter) open(name string, attrs ...string) {
	w.indent()
	w.tag(name, attrs)
	w.b.WriteByte('>')
	w.depth++
}

func (w *xmlWriter) tag(name string, attrs []string) {
	w.b.WriteByte('<')
	w.b.WriteString(name)
	for i := 0; i+1 < len(attrs); i += 2 {
		w.b.WriteByte(' ')
		w.b.WriteString(attrs[i])
		w.b.WriteString(`="`)
		escapeXML(&w.b, attrs[i+1])
		w.b.WriteByte('"')
	}
}

func (w *xmlWriter) close(name string) {
	w.depth--
	w.indent()
	w.b.WriteString("</")
	w.b.WriteString(name)
	w.b.WriteByte('>')
}

// elem writes <name attrs>text</name>.
func (w *xmlWriter) elem(name, text string, attrs ...string) {
	w.indent()
	w.tag(name, attrs)
	w.b.WriteByte('>')
	escapeXML(&w.b, text)
	w.b.WriteString("</")
	w.b.WriteString(name)
	w.b.WriteByte('>')
}

// opt writes elem only when text is not empty.
func (w *xmlWriter) opt(name, text string) {
	if text != "" {
		w.elem(name, text)
	}
}

func (w *xmlWriter) String() string {
	w.b.WriteByte('\n')
	return w.b.String()
}

// xmlEntity is what escapeXML writes for each ASCII character: "" for one XML carries as
// itself, an entity for markup and for the white space an attribute value would otherwise
// normalise, U+FFFD for the control characters XML 1.0 cannot carry.
var xmlEntity = func() (t [utf8.RuneSelf]string) {
	for c := range 0x20 {
		t[c] = "\uFFFD"
	}
	t['&'], t['<'], t['>'], t['"'], t['\''] = "&amp;", "&lt;", "&gt;", "&#34;", "&#39;"
	t['\t'], t['\n'], t['\r'] = "&#x9;", "&#xA;", "&#xD;"
	return t
}()

// escapeXML writes s as XML character data or attribute value: markup characters become
// entities, and what XML 1.0 cannot carry (control characters, invalid UTF-8, U+FFFE/U+FFFF)
// becomes U+FFFD, as encoding/xml does.
func escapeXML(b *strings.Builder, s string) {
	last := 0
	for i := 0; i < len(s); {
		var repl string
		size := 1
		if c := s[i]; c < utf8.RuneSelf {
			if repl = xmlEntity[c]; repl == "" {
				i++
				continue
			}
		} else {
			r, n := utf8.DecodeRuneInString(s[i:])
			if (r != utf8.RuneError || n > 1) && r != 0xFFFE && r != 0xFFFF {
				i += n
				continue
			}
			repl, size = "\uFFFD", n
		}
		b.WriteString(s[last:i])
		b.WriteString(repl)
		i += size
		last = i
	}
	b.WriteString(s[last:])
}
