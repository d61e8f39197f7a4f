package algorithm

import (
	"encoding/xml"
	"slices"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestAnalyzeGeneSplitByN runs `sitesvc analyze` on the real binary with a shared
// PR+RT+IN sequence whose RT codons 121–220 are replaced by 600 N and IN codons 101–180 by
// 900 N (more than one alignment crosses): RT and IN come out whole (1–560, 1–288) with
// the stretches unsequenced (and named so in the report's findings), and every mutation
// outside them as in the unmodified sequence, with their drug scores.
func TestAnalyzeGeneSplitByN(t *testing.T) {
	t.Parallel()
	shared := testkit.ReadHIVDBSequence(t, "PRRTIN_AB097865")
	seq := shared.Sequence
	// 0-based start of codon 1 of RT (no indel before codon 221) and of IN, less one for
	// IN6's missing nucleotide (IN6del1bp), so that codon k > 6 starts at in+3(k-1)
	rt, in := shared.Genes["RT"].FirstNA-1, shared.Genes["IN"].FirstNA-2
	masked := seq[:rt+3*120] + strings.Repeat("N", 600) + seq[rt+3*220:in+3*100] + strings.Repeat("N", 900) + seq[in+3*180:]
	out, _ := analyze(t, ">whole\n"+seq+"\n>split\n"+masked+"\n", "xml2009")
	var rep report2009
	if err := xml.Unmarshal([]byte(out), &rep); err != nil || len(rep.Results) != 2 {
		t.Fatalf("report (%v):\n%.600s", err, out)
	}
	whole, split := rep.Results[0], rep.Results[1]
	for _, c := range []struct {
		gene           string
		last, from, to int
	}{{"RT", 560, 121, 220}, {"IN", 288, 101, 180}} {
		var w, s []string
		unsequenced := -1
		for _, g := range whole.GeneData {
			if g.Gene == c.gene {
				for _, m := range g.Mutations {
					if m.Position < c.from || m.Position > c.to {
						w = append(w, m.String)
					}
				}
			}
		}
		for _, g := range split.GeneData {
			if g.Gene != c.gene {
				continue
			}
			if !g.Present || g.FirstAA != 1 || g.LastAA != c.last {
				t.Errorf("%s: present %v, %d-%d; want 1-%d", c.gene, g.Present, g.FirstAA, g.LastAA, c.last)
			}
			for _, m := range g.Mutations {
				if m.Position >= c.from && m.Position <= c.to {
					t.Errorf("%s: mutation %s inside the run of N", c.gene, m.String)
				}
				s = append(s, m.String)
			}
			unsequenced = g.Unsequenced
		}
		if len(w) == 0 || !slices.Equal(s, w) {
			t.Errorf("%s mutations %v, unmodified (outside %d–%d) %v", c.gene, s, c.from, c.to, w)
		}
		if unsequenced != c.to-c.from+1 {
			t.Errorf("%s: %d unsequenced codons, want %d", c.gene, unsequenced, c.to-c.from+1)
		}
	}
	for _, w := range []string{"There are 100 RT positions in unsequenced regions: 121–220", "There are 80 IN positions in unsequenced regions: 101–180"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("report: no %q", w)
		}
	}
	if !slices.Equal(split.Drugs, whole.Drugs) || len(split.Drugs) == 0 {
		t.Errorf("drugs %v, unmodified %v", split.Drugs, whole.Drugs)
	}
}

// TestAnalyzeCodonsBesideRunsOfN runs `sitesvc analyze` on the real binary with two real
// sequences whose runs of N once cost codons beside them (docs/alignment.md, "Codons
// beside a run of N"): the shared RT_DELETIONS_69_AF277620 with RT 100–160 replaced by
// 600 N, whose I167–Q174 deletion six codons after the run was read E169Q … Q174K, and
// the gag–PR AF268327 of testdata/real with its nucleotides 101–199 (PR 10–42) replaced by
// 142 N, whose PR 1–9 before the run were dropped. Each gene must come out with the
// unmodified range and every mutation outside the run as in the unmodified sequence.
func TestAnalyzeCodonsBesideRunsOfN(t *testing.T) {
	t.Parallel()
	af277620 := testkit.ReadHIVDBSequence(t, "RT_DELETIONS_69_AF277620").Sequence // RT 41–219 from nucleotide 1
	af268327 := string(testkit.RealRecord(t, "AF268327").Sequence)
	for _, c := range []struct {
		name, whole, masked string
		gene                string
		from, to            int // codons the run replaced
	}{
		{"AF277620", af277620, af277620[:3*59] + strings.Repeat("N", 600) + af277620[3*120:], "RT", 100, 160},
		{"AF268327", af268327, af268327[:100] + strings.Repeat("N", 142) + af268327[199:], "PR", 10, 43},
	} {
		out, _ := analyze(t, ">whole\n"+c.whole+"\n>masked\n"+c.masked+"\n", "xml2009")
		var rep report2009
		if err := xml.Unmarshal([]byte(out), &rep); err != nil || len(rep.Results) != 2 {
			t.Fatalf("%s: report (%v):\n%.600s", c.name, err, out)
		}
		type reading struct {
			first, last int
			mutations   []string
		}
		read := func(r int) (g reading) {
			for _, gd := range rep.Results[r].GeneData {
				if gd.Gene == c.gene && gd.Present {
					g.first, g.last = gd.FirstAA, gd.LastAA
					for _, m := range gd.Mutations {
						if m.Position < c.from || m.Position > c.to {
							g.mutations = append(g.mutations, m.String)
						}
					}
				}
			}
			return g
		}
		whole, masked := read(0), read(1)
		if whole.first == 0 || len(whole.mutations) == 0 {
			t.Fatalf("%s: unmodified %s %+v", c.name, c.gene, whole)
		}
		if masked.first != whole.first || masked.last != whole.last || !slices.Equal(masked.mutations, whole.mutations) {
			t.Errorf("%s %s with a run of N over %d-%d: %d-%d %v\nunmodified %d-%d %v", c.name, c.gene, c.from, c.to,
				masked.first, masked.last, masked.mutations, whole.first, whole.last, whole.mutations)
		}
	}
}
