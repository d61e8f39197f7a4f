package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hooklift/gowsdl"

	"github.com/sitelib/sitesvc/gen/soap"
	"github.com/sitelib/sitesvc/gen/soapapi"
)

const wsdlPath = "../../wsdl/SiteAlgorithm.wsdl"

// seedOperation is one row of the seed's operation table (part A, section 4).
type seedOperation struct {
	name, request string
	inputs        [][2]string // name, type
	output        [2]string
}

// seedTable is transcribed from the seed; types are written as the WSDL
// must spell them.
var seedTable = []seedOperation{
	{"processSequences", "processSequencesRequest",
		[][2]string{{"key", "xsd:string"}, {"reportTypeInt", "xsd:int"}, {"sequence", "impl:ArrayOf_xsd_string"}},
		[2]string{"processSequencesReturn", "xsd:string"}},
	{"processSequences", "processSequencesRequest1",
		[][2]string{{"key", "xsd:string"}, {"inAlgorithmInterface", "xsd:int"}, {"algorithm", "xsd:int"}, {"userSubmittedAlgorithm", "xsd:string"}, {"reportOptions", "xsd:string"}, {"methodName", "xsd:string"}, {"reportName", "xsd:string"}, {"reportDate", "xsd:string"}, {"inputData", "xsd:anyType"}},
		[2]string{"processSequencesReturn", "xsd:string"}},
	{"processSequences", "processSequencesRequest2",
		[][2]string{{"key", "xsd:string"}, {"inAlgorithmInterface", "xsd:int"}, {"algorithm", "xsd:int"}, {"userSubmittedAlgorithm", "xsd:string"}, {"methodName", "xsd:string"}, {"reportName", "xsd:string"}, {"reportDate", "xsd:string"}, {"inputData", "xsd:anyType"}},
		[2]string{"processSequencesReturn", "impl:ArrayOf_xsd_anyType"}},
	{"processSequence", "processSequenceRequest",
		[][2]string{{"key", "xsd:string"}, {"sequence", "xsd:string"}},
		[2]string{"processSequenceReturn", "xsd:string"}},
	{"processSequencesInFasta", "processSequencesInFastaRequest",
		[][2]string{{"key", "xsd:string"}, {"reportTypeInt", "xsd:int"}, {"sequencesInFasta", "xsd:string"}},
		[2]string{"processSequencesInFastaReturn", "xsd:string"}},
	{"processSequencesString", "processSequencesStringRequest",
		[][2]string{{"key", "xsd:string"}, {"reportTypeInt", "xsd:int"}, {"sequences", "xsd:string"}},
		[2]string{"processSequencesStringReturn", "xsd:string"}},
	{"getScoringMatrix", "getScoringMatrixRequest",
		[][2]string{{"key", "xsd:string"}},
		[2]string{"getScoringMatrixReturn", "xsd:string"}},
	{"processMutationLists", "processMutationListsRequest",
		[][2]string{{"key", "xsd:string"}, {"reportTypeInt", "xsd:int"}, {"mutationsList", "impl:ArrayOfArrayOfArrayOf_xsd_string"}},
		[2]string{"processMutationListsReturn", "xsd:string"}},
}

func readWSDL(t *testing.T) (*gowsdl.WSDL, []byte) {
	t.Helper()
	raw, err := os.ReadFile(wsdlPath)
	if err != nil {
		t.Fatal(err)
	}
	var w gowsdl.WSDL
	if err := xml.Unmarshal(raw, &w); err != nil {
		t.Fatalf("gowsdl cannot parse the WSDL: %v", err)
	}
	return &w, raw
}

func local(qname string) string {
	_, l, _ := strings.Cut(qname, ":")
	return l
}

