package resistance

import (
	"encoding/xml"
	"strings"
	"testing"
	"unicode/utf8"
)

// sanitized is what an XML parser must read back for s.
func sanitized(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r < 0x20 && r != '\t' && r != '\n' && r != '\r', r == 0xFFFE, r == 0xFFFF:
			b.WriteRune('\uFFFD')
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

func FuzzEscapeXML(f *testing.F) {
	for _, s := range []string{"plain", `<a href="x">&amp;</a>`, "tab\there\nnew\rline", "\x00\x01\xff\xfe", "\uFFFE\uFFFF", "≥2 TAMs", "'quote'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		w := newXMLWriter(0)
		w.open("root", "attr", s)
		w.elem("text", s)
		w.close("root")
		var doc struct {
			Attr string `xml:"attr,attr"`
			Text string `xml:"text"`
		}
		if err := xml.Unmarshal([]byte(w.String()), &doc); err != nil {
			t.Fatalf("%q: not well-formed: %v\n%s", s, err, w.String())
		}
		want := sanitized(s)
		if doc.Text != want || doc.Attr != want {
			t.Fatalf("%q read back as text %q attr %q, want %q", s, doc.Text, doc.Attr, want)
		}
	})
}
