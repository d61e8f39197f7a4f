package align

import (
	"slices"
	"strings"
	"testing"
)

// A few codons the gene's alignment reads beyond a run of N at its start or end are a
// piece to place where it fits (cutBeyondRun), not where the alignment put them: a run
// shorter than the codons it replaced pulled AF268338's PR 1–4 to 9–12 (a false V11I,
// with 9–10 trimmed) and dropped AF096883's PR 96–99 after a run of 85 N over PR 61–95.
func TestIslandBesideRun(t *testing.T) {
	a := newTestAligner(t)
	seqs := sharedAndRealSequences(t)
	for _, c := range []struct {
		name          string
		from, to, nN  int // nucleotides from..to (1-based) as nN N
		first, last   int // PR's codons then
		island        [2]int
		noMutationsAt []int
	}{
		{"AF268338", 85, 141, 33, 1, 99, [2]int{1, 4}, []int{9, 10, 11, 12}},
		{"RT_INSERTIONS_69_AF096883", 106, 210, 85, 26, 99, [2]int{96, 99}, nil},
		// six codons trimmed between the run and the rest of PR: the piece's place counts them
		{"AF380209", 139, 172, 20, 1, 99, [2]int{1, 3}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			seq := sequenceNamed(t, seqs, c.name)
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

// A run of N at a gene's edge is not read through (cutBeyondRun). The boundary cases of
// TestRealSequenceBoundaries that failed for some seeds on main: PR 92 – RT 26 of AF339014
// replaced by 76 N had RT codon 1 read as CCN (a proline) from the last two nucleotides of
// PR's T91 and the run's first N, so both genes held them and RT ran from codon 1 through
// the run; in the others PR ran through the run to codon 96–97, or RT from codon 1. Each
// gene must now end (start) within 3 codons of where the sequence on its side of the run
// reads alone, and no nucleotide may be in two genes.
func TestNoNucleotideInTwoGenes(t *testing.T) {
	a := newTestAligner(t)
	seqs := sharedAndRealSequences(t)
	for _, c := range []struct {
		accession     string
		prFrom        int // PR prFrom–99 and RT 1–rtTo replaced by nN N
		rtTo, nN      int
		prEnd, rtFrom int // where each side reads alone
	}{
		{"AF339014", 92, 26, 76, 91, 27},
		{"AB751495", 71, 10, 82, 70, 11},
		{"KC913859", 65, 42, 117, 64, 43},
		{"KC913860", 51, 33, 139, 50, 34},
	} {
		t.Run(c.accession, func(t *testing.T) {
			seq := sequenceNamed(t, seqs, c.accession)
			orig, err := a.Align([]byte(seq))
			if err != nil {
				t.Fatal(err)
			}
			c1, c2 := codonOffset0(orig.Gene(PR), c.prFrom), codonOffset0(orig.Gene(RT), c.rtTo+1)
			res, err := a.Align([]byte(seq[:c1] + strings.Repeat("N", c.nN) + seq[c2:]))
			if err != nil {
				t.Fatal(err)
			}
			pr, rt := res.Gene(PR), res.Gene(RT)
			if pr == nil || rt == nil {
				t.Fatalf("genes %v", geneRanges(res))
			}
			if pr.LastNA >= rt.FirstNA {
				t.Errorf("PR ends at nucleotide %d, RT starts at %d: both hold %d-%d", pr.LastNA, rt.FirstNA, rt.FirstNA, pr.LastNA)
			}
			if pr.LastAA > c.prEnd || pr.LastAA < c.prEnd-nEdgeCodons || rt.FirstAA < c.rtFrom || rt.FirstAA > c.rtFrom+nEdgeCodons {
				t.Errorf("genes %v, want PR to %d and RT from %d (within %d codons)", geneRanges(res), c.prEnd, c.rtFrom, nEdgeCodons)
			}
		})
	}
}
