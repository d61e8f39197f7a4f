package soap

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"unicode/utf8"
)

const envelopeOpen = `<?xml version="1.0" encoding="UTF-8"?>` +
	`<soapenv:Envelope xmlns:soapenv="` + EnvelopeNamespace + `" xmlns:xsd="` + XSDNamespace +
	`" xmlns:xsi="` + XSINamespace + `" xmlns:soapenc="` + EncodingNamespace + `"><soapenv:Body>`

const envelopeClose = `</soapenv:Body></soapenv:Envelope>`

// Writer is what responses are encoded into: a bytes.Buffer, or a bufio.Writer on the
// connection when a large response is streamed (handler.go).
type Writer interface {
	io.Writer
	io.StringWriter
}

// EncodeResponse writes the rpc response of op: a wrapper element named
// <operation>Response in namespace ns holding one typed element per output
// part. results holds one value per output part, of the part's Go type.
func EncodeResponse(buf Writer, op *Operation, ns string, results []any) error {
	if len(results) != len(op.Output.Parts) {
		return fmt.Errorf("%s returned %d values for %d output parts", op.Name, len(results), len(op.Output.Parts))
	}
	buf.WriteString(envelopeOpen)
	buf.WriteString(`<ns1:`)
	buf.WriteString(op.Name)
	buf.WriteString(`Response soapenv:encodingStyle="` + EncodingNamespace + `" xmlns:ns1="`)
	escapeAttr(buf, ns)
	buf.WriteString(`">`)
	for i, p := range op.Output.Parts {
		if err := encodeValue(buf, p.Name, p.Type, reflect.ValueOf(results[i]), 0); err != nil {
			return fmt.Errorf("%s, part %s: %w", op.Name, p.Name, err)
		}
	}
	buf.WriteString(`</ns1:`)
	buf.WriteString(op.Name)
	buf.WriteString(`Response>`)
	buf.WriteString(envelopeClose)
	return nil
}

// EncodeFault writes a SOAP 1.1 fault envelope.
func EncodeFault(buf *bytes.Buffer, f *Fault) {
	buf.WriteString(envelopeOpen)
	buf.WriteString(`<soapenv:Fault><faultcode>soapenv:`)
	buf.WriteString(string(f.Code))
	buf.WriteString(`</faultcode><faultstring>`)
	escapeText(buf, f.String)
	buf.WriteString(`</faultstring>`)
	if f.Detail != "" {
		buf.WriteString(`<detail><message>`)
		escapeText(buf, f.Detail)
		buf.WriteString(`</message></detail>`)
	}
	buf.WriteString(`</soapenv:Fault>`)
	buf.WriteString(envelopeClose)
}

const maxEncodeDepth = 64

