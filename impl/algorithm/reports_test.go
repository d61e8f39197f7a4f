package algorithm

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/resistance"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// htmlFASTA: the project's example sequence, the shared hypermutated sequence (PR D30N may
// be an APOBEC artefact) and one too short.
func htmlFASTA(t testing.TB) string {
	t.Helper()
	seq := testkit.ReadHIVDBSequence(t, "PROBLEM_SEQUENCES_APOBEC").Sequence
	return testkit.ExampleFASTA(t) + ">apobec\n" + seq + "\n>short\nACGTAC\n"
}

// checkHTMLReport: a whole, self-contained HTML report of the three htmlFASTA sequences.
func checkHTMLReport(t *testing.T, rep string) {
	t.Helper()
	if !strings.HasPrefix(rep, "<!DOCTYPE html>") || !strings.HasSuffix(strings.TrimSpace(rep), "</html>") {
		t.Fatalf("not an HTML document:\n%.300s", rep)
	}
	for _, want := range []string{
		`<h2 id="summary">Summary of 3 sequences</h2>`, `<h2 id="input-1-h">Sequence 1: example-PR-RT</h2>`,
		`<h2 id="input-2-h">Sequence 2: apobec</h2>`, "possibly APOBEC-induced", "Sequence too short: 6 nucleotides",
		"default-src 'none'",
	} {
		if !strings.Contains(rep, want) {
			t.Errorf("HTML report: no %q", want)
		}
	}
	for _, bad := range []string{"<script", "http://", "https://", "src="} {
		if strings.Contains(rep, bad) {
			t.Errorf("HTML report holds %q", bad)
		}
	}
}