// TestWSDLMatchesSeed reads the WSDL with gowsdl's parser types and checks
// every operation, message, part name, part type and the binding against
// the seed's table.
func TestWSDLMatchesSeed(t *testing.T) {
	w, raw := readWSDL(t)
	// gowsdl reads an absent soapAction as "", so the attribute itself is
	// checked too: present, and empty, on every binding operation.
	var bindingOps struct {
		Operations []struct {
			Name   string `xml:"name,attr"`
			SOAPOp []struct {
				Action *string `xml:"soapAction,attr"`
			} `xml:"http://schemas.xmlsoap.org/wsdl/soap/ operation"`
		} `xml:"binding>operation"`
	}
	if err := xml.Unmarshal(raw, &bindingOps); err != nil {
		t.Fatal(err)
	}
	if len(bindingOps.Operations) != len(seedTable) {
		t.Errorf("%d binding operations, want %d", len(bindingOps.Operations), len(seedTable))
	}
	for i, op := range bindingOps.Operations {
		if len(op.SOAPOp) != 1 || op.SOAPOp[0].Action == nil || *op.SOAPOp[0].Action != "" {
			t.Errorf("binding operation %d (%s): soap:operation must carry soapAction=\"\"", i, op.Name)
		}
	}
	if w.TargetNamespace != "http://algorithm.sitesvc.org" {
		t.Errorf("targetNamespace = %q", w.TargetNamespace)
	}
	if w.Xmlns["impl"] != w.TargetNamespace || w.Xmlns["xsd"] != "http://www.w3.org/2001/XMLSchema" {
		t.Errorf("prefixes impl=%q xsd=%q", w.Xmlns["impl"], w.Xmlns["xsd"])
	}
	if len(w.PortTypes) != 1 || w.PortTypes[0].Name != "SiteAlgorithm" {
		t.Fatalf("port types: %+v", w.PortTypes)
	}
	if len(w.Binding) != 1 || w.Binding[0].Name != "SiteAlgorithmSoapBinding" || local(w.Binding[0].Type) != "SiteAlgorithm" {
		t.Fatalf("bindings: %+v", w.Binding)
	}
	b := w.Binding[0]
	if b.SOAPBinding.Style != "rpc" || b.SOAPBinding.Transport != "http://schemas.xmlsoap.org/soap/http" {
		t.Errorf("soap:binding style=%q transport=%q", b.SOAPBinding.Style, b.SOAPBinding.Transport)
	}
	if len(w.Service) != 1 || w.Service[0].Name != "SiteAlgorithmService" || len(w.Service[0].Ports) != 1 {
		t.Fatalf("services: %+v", w.Service)
	}
	port := w.Service[0].Ports[0]
	if port.Name != "SiteAlgorithm" || local(port.Binding) != "SiteAlgorithmSoapBinding" {
		t.Errorf("port %q binding %q", port.Name, port.Binding)
	}
	if port.SOAPAddress.Location != "http://localhost:8080/soap/SiteAlgorithm" {
		t.Errorf("soap:address = %q", port.SOAPAddress.Location)
	}

	messages := map[string]*gowsdl.WSDLMessage{}
	for _, m := range w.Messages {
		if messages[m.Name] != nil {
			t.Errorf("message %s declared twice", m.Name)
		}
		messages[m.Name] = m
	}
	ops := w.PortTypes[0].Operations
	if len(ops) != len(seedTable) {
		t.Fatalf("port type has %d operations, the seed %d", len(ops), len(seedTable))
	}
	if len(b.Operations) != len(seedTable) {
		t.Fatalf("binding has %d operations, the seed %d", len(b.Operations), len(seedTable))
	}
	if len(w.Messages) != 2*len(seedTable) {
		t.Errorf("%d messages, want %d (one request and one response per operation)", len(w.Messages), 2*len(seedTable))
	}
	for i, want := range seedTable {
		op := ops[i]
		if op.Name != want.name || op.Input.Name != want.request || local(op.Input.Message) != want.request {
			t.Errorf("operation %d: %s input %s (message %s), want %s with %s", i, op.Name, op.Input.Name, op.Input.Message, want.name, want.request)
			continue
		}
		in := messages[want.request]
		if in == nil {
			t.Errorf("message %s missing", want.request)
			continue
		}
		if len(in.Parts) != len(want.inputs) {
			t.Errorf("%s: %d parts, want %d", want.request, len(in.Parts), len(want.inputs))
		}
		for j := 0; j < len(in.Parts) && j < len(want.inputs); j++ {
			if got := [2]string{in.Parts[j].Name, in.Parts[j].Type}; got != want.inputs[j] {
				t.Errorf("%s part %d = %v, want %v", want.request, j, got, want.inputs[j])
			}
		}
		if in.Parts[0].Name != "key" || in.Parts[0].Type != "xsd:string" {
			t.Errorf("%s: first part is not key: string", want.request)
		}
		out := messages[local(op.Output.Message)]
		if out == nil || len(out.Parts) != 1 {
			t.Errorf("%s: output message %s missing or not one part", want.request, op.Output.Message)
			continue
		}
		if got := [2]string{out.Parts[0].Name, out.Parts[0].Type}; got != want.output {
			t.Errorf("%s output = %v, want %v", want.request, got, want.output)
		}
		// The binding operation for this overload.
		var bop *gowsdl.WSDLOperation
		for _, o := range b.Operations {
			if o.Name == op.Name && o.Input.Name == op.Input.Name {
				bop = o
			}
		}
		if bop == nil {
			t.Errorf("binding lacks %s (%s)", op.Name, op.Input.Name)
			continue
		}
		if bop.Output.Name != op.Output.Name {
			t.Errorf("binding %s output name %q, port type %q", op.Name, bop.Output.Name, op.Output.Name)
		}
		if bop.SOAPOperation.SOAPAction != "" {
			t.Errorf("%s soapAction = %q, want empty", want.request, bop.SOAPOperation.SOAPAction)
		}
		for what, body := range map[string]gowsdl.WSDLSOAPBody{"input": bop.Input.SOAPBody, "output": bop.Output.SOAPBody} {
			if body.Use != "encoded" || body.EncodingStyle != "http://schemas.xmlsoap.org/soap/encoding/" {
				t.Errorf("%s %s: use %q encodingStyle %q", want.request, what, body.Use, body.EncodingStyle)
			}
		}
		if bop.Input.SOAPBody.Namespace != "http://algorithm.sitesvc.org" {
			t.Errorf("%s request namespace %q", want.request, bop.Input.SOAPBody.Namespace)
		}
		if bop.Output.SOAPBody.Namespace != port.SOAPAddress.Location {
			t.Errorf("%s response namespace %q, want the endpoint", want.request, bop.Output.SOAPBody.Namespace)
		}
	}
}

