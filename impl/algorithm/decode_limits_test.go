package algorithm

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// hrefSequences is a processSequences envelope whose sequence array holds refs href
// references to one multiRef sequence.
func hrefSequences(key string, refs int, seq string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:alg="http://algorithm.sitesvc.org" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema"><soapenv:Body>`)
	b.WriteString(`<alg:processSequences><key>` + key + `</key><reportTypeInt>3</reportTypeInt><sequence>`)
	for range refs {
		b.WriteString(`<item href="#s"/>`)
	}
	b.WriteString(`</sequence></alg:processSequences><multiRef id="s" xsi:type="xsd:string">` + seq + `</multiRef></soapenv:Body></soapenv:Envelope>`)
	return b.String()
}

// A 183 KB request whose 10,000 hrefs all point at one 13,000-nt sequence is refused while
// the references are resolved, before the sequences are copied out of the shared text: it
// used to allocate about 250 MB before the nucleotide limit refused it. The test measures
// the bytes allocated while the request is served (all of them, so the peak is below it).
// A few references to a real sequence are still served.
func TestHrefExpansionRefusedWhileDecoding(t *testing.T) {
	s := startService(t, nil)
	h := s.Handler()
	seq := strings.Repeat("ACGTTGCA", 13_000/8)
	body := hrefSequences(s.Key, 10_000, seq)
	if len(body) > 200_000 {
		t.Fatalf("the attack request is %d bytes, meant to be about 183 KB", len(body))
	}
	serve := func(body string) *httptest.ResponseRecorder {
		rr := httptest.NewRecorder()
		h.ServeHTTP(rr, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)))
		return rr
	}
	serve(body) // warm up: caches, pools
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rr := serve(body)
	runtime.ReadMemStats(&after)
	r := parseSOAP(t, rr.Body.String())
	if r.FaultCode != "soapenv:Client" || !strings.Contains(r.FaultString, "bytes of text") {
		t.Errorf("10,000 references to a 13,000-nt sequence: %d %+v", rr.Code, r)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("serving the request allocated %d MiB, over 32 MiB", alloc>>20)
	} else {
		t.Logf("allocated %.1f MiB for a %d KB request", float64(alloc)/(1<<20), len(body)/1000)
	}

	example := fasta.Parse(testkit.ExampleFASTA(t))[0]
	rr = serve(hrefSequences(s.Key, 3, string(example.Sequence)))
	if r := parseSOAP(t, rr.Body.String()); rr.Code != 200 || r.FaultCode != "" || !strings.Contains(r.Part, "\t") {
		t.Errorf("three references to the example sequence: %d %+v", rr.Code, clip(rr.Body.String()))
	}
}
