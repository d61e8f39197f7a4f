package main_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/sitelib/sitesvc/gen/soap"
	"github.com/sitelib/sitesvc/gen/soapapi"
)

const (
	reqNS  = "http://algorithm.sitesvc.org"
	respNS = "http://example.test/soap/SiteAlgorithm"
)

// recorder implements soapapi.SiteAlgorithm, remembering the last call.
type recorder struct {
	mu     sync.Mutex
	method string
	req    any
	err    error
	panics bool
}

func (r *recorder) record(method string, req any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.method, r.req = method, req
	if r.panics {
		panic("boom")
	}
	return r.err
}

func (r *recorder) ProcessSequences(_ context.Context, in *soapapi.ProcessSequencesRequest) (*soapapi.ProcessSequencesResponse, error) {
	return &soapapi.ProcessSequencesResponse{ProcessSequencesReturn: "r1"}, r.record("ProcessSequences", in)
}
func (r *recorder) ProcessSequences1(_ context.Context, in *soapapi.ProcessSequencesRequest1) (*soapapi.ProcessSequencesResponse1, error) {
	return &soapapi.ProcessSequencesResponse1{ProcessSequencesReturn: "r2"}, r.record("ProcessSequences1", in)
}
func (r *recorder) ProcessSequences2(_ context.Context, in *soapapi.ProcessSequencesRequest2) (*soapapi.ProcessSequencesResponse2, error) {
	return &soapapi.ProcessSequencesResponse2{ProcessSequencesReturn: []any{"a", "b&<c>", int32(7), nil, []any{"x"}}}, r.record("ProcessSequences2", in)
}
func (r *recorder) ProcessSequence(_ context.Context, in *soapapi.ProcessSequenceRequest) (*soapapi.ProcessSequenceResponse, error) {
	return &soapapi.ProcessSequenceResponse{ProcessSequenceReturn: "r4"}, r.record("ProcessSequence", in)
}
func (r *recorder) ProcessSequencesInFasta(_ context.Context, in *soapapi.ProcessSequencesInFastaRequest) (*soapapi.ProcessSequencesInFastaResponse, error) {
	return &soapapi.ProcessSequencesInFastaResponse{ProcessSequencesInFastaReturn: "r5"}, r.record("ProcessSequencesInFasta", in)
}
func (r *recorder) ProcessSequencesString(_ context.Context, in *soapapi.ProcessSequencesStringRequest) (*soapapi.ProcessSequencesStringResponse, error) {
	return &soapapi.ProcessSequencesStringResponse{ProcessSequencesStringReturn: "r6"}, r.record("ProcessSequencesString", in)
}
func (r *recorder) GetScoringMatrix(_ context.Context, in *soapapi.GetScoringMatrixRequest) (*soapapi.GetScoringMatrixResponse, error) {
	return &soapapi.GetScoringMatrixResponse{GetScoringMatrixReturn: "matrix\tline\n"}, r.record("GetScoringMatrix", in)
}
func (r *recorder) ProcessMutationLists(_ context.Context, in *soapapi.ProcessMutationListsRequest) (*soapapi.ProcessMutationListsResponse, error) {
	return &soapapi.ProcessMutationListsResponse{ProcessMutationListsReturn: "report"}, r.record("ProcessMutationLists", in)
}

func newHandler(t testing.TB, rec *recorder, maxBytes int64) *soap.Handler {
	t.Helper()
	h, err := soap.NewHandler(soap.HandlerConfig{
		Operations:        soapapi.Operations(rec),
		RequestNamespace:  reqNS,
		ResponseNamespace: respNS,
		MaxRequestBytes:   maxBytes,
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func post(t testing.TB, h http.Handler, body string) (int, string) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "text/xml; charset=utf-8")
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, req)
	if ct := rr.Header().Get("Content-Type"); ct != "text/xml; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	return rr.Code, rr.Body.String()
}

const envOpen = `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="http://algorithm.sitesvc.org"><soapenv:Body>`
const envClose = `</soapenv:Body></soapenv:Envelope>`

