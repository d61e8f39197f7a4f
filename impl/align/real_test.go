package align

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
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
	var out []realSequence
	for _, f := range testkit.Files(t, filepath.Join(testkit.RealSequencesDir(t), "*.fasta")) {
		recs, err := fasta.ReadAll(bytes.NewReader(f.Data))
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		for _, r := range recs {
			if r.RemovedCount() > 0 {
				t.Fatalf("%s %s: characters removed: %s", f.Path, r.Name, r.RemovedSummary())
			}
			out = append(out, realSequence{file: filepath.Base(f.Path), name: r.Name, accession: testkit.Accession(r.Name), seq: string(r.Sequence)})
		}
	}
	return out
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
			// (a run longer than the codons it replaces may cost a mismatching codon next
			// to it: docs/alignment.md, Limits)
			c1, c2 := at(x, xl-kl+1), at(y, yf+kr)
			nN := (c2-c1)/2 + rng.IntN((c2-c1)/2+1)
			add(fmt.Sprintf("%s%d-%d and %s%d-%d replaced by %d N", x.Gene, xl-kl+1, xl, y.Gene, yf, yf+kr-1, nN), c1, c2, strings.Repeat("N", nN), nEdgeCodons)
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
	if tested < 20 {
		t.Errorf("only %d boundaries of real sequences tested", tested)
	}
}

func geneRanges(res *Result) []string {
	var out []string
	for _, g := range res.Genes {
		out = append(out, fmt.Sprintf("%s:%d-%d:%d-%d", g.Gene, g.FirstAA, g.LastAA, g.FirstNA, g.LastNA))
	}
	return out
}

