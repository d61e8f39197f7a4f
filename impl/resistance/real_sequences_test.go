package resistance

import (
	"slices"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestRealSequencesThroughTheAnalysis runs the real sequences of impl/align/testdata/real
// (other subtypes than the shared ones, gag before PR, group O, HIV-2, hepatitis B; see its
// README) through the whole sequence analysis as the reports see it: each HIV-1 sequence
// gets exactly the genes of expected.tsv as sequenced and no stop-codon or frameshift
// finding (the gag–PR sequences, which run 13 codons into RT, are told they may also hold
// RT: that part is not analysed, as Stanford's database lists them PR only); HIV-2 protease/RT and hepatitis B fail with the
// "no PR, RT or IN" error; HIV-2 integrase, which aligns to HIV-1 IN at 69%, fails as not
// HIV-1 (nothiv1_test.go checks that failure in every report).
func TestRealSequencesThroughTheAnalysis(t *testing.T) {
	e := testEngine(t)
	want := map[string][]string{} // accession → genes; nil: must fail
	for acc, genes := range testkit.RealExpectations(t) {
		want[acc] = nil
		for _, g := range genes {
			name, _, _ := strings.Cut(g, ":")
			want[acc] = append(want[acc], name)
		}
	}
	recs := testkit.RealSequences(t)
	if len(recs) != len(want) {
		t.Fatalf("%d records, expected.tsv lists %d", len(recs), len(want))
	}
	s, err := e.resolve(Options{Algorithm: AlgorithmHIVDB, ReportType: Report2009})
	if err != nil {
		t.Fatal(err)
	}
	samples := make([]sample, len(recs))
	e.analyseInto(s, samples, recs, 1)
	for i, smp := range samples {
		acc := testkit.Accession(recs[i].Name)
		genes, ok := want[acc]
		if !ok {
			t.Errorf("%s: not in expected.tsv", acc)
			continue
		}
		if genes == nil {
			if !strings.HasPrefix(smp.Err, "no PR, RT or IN found in the sequence") {
				t.Errorf("%s: want the no-gene failure, got %q", acc, smp.Err)
			}
			continue
		}
		if acc == "KC693500" {
			if !strings.HasPrefix(smp.Err, "not HIV-1:") {
				t.Errorf("%s: want the not-HIV-1 failure, got %q", acc, smp.Err)
			}
			continue
		}
		if smp.Err != "" {
			t.Errorf("%s: %s", acc, smp.Err)
			continue
		}
		var sequenced []string
		for _, g := range smp.Genes {
			if g.Sequenced {
				sequenced = append(sequenced, g.Gene)
			}
		}
		if !slices.Equal(sequenced, genes) {
			t.Errorf("%s: sequenced %v, want %v", acc, sequenced, genes)
		}
		severe := ""
		for _, v := range smp.Validation {
			m := strings.ToLower(v.Message)
			if strings.Contains(m, "stop codon") || strings.Contains(m, "frameshift") {
				t.Errorf("%s: %s: %s", acc, v.Level, v.Message)
			}
			if v.Level == LevelSevereWarning {
				severe += v.Message
			}
		}
		if acc == "KC693500" != strings.Contains(severe, "unusual mutations in IN") {
			t.Errorf("%s: severe warnings %q", acc, severe)
		}
	}
}
