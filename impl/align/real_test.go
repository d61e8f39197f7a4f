package align

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// realSequence is one real sequence of testdata/real (origin and licence in its README).
type realSequence struct {
	file, name, accession string
	seq                   string
}

// loadRealSequences reads every FASTA file of testdata/real with the project's FASTA reader.
func loadRealSequences(t testing.TB) []realSequence {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "real", "*.fasta"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no real sequences: %v", err)
	}
	var out []realSequence
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := fasta.ReadAll(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, r := range recs {
			if r.RemovedCount() > 0 {
				t.Fatalf("%s %s: characters removed: %s", f, r.Name, r.RemovedSummary())
			}
			out = append(out, realSequence{file: filepath.Base(f), name: r.Name, accession: accessionOf(r.Name), seq: string(r.Sequence)})
		}
	}
	return out
}

// accessionOf finds the GenBank accession in a FASTA header: the field after "gb|" or
// "dbj|" of an NCBI header, else the first word.
func accessionOf(header string) string {
	fields := strings.Split(header, "|")
	for i, f := range fields {
		if (f == "gb" || f == "dbj" || f == "emb") && i+1 < len(fields) {
			acc, _, _ := strings.Cut(fields[i+1], ".")
			return acc
		}
	}
	word, _, _ := strings.Cut(header, " ")
	return word
}

// randomBoundaryCases draws n more cases at the boundary between x and y from rng: codons
// deleted on either side or across, codons masked with N, a run of N of another length
// than the codons it replaces, and a boundary codon cut short together with deleted codons.
func randomBoundaryCases(t *testing.T, rng *rand.Rand, n int, seq string, x, y *GeneResult) []boundaryCase {
	t.Helper()
	at := func(g *GeneResult, k int) int { return codonOffset0(g, k) }
	xl, yf := x.LastAA, y.FirstAA
	// never cut away more of a gene than leaves its minimum size and some margin
	maxLeft := min(60, x.LastAA-x.FirstAA+1-minCodons(x.Gene)-10)
	maxRight := min(60, y.LastAA-y.FirstAA+1-minCodons(y.Gene)-10)
	if maxLeft < 1 || maxRight < 1 {
		return nil
	}
	var cs []boundaryCase
	add := func(name string, cut1, cut2 int, middle string, tolerance int) {
		cs = append(cs, boundaryCase{name: name, cut1: cut1, cut2: cut2, middle: middle, left: x.Gene, right: y.Gene, tolerance: tolerance})
	}
	for range n {
		kl, kr := 1+rng.IntN(maxLeft), 1+rng.IntN(maxRight)
		switch rng.IntN(5) {
		case 0:
			add(fmt.Sprintf("%s%d-%d deleted", y.Gene, yf, yf+kr-1), at(x, xl+1), at(y, yf+kr), "", 1)
		case 1:
			add(fmt.Sprintf("%s%d-%d deleted", x.Gene, xl-kl+1, xl), at(x, xl-kl+1), at(y, yf), "", 1)
		case 2:
			c1, c2 := at(x, xl-kl+1), at(y, yf+kr)
			add(fmt.Sprintf("%s%d-%d and %s%d-%d masked with N", x.Gene, xl-kl+1, xl, y.Gene, yf, yf+kr-1), c1, c2, strings.Repeat("N", c2-c1), 0)
		case 3:
			c1, c2 := at(x, xl-kl+1), at(y, yf+kr)
			nN := 1 + rng.IntN(300)
			add(fmt.Sprintf("%s%d-%d and %s%d-%d replaced by %d N", x.Gene, xl-kl+1, xl, y.Gene, yf, yf+kr-1, nN), c1, c2, strings.Repeat("N", nN), 1)
		default:
			cut := 1 + rng.IntN(2)
			add(fmt.Sprintf("%s%d shortened by %d nt and %s%d-%d deleted", x.Gene, xl, cut, y.Gene, yf, yf+kr-1), at(x, xl+1)-cut, at(y, yf+kr), "", 6)
		}
	}
	return cs
}

// minCodons is the number of codons a gene needs to be kept (HIVDB's minNumOfAA).
func minCodons(g Gene) int {
	if g == PR {
		return 30
	}
	return 50
}

// TestRealSequenceBoundaries is issue 21 item 1 on real sequences beyond the shared ones
// (testdata/real): at every boundary a sequence covers (PR/RT, RT/IN), the fixed cases of
// TestGeneBoundaries and random ones (seed logged; replay with the seed variable) delete,
// mask or cut codons, and each gene must align as the unmodified part holding it aligns
// alone: no gene lost, no codon moved into the neighbouring gene.
func TestRealSequenceBoundaries(t *testing.T) {
	a := newTestAligner(t)
	rng := rand.New(rand.NewPCG(testkit.Seed(t), 21))
	tested := 0
	for _, s := range loadRealSequences(t) {
		orig, err := a.Align([]byte(s.seq))
		if err != nil {
			continue // not HIV-1: TestRealSequences checks the error
		}
		for _, bd := range [][2]Gene{{PR, RT}, {RT, IN}} {
			x, y := orig.Gene(bd[0]), orig.Gene(bd[1])
			if x == nil || y == nil || x.LastAA != len(a.Consensus(x.Gene)) || y.FirstAA != 1 {
				continue
			}
			tested++
			cases := append(boundaryCases(t, s.seq, x, y), randomBoundaryCases(t, rng, 6, s.seq, x, y)...)
			for _, c := range cases {
				t.Run(s.accession+"/"+c.name, func(t *testing.T) {
					checkBoundaryCase(t, a, s.seq, orig, c)
				})
			}
		}
	}
	if tested < 15 {
		t.Errorf("only %d boundaries of real sequences tested", tested)
	}
}
