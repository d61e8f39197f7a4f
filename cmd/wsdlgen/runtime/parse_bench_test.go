package soap

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

// BenchmarkParseEnvelope is the tree parser alone on a one-list
// processMutationLists request, against encoding/xml's Token loop with
// nothing built (the floor any encoding/xml-based parser pays).
func BenchmarkParseEnvelope(b *testing.B) {
	env := `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:alg="http://algorithm.sitesvc.org"><soapenv:Body><alg:processMutationLists><key>0123456789abcdef0123456789abcdef</key><reportTypeInt>0</reportTypeInt><mutationsList><s><g/><g><m>M41L</m><m>M184V</m><m>T215Y</m></g><g/></s></mutationsList></alg:processMutationLists></soapenv:Body></soapenv:Envelope>`
	var tokenNs float64
	b.Run("xml.Token", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d := xml.NewDecoder(strings.NewReader(env))
			for {
				if _, err := d.Token(); err != nil {
					break
				}
			}
		}
		tokenNs = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	b.Run("tree", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parseTree(strings.NewReader(env), defaultLimits); err != nil {
				b.Fatal(err)
			}
		}
		if tokenNs > 0 {
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/tokenNs, "x-xml.Token")
		}
	})
}

// BenchmarkEscapeReport escapes a report-like text (XML, mostly ASCII),
// beside encoding/xml's EscapeText on the same text as the baseline.
func BenchmarkEscapeReport(b *testing.B) {
	report := strings.Repeat("<drug>\n  <code>ABC</code>\n  <genericName>abacavir</genericName>\n  <score>50</score>\n  <levelText>Intermediate Resistance</levelText>\n</drug>\n", 60)
	var buf bytes.Buffer
	b.Run("escapeText", func(b *testing.B) {
		b.SetBytes(int64(len(report)))
		for b.Loop() {
			buf.Reset()
			escapeText(&buf, report)
		}
	})
	b.Run("xml.EscapeText", func(b *testing.B) {
		b.SetBytes(int64(len(report)))
		for b.Loop() {
			buf.Reset()
			_ = xml.EscapeText(&buf, []byte(report))
		}
	})
}
