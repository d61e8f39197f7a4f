package algorithm

import (
	"bytes"
	"fmt"
	"html/template"

	"github.com/sitelib/sitesvc/gen/soap"
	"github.com/sitelib/sitesvc/gen/soapapi"
	"github.com/sitelib/sitesvc/impl/resistance"
)

// The human-readable page of the WSDL, at <endpoint>?doc: every operation
// overload with its parts (from the generated dispatch table, so it cannot
// drift from the WSDL), the report types, the algorithm selectors and
// how errors are reported.

// operationPurposes says in one line what each overload does (the WSDL
// carries no documentation elements).
var operationPurposes = map[string]string{
	"ProcessSequences":        "Reports for nucleotide sequences, one array item per sequence (overload 1).",
	"ProcessSequences1":       "One report for mutation lists or sequences in inputData, with the algorithm and report options chosen (overload 2).",
	"ProcessSequences2":       "One report per sample of inputData, returned as an array (overload 3).",
	"ProcessSequence":         "The report of one nucleotide sequence.",
	"ProcessSequencesInFasta": "Reports for the sequences of a FASTA text.",
	"ProcessSequencesString":  "Reports for sequences given as one string.",
	"GetScoringMatrix":        "The mutation-penalty table of the default algorithm, as tab-separated text.",
	"ProcessMutationLists":    "Reports for mutation lists [sample][gene: PR, RT, IN][mutation] under the default algorithm (HIVDB).",
}

type docPart struct{ Name, Type string }

type docOperation struct {
	Name, Method, Message, Purpose string
	Inputs                         []docPart
	Output                         docPart
}

type docValue struct {
	Value       int
	Name, About string
}

type docPageData struct {
	Endpoint, WSDL, XSD string
	Operations          []docOperation
	ReportTypes         []docValue
	Algorithms          []docValue
	InvalidKeyReport    string
}

var docPageTemplate = template.Must(template.New("doc").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Algorithm (SOAP) — operations</title>
<link rel="icon" href="data:,">
<style>
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; }
h2 { margin-top: 2rem; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid #ccc; padding: .2rem .5rem; text-align: left; vertical-align: top; }
code { background: #f4f4f4; padding: 0 .2em; }
</style>
</head>
<body>
<h1>Algorithm (SOAP) — HIV-1 drug resistance</h1>
<p>SOAP 1.1, rpc/encoded, at <code>{{.Endpoint}}</code>. Contract: <a href="{{.WSDL}}">WSDL</a>{{if .XSD}}; XML reports: <a href="{{.XSD}}">report XSD</a>{{end}}.
Every operation takes an API key (<code>key</code>) and answers a report string (overload 3: an array of them).</p>

<h2 id="operations">Operations</h2>
{{range .Operations}}
<section class="operation" id="{{.Method}}">
<h3><code>{{.Name}}</code> <small>(message <code>{{.Message}}</code>; Go client method <code>{{.Method}}</code>)</small></h3>
<p>{{.Purpose}}</p>
<table>
<tr><th>input part</th><th>type</th></tr>
{{range .Inputs}}<tr><td><code>{{.Name}}</code></td><td><code>{{.Type}}</code></td></tr>
{{end}}<tr><th>output part</th><th>type</th></tr>
<tr><td><code>{{.Output.Name}}</code></td><td><code>{{.Output.Type}}</code></td></tr>
</table>
</section>
{{end}}

<h2 id="report-types">Report types</h2>
<p><code>reportTypeInt</code> (overloads 2 and 3: <code>inAlgorithmInterface</code>), or <code>type=</code> in <code>reportOptions</code>:</p>
<table class="report-types">
<tr><th>value</th><th>report</th></tr>
{{range .ReportTypes}}<tr><td>{{.Value}}</td><td>{{.Name}}: {{.About}}</td></tr>
{{end}}</table>

<h2 id="algorithms">Algorithms</h2>
<p><code>algorithm</code> of overloads 2 and 3:</p>
<table>
<tr><th>value</th><th>algorithm</th></tr>
{{range .Algorithms}}<tr><td>{{.Value}}</td><td>{{.Name}}{{if .About}} — {{.About}}{{end}}</td></tr>
{{end}}<tr><td>any other</td><td>the ASI 2.x XML given in <code>userSubmittedAlgorithm</code></td></tr>
</table>

<h2 id="errors">Errors</h2>
<ul>
<li>An invalid key is not a fault: the operation answers the report <code>{{.InvalidKeyReport}}</code>.</li>
<li>A request the service cannot serve (malformed envelope, unknown operation, empty mutation list, unknown report type or algorithm, rate limit) is a SOAP fault with code <code>Client</code>; a failure of the service, code <code>Server</code>. Both come with HTTP status 500, as SOAP 1.1 requires.</li>
</ul>
</body>
</html>
`))

// partType is a part's type as the WSDL names it.
func partType(t *soap.Type) string {
	if t.Namespace == soap.XSDNamespace {
		return "xsd:" + t.Name
	}
	return t.Name
}

// docPage renders the page for the given endpoint.
func docPage(endpoint string, hasXSD bool) ([]byte, error) {
	data := docPageData{
		Endpoint:         endpoint,
		WSDL:             endpoint + "?wsdl",
		InvalidKeyReport: InvalidKeyReport,
		ReportTypes: []docValue{
			{int(resistance.ReportSimple), "simple XML", "one interpretation per drug (Site_Algorithm_Interpretation)"},
			{int(resistance.ReportDetailed), "detailed XML", "the simple report plus each mutation's partial score"},
			{int(resistance.Report2009), "XML 2009", "the DrugResistance_Interpretation format"},
			{int(resistance.ReportText), "text", "tab-separated, one line per sample and drug"},
			{int(resistance.ReportHTML), "HTML", "for people: a summary table, then one printable page per sample (also reportOptions HTML)"},
		},
		Algorithms: []docValue{
			{int(resistance.AlgorithmANRS), "ANRS", ""},
			{int(resistance.AlgorithmHIVDB), "HIVDB", "the default"},
			{int(resistance.AlgorithmRega), "Rega", ""},
		},
	}
	if hasXSD {
		data.XSD = endpoint + "?xsd=reports"
	}
	for _, op := range soapapi.Operations(nil) {
		d := docOperation{Name: op.Name, Method: op.Method, Message: op.Input.Name, Purpose: operationPurposes[op.Method]}
		if d.Purpose == "" {
			return nil, fmt.Errorf("algorithm: operation %s has no description for the documentation page", op.Method)
		}
		for _, p := range op.Input.Parts {
			d.Inputs = append(d.Inputs, docPart{p.Name, partType(p.Type)})
		}
		if len(op.Output.Parts) != 1 {
			return nil, fmt.Errorf("algorithm: operation %s has %d output parts", op.Method, len(op.Output.Parts))
		}
		d.Output = docPart{op.Output.Parts[0].Name, partType(op.Output.Parts[0].Type)}
		data.Operations = append(data.Operations, d)
	}
	var buf bytes.Buffer
	if err := docPageTemplate.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("algorithm: rendering the documentation page: %w", err)
	}
	return buf.Bytes(), nil
}
