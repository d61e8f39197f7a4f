package record

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/ianaindex"
	"golang.org/x/text/encoding/unicode"
)

// A record is well-formed XML in any encoding XML allows, with or without
// a byte order mark; the service reads and serves UTF-8 (encoding/xml reads
// nothing else). utf8Document converts a document to UTF-8 before it is
// read, so that a record saved with a byte order mark, or in ISO-8859-1,
// windows-1252 or UTF-16, is read as what it says.

var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16BE = []byte{0xFE, 0xFF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	// xmlDeclEncoding finds the encoding pseudo-attribute of an XML
	// declaration at the start of a document: an encoding name (XML's
	// EncName, with spaces around it tolerated) in quotes, inside the
	// declaration. A quote left open is no encoding: the declaration ends
	// at its "?>" (a fuzzed `<?xml encoding="?><mods …` was read as the
	// encoding "?><mods xmlns=" and refused, where the XML reader finds no
	// encoding there). White space before the declaration (a record written
	// by a template with a blank first line: not XML, strictly, but read by
	// Go's reader like the rest of such a record) is allowed.
	xmlDeclEncoding = regexp.MustCompile(`^\s*<\?xml\s[^>]*?encoding\s*=\s*(?:"(\s*[A-Za-z][A-Za-z0-9._-]*\s*)"|'(\s*[A-Za-z][A-Za-z0-9._-]*\s*)')`)
)

// utf8Names are the encoding labels that need no conversion: UTF-8, and
// ASCII, a subset of it.
var utf8Names = map[string]bool{"utf-8": true, "utf8": true, "us-ascii": true, "ascii": true, "ansi_x3.4-1968": true}

// utf8Document returns data as UTF-8 XML 1.0, with its XML declaration
// (if any) naming UTF-8, and warnings saying what was converted (none
// when data was UTF-8 XML 1.0 already and is returned unchanged). A byte
// order mark is dropped; UTF-16 (with a byte order mark) and a declared
// encoding the IANA registry or the WHATWG Encoding Standard names are
// decoded; a declaration of XML 1.1 is read as 1.0 (xml11). An encoding
// the service cannot decode is refused (ErrMalformed), saying which.
func utf8Document(data []byte) ([]byte, []string, error) {
	data, converted, err := utf8Encoded(data)
	if err != nil {
		return nil, nil, err
	}
	var warnings []string
	if converted != "" {
		warnings = append(warnings, converted)
	}
	if out, ok := xml11(data); ok {
		data = out
		warnings = append(warnings, "the document declares XML 1.1: it is read and served as XML 1.0 (a character 1.0 does not allow is refused as malformed)")
	}
	return data, warnings, nil
}

// xmlDeclVersion11 finds version="1.1" in an XML declaration at the start
// of a document (after white space, as xmlDeclEncoding).
var xmlDeclVersion11 = regexp.MustCompile(`^\s*<\?xml\s+version\s*=\s*(?:"1\.1"|'1\.1')`)

// xml11 returns data declaring XML 1.0 when it declares XML 1.1 (false
// otherwise). XML 1.1 differs from 1.0 in the characters it allows (and
// in line ends); a record is well-formed XML in either, and Go's reader
// reads only 1.0: read as 1.0, a 1.1 record that uses only what 1.0
// allows (all real ones: 1.1 is declared by tools' settings, not for its
// characters) means what it says.
func xml11(data []byte) ([]byte, bool) {
	m := xmlDeclVersion11.FindIndex(data)
	if m == nil {
		return data, false
	}
	i := bytes.Index(data[:m[1]], []byte("1.1"))
	out := append([]byte{}, data[:i]...)
	out = append(out, "1.0"...)
	return append(out, data[i+3:]...), true
}

// encodingByLabel is the encoding a declaration names: by the IANA
// registry's names and aliases, else by the labels of the WHATWG Encoding
// Standard (those browsers accept: iso8859-1, cp1252, x-sjis…), which
// tools write too.
func encodingByLabel(label string) (encoding.Encoding, error) {
	enc, err := ianaindex.IANA.Encoding(label)
	if err == nil && enc != nil {
		return enc, nil
	}
	// The standard's "replacement" encoding (its labels iso-2022-kr,
	// hz-gb-2312…) reads every document as one U+FFFD: not a reading.
	if enc, werr := htmlindex.Get(label); werr == nil && enc != nil && enc != encoding.Replacement {
		return enc, nil
	}
	if err == nil {
		err = fmt.Errorf("no decoder for %q", label)
	}
	return nil, err
}

// utf8Encoded returns data as UTF-8, with its XML declaration (if any)
// naming UTF-8, and a warning saying what was converted ("" when data was
// UTF-8 already and is returned unchanged).
func utf8Encoded(data []byte) ([]byte, string, error) {
	var from string
	switch {
	case bytes.HasPrefix(data, bomUTF8):
		data, from = data[len(bomUTF8):], "UTF-8 with a byte order mark"
	case bytes.HasPrefix(data, bomUTF16BE), bytes.HasPrefix(data, bomUTF16LE):
		dec := unicode.UTF16(unicode.BigEndian, unicode.ExpectBOM).NewDecoder()
		out, err := dec.Bytes(data)
		if err != nil {
			return nil, "", fmt.Errorf("%w: the document is not UTF-16 as its byte order mark says: %v", ErrMalformed, err)
		}
		data, from = out, "UTF-16"
	case len(data) >= 2 && (data[0] == 0 && data[1] == '<' || data[0] == '<' && data[1] == 0):
		// UTF-16 without a byte order mark, known by its first character
		// "<" (XML 1.0, appendix F): XML asks for the mark, tools have
		// not always written it.
		order, name := unicode.BigEndian, "UTF-16BE without a byte order mark"
		if data[0] == '<' {
			order, name = unicode.LittleEndian, "UTF-16LE without a byte order mark"
		}
		out, err := unicode.UTF16(order, unicode.IgnoreBOM).NewDecoder().Bytes(data)
		if err != nil {
			return nil, "", fmt.Errorf("%w: the document is not %s: %v", ErrMalformed, name, err)
		}
		data, from = out, name
	}
	if m := xmlDeclEncoding.FindSubmatchIndex(data); m != nil {
		start, end := m[2], m[3]
		if start < 0 {
			start, end = m[4], m[5]
		}
		label := string(data[start:end])
		if from == "" && !utf8Names[strings.ToLower(strings.TrimSpace(label))] {
			enc, err := encodingByLabel(strings.TrimSpace(label))
			if err != nil || enc == nil {
				return nil, "", fmt.Errorf("%w: the document's encoding %q is not one the service can read (UTF-8, UTF-16, ISO-8859-n, windows-125n and the other IANA character sets)", ErrMalformed, label)
			}
			out, err := decodeAll(enc, data)
			if err != nil {
				return nil, "", fmt.Errorf("%w: the document is not %s as it declares: %v", ErrMalformed, label, err)
			}
			// The declaration is ASCII in every such encoding: it is at
			// the same place in the decoded document.
			data, from = out, label
		}
		if !strings.EqualFold(label, "UTF-8") {
			fixed := make([]byte, 0, len(data))
			fixed = append(fixed, data[:start]...)
			fixed = append(fixed, "UTF-8"...)
			data = append(fixed, data[end:]...)
			if from == "" {
				from = label
			}
		}
	}
	if from == "" {
		return data, "", nil
	}
	return data, fmt.Sprintf("the document is encoded as %s: it is read and served as UTF-8", from), nil
}

func decodeAll(enc encoding.Encoding, data []byte) ([]byte, error) {
	return enc.NewDecoder().Bytes(data)
}