// TestWSDLArrayTypes checks the soapenc array declarations: gowsdl sees the
// complex types, the generator's schema reader their item types.
func TestWSDLArrayTypes(t *testing.T) {
	w, raw := readWSDL(t)
	declared := map[string]bool{}
	for _, s := range w.Types.Schemas {
		for _, ct := range s.ComplexTypes {
			declared[ct.Name] = true
		}
	}
	svc, err := parseService(raw)
	if err != nil {
		t.Fatal(err)
	}
	items := map[string]string{}
	for _, ty := range svc.Types {
		if ty.Elem != nil {
			items[ty.Name] = qname(ty.Elem)
		}
	}
	want := map[string]string{
		"ArrayOf_xsd_string":               "xsd:string",
		"ArrayOf_xsd_anyType":              "xsd:anyType",
		"ArrayOfArrayOf_xsd_string":        "ArrayOf_xsd_string",
		"ArrayOfArrayOfArrayOf_xsd_string": "ArrayOfArrayOf_xsd_string",
	}
	for name, item := range want {
		if !declared[name] {
			t.Errorf("gowsdl does not see complex type %s", name)
		}
		if items[name] != item {
			t.Errorf("%s items = %q, want %q", name, items[name], item)
		}
	}
}

// TestGeneratedTableMatchesWSDL checks the committed dispatch table
// against the WSDL and that regenerating changes nothing.
func TestGeneratedTableMatchesWSDL(t *testing.T) {
	ops := soapapi.Operations(nil)
	if len(ops) != len(seedTable) {
		t.Fatalf("%d operations in the table, want %d", len(ops), len(seedTable))
	}
	for i, want := range seedTable {
		op := ops[i]
		if op.Name != want.name || op.Input.Name != want.request {
			t.Errorf("table %d: %s/%s, want %s/%s", i, op.Name, op.Input.Name, want.name, want.request)
			continue
		}
		for j, p := range op.Input.Parts {
			if p.Name != want.inputs[j][0] || typeName(p.Type) != local(want.inputs[j][1]) {
				t.Errorf("%s part %d = %s %s, want %v", want.request, j, p.Name, p.Type, want.inputs[j])
			}
		}
		if p := op.Output.Parts[0]; p.Name != want.output[0] || typeName(p.Type) != local(want.output[1]) {
			t.Errorf("%s output = %s %s, want %v", want.request, p.Name, p.Type, want.output)
		}
	}
	if ops[0].Method != "ProcessSequences" || ops[1].Method != "ProcessSequences1" || ops[2].Method != "ProcessSequences2" {
		t.Errorf("overload methods %s, %s, %s", ops[0].Method, ops[1].Method, ops[2].Method)
	}

	out := filepath.Join(t.TempDir(), "soapapi.gen.go")
	args := []string{"-wsdl", wsdlPath, "-pkg", "soapapi", "-o", out}
	args = append(args, generateEmbedArgs(t)...)
	if err := run(args); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("../../gen/soapapi/soapapi.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(committed) {
		t.Errorf("gen/soapapi/soapapi.gen.go is stale: run go generate ./gen/soapapi/")
	}
	// A second run changes nothing, not even the file's modification time.
	before, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(out, before.ModTime().Add(-time.Hour), before.ModTime().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := run(args); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if again := mustRead(t, out); string(again) != string(got) || !after.ModTime().Equal(before.ModTime().Add(-time.Hour)) {
		t.Errorf("a second generator run rewrote the output")
	}
	if string(soapapi.Document("wsdl")) != string(mustRead(t, wsdlPath)) {
		t.Errorf("embedded WSDL differs from wsdl/SiteAlgorithm.wsdl")
	}
}

// generateEmbedArgs are the -embed and -runtime flags of gen/soapapi/generate.go.
func generateEmbedArgs(t *testing.T) []string {
	src := string(mustRead(t, "../../gen/soapapi/generate.go"))
	_, line, ok := strings.Cut(src, "//go:generate ")
	if !ok {
		t.Fatal("no go:generate line")
	}
	line, _, _ = strings.Cut(line, "\n")
	var args []string
	fields := strings.Fields(line)
	for i := 0; i < len(fields); i++ {
		switch {
		case fields[i] == "-embed" && i+1 < len(fields):
			name, path, _ := strings.Cut(fields[i+1], "=")
			args = append(args, "-embed", name+"="+filepath.Join("../../gen/soapapi", path))
			i++
		case fields[i] == "-runtime" && i+1 < len(fields):
			args = append(args, "-runtime", fields[i+1])
			i++
		}
	}
	return args
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func typeName(ty *soap.Type) string { return ty.Name }

// TestGeneratorRejects checks the generator's errors on WSDLs it cannot
// serve.
func TestGeneratorRejects(t *testing.T) {
	_, raw := readWSDL(t)
	base := string(raw)
	cases := map[string]string{
		"document style":   strings.Replace(base, `style="rpc"`, `style="document"`, 1),
		"literal use":      strings.Replace(base, `use="encoded"`, `use="literal"`, 1),
		"undeclared type":  strings.Replace(base, `type="impl:ArrayOf_xsd_string"/>`, `type="impl:Nope"/>`, 1),
		"unknown built-in": strings.Replace(base, `name="sequence" type="xsd:string"`, `name="sequence" type="xsd:dateTime"`, 1),
		"missing message":  strings.Replace(base, `message="impl:getScoringMatrixRequest"`, `message="impl:nope"`, 1),
		"not XML":          base[:200],
	}
	for name, doc := range cases {
		if doc == base {
			t.Fatalf("%s: replacement did not apply", name)
		}
		if _, err := parseService([]byte(doc)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
