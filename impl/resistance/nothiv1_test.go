package resistance

import (
	"regexp"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// drugCodes matches the drug codes of every class as the reports print them.
var drugCodes = regexp.MustCompile(`\b(ABC|AZT|3TC|FTC|TDF|EFV|NVP|RPV|DOR|ETR|ATV/r|DRV/r|LPV/r|BIC|CAB|DTG|EVG|RAL)\b`)

// TestNotHIV1InEveryReport: HIV-2 integrase (KC693500), which aligns to HIV-1 IN at 69%,
// is refused as not HIV-1 in every report type — the failure names the gene, the codons
// the evidence was counted over (IN 69–169 as reported and 170–188 trimmed for poor
// quality), its distance from the closest HIV-1 reference and the amino acids HIV-1 does
// not have — and gets no
// drug score; an HIV-1 sequence in the same request is interpreted as before.
func TestNotHIV1InEveryReport(t *testing.T) {
	e := testEngine(t)
	recs := []*fasta.Record{
		testkit.RealRecord(t, "KC693500"),
		testkit.RealRecord(t, "KC913864"), // HIV-1 subtype B PR+RT
	}
	const failure = "not HIV-1: the sequence looks like HIV-2"
	for _, rt := range []ReportType{ReportSimple, ReportDetailed, Report2009, ReportText, ReportHTML} {
		reports, err := e.SequenceReports(recs, Options{Algorithm: AlgorithmHIVDB, ReportType: rt})
		if err != nil {
			t.Fatalf("report type %d: %v", rt, err)
		}
		hiv2, hiv1 := reports[0], reports[1]
		if !strings.Contains(hiv2, failure) || !strings.Contains(hiv2, "Its IN (codons 69–188) is 27.7% from the closest HIV-1 subtype reference, and 16 of its 120 codons") {
			t.Errorf("report type %d: no not-HIV-1 failure:\n%.1500s", rt, hiv2)
		}
		if strings.Contains(hiv1, "not HIV-1") {
			t.Errorf("report type %d: the HIV-1 sequence refused", rt)
		}
		switch rt {
		case ReportText:
			// The header names every drug; the sequence's row must hold no score.
			for _, line := range strings.Split(hiv2, "\n") {
				if !strings.HasPrefix(line, "1\t") {
					continue
				}
				cells := strings.Split(line, "\t")
				if cells[3] != "failure" {
					t.Errorf("status %q", cells[3])
				}
				for i, c := range cells[5:] {
					if c != "" {
						t.Errorf("text report: cell %d of the refused sequence holds %q", i+5, c)
					}
				}
			}
			if !regexp.MustCompile(`\t-?\d+\t[1-5]\t[SIR]\t`).MatchString(hiv1) {
				t.Errorf("text report: no drug level for the HIV-1 sequence")
			}
		default:
			if m := drugCodes.FindString(hiv2); m != "" {
				t.Errorf("report type %d: drug %s in the refused sequence's report", rt, m)
			}
			if !drugCodes.MatchString(hiv1) {
				t.Errorf("report type %d: no drug in the HIV-1 sequence's report", rt)
			}
		}
		if rt == Report2009 && !strings.Contains(hiv2, "<success>false</success>") {
			t.Errorf("XML 2009: the refused sequence is not a failure")
		}
		if rt <= Report2009 {
			validate(t, hiv2)
		}
	}
}
