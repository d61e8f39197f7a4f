package align

import "testing"

// TestJunkEnds: non-HIV nucleotides before and after a gene fragment (primers, vector) are
// left out instead of being aligned as mutations. A junk codon or two next to the gene that
// happens to score well may join the alignment (as in any local alignment); no more.
func TestJunkEnds(t *testing.T) {
	a := newTestAligner(t)
	body, want := synth(t, a, 21, 17, synthGene{RT, 40, 250})
	for _, n := range []int{60, 150, 400} {
		seq := flank(n, uint64(n)) + body + flank(n+1, uint64(n+100))
		res := mustAlign(t, a, seq)
		rt := mustGene(t, res, RT)
		if rt.FirstAA < 37 || rt.FirstAA > 40 || rt.LastAA < 250 || rt.LastAA > 253 ||
			rt.FirstNA != n+1-3*(40-rt.FirstAA) || rt.LastNA != n+len(body)+3*(rt.LastAA-250) {
			t.Errorf("junk %d: RT %d-%d / %d-%d", n, rt.FirstAA, rt.LastAA, rt.FirstNA, rt.LastNA)
		}
		var inside []string
		for _, m := range rt.Mutations {
			if m.Position >= 40 && m.Position <= 250 {
				inside = append(inside, m.String())
			}
		}
		sameSet(t, "RT", inside, want[RT])
	}
}
