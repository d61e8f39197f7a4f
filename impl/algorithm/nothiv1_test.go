package algorithm

import (
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/resistance"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// notHIV1FASTA is HIV-2 integrase (KC693500) and HIV-1 subtype B PR+RT (KC913864) from
// impl/align/testdata/real.
func notHIV1FASTA(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	for _, acc := range []string{"KC693500", "KC913864"} {
		b.WriteString(">" + acc + "\n" + string(testkit.RealRecord(t, acc).Sequence) + "\n")
	}
	return b.String()
}

// TestNotHIV1OverSOAPAndAnalyze: HIV-2 integrase sent to the real binary, over SOAP
// (processSequencesInFasta, XML 2009) and through `sitesvc analyze` (HTML and
// tab-separated text), is refused as not HIV-1 with no drug score, while the HIV-1
// sequence beside it is interpreted; the SOAP answer equals the bare engine's and
// validates against the XSD.
func TestNotHIV1OverSOAPAndAnalyze(t *testing.T) {
	t.Parallel()
	fastaText := notHIV1FASTA(t)
	const failure = "not HIV-1: the sequence looks like HIV-2"

	s := startBinary(t)
	code, resp := soapCall(t, s.Endpoint, `<alg:processSequencesInFasta><key>`+s.Key+`</key><reportTypeInt>2</reportTypeInt><sequencesInFasta>`+xmlText(fastaText)+`</sequencesInFasta></alg:processSequencesInFasta>`)
	if code != 200 {
		t.Fatalf("%d %s", code, resp)
	}
	got := atReportTime(parseSOAP(t, resp).Part)
	want, err := testEngine(t).SequenceReport(fasta.Parse(fastaText), ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.Report2009})
	sameAsEngine(t, "SOAP report", got, want, err)
	results := strings.Split(got, "<result>")
	if len(results) != 3 {
		t.Fatalf("%d results", len(results)-1)
	}
	if !strings.Contains(results[1], "<success>false</success>") || !strings.Contains(results[1], "<errorMessage>"+failure) || strings.Contains(results[1], "<drugScore>") {
		t.Errorf("HIV-2 integrase over SOAP:\n%.2000s", results[1])
	}
	if !strings.Contains(results[2], "<success>true</success>") || !strings.Contains(results[2], "<drugScore>") {
		t.Errorf("HIV-1 PR+RT over SOAP:\n%.1000s", results[2])
	}

	for _, report := range []string{"html", "tsv"} {
		text, stderr := analyze(t, fastaText, report)
		if !strings.Contains(text, failure) || !strings.Contains(text, "27.7% from the closest HIV-1 subtype reference") {
			t.Errorf("analyze --report %s: no not-HIV-1 failure:\n%.1500s", report, text)
		}
		if !strings.Contains(stderr, "(1 failed)") {
			t.Errorf("analyze --report %s: %s", report, stderr)
		}
		if report == "html" {
			// one page per sequence: the HIV-2 one holds the failure and no drug table
			_, pages, _ := strings.Cut(text, `id="input-1"`)
			hiv2, hiv1, ok := strings.Cut(pages, `id="input-2"`)
			if !ok || !strings.Contains(hiv2, failure) || strings.Contains(strings.ToLower(hiv2), "dolutegravir") || !strings.Contains(strings.ToLower(hiv1), "lamivudine") {
				t.Errorf("HTML pages:\n%.3000s", pages)
			}
		}
	}
}
