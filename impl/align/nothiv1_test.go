package align

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotHIV1 checks the rule that tells a sequence that is not HIV-1 (nothiv1.go): HIV-2
// integrase (KC693500, which aligns to HIV-1 IN 69–169 at 69%) is flagged, with the
// amino acids that tell it; no HIV-1 sequence is — the real ones of testdata/real (group
// O among them), the shared ones (an APOBEC-hypermutated one among them), Stanford's
// fixtures of testdata/sierra and, without -short, the 720 subtype references. The
// largest share of unusual amino acids in any HIV-1 gene is logged: it must stay well
// below NotHIV1UnusualShare, the rule's margin.
func TestNotHIV1(t *testing.T) {
	a := newTestAligner(t)
	type seq struct{ name, nt string }
	var hiv1 []seq
	flagged := 0
	for _, r := range loadRealSequences(t) {
		if r.accession != "KC693500" {
			hiv1 = append(hiv1, seq{r.accession, r.seq})
			continue
		}
		res, err := a.Align([]byte(r.seq))
		if err != nil {
			t.Fatalf("HIV-2 integrase: %v", err)
		}
		nh := res.NotHIV1
		if nh == nil {
			t.Fatalf("HIV-2 integrase not flagged: subtype %+v, genes %v", res.Subtype, geneRanges(res))
		}
		flagged++
		// The evidence counts the codons trimmed for poor quality too (IN 170–188, trimmed
		// for the unusual amino acids they hold): IN 69–188.
		in := res.Gene(IN)
		if nh.Gene != IN || in == nil || nh.FirstAA != 69 || nh.LastAA != 169+in.RightTrimmed || in.RightTrimmed == 0 || len(nh.Unusual) < 9 || nh.Distance <= UnknownDistance {
			t.Errorf("evidence %+v", nh)
		}
		for _, m := range nh.Unusual {
			if m.Gene != IN || len(m.AAs) != 1 || m.AAs[0] == m.Consensus || m.Position < nh.FirstAA || m.Position > nh.LastAA {
				t.Errorf("unusual amino acid %s (%+v)", m, m)
			}
		}
		// Its genes are still given (the reports refuse to interpret them).
		if got := geneRanges(res); len(got) != 1 || got[0] != "IN:69-169:1-303" {
			t.Errorf("genes %v", got)
		}
	}
	if flagged != 1 {
		t.Fatalf("HIV-2 integrase not among the real sequences")
	}
	for _, o := range loadOracles(t) {
		hiv1 = append(hiv1, seq{o.name, o.seq})
	}
	files, err := filepath.Glob(filepath.Join("testdata", "sierra", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no Sierra fixtures: %v", err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		hiv1 = append(hiv1, seq{filepath.Base(f), strings.TrimSpace(string(b))})
	}
	if !testing.Short() {
		for _, ref := range a.genotyper.refs {
			hiv1 = append(hiv1, seq{ref.accession, strings.ReplaceAll(string(ref.seq), "-", "")})
		}
	}
	maxShare, maxName := 0.0, ""
	for _, s := range hiv1 {
		res, err := a.Align([]byte(s.nt))
		if err != nil {
			continue // HIV-2 protease/RT and hepatitis B: no gene (TestRealSequences)
		}
		if res.NotHIV1 != nil {
			t.Errorf("%s (HIV-1, subtype %s) flagged as not HIV-1: %+v", s.name, res.Subtype.Display, res.NotHIV1)
		}
		for i := range res.Genes {
			unusual, first, last := a.unusualEvidence(&res.Genes[i])
			g := res.Genes[i]
			if share := float64(len(unusual)) / float64(last-first+1); share > maxShare {
				maxShare, maxName = share, s.name+" "+string(g.Gene)
			}
		}
	}
	if maxShare > NotHIV1UnusualShare*0.7 {
		t.Errorf("%s: %.1f%% of its codons unusual, too close to the limit of %.0f%%", maxName, 100*maxShare, 100*NotHIV1UnusualShare)
	}
	t.Logf("%d HIV-1 sequences: the largest share of unusual amino acids in a gene is %.1f%% (%s)", len(hiv1), 100*maxShare, maxName)
}
