package align

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// referenceDir is the HIVDB reference data of ../shared.
func referenceDir(t testing.TB) string {
	return testkit.HIVDBDir(t, "reference")
}

// testAligner is the aligner over referenceDir, made once per test binary.
var testAligner testkit.Once[*Aligner]

func newTestAligner(t testing.TB) *Aligner {
	t.Helper()
	dir := referenceDir(t)
	return testAligner.Get(t, func() (*Aligner, error) { return NewAligner(os.DirFS(dir)) })
}

// oracle is a real sequence of ../shared/data/hivdb/sequences with HIVDB's alignment of it
// per gene, and (from alignedOracles) the aligner's.
type oracle struct {
	name  string
	seq   string
	genes map[string]testkit.HIVDBGene
	res   *Result
}

func loadOracles(t testing.TB) []oracle {
	t.Helper()
	var out []oracle
	for _, s := range testkit.HIVDBSequences(t) {
		out = append(out, oracle{name: s.Name, seq: s.Sequence, genes: s.Genes})
	}
	return out
}

// alignedOracles is loadOracles with each sequence aligned by a; an error ends the test.
func alignedOracles(t testing.TB, a *Aligner) []oracle {
	t.Helper()
	out := loadOracles(t)
	for i := range out {
		res, err := a.Align([]byte(out[i].seq))
		if err != nil {
			t.Fatalf("%s: %v", out[i].name, err)
		}
		out[i].res = res
	}
	return out
}

// TestOracleSequences checks every real sequence of the shared data against the expected
// per-gene alignment: codon and nucleotide ranges, mutation set, frameshifts, match %.
func TestOracleSequences(t *testing.T) {
	for _, f := range alignedOracles(t, newTestAligner(t)) {
		t.Run(f.name, func(t *testing.T) {
			res := f.res
			if res.ReverseComplemented {
				t.Errorf("reverse complemented")
			}
			for _, g := range AllGenes() {
				want, ok := f.genes[string(g)]
				got := res.Gene(g)
				if !ok {
					// The oracle files predate capsid analysis (HIVDB added CA for LEN
					// later), so a CA found in a gag-pol sequence is not an error.
					if got != nil && g != CA {
						t.Errorf("%s: present (%d-%d), expected absent", g, got.FirstAA, got.LastAA)
					}
					continue
				}
				if got == nil {
					t.Errorf("%s: absent, expected %d-%d", g, want.FirstAA, want.LastAA)
					continue
				}
				compareGene(t, g, got, want)
			}
		})
	}
}

// expectedGene is what another program (HIVDB, Stanford's Sierra) makes of one gene.
type expectedGene struct {
	firstAA, lastAA, firstNA, lastNA int
	mutations, frameshifts           []string
	matchPcnt                        float64
}

// splitList is the items of a comma-separated list; none for "".
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// checkGene compares the aligner's result for gene g with another program's: codon and
// nucleotide ranges and the sets of mutations and frameshifts equal, the match percentage
// within 0.1.
func checkGene(t *testing.T, g Gene, got *GeneResult, want expectedGene) {
	t.Helper()
	if got.FirstAA != want.firstAA || got.LastAA != want.lastAA || got.FirstNA != want.firstNA || got.LastNA != want.lastNA {
		t.Errorf("%s: %d-%d (nt %d-%d), want %d-%d (nt %d-%d)", g, got.FirstAA, got.LastAA, got.FirstNA, got.LastNA, want.firstAA, want.lastAA, want.firstNA, want.lastNA)
	}
	sameSet(t, string(g)+" mutations", mutationStrings(got), want.mutations)
	var gotF []string
	for _, f := range got.Frameshifts {
		gotF = append(gotF, f.String())
	}
	sameSet(t, string(g)+" frameshifts", gotF, want.frameshifts)
	if math.Abs(got.MatchPercent-want.matchPcnt) > 0.1 {
		t.Errorf("%s: match %.4f%%, want %.4f%%", g, got.MatchPercent, want.matchPcnt)
	}
}

// compareGene compares the aligner's result for gene g with HIVDB's: as checkGene, and the
// aligned nucleotides and each mutation's codon and inserted codons.
func compareGene(t *testing.T, g Gene, got *GeneResult, want testkit.HIVDBGene) {
	t.Helper()
	var wantF []string
	for _, f := range want.FrameShifts {
		fs := Frameshift{Gene: g, Position: f.Position, Kind: FrameshiftKind(f.Type), Size: f.Size, NAs: f.NAs}
		wantF = append(wantF, fs.String())
	}
	checkGene(t, g, got, expectedGene{want.FirstAA, want.LastAA, want.FirstNA, want.LastNA, splitList(want.MutationListString), wantF, want.MatchPcnt})
	if got.AlignedNA != want.AlignedNAs {
		t.Errorf("%s: aligned nucleotides differ:\n got %s\nwant %s", g, got.AlignedNA, want.AlignedNAs)
	}
	for _, wm := range want.Mutations {
		for _, m := range got.Mutations {
			if m.Position == wm.Position && !m.Deletion && m.Codon != wm.Triplet {
				t.Errorf("%s: codon %d read %q, want %q", g, m.Position, m.Codon, wm.Triplet)
			}
			if m.Position == wm.Position && m.InsertedCodons != wm.Inserted {
				t.Errorf("%s: codon %d inserted %q, want %q", g, m.Position, m.InsertedCodons, wm.Inserted)
			}
		}
	}
}