// TestRealSequences aligns every real sequence of testdata/real (other subtypes than the
// shared ones: CRF02_AG, A3, CRF06_cpx from Ghana; CRF01_AE, B and C from Myanmar with gag
// before PR; gag–PR sequences of group M and group O; HIV-2 and hepatitis B virus) and
// requires the gene ranges of expected.tsv, which were checked by hand (README.md). It
// also checks what holds for any real sequence: no stop codon or frameshift where the
// sequence has none, codon 1 of PR and RT read from a proline codon, and a gene running to
// the sequence's end ending at the last whole codon the sequence holds.
func TestRealSequences(t *testing.T) {
	a := newTestAligner(t)
	want := testkit.RealExpectations(t)
	seen := 0
	for _, s := range loadRealSequences(t) {
		t.Run(s.accession, func(t *testing.T) {
			exp, ok := want[s.accession]
			if !ok {
				t.Fatalf("%s (%s) has no line in expected.tsv", s.accession, s.file)
			}
			seen++
			res, err := a.Align([]byte(s.seq))
			if exp == nil {
				// Not HIV-1 pol (HIV-2 protease and RT, hepatitis B virus): a clear error.
				if !errors.Is(err, ErrNoGene) {
					t.Fatalf("want ErrNoGene, got %v (%v)", err, resGenes(res))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := geneRanges(res); !slices.Equal(got, exp) {
				t.Errorf("genes %v, want %v", got, exp)
			}
			if res.ReverseComplemented {
				t.Error("reverse complemented")
			}
			for _, g := range res.Genes {
				if g.StopCodons != 0 || len(g.Frameshifts) != 0 {
					t.Errorf("%s: %d stop codons, frameshifts %v", g.Gene, g.StopCodons, g.Frameshifts)
				}
				if (g.Gene == PR || g.Gene == RT) && g.FirstAA == 1 && g.AlignedNA[:2] != "CC" {
					t.Errorf("%s codon 1 read from %q, not a proline codon", g.Gene, g.AlignedNA[:3])
				}
				if g.LastNA > len(s.seq)-3 && g.LastAA < len(a.Consensus(g.Gene)) {
					if whole := g.FirstAA - 1 + (len(s.seq)-g.FirstNA+1)/3; g.LastAA != whole {
						t.Errorf("%s ends at %d, the sequence holds codons to %d", g.Gene, g.LastAA, whole)
					}
				}
			}
		})
	}
	if seen != len(want) {
		t.Errorf("%d sequences aligned, expected.tsv lists %d", seen, len(want))
	}
}

func resGenes(res *Result) []string {
	if res == nil {
		return nil
	}
	return geneRanges(res)
}

// Known limits of reading a run of N (docs/alignment.md, Limits): a piece of up to
// isolatedCodons codons cut off between a run of N and a gene's end may be dropped with the
// run, and up to nEdgeCodons codons next to a run whose length differs from the codons it
// replaces may be read as part of it.
const (
	isolatedCodons = 5
	nEdgeCodons    = 3
)

// TestRealSequenceForms reads each real HIV-1 sequence in the forms people paste — lower
// case, Windows line endings, gap characters of an aligned FASTA, the reverse complement,
// foreign sequence before and after, codons masked with N — through the FASTA reader and
// requires the same genes, codon ranges and mutations (the codons masked with N aside).
func TestRealSequenceForms(t *testing.T) {
	a := newTestAligner(t)
	rng := rand.New(rand.NewPCG(testkit.Seed(t), 7))
	wrap := func(s string, width int, eol string) string {
		var b strings.Builder
		for len(s) > width {
			b.WriteString(s[:width] + eol)
			s = s[width:]
		}
		b.WriteString(s + eol)
		return b.String()
	}
	for _, s := range loadRealSequences(t) {
		orig, err := a.Align([]byte(s.seq))
		if err != nil || s.file == "not_hiv1.fasta" {
			continue
		}
		mask := 3 * (5 + rng.IntN(20)) // a run of N inside the sequence, codon-aligned or not
		at := 60 + rng.IntN(len(s.seq)-mask-120)
		forms := map[string]string{
			"lower case, CRLF":   ">" + s.name + "\r\n" + wrap(strings.ToLower(s.seq), 60, "\r\n"),
			"aligned FASTA gaps": ">x\n" + wrap(strings.ReplaceAll(wrap(s.seq, 50, "-"), "\n", ""), 70, "\n"),
			"reverse complement": ">rc\n" + wrap(reverseComplement(s.seq), 80, "\n"),
			// (only before: a foreign tail may be read as a few more codons of a gene ending
			// there, as the free end of an alignment allows)
			"foreign sequence before": ">flank\n" + flank(300, 5) + s.seq,
			"N run":                   ">n\n" + s.seq[:at] + strings.Repeat("N", mask) + s.seq[at+mask:],
		}
		for name, text := range forms {
			t.Run(s.accession+"/"+name, func(t *testing.T) {
				recs := fasta.Parse(text)
				if len(recs) != 1 {
					t.Fatalf("%d records", len(recs))
				}
				res, err := a.Align(recs[0].Sequence)
				if err != nil {
					t.Fatal(err)
				}
				if res.ReverseComplemented != (name == "reverse complement") {
					t.Errorf("reverse complemented: %v", res.ReverseComplemented)
				}
				for _, g := range orig.Genes {
					got := res.Gene(g.Gene)
					if got == nil {
						t.Errorf("%s lost", g.Gene)
						continue
					}
					if name == "N run" {
						// Codons the run masks at a gene's end are unsequenced and dropped;
						// every codon outside it stays.
						masked := func(k int) bool {
							off := codonOffset0(&g, k)
							return off+3 > at && off < at+mask
						}
						// The codons that must stay: from the first unmasked codon to the
						// last, but a piece of up to isolatedCodons codons cut off between
						// the run and the gene's end may go with it (docs/alignment.md).
						lo, hi := g.FirstAA, g.LastAA
						for lo < hi && masked(lo) {
							lo++
						}
						for hi > lo && masked(hi) {
							hi--
						}
						if k := lo; k < hi {
							for k < hi && !masked(k) {
								k++
							}
							if k-lo <= isolatedCodons && masked(k) {
								for k < hi && masked(k) {
									k++
								}
								lo = k
							}
						}
						if k := hi; k > lo {
							for k > lo && !masked(k) {
								k--
							}
							if hi-k <= isolatedCodons && masked(k) {
								for k > lo && masked(k) {
									k--
								}
								hi = k
							}
						}
						// (codons trimmed for poor quality at the new end count as read:
						// group O's first codons after a run are unusual and go by step 4)
						if got.FirstAA-got.LeftTrimmed > lo+nEdgeCodons || got.LastAA+got.RightTrimmed < hi-nEdgeCodons {
							t.Errorf("%s %d-%d, as plain sequence %d-%d, N over nucleotides %d-%d", g.Gene, got.FirstAA, got.LastAA, g.FirstAA, g.LastAA, at+1, at+mask)
						}
						continue
					}
					if got.FirstAA != g.FirstAA || got.LastAA != g.LastAA {
						t.Errorf("%s %d-%d, as plain sequence %d-%d", g.Gene, got.FirstAA, got.LastAA, g.FirstAA, g.LastAA)
					}
					if gm, wm := mutationStrings(got), mutationStrings(&g); !slices.Equal(gm, wm) {
						t.Errorf("%s mutations %v, as plain sequence %v", g.Gene, gm, wm)
					}
				}
			})
		}
	}
}
