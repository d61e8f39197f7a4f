package algorithm

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/resistance"
)

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
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("mutation list report differs from the engine's\n got %.400s\nwant %.400s", got, want)
	}
	validateReport(t, got)
	for _, w := range []string{"<isApobecDRM>true</isApobecDRM>", `<apobecDRM gene="PR">D30N</apobecDRM>`,
		"3 APOBEC signature mutations (G-to-A hypermutation): PR: W6*, D29N, G48R. 1 drug-resistance mutation may be caused by APOBEC hypermutation rather than drug selection: PR: D30N"} {
		if !strings.Contains(got, w) {
			t.Errorf("mutation list report: no %q", w)
		}
	}

	example := exampleFASTA(t)
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
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("sequence report differs from the engine's\n got %.400s\nwant %.400s", got, want)
	}
	validateReport(t, got)
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
