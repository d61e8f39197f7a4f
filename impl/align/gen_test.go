package align

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Deterministic synthetic sequences for unit tests and benchmarks: the consensus
// back-translated with varied codons, then edited.

// codonsFor lists the standard codons of each amino acid.
var codonsFor = func() map[byte][]string {
	m := map[byte][]string{}
	bases := "TCAG"
	for i := 0; i < 64; i++ {
		c := string([]byte{bases[i/16], bases[i/4%4], bases[i%4]})
		aa := geneticCode[i]
		m[aa] = append(m[aa], c)
	}
	return m
}()

// backTranslate returns nucleotides coding aas, choosing codons with rng.
func backTranslate(aas string, rng *rand.Rand) string {
	var b strings.Builder
	for i := 0; i < len(aas); i++ {
		cs := codonsFor[aas[i]]
		b.WriteString(cs[rng.IntN(len(cs))])
	}
	return b.String()
}

// synth builds a sequence of the given genes' consensus with a substitution every
// substEvery codons (0: none); it returns the nucleotides and the expected mutations
// (gene → "M41L" strings).
type synthGene struct {
	gene Gene
	from int // first codon (1-based)
	to   int // last codon
}

func synth(t testing.TB, a *Aligner, seed uint64, substEvery int, genes ...synthGene) (string, map[Gene][]string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b strings.Builder
	want := map[Gene][]string{}
	for _, g := range genes {
		cons := a.Consensus(g.gene)
		for pos := g.from; pos <= g.to; pos++ {
			aa := cons[pos-1]
			if substEvery > 0 && pos%substEvery == 0 && pos > 3 && pos < len(cons)-3 {
				// A conservative substitution that is common in HIV-1 (I/V, K/R, …), so
				// that trimming rules for unusual mutations do not interfere.
				if alt, ok := commonSwap[aa]; ok {
					aa = alt
					want[g.gene] = append(want[g.gene], string(cons[pos-1])+itoa(pos)+string(alt))
				}
			}
			b.WriteString(backTranslate(string(aa), rng))
		}
	}
	return b.String(), want
}

var commonSwap = map[byte]byte{'I': 'V', 'V': 'I', 'K': 'R', 'R': 'K', 'E': 'D', 'D': 'E', 'T': 'S', 'S': 'T'}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for i > 0 {
		b = append([]byte{byte('0' + i%10)}, b...)
		i /= 10
	}
	return string(b)
}

// flank returns n deterministic nucleotides that code for nothing HIV-like.
func flank(n int, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = "ACGT"[rng.IntN(4)]
	}
	return string(b)
}

// reverseComplement of an IUPAC string.
func reverseComplement(s string) string {
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		b[len(s)-1-i] = complement[s[i]]
	}
	return string(b)
}