// encodeValue writes <name xsi:type=…>value</name> for a value of the
// declared type t (t == nil: the value's own type, as inside anyType).
func encodeValue(buf Writer, name string, t *Type, v reflect.Value, depth int) error {
	if depth > maxEncodeDepth {
		return fmt.Errorf("value nested deeper than %d", maxEncodeDepth)
	}
	for v.IsValid() && v.Kind() == reflect.Interface {
		if v.IsNil() {
			v = reflect.Value{}
			break
		}
		v = v.Elem()
	}
	if !v.IsValid() || (v.Kind() == reflect.Slice && v.IsNil() && t != nil && t.Elem != nil) {
		fmt.Fprintf(buf, `<%s xsi:nil="true"/>`, name)
		return nil
	}
	if t != nil && t.Name == "anyType" && t.Elem == nil {
		t = nil
	}
	switch v.Kind() {
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return fmt.Errorf("byte slices are not supported")
		}
		var elem *Type
		if t != nil {
			if t.Elem == nil {
				return fmt.Errorf("array value for scalar type %s", t)
			}
			elem = t.Elem
		}
		fmt.Fprintf(buf, `<%s xsi:type="soapenc:Array" soapenc:arrayType="%s[%d]">`, name, arrayItemType(elem), v.Len())
		for i := 0; i < v.Len(); i++ {
			if err := encodeValue(buf, "item", elem, v.Index(i), depth+1); err != nil {
				return fmt.Errorf("item %d: %w", i+1, err)
			}
		}
		fmt.Fprintf(buf, `</%s>`, name)
		return nil
	case reflect.String:
		return scalar(buf, name, "xsd:string", v.String(), t)
	case reflect.Bool:
		return scalar(buf, name, "xsd:boolean", strconv.FormatBool(v.Bool()), t)
	case reflect.Int32:
		return scalar(buf, name, "xsd:int", strconv.FormatInt(v.Int(), 10), t)
	case reflect.Int, reflect.Int64:
		return scalar(buf, name, "xsd:long", strconv.FormatInt(v.Int(), 10), t)
	case reflect.Float64, reflect.Float32:
		f := v.Float()
		s := strconv.FormatFloat(f, 'G', -1, 64)
		switch {
		case math.IsInf(f, 1):
			s = "INF"
		case math.IsInf(f, -1):
			s = "-INF"
		case math.IsNaN(f):
			s = "NaN"
		}
		return scalar(buf, name, "xsd:double", s, t)
	}
	return fmt.Errorf("cannot encode a %s", v.Type())
}

func scalar(buf Writer, name, xsdType, text string, t *Type) error {
	if t != nil && t.Elem != nil {
		return fmt.Errorf("scalar value for array type %s", t)
	}
	fmt.Fprintf(buf, `<%s xsi:type="%s">`, name, xsdType)
	escapeText(buf, text)
	fmt.Fprintf(buf, `</%s>`, name)
	return nil
}

// arrayItemType is the soapenc:arrayType item QName of an array: the
// declared item type when it is a built-in, soapenc:Array for nested
// arrays, xsd:anyType otherwise.
func arrayItemType(elem *Type) string {
	if elem == nil {
		return "xsd:anyType"
	}
	if elem.Elem != nil {
		return "soapenc:Array"
	}
	if elem.Namespace == XSDNamespace {
		return "xsd:" + elem.Name
	}
	return "xsd:anyType"
}

// escapeText escapes element text. Only what must be escaped is: reports
// are XML themselves and stay readable in a raw response that way. \r is
// escaped so that XML parsers' line-end normalisation keeps it; characters
// XML cannot carry become U+FFFD.
func escapeText(buf Writer, s string) {
	if g, ok := buf.(interface{ Grow(int) }); ok {
		g.Grow(len(s) + len(s)/8)
	}
	last := 0 // s[last:i] is pending plain text
	for i := 0; i < len(s); {
		c := s[i]
		if plainASCII[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			buf.WriteString(s[last:i])
			switch c {
			case '&':
				buf.WriteString("&amp;")
			case '<':
				buf.WriteString("&lt;")
			case '>':
				buf.WriteString("&gt;")
			case '\r':
				buf.WriteString("&#xD;")
			default: // control characters XML cannot carry
				buf.WriteString("\uFFFD")
			}
			i++
			last = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || !isXMLChar(r) {
			buf.WriteString(s[last:i])
			buf.WriteString("\uFFFD")
			i += size
			last = i
			continue
		}
		i += size
	}
	buf.WriteString(s[last:])
}

// plainASCII marks the bytes escapeText copies as they are.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	t['\t'], t['\n'] = true, true
	t['&'], t['<'], t['>'] = false, false, false
	return t
}()

func isXMLChar(r rune) bool {
	return r == 0x09 || r == 0x0A || r == 0x0D ||
		r >= 0x20 && r <= 0xD7FF ||
		r >= 0xE000 && r <= 0xFFFD ||
		r >= 0x10000 && r <= 0x10FFFF
}

func escapeAttr(buf Writer, s string) {
	_ = xml.EscapeText(buf, []byte(s))
}