func TestDecodeShapes(t *testing.T) {
	cases := []struct {
		name   string
		body   string
		method string
		want   any
	}{
		{
			name:   "axis multiRef nested arrays",
			method: "ProcessMutationLists",
			body: envOpen + `<ns1:processMutationLists soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">
<key xsi:type="xsd:string">k1</key><reportTypeInt href="#id0"/><mutationsList href="#id1"/></ns1:processMutationLists>
<multiRef id="id0" soapenc:root="0" xsi:type="xsd:int">2</multiRef>
<multiRef id="id1" soapenc:root="0" xsi:type="soapenc:Array" soapenc:arrayType="ns1:ArrayOf_xsd_string[][1]"><item href="#id2"/></multiRef>
<multiRef id="id2" soapenc:root="0" xsi:type="soapenc:Array" soapenc:arrayType="xsd:string[][3]"><item xsi:nil="true"/><item href="#id3"/><item xsi:type="soapenc:Array" soapenc:arrayType="xsd:string[0]"/></multiRef>
<multiRef id="id3" soapenc:root="0" xsi:type="soapenc:Array" soapenc:arrayType="xsd:string[2]"><item>M41L</item><item xsi:type="soapenc:string">M184V</item></multiRef>` + envClose,
			want: &soapapi.ProcessMutationListsRequest{Key: "k1", ReportTypeInt: 2, MutationsList: [][][]string{{nil, {"M41L", "M184V"}, {}}}},
		},
		{
			name:   "php positional params for overload 2",
			method: "ProcessSequences1",
			body: `<?xml version="1.0" encoding="UTF-8"?>
<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/" xmlns:ns1="http://algorithm.sitesvc.org" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:SOAP-ENC="http://schemas.xmlsoap.org/soap/encoding/" SOAP-ENV:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><SOAP-ENV:Body><ns1:processSequences><key xsi:type="xsd:string">k</key><reportTypeInt xsi:type="xsd:int">1</reportTypeInt><sequence xsi:type="xsd:int">2</sequence><param3 xsi:type="xsd:string"></param3><param4 xsi:type="xsd:string">opts</param4><param5 xsi:type="xsd:string">m</param5><param6 xsi:type="xsd:string">r</param6><param7 xsi:type="xsd:string">d</param7><param8 SOAP-ENC:arrayType="SOAP-ENC:Array[1]" xsi:type="SOAP-ENC:Array"><item SOAP-ENC:arrayType="SOAP-ENC:Array[1]" xsi:type="SOAP-ENC:Array"><item SOAP-ENC:arrayType="xsd:string[1]" xsi:type="SOAP-ENC:Array"><item xsi:type="xsd:string">M41L</item></item></item></param8></ns1:processSequences></SOAP-ENV:Body></SOAP-ENV:Envelope>`,
			want: &soapapi.ProcessSequencesRequest1{Key: "k", InAlgorithmInterface: 1, Algorithm: 2, ReportOptions: "opts", MethodName: "m", ReportName: "r", ReportDate: "d", InputData: []any{[]any{[]any{"M41L"}}}},
		},
		{
			name:   "perl default namespace, overload 3 by names in any order, no xsi:type",
			method: "ProcessSequences2",
			body:   envOpen + `<processSequences xmlns="http://algorithm.sitesvc.org"><inputData><s><g>M41L</g><g xsi:type="xsd:int">41</g></s></inputData><key>k</key><inAlgorithmInterface> 3 </inAlgorithmInterface><algorithm xsi:type="soapenc:int">0</algorithm><userSubmittedAlgorithm xsi:nil="1"/><methodName/><reportName>n</reportName><reportDate>2026-01-01</reportDate></processSequences>` + envClose,
			want:   &soapapi.ProcessSequencesRequest2{Key: "k", InAlgorithmInterface: 3, Algorithm: 0, ReportName: "n", ReportDate: "2026-01-01", InputData: []any{[]any{"M41L", int64(41)}}},
		},
		{
			name:   "overload 1 by names",
			method: "ProcessSequences",
			body:   envOpen + `<ns1:processSequences><key>k</key><reportTypeInt>0</reportTypeInt><sequence><seq>ACGT</seq><seq>GG&amp;</seq></sequence></ns1:processSequences>` + envClose,
			want:   &soapapi.ProcessSequencesRequest{Key: "k", Sequence: []string{"ACGT", "GG&"}},
		},
		{
			name:   "unqualified operation element, header without mustUnderstand",
			method: "GetScoringMatrix",
			body: `<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Header><x:h xmlns:x="urn:x">1</x:h></e:Header><e:Body><getScoringMatrix><key>` +
				"k\u00e9y" + `</key></getScoringMatrix></e:Body></e:Envelope>`,
			want: &soapapi.GetScoringMatrixRequest{Key: "k\u00e9y"},
		},
		{
			name:   "processSequence",
			method: "ProcessSequence",
			body:   envOpen + `<ns1:processSequence><key>k</key><sequence>AC GT</sequence></ns1:processSequence>` + envClose,
			want:   &soapapi.ProcessSequenceRequest{Key: "k", Sequence: "AC GT"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := &recorder{}
			code, body := post(t, newHandler(t, rec, 0), c.body)
			if code != 200 {
				t.Fatalf("status %d: %s", code, body)
			}
			if rec.method != c.method {
				t.Fatalf("called %s, want %s", rec.method, c.method)
			}
			if !reflect.DeepEqual(rec.req, c.want) {
				t.Errorf("request\n got %#v\nwant %#v", rec.req, c.want)
			}
		})
	}
}

