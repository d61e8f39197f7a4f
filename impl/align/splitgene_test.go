package align

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// splitIndelCodons: an indel this close to a run of N that splits a gene may be misread
// (docs/alignment.md, Limits).
const splitIndelCodons = 10

// TestGeneSplitByN: a long stretch in the middle of RT and of IN of every shared sequence
// (and of the real sequences of testdata/real) is replaced by a run of N as long as the
// codons it replaces, shorter (30 N) or much longer (600 and 1,500 N: more than any single
// alignment crosses). The gene must come out whole, as Stanford reads such a sequence: the
// same codon range, every codon of the stretch unsequenced (never deleted, never a
// mutation), and the mutations and frameshifts on both sides exactly those of the
// unmodified sequence — but next to an indel of the sequence within splitIndelCodons of a
// run longer than one alignment crosses (the known limit, logged).
func TestGeneSplitByN(t *testing.T) {
	a := newTestAligner(t)
	type input struct{ name, seq string }
	var inputs []input
	for _, o := range loadOracles(t) {
		inputs = append(inputs, input{o.name, o.seq})
	}
	for _, r := range loadRealSequences(t) {
		inputs = append(inputs, input{r.accession, r.seq})
	}
	tested := map[Gene]int{}
	for _, in := range inputs {
		orig, err := a.Align([]byte(in.seq))
		if err != nil || orig.NotHIV1 != nil {
			continue
		}
		for _, gene := range []Gene{RT, IN} {
			g := orig.Gene(gene)
			if g == nil || g.LastAA-g.FirstAA+1 < 150 {
				continue
			}
			n := g.LastAA - g.FirstAA + 1
			c1, c2 := g.FirstAA+n/3, g.FirstAA+2*n/3 // codons c1..c2 masked
			at1, at2 := codonOffset0(g, c1), codonOffset0(g, c2+1)
			tested[gene]++
			for _, nN := range []int{at2 - at1, 30, 600, 1500} {
				name := fmt.Sprintf("%s/%s%d-%d as %d N", in.name, gene, c1, c2, nN)
				t.Run(name, func(t *testing.T) {
					seq := in.seq[:at1] + strings.Repeat("N", nN) + in.seq[at2:]
					res, err := a.Align([]byte(seq))
					if err != nil {
						t.Fatal(err)
					}
					got := res.Gene(gene)
					if got == nil {
						t.Fatalf("%s lost: %v", gene, geneRanges(res))
					}
					if got.FirstAA != g.FirstAA || got.LastAA != g.LastAA {
						t.Errorf("%s %d-%d, unmodified %d-%d", gene, got.FirstAA, got.LastAA, g.FirstAA, g.LastAA)
					}
					outside := func(r *GeneResult) (muts, fs []string) {
						for _, m := range r.Mutations {
							if m.Position < c1 || m.Position > c2 {
								muts = append(muts, m.String())
							}
						}
						for _, f := range r.Frameshifts {
							if f.Position < c1 || f.Position > c2 {
								fs = append(fs, f.String())
							}
						}
						return muts, fs
					}
					gm, gf := outside(got)
					wm, wf := outside(g)
					// Known limit (docs/alignment.md, Limits): beyond a run of N longer than
					// one alignment crosses, the part is aligned alone, and an indel within
					// a few codons of the run may be read as mismatching codons instead.
					indelNear := false
					for _, m := range g.Mutations {
						if (m.Deletion || m.Insertion) && (m.Position > c2 && m.Position <= c2+splitIndelCodons || m.Position < c1 && m.Position >= c1-splitIndelCodons) {
							indelNear = true
						}
					}
					if indelNear && nN > at2-at1+smallDiagJump {
						t.Logf("an indel within %d codons of the run: mutations %v, unmodified %v", splitIndelCodons, gm, wm)
					} else if !slices.Equal(gm, wm) || !slices.Equal(gf, wf) {
						t.Errorf("outside the stretch: mutations %v frameshifts %v\nunmodified: mutations %v frameshifts %v", gm, gf, wm, wf)
					}
					for _, m := range got.Mutations {
						if m.Position >= c1 && m.Position <= c2 {
							t.Errorf("mutation %s inside the run of N", m)
						}
					}
					for _, f := range got.Frameshifts {
						if f.Position >= c1 && f.Position <= c2 {
							t.Errorf("frameshift %s inside the run of N", f)
						}
					}
					for k := c1; k <= c2; k++ {
						if !slices.Contains(got.UnsequencedPositions, k) {
							t.Errorf("codon %d not unsequenced (unsequenced: %v)", k, got.UnsequencedPositions)
							break
						}
					}
					if got.UnsequencedCodons != len(got.UnsequencedPositions) || len(got.AlignedAA) != got.LastAA-got.FirstAA+1 || len(got.AlignedNA) != 3*len(got.AlignedAA) {
						t.Errorf("inconsistent: %d unsequenced codons at %d positions, %d aa, %d nt", got.UnsequencedCodons, len(got.UnsequencedPositions), len(got.AlignedAA), len(got.AlignedNA))
					}
					if got.MatchPercent < MinMatchPercent || got.MatchPercent > 100 {
						t.Errorf("match %.1f%%", got.MatchPercent)
					}
				})
			}
		}
	}
	t.Logf("%d RT and %d IN genes, 4 runs of N each", tested[RT], tested[IN])
	if tested[RT] < 10 || tested[IN] < 10 {
		t.Errorf("only %d RT and %d IN genes tested", tested[RT], tested[IN])
	}
}
