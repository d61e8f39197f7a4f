package align

import (
	"errors"
	"testing"
)

// FuzzAlign feeds arbitrary bytes to Align: it must never panic, and must answer either a
// result or one of its documented errors. Seeds: real sequences, their reverse
// complements and fragments, and degenerate inputs.
func FuzzAlign(f *testing.F) {
	a := newTestAligner(f)
	for i, o := range loadOracles(f) {
		if i%4 != 0 {
			continue
		}
		f.Add([]byte(o.seq))
		f.Add([]byte(reverseComplement(o.seq)))
		if len(o.seq) > 400 {
			f.Add([]byte(o.seq[100:400]))
		}
	}
	f.Add([]byte("NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN"))
	f.Add([]byte("BDHVNBDHVNBDHVNBDHVNBDHVNBDHVNBDHVNBDHVNBDHVN"))
	f.Add([]byte("acgt"))
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) > MaxNucleotides+10 {
			in = in[:MaxNucleotides+10]
		}
		res, err := a.Align(in)
		if err != nil {
			if !errors.Is(err, ErrTooShort) && !errors.Is(err, ErrTooLong) &&
				!errors.Is(err, ErrInvalidChar) && !errors.Is(err, ErrNoGene) {
				t.Fatalf("undocumented error %v", err)
			}
			return
		}
		for _, g := range res.Genes {
			if g.FirstAA < 1 || g.LastAA < g.FirstAA || len(g.AlignedAA) != g.LastAA-g.FirstAA+1 ||
				len(g.AlignedNA) != 3*len(g.AlignedAA) {
				t.Fatalf("%s: inconsistent ranges %d-%d, %d aa, %d nt", g.Gene, g.FirstAA, g.LastAA, len(g.AlignedAA), len(g.AlignedNA))
			}
			if g.FirstNA < 1 || g.LastNA > len(res.Analysed) {
				t.Fatalf("%s: nucleotides %d-%d outside 1-%d", g.Gene, g.FirstNA, g.LastNA, len(res.Analysed))
			}
			if g.MatchPercent < MinMatchPercent || g.MatchPercent > 100 {
				t.Fatalf("%s: match %.2f", g.Gene, g.MatchPercent)
			}
			for _, m := range g.Mutations {
				if m.Position < g.FirstAA || m.Position > g.LastAA {
					t.Fatalf("%s: mutation %s outside %d-%d", g.Gene, m, g.FirstAA, g.LastAA)
				}
			}
		}
	})
}
