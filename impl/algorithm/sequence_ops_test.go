package algorithm

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/resistance"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestSequenceOperations: every sequence operation answers the bare engine's report for
// the same sequences (the SOAP layer adds nothing and loses nothing), valid against the XSD.
func TestSequenceOperations(t *testing.T) {
	t.Parallel()
	s := startService(t, nil)
	eng := testEngine(t)
	example := testkit.ExampleFASTA(t)
	two := example + ">short\nACGTAC\n"
	bare := strings.Join(strings.Split(strings.SplitN(example, ">example-PR-RT\n", 2)[1], "\n"), "")
	engine := func(text string, opts ReportOptions) string {
		rep, err := eng.SequenceReport(fasta.Parse(text), opts)
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	hivdb := func(rt resistance.ReportType) ReportOptions {
		return ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: rt}
	}
	cases := []struct {
		name, body, want string
	}{
		{"processSequence bare", `<alg:processSequence><key>` + s.Key + `</key><sequence>` + bare + `</sequence></alg:processSequence>`,
			engine(bare, hivdb(resistance.ReportSimple))},
		{"processSequence FASTA", `<alg:processSequence><key>` + s.Key + `</key><sequence>` + xmlText(example) + `</sequence></alg:processSequence>`,
			engine(example, hivdb(resistance.ReportSimple))},
		{"processSequencesInFasta", `<alg:processSequencesInFasta><key>` + s.Key + `</key><reportTypeInt>2</reportTypeInt><sequencesInFasta>` + xmlText(two) + `</sequencesInFasta></alg:processSequencesInFasta>`,
			engine(two, hivdb(resistance.Report2009))},
		{"processSequencesString FASTA", `<alg:processSequencesString><key>` + s.Key + `</key><reportTypeInt>1</reportTypeInt><sequences>` + xmlText(two) + `</sequences></alg:processSequencesString>`,
			engine(two, hivdb(resistance.ReportDetailed))},
		{"processSequencesString bare, text", `<alg:processSequencesString><key>` + s.Key + `</key><reportTypeInt>3</reportTypeInt><sequences>` + bare + `</sequences></alg:processSequencesString>`,
			engine(bare, hivdb(resistance.ReportText))},
		{"overload 1, one-record FASTA items", `<alg:processSequences><key>` + s.Key + `</key><reportTypeInt>0</reportTypeInt><sequence><s>` + xmlText(example) + `</s><s>ACGTAC</s></sequence></alg:processSequences>`,
			engine(example+"\n>\nACGTAC", hivdb(resistance.ReportSimple))},
		{"overload 2, FASTA string, earlier vocabulary", `<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>0</inAlgorithmInterface><algorithm>2</algorithm><userSubmittedAlgorithm/><reportOptions>XMLVER1|QA ANALYSIS</reportOptions><methodName>m</methodName><reportName>r</reportName><reportDate>d</reportDate><inputData xsi:type="xsd:string">` + xmlText(two) + `</inputData></alg:processSequences>`,
			engine(two, ReportOptions{Algorithm: resistance.AlgorithmRega, ReportType: 0, ReportOptions: "XMLVER1|QA ANALYSIS", MethodName: "m", ReportName: "r", ReportDate: "d"})},
		{"overload 2, array of strings", `<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>3</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><reportOptions/><methodName/><reportName/><reportDate>d</reportDate><inputData><s>` + bare + `</s><s>ACG</s></inputData></alg:processSequences>`,
			engine(">\n"+bare+"\n>\nACG", ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.ReportText, ReportDate: "d"})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, resp := soapCall(t, s.URL, c.body)
			r := parseSOAP(t, resp)
			if code != 200 || r.FaultString != "" {
				t.Fatalf("%d %s %s", code, r.FaultCode, r.FaultString)
			}
			if atReportTime(r.Part) != c.want {
				t.Errorf("report differs from the engine's\n got %.1500s\nwant %.1500s", r.Part, c.want)
			}
			if !strings.HasPrefix(r.Part, "#") {
				validateReport(t, r.Part)
			}
		})
	}

	// overload 3: one report per sequence
	body := `<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>2</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><methodName/><reportName/><reportDate>d</reportDate><inputData xsi:type="xsd:string">` + xmlText(two) + `</inputData></alg:processSequences>`
	code, resp := soapCall(t, s.URL, body)
	r := parseSOAP(t, resp)
	wants, err := eng.SequenceReports(fasta.Parse(two), ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.Report2009, ReportDate: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if code != 200 || len(r.Items) != 2 || r.Items[0] != wants[0] || r.Items[1] != wants[1] {
		t.Fatalf("overload 3: %d, %d items\n%.600s", code, len(r.Items), resp)
	}
	if !strings.Contains(r.Items[0], "<name>example-PR-RT</name>") || !strings.Contains(r.Items[1], "Sequence too short: 6 nucleotides") {
		t.Errorf("overload 3 reports:\n%.500s\n%.500s", r.Items[0], r.Items[1])
	}
	for _, it := range r.Items {
		validateReport(t, it)
	}
}

