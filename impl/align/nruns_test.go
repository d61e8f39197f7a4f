package align

import (
	"slices"
	"strings"
	"testing"
)

// A few codons the gene's alignment reads beyond a run of N at its start or end are a
// piece to place where it fits (cutIsland), not where the alignment put them: a run
// shorter than the codons it replaced pulled AF268338's PR 1–4 to 9–12 (a false V11I,
// with 9–10 trimmed) and dropped AF096883's PR 96–99 after a run of 85 N over PR 61–95.
func TestIslandBesideRun(t *testing.T) {
	a := newTestAligner(t)
	seqs := map[string]string{}
	for _, in := range sharedAndRealSequences(t) {
		seqs[in.name] = in.seq
	}
	for _, c := range []struct {
		name          string
		from, to, nN  int // nucleotides from..to (1-based) as nN N
		first, last   int // PR's codons then
		island        [2]int
		noMutationsAt []int
	}{
		{"AF268338", 85, 141, 33, 1, 99, [2]int{1, 4}, []int{9, 10, 11, 12}},
		{"RT_INSERTIONS_69_AF096883", 106, 210, 85, 26, 99, [2]int{96, 99}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			seq, ok := seqs[c.name]
			if !ok {
				t.Fatalf("%s is not among the shared and real sequences", c.name)
			}
			orig, err := a.Align([]byte(seq))
			if err != nil {
				t.Fatal(err)
			}
			res, err := a.Align([]byte(seq[:c.from-1] + strings.Repeat("N", c.nN) + seq[c.to:]))
			if err != nil {
				t.Fatal(err)
			}
			g, o := res.Gene(PR), orig.Gene(PR)
			if g == nil || g.FirstAA != c.first || g.LastAA != c.last {
				t.Fatalf("PR %v, want codons %d-%d", geneRanges(res), c.first, c.last)
			}
			// the island reads as in the unmasked sequence
			for k := c.island[0]; k <= c.island[1]; k++ {
				if got, want := g.AlignedAA[k-g.FirstAA], o.AlignedAA[k-o.FirstAA]; got != want {
					t.Errorf("PR %d read %c, %c without the run", k, got, want)
				}
			}
			for _, m := range g.Mutations {
				if slices.Contains(c.noMutationsAt, m.Position) {
					t.Errorf("mutation %s, where the island was misplaced", m)
				}
			}
		})
	}
}
