package align

import "slices"

// Recognising a sequence that is not HIV-1 (docs/alignment.md, "Not HIV-1").
//
// Stanford's HIV-1 program once put HIV-2 references among its genotype references and,
// when the closest one was HIV-2, reported "The sequence is from an HIV-2 virus" and went
// no further (hivdb/sierra, SequenceValidator.validateNotHIV2); HIV-2 now has a program of
// its own. The references here are HIV-1's alone, so a sequence is judged by what they do
// tell: how far it lies from every HIV-1 reference, and how many of its amino acids HIV-1
// group M (almost) never has.

// NotHIV1 is the evidence that an aligned sequence is not HIV-1 (HIV-2, say, whose
// integrase aligns to HIV-1's at about 70%): it is farther than UnknownDistance from every
// HIV-1 subtype reference, and one of its genes holds at least NotHIV1MinUnusual amino
// acids that are unusual in HIV-1 (rx-all_subtype-all.csv), at least NotHIV1UnusualShare
// of its codons. Group O (HIV-1, 23–25% from the group M references but with 2 such amino
// acids in 99 PR codons) is not flagged. The resistance reports refuse to interpret such a
// sequence.
type NotHIV1 struct {
	Gene            Gene // the gene with the largest share of unusual amino acids
	FirstAA, LastAA int  // the codons the evidence was counted over: the gene's, with those trimmed for poor quality
	// Unusual are the mutations of Gene whose one amino acid is unusual in HIV-1 (APOBEC
	// signature mutations and stop codons, which hypermutated HIV-1 also shows, left out).
	Unusual []Mutation
	// Distance to the closest HIV-1 subtype reference (Result.Subtype.Distance).
	Distance float64
}

// Thresholds of NotHIV1, measured on the real sequences of testdata/real: HIV-2 integrase
// (KC693500, IN 69–169 and 170–188 trimmed) holds 16 unusual amino acids in 120 codons
// (10 in the 101 reported) at 27.7% from the closest HIV-1 reference, HIV-2 protease
// (KC693501, when aligned at all) 9 in 98 at 35.7%; group O protease 2 in 99 at 23–25%,
// group M sequences 0 at under 7%; HIV-2 RT of testdata/unseen (KC440892) 13 in 198 at
// 27.3%, of which only 9 in the 189 codons left after trimming (4.8%).
const (
	NotHIV1MinUnusual   = 5
	NotHIV1UnusualShare = 0.05
)

// notHIV1 returns the evidence that res is not HIV-1, or nil.
func (a *Aligner) notHIV1(res *Result) *NotHIV1 {
	st := res.Subtype
	if st.Compared < MinSubtypeNAs || st.Distance <= unknownDistance {
		return nil
	}
	var best *NotHIV1
	for i := range res.Genes {
		g := &res.Genes[i]
		unusual, first, last := a.unusualEvidence(g)
		codons := last - first + 1
		if len(unusual) < NotHIV1MinUnusual || float64(len(unusual)) < NotHIV1UnusualShare*float64(codons) {
			continue
		}
		if best == nil || len(unusual)*(best.LastAA-best.FirstAA+1) > len(best.Unusual)*codons {
			best = &NotHIV1{Gene: g.Gene, FirstAA: first, LastAA: last, Unusual: unusual, Distance: st.Distance}
		}
	}
	return best
}

// unusualEvidence returns the amino acids of g that HIV-1 (almost) never has, in codon
// order, and the codons they were counted over: those reported and those trimmed for poor
// quality at either end, which are trimmed precisely because they hold such amino acids
// (an HIV-2 RT read at 70% lost 9 of them to trimming, which left 9 in 189 codons, under
// NotHIV1UnusualShare; counted with them, 13 in 198).
func (a *Aligner) unusualEvidence(g *GeneResult) (unusual []Mutation, first, last int) {
	for _, m := range g.Mutations {
		if a.unusualInHIV1(m) {
			unusual = append(unusual, m)
		}
	}
	for _, m := range g.trimmedMutations {
		if a.unusualInHIV1(m) {
			unusual = append(unusual, m)
		}
	}
	slices.SortStableFunc(unusual, func(x, y Mutation) int { return x.Position - y.Position })
	return unusual, g.FirstAA - g.LeftTrimmed, g.LastAA + g.RightTrimmed
}

// unusualInHIV1 tells whether m is a codon read as one amino acid that HIV-1 group M almost
// never has at that position: not a mixture (whose expansions may be noise), not a stop and
// not an APOBEC signature mutation (both common in hypermutated HIV-1).
func (a *Aligner) unusualInHIV1(m Mutation) bool {
	if m.Deletion || m.Partial || m.Mixture || len(m.AAs) != 1 || m.AAs[0] == m.Consensus || m.AAs[0] == '*' {
		return false
	}
	x := aaIndex(m.AAs[0])
	tab, apobec := a.unusual[m.Gene], a.apobec[m.Gene]
	if x < 0 || m.Position < 1 || m.Position > len(tab) {
		return false
	}
	bit := uint32(1) << uint(x)
	return tab[m.Position-1]&bit != 0 && apobec[m.Position-1]&bit == 0
}