// TestReadmeSequenceExample runs the README's processSequencesInFasta curl command against
// the real binary with its development key: an XML 2009 report equal to the bare engine's,
// valid against the XSD.
func TestReadmeSequenceExample(t *testing.T) {
	t.Parallel()
	testkit.RequireTool(t, "curl")
	testkit.RequireTool(t, "xmllint")
	s := startBinary(t)
	command := testkit.MarkdownBlock(t, "README.md", "sh", "## The services", "processSequencesInFasta", "dev-key.txt")
	out := s.runDocumented(t, command, [2]string{"samples", filepath.Join(testkit.RepoRoot(t), "samples")})
	report := strings.TrimSpace(string(out))
	want, err := testEngine(t).SequenceReport(fasta.Parse(testkit.ExampleFASTA(t)), ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.Report2009})
	if err != nil {
		t.Fatal(err)
	}
	if atReportTime(report) != strings.TrimSpace(want) {
		t.Errorf("README report differs from the engine's\n got %.800s\nwant %.800s", report, want)
	}
	validateReport(t, report)
	for _, m := range []string{"M184V", "K103N", "T215Y", "L90M"} {
		if !strings.Contains(report, "<mutationString>"+m+"</mutationString>") {
			t.Errorf("README report has no %s", m)
		}
	}
}

// TestBinaryLargeRequest: a request of 1,000 sequences (1.3 million nucleotides) through the
// real binary: every sequence is analysed and reported in input order.
func TestBinaryLargeRequest(t *testing.T) {
	t.Parallel()
	s := startBinary(t)
	example := testkit.ExampleFASTA(t)
	_, seq, _ := strings.Cut(example, ">example-PR-RT\n")
	var b strings.Builder
	const n = 1000
	for i := range n {
		b.WriteString(">s" + itoa(i+1) + "\n" + seq)
	}
	code, resp := soapCall(t, s.Endpoint, `<alg:processSequencesInFasta><key>`+s.Key+`</key><reportTypeInt>3</reportTypeInt><sequencesInFasta>`+xmlText(b.String())+`</sequencesInFasta></alg:processSequencesInFasta>`)
	env := parseSOAP(t, resp)
	if code != 200 || env.FaultString != "" {
		t.Fatalf("processSequencesInFasta: %d %s %s", code, env.FaultCode, env.FaultString)
	}
	rows := 0
	for _, line := range strings.Split(env.Part, "\n") {
		if strings.HasPrefix(line, itoa(rows+1)+"\ts"+itoa(rows+1)+"\t") {
			if !strings.Contains(line, "\tsuccess\t") {
				t.Fatalf("row %d did not succeed: %.200s", rows+1, line)
			}
			rows++
		}
	}
	if rows != n {
		t.Errorf("%d rows in order, want %d", rows, n)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