// TestHTMLReportOverSOAP: the HTML report through the service — the reportOptions word
// HTML on overload 2, reportTypeInt 4, inAlgorithmInterface 4 on overload 3 (one document
// per sequence) — is the bare engine's report.
func TestHTMLReportOverSOAP(t *testing.T) {
	t.Parallel()
	s := startService(t, nil)
	eng := testEngine(t)
	text := htmlFASTA(t)
	recs := fasta.Parse(text)
	body := `<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>0</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><reportOptions>HTML|QA ANALYSIS|MUTATION COMMENTS</reportOptions><methodName>m</methodName><reportName>clinic</reportName><reportDate>d</reportDate><inputData xsi:type="xsd:string">` + xmlText(text) + `</inputData></alg:processSequences>`
	code, resp := soapCall(t, s.URL, body)
	r := parseSOAP(t, resp)
	if code != 200 || r.FaultString != "" {
		t.Fatalf("%d %s", code, r.FaultString)
	}
	want, err := eng.SequenceReport(recs, ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportOptions: "HTML|QA ANALYSIS|MUTATION COMMENTS", MethodName: "m", ReportName: "clinic", ReportDate: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Part != want {
		t.Errorf("overload 2 HTML differs from the engine's\n got %.800s\nwant %.800s", r.Part, want)
	}
	checkHTMLReport(t, r.Part)

	body = `<alg:processSequencesInFasta><key>` + s.Key + `</key><reportTypeInt>4</reportTypeInt><sequencesInFasta>` + xmlText(text) + `</sequencesInFasta></alg:processSequencesInFasta>`
	code, resp = soapCall(t, s.URL, body)
	r = parseSOAP(t, resp)
	if code != 200 || r.FaultString != "" {
		t.Fatalf("reportTypeInt 4: %d %s", code, r.FaultString)
	}
	want, err = eng.SequenceReport(recs, ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.ReportHTML})
	if err != nil {
		t.Fatal(err)
	}
	if atReportTime(r.Part) != want {
		t.Errorf("reportTypeInt 4 differs from the engine's HTML report")
	}
	checkHTMLReport(t, r.Part)

	body = `<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>4</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><methodName/><reportName/><reportDate>d</reportDate><inputData xsi:type="xsd:string">` + xmlText(text) + `</inputData></alg:processSequences>`
	code, resp = soapCall(t, s.URL, body)
	r = parseSOAP(t, resp)
	wants, err := eng.SequenceReports(recs, ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.ReportHTML, ReportDate: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if code != 200 || len(r.Items) != 3 {
		t.Fatalf("overload 3: %d, %d items\n%.500s", code, len(r.Items), resp)
	}
	for i, it := range r.Items {
		if it != wants[i] || !strings.HasPrefix(it, "<!DOCTYPE html>") || strings.Count(it, `<section class="input"`) != 1 {
			t.Errorf("overload 3 item %d is not the engine's one-sequence HTML report:\n%.300s", i+1, it)
		}
	}

	// two report types named: a Client fault
	body = `<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>0</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><reportOptions>HTML|XMLVER1</reportOptions><methodName/><reportName/><reportDate/><inputData xsi:type="xsd:string">` + xmlText(text) + `</inputData></alg:processSequences>`
	code, resp = soapCall(t, s.URL, body)
	if r := parseSOAP(t, resp); code != 500 || !strings.HasSuffix(r.FaultCode, "Client") || !strings.Contains(r.FaultString, "two report types") {
		t.Errorf("HTML|XMLVER1: %d %s %s", code, r.FaultCode, r.FaultString)
	}
}

// TestHTMLReportThroughTheBinary: the real binary answers overload 2 with reportOptions
// HTML with the engine's HTML report.
func TestHTMLReportThroughTheBinary(t *testing.T) {
	t.Parallel()
	s := startBinary(t)
	text := htmlFASTA(t)
	code, resp := soapCall(t, s.Endpoint, `<alg:processSequences><key>`+s.Key+`</key><inAlgorithmInterface>1</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><reportOptions>type=html</reportOptions><methodName/><reportName/><reportDate>2026-05-01</reportDate><inputData xsi:type="xsd:string">`+xmlText(text)+`</inputData></alg:processSequences>`)
	out := parseSOAP(t, resp)
	if code != 200 || out.FaultString != "" {
		t.Fatalf("processSequences: %d %s %s", code, out.FaultCode, out.FaultString)
	}
	want, err := testEngine(t).SequenceReport(fasta.Parse(text), ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportOptions: "type=html", ReportDate: "2026-05-01"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Part != want {
		t.Errorf("the binary's HTML report differs from the engine's\n got %.600s\nwant %.600s", out.Part, want)
	}
	checkHTMLReport(t, out.Part)
}

// TestQualityFindingsOverSOAP: Stanford's quality findings reach SOAP callers. A mutation
// list with the hypermutated sequence's PR mutations names its APOBEC signature mutations
// and the DRM APOBEC may have caused (D30N) in the XML 2009 report; the project's example
// sequence with RT codons 100–110 cut out is flagged for its long gap, and its PR followed
// by foreign nucleotides for the RT it may hold. Each answer equals the bare engine's and
// validates against the XSD.
func TestQualityFindingsOverSOAP(t *testing.T) {
	t.Parallel()
	s := startService(t, nil)
	eng := testEngine(t)
	opts := ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.Report2009}

	code, resp := soapCall(t, s.URL, `<alg:processMutationLists><key>`+s.Key+`</key><reportTypeInt>2</reportTypeInt><mutationsList>`+
		`<s><g><m>W6*</m><m>D29N</m><m>D30N</m><m>G48R</m></g><g/><g/></s></mutationsList></alg:processMutationLists>`)
	if code != 200 {
		t.Fatalf("%d %s", code, resp)
	}
	got := parseSOAP(t, resp).Part
	want, err := eng.MutationListReport([][][]string{{{"W6*", "D29N", "D30N", "G48R"}, nil, nil}}, opts)
	sameAsEngine(t, "mutation list report", got, want, err)
	for _, w := range []string{"<isApobecDRM>true</isApobecDRM>", `<apobecDRM gene="PR">D30N</apobecDRM>`,
		"3 APOBEC signature mutations (G-to-A hypermutation): PR: W6*, D29N, G48R. 1 drug-resistance mutation may be caused by APOBEC hypermutation rather than drug selection: PR: D30N"} {
		if !strings.Contains(got, w) {
			t.Errorf("mutation list report: no %q", w)
		}
	}

	example := testkit.ExampleFASTA(t)
	bare := strings.Join(strings.Split(strings.SplitN(example, ">example-PR-RT\n", 2)[1], "\n"), "")
	rt100 := 297 + 3*99 // the example holds PR 1–99 then RT from codon 1
	gap := bare[:rt100] + bare[rt100+33:]
	foreign := bare[:297] + strings.Repeat("CCTTAGGA", 125)
	fastaText := ">gap\n" + gap + "\n>PR then foreign\n" + foreign + "\n"
	code, resp = soapCall(t, s.URL, `<alg:processSequencesInFasta><key>`+s.Key+`</key><reportTypeInt>2</reportTypeInt><sequencesInFasta>`+xmlText(fastaText)+`</sequencesInFasta></alg:processSequencesInFasta>`)
	if code != 200 {
		t.Fatalf("%d %s", code, resp)
	}
	got = parseSOAP(t, resp).Part
	want, err = eng.SequenceReport(fasta.Parse(fastaText), opts)
	sameAsEngine(t, "sequence report", got, want, err)
	results := strings.Split(got, "<result>")
	if len(results) != 3 {
		t.Fatalf("%d results", len(results)-1)
	}
	if !strings.Contains(results[1], "The sequence has a gap longer than 30 nucleotides (RT 100–110 deleted)") {
		t.Errorf("no long-gap finding for the sequence with RT 100–110 cut:\n%.2000s", results[1])
	}
	if !regexp.MustCompile(`<level>SEVERE WARNING</level>\s*<message>The sequence may also hold RT:`).MatchString(results[2]) {
		t.Errorf("no gene-not-aligned finding for PR followed by foreign nucleotides:\n%.2000s", results[2])
	}
}