// response is the generic shape of a response envelope.
type response struct {
	Body struct {
		Inner struct {
			XMLName xml.Name
			Parts   []struct {
				XMLName xml.Name
				Attrs   []xml.Attr `xml:",any,attr"`
				Text    string     `xml:",chardata"`
				Items   []struct {
					Attrs []xml.Attr `xml:",any,attr"`
					Text  string     `xml:",chardata"`
					Items []struct {
						Text string `xml:",chardata"`
					} `xml:"item"`
				} `xml:"item"`
			} `xml:",any"`
			FaultCode   string `xml:"faultcode"`
			FaultString string `xml:"faultstring"`
		} `xml:",any"`
	} `xml:"http://schemas.xmlsoap.org/soap/envelope/ Body"`
}

func parseResponse(t *testing.T, body string) response {
	t.Helper()
	var r response
	if err := xml.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("response is not XML: %v\n%s", err, body)
	}
	return r
}

func attr(attrs []xml.Attr, local string) string {
	for _, a := range attrs {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

func TestEncodeResponses(t *testing.T) {
	h := newHandler(t, &recorder{}, 0)
	code, body := post(t, h, envOpen+`<ns1:getScoringMatrix><key>k</key></ns1:getScoringMatrix>`+envClose)
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	r := parseResponse(t, body)
	if r.Body.Inner.XMLName != (xml.Name{Space: respNS, Local: "getScoringMatrixResponse"}) {
		t.Errorf("wrapper %v", r.Body.Inner.XMLName)
	}
	p := r.Body.Inner.Parts[0]
	if p.XMLName.Local != "getScoringMatrixReturn" || attr(p.Attrs, "type") != "xsd:string" || p.Text != "matrix\tline\n" {
		t.Errorf("part %+v", p)
	}

	code, body = post(t, h, envOpen+`<ns1:processSequences><key>k</key><inAlgorithmInterface>0</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><methodName/><reportName/><reportDate/><inputData/></ns1:processSequences>`+envClose)
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	r = parseResponse(t, body)
	if r.Body.Inner.XMLName.Local != "processSequencesResponse" {
		t.Errorf("wrapper %v", r.Body.Inner.XMLName)
	}
	p = r.Body.Inner.Parts[0]
	if attr(p.Attrs, "type") != "soapenc:Array" || attr(p.Attrs, "arrayType") != "xsd:anyType[5]" || len(p.Items) != 5 {
		t.Fatalf("array part %+v\n%s", p, body)
	}
	if p.Items[0].Text != "a" || p.Items[1].Text != "b&<c>" || attr(p.Items[2].Attrs, "type") != "xsd:int" || p.Items[2].Text != "7" ||
		attr(p.Items[3].Attrs, "nil") != "true" || len(p.Items[4].Items) != 1 || p.Items[4].Items[0].Text != "x" {
		t.Errorf("items %+v", p.Items)
	}
}

func TestFaults(t *testing.T) {
	big := strings.Repeat("A", 2048)
	cases := []struct {
		name, body, code, contains string
		rec                        *recorder
	}{
		{name: "not XML", body: "hello", code: "Client", contains: "malformed XML"},
		{name: "truncated", body: envOpen + `<ns1:getScoringMatrix><key>k</key>`, code: "Client", contains: "malformed XML"},
		{name: "not an envelope", body: `<a/>`, code: "Client", contains: "not a SOAP Envelope"},
		{name: "soap 1.2", body: `<e:Envelope xmlns:e="http://www.w3.org/2003/05/soap-envelope"><e:Body/></e:Envelope>`, code: "VersionMismatch"},
		{name: "no body", body: `<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"/>`, code: "Client", contains: "no Body"},
		{name: "empty body", body: envOpen + envClose, code: "Client", contains: "empty Body"},
		{name: "dtd", body: `<!DOCTYPE x [<!ENTITY a "aaaa">]>` + envOpen + envClose, code: "Client", contains: "document type"},
		{name: "mustUnderstand", body: `<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Header><h e:mustUnderstand="1"/></e:Header><e:Body/></e:Envelope>`, code: "MustUnderstand"},
		{name: "unknown operation", body: envOpen + `<ns1:deleteEverything><key>k</key></ns1:deleteEverything>` + envClose, code: "Client", contains: `unknown operation "deleteEverything"`},
		{name: "wrong namespace", body: envOpen + `<x:getScoringMatrix xmlns:x="urn:other"><key>k</key></x:getScoringMatrix>` + envClose, code: "Client", contains: "unknown operation {urn:other}"},
		{name: "no matching overload", body: envOpen + `<ns1:processSequences><key>k</key></ns1:processSequences>` + envClose, code: "Client", contains: "no overload of processSequences takes the parts (key)"},
		{name: "int part not a number", body: envOpen + `<ns1:processMutationLists><key>k</key><reportTypeInt>two</reportTypeInt><mutationsList/></ns1:processMutationLists>` + envClose, code: "Client", contains: `part reportTypeInt: "two" is not an xsd:int`},
		{name: "text for array", body: envOpen + `<ns1:processMutationLists><key>k</key><reportTypeInt>0</reportTypeInt><mutationsList>M41L</mutationsList></ns1:processMutationLists>` + envClose, code: "Client", contains: "expected an array"},
		{name: "array for string", body: envOpen + `<ns1:getScoringMatrix><key><item>k</item></key></ns1:getScoringMatrix>` + envClose, code: "Client", contains: "got a structured value"},
		{name: "array too shallow", body: envOpen + `<ns1:processMutationLists><key>k</key><reportTypeInt>0</reportTypeInt><mutationsList><s>M41L</s></mutationsList></ns1:processMutationLists>` + envClose, code: "Client", contains: "item 1"},
		{name: "href to nowhere", body: envOpen + `<ns1:getScoringMatrix><key href="#nope"/></ns1:getScoringMatrix>` + envClose, code: "Client", contains: "refers to no element"},
		{name: "href cycle", body: envOpen + `<ns1:getScoringMatrix><key href="#a"/></ns1:getScoringMatrix><multiRef id="a" href="#b"/><multiRef id="b" href="#a"/>` + envClose, code: "Client", contains: "cycle"},
		{name: "external href", body: envOpen + `<ns1:getScoringMatrix><key href="http://example.com/x"/></ns1:getScoringMatrix>` + envClose, code: "Client", contains: "not a reference inside"},
		{name: "oversize", body: envOpen + `<ns1:getScoringMatrix><key>` + big + `</key></ns1:getScoringMatrix>` + envClose, code: "Client", contains: "request larger than 1024 bytes"},
		{name: "implementation fault", body: envOpen + `<ns1:getScoringMatrix><key>k</key></ns1:getScoringMatrix>` + envClose, code: "Client", contains: "bad report type", rec: &recorder{err: soap.ClientFault("bad report type")}},
		{name: "implementation error", body: envOpen + `<ns1:getScoringMatrix><key>k</key></ns1:getScoringMatrix>` + envClose, code: "Server", contains: "internal error", rec: &recorder{err: errors.New("disk on fire")}},
		{name: "panic", body: envOpen + `<ns1:getScoringMatrix><key>k</key></ns1:getScoringMatrix>` + envClose, code: "Server", contains: "internal error", rec: &recorder{panics: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := c.rec
			if rec == nil {
				rec = &recorder{}
			}
			code, body := post(t, newHandler(t, rec, 1024), c.body)
			if code != http.StatusInternalServerError {
				t.Errorf("status %d", code)
			}
			r := parseResponse(t, body)
			if r.Body.Inner.XMLName != (xml.Name{Space: soap.EnvelopeNamespace, Local: "Fault"}) {
				t.Fatalf("not a fault: %s", body)
			}
			if r.Body.Inner.FaultCode != "soapenv:"+c.code {
				t.Errorf("faultcode %q, want %s (%s)", r.Body.Inner.FaultCode, c.code, r.Body.Inner.FaultString)
			}
			if !strings.Contains(r.Body.Inner.FaultString, c.contains) {
				t.Errorf("faultstring %q does not contain %q", r.Body.Inner.FaultString, c.contains)
			}
			if strings.Contains(r.Body.Inner.FaultString, "disk on fire") {
				t.Errorf("internal error text leaked: %q", r.Body.Inner.FaultString)
			}
			if c.rec == nil && rec.method != "" {
				t.Errorf("a bad request reached %s", rec.method)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	deep := strings.Repeat("<a>", 100) + strings.Repeat("</a>", 100)
	_, body := post(t, newHandler(t, &recorder{}, 0), envOpen+`<ns1:processSequences><key>k</key><inAlgorithmInterface>0</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><methodName/><reportName/><reportDate/><inputData>`+deep+`</inputData></ns1:processSequences>`+envClose)
	if !strings.Contains(body, "nested deeper than 64") {
		t.Errorf("deep nesting: %s", body)
	}
	h, err := soap.NewHandler(soap.HandlerConfig{Operations: soapapi.Operations(&recorder{}), RequestNamespace: reqNS, ResponseNamespace: respNS, Limits: soap.Limits{MaxElements: 10}})
	if err != nil {
		t.Fatal(err)
	}
	_, body = post(t, h, envOpen+`<ns1:processSequences><key>k</key><reportTypeInt>0</reportTypeInt><sequence>`+strings.Repeat("<i>A</i>", 20)+`</sequence></ns1:processSequences>`+envClose)
	if !strings.Contains(body, "more than 10 elements") {
		t.Errorf("element count: %s", body)
	}

	// 3 levels of 50 references each: 125,000 strings from a document of
	// about 150 elements.
	var amp strings.Builder
	amp.WriteString(envOpen + `<ns1:processMutationLists><key>k</key><reportTypeInt>0</reportTypeInt><mutationsList href="#l1"/></ns1:processMutationLists>`)
	for level, ref := range []string{"l2", "l3", ""} {
		fmt.Fprintf(&amp, `<multiRef id="l%d">`, level+1)
		for i := 0; i < 50; i++ {
			if ref == "" {
				amp.WriteString(`<i>M41L</i>`)
			} else {
				fmt.Fprintf(&amp, `<i href="#%s"/>`, ref)
			}
		}
		amp.WriteString(`</multiRef>`)
	}
	amp.WriteString(envClose)
	h, err = soap.NewHandler(soap.HandlerConfig{Operations: soapapi.Operations(&recorder{}), RequestNamespace: reqNS, ResponseNamespace: respNS, Limits: soap.Limits{MaxElements: 10_000}})
	if err != nil {
		t.Fatal(err)
	}
	code, body := post(t, h, amp.String())
	if code != 500 || !strings.Contains(body, "expands (through href references) to too many elements") {
		t.Errorf("href amplification: %d %.300s", code, body)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	rr := httptest.NewRecorder()
	newHandler(t, &recorder{}, 0).ServeHTTP(rr, httptest.NewRequest(http.MethodPut, "/", nil))
	if rr.Code != http.StatusMethodNotAllowed || rr.Header().Get("Allow") != "POST" {
		t.Errorf("%d %v", rr.Code, rr.Header())
	}
}

func TestLatin1(t *testing.T) {
	rec := &recorder{}
	body := []byte(`<?xml version="1.0" encoding="ISO-8859-1"?>` + strings.TrimPrefix(envOpen, `<?xml version="1.0" encoding="UTF-8"?>`) + `<ns1:getScoringMatrix><key>k` + "\xe9" + `</key></ns1:getScoringMatrix>` + envClose)
	code, out := post(t, newHandler(t, rec, 0), string(body))
	if code != 200 {
		t.Fatalf("%d %s", code, out)
	}
	if got := rec.req.(*soapapi.GetScoringMatrixRequest).Key; got != "k\u00e9" {
		t.Errorf("key %q", got)
	}
}

func TestNewHandlerChecksTable(t *testing.T) {
	ops := soapapi.Operations(&recorder{})
	ops[0].Input.Parts[0].Type = &soap.Type{Namespace: soap.XSDNamespace, Name: "dateTime"}
	if _, err := soap.NewHandler(soap.HandlerConfig{Operations: ops, RequestNamespace: reqNS, ResponseNamespace: respNS}); err == nil {
		t.Error("unsupported type accepted")
	}
	if _, err := soap.NewHandler(soap.HandlerConfig{Operations: soapapi.Operations(&recorder{}), ResponseNamespace: respNS}); err == nil {
		t.Error("missing request namespace accepted")
	}
}

// FuzzDecode feeds arbitrary envelopes to the decoder: it must never panic,
// every error must be a Fault, and a decoded call must carry one argument of
// the declared Go type per input part.
func FuzzDecode(f *testing.F) {
	seeds := []string{
		envOpen + `<ns1:getScoringMatrix><key>k</key></ns1:getScoringMatrix>` + envClose,
		envOpen + `<ns1:processMutationLists><key>k</key><reportTypeInt href="#a"/><mutationsList href="#b"/></ns1:processMutationLists><multiRef id="a">1</multiRef><multiRef id="b"><i><i><i>M41L</i></i><i xsi:nil="true"/></i></multiRef>` + envClose,
		envOpen + `<ns1:processSequences><key>k</key><reportTypeInt>1</reportTypeInt><sequence xsi:type="xsd:int">2</sequence><param3/><param4/><param5/><param6/><param7/><param8><i><i>M</i></i></param8></ns1:processSequences>` + envClose,
		envOpen + `<ns1:processSequences><key>k</key><inAlgorithmInterface>1</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><methodName/><reportName/><reportDate/><inputData xsi:type="xsd:boolean">true</inputData></ns1:processSequences>` + envClose,
		`<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/"><e:Body><getScoringMatrix><key href="#x"/></getScoringMatrix><r id="x" href="#x"/></e:Body></e:Envelope>`,
		// One element referenced from several depths and types (the memo).
		envOpen + `<ns1:processSequences><key href="#s"/><inAlgorithmInterface href="#n"/><algorithm href="#n"/><userSubmittedAlgorithm href="#s"/><methodName/><reportName/><reportDate/><inputData><i href="#a"/><i><j href="#a"/><j href="#n"/></i></inputData></ns1:processSequences><multiRef id="n" xsi:type="xsd:int"> 7 </multiRef><multiRef id="s">x</multiRef><multiRef id="a"><k href="#n"/><k href="#s"/></multiRef>` + envClose,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	ops := soapapi.Operations(&recorder{})
	dec, err := soap.NewDecoder(ops, reqNS, soap.Limits{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		call, err := dec.Decode(bytes.NewReader(data))
		if err != nil {
			var fault *soap.Fault
			if !errors.As(err, &fault) {
				t.Fatalf("error is not a Fault: %v", err)
			}
			return
		}
		if len(call.Args) != len(call.Operation.Input.Parts) {
			t.Fatalf("%d args for %d parts", len(call.Args), len(call.Operation.Input.Parts))
		}
		for i, p := range call.Operation.Input.Parts {
			gt, _ := p.Type.GoType()
			if call.Args[i] != nil && gt.Kind() != reflect.Interface && reflect.TypeOf(call.Args[i]) != gt {
				t.Fatalf("part %s: %T, want %s", p.Name, call.Args[i], gt)
			}
		}
		// The response path must cope with whatever was decoded.
		var buf bytes.Buffer
		results := []any{"x"}
		if call.Operation.Method == "ProcessSequences2" {
			results = []any{[]any{call.Args[len(call.Args)-1]}}
		}
		if err := soap.EncodeResponse(&buf, call.Operation, respNS, results); err != nil {
			t.Fatalf("encoding: %v", err)
		}
		if err := xml.Unmarshal(buf.Bytes(), new(struct{})); err != nil && err != io.EOF {
			t.Fatalf("response is not XML: %v", err)
		}
	})
}

// FuzzEncodeText checks that any string put into a response comes back
// unchanged from an XML parser (characters XML cannot carry become U+FFFD).
func FuzzEncodeText(f *testing.F) {
	for _, s := range []string{"a<b>&c", "line\r\nbreak\r", "tab\there", "\x00bad", "é ü 😀", "]]>"} {
		f.Add(s)
	}
	op := &soapapi.Operations(nil)[6] // getScoringMatrix
	f.Fuzz(func(t *testing.T, s string) {
		var buf bytes.Buffer
		if err := soap.EncodeResponse(&buf, op, respNS, []any{s}); err != nil {
			t.Fatal(err)
		}
		var r struct {
			Text string `xml:"Body>getScoringMatrixResponse>getScoringMatrixReturn"`
		}
		if err := xml.Unmarshal(buf.Bytes(), &r); err != nil {
			t.Fatalf("not XML: %v", err)
		}
		// Each invalid byte and each character XML cannot carry is one U+FFFD.
		var want strings.Builder
		for _, c := range s {
			if c == 0x09 || c == 0x0A || c == 0x0D || c >= 0x20 && c <= 0xD7FF || c >= 0xE000 && c <= 0xFFFD || c >= 0x10000 {
				want.WriteRune(c)
			} else {
				want.WriteRune('\uFFFD')
			}
		}
		if r.Text != want.String() {
			t.Fatalf("got %q, want %q", r.Text, want.String())
		}
	})
}

// TestClientRoundTrip sends every overload through the generated Client to
// the Handler: each request arrives as sent (arrays, nils, anyType values)
// and each response comes back typed; a fault arrives as a *soap.Fault.
func TestClientRoundTrip(t *testing.T) {
	rec := &recorder{}
	ts := httptest.NewServer(newHandler(t, rec, 0))
	defer ts.Close()
	c := soapapi.NewClient(ts.URL, ts.Client()).WithRequestNamespace(reqNS)
	ctx := context.Background()
	type call struct {
		method string
		req    any
		do     func() (any, error)
		want   any
	}
	in0 := &soapapi.ProcessSequencesRequest{Key: "k", ReportTypeInt: 2, Sequence: []string{"ACGT", "a<b>&c"}}
	in1 := &soapapi.ProcessSequencesRequest1{Key: "k", InAlgorithmInterface: 1, Algorithm: 2, ReportOptions: "type=text", InputData: []any{[]any{nil, []any{"M41L", "T215Y"}, nil}}}
	in2 := &soapapi.ProcessSequencesRequest2{Key: "k", Algorithm: 9, UserSubmittedAlgorithm: "<ALGORITHM/>", InputData: "ACGT"}
	in3 := &soapapi.ProcessSequenceRequest{Key: "k", Sequence: "AC\r\nGT"}
	in4 := &soapapi.ProcessSequencesInFastaRequest{Key: "k", ReportTypeInt: -1, SequencesInFasta: ">a\nACGT\n"}
	in5 := &soapapi.ProcessSequencesStringRequest{Key: "k", Sequences: ""}
	in6 := &soapapi.GetScoringMatrixRequest{Key: "k\u00e9y"}
	in7 := &soapapi.ProcessMutationListsRequest{Key: "k", ReportTypeInt: 3, MutationsList: [][][]string{{nil, {"M41L", "M184V"}, {}}}}
	calls := []call{
		{"ProcessSequences", in0, func() (any, error) { return c.ProcessSequences(ctx, in0) }, &soapapi.ProcessSequencesResponse{ProcessSequencesReturn: "r1"}},
		{"ProcessSequences1", in1, func() (any, error) { return c.ProcessSequences1(ctx, in1) }, &soapapi.ProcessSequencesResponse1{ProcessSequencesReturn: "r2"}},
		// anyType items come back as what they say they are: an xsd:int is an int64.
		{"ProcessSequences2", in2, func() (any, error) { return c.ProcessSequences2(ctx, in2) }, &soapapi.ProcessSequencesResponse2{ProcessSequencesReturn: []any{"a", "b&<c>", int64(7), nil, []any{"x"}}}},
		{"ProcessSequence", in3, func() (any, error) { return c.ProcessSequence(ctx, in3) }, &soapapi.ProcessSequenceResponse{ProcessSequenceReturn: "r4"}},
		{"ProcessSequencesInFasta", in4, func() (any, error) { return c.ProcessSequencesInFasta(ctx, in4) }, &soapapi.ProcessSequencesInFastaResponse{ProcessSequencesInFastaReturn: "r5"}},
		{"ProcessSequencesString", in5, func() (any, error) { return c.ProcessSequencesString(ctx, in5) }, &soapapi.ProcessSequencesStringResponse{ProcessSequencesStringReturn: "r6"}},
		{"GetScoringMatrix", in6, func() (any, error) { return c.GetScoringMatrix(ctx, in6) }, &soapapi.GetScoringMatrixResponse{GetScoringMatrixReturn: "matrix\tline\n"}},
		{"ProcessMutationLists", in7, func() (any, error) { return c.ProcessMutationLists(ctx, in7) }, &soapapi.ProcessMutationListsResponse{ProcessMutationListsReturn: "report"}},
	}
	for _, cl := range calls {
		got, err := cl.do()
		if err != nil {
			t.Errorf("%s: %v", cl.method, err)
			continue
		}
		if rec.method != cl.method {
			t.Errorf("%s: the server ran %s", cl.method, rec.method)
		}
		// Empty arrays arrive as empty, nil ones as nil; compare as sent.
		if !reflect.DeepEqual(rec.req, cl.req) {
			t.Errorf("%s: server got %#v, sent %#v", cl.method, rec.req, cl.req)
		}
		if !reflect.DeepEqual(got, cl.want) {
			t.Errorf("%s: got %#v, want %#v", cl.method, got, cl.want)
		}
	}
	rec.err = soap.ClientFault("bad %s", "input")
	_, err := c.GetScoringMatrix(ctx, in6)
	var f *soap.Fault
	if !errors.As(err, &f) || f.Code != soap.FaultClient || f.String != "bad input" {
		t.Errorf("fault: %v", err)
	}
	rec.err = errors.New("secret internal detail")
	_, err = c.GetScoringMatrix(ctx, in6)
	if !errors.As(err, &f) || f.Code != soap.FaultServer || strings.Contains(f.String, "secret") {
		t.Errorf("server fault: %v", err)
	}
}
