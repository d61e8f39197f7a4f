package align

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
	FirstAA, LastAA int  // its aligned codons
	// Unusual are the mutations of Gene whose one amino acid is unusual in HIV-1 (APOBEC
	// signature mutations and stop codons, which hypermutated HIV-1 also shows, left out).
	Unusual []Mutation
	// Distance to the closest HIV-1 subtype reference (Result.Subtype.Distance).
	Distance float64
}

// Thresholds of NotHIV1, measured on the real sequences of testdata/real: HIV-2 integrase
// (KC693500, IN 69–169) holds 10 unusual amino acids in 101 codons at 27.7% from the
// closest HIV-1 reference, HIV-2 protease (KC693501, when aligned at all) 9 in 98 at 35.7%;
// group O protease 2 in 99 at 23–25%, group M sequences 0 at under 7%.
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
		var unusual []Mutation
		for _, m := range g.Mutations {
			if a.unusualInHIV1(m) {
				unusual = append(unusual, m)
			}
		}
		codons := g.LastAA - g.FirstAA + 1
		if len(unusual) < NotHIV1MinUnusual || float64(len(unusual)) < NotHIV1UnusualShare*float64(codons) {
			continue
		}
		if best == nil || len(unusual)*(best.LastAA-best.FirstAA+1) > len(best.Unusual)*codons {
			best = &NotHIV1{Gene: g.Gene, FirstAA: g.FirstAA, LastAA: g.LastAA, Unusual: unusual, Distance: st.Distance}
		}
	}
	return best
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
