package align

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sierraGene is one gene's expected result in testdata/sierra/expected.json, taken from the
// test fixtures of Stanford's Sierra (hivdb/sierra, Aligner/src/test/resources; see
// testdata/sierra/README.md).
type sierraGene struct {
	FirstAA     int     `json:"firstAA"`
	LastAA      int     `json:"lastAA"`
	FirstNA     int     `json:"firstNA"`
	LastNA      int     `json:"lastNA"`
	Mutations   string  `json:"mutations"`
	FrameShifts string  `json:"frameShifts"`
	MatchPcnt   float64 `json:"matchPcnt"`
}

// TestSierraFixtures aligns real sequences beyond the shared ones whose expected per-gene
// results come from Stanford's program: codon and nucleotide ranges, the mutation set and
// the frameshifts must be equal, the match percentage within 0.1.
func TestSierraFixtures(t *testing.T) {
	a := newTestAligner(t)
	data, err := os.ReadFile(filepath.Join("testdata", "sierra", "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases map[string]map[Gene]sierraGene
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	for name, genes := range cases {
		t.Run(name, func(t *testing.T) {
			seq, err := os.ReadFile(filepath.Join("testdata", "sierra", name+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			res := mustAlign(t, a, strings.TrimSpace(string(seq)))
			checkSierraGenes(t, res, genes)
		})
	}
}

// checkSierraGenes compares an alignment with Stanford's expected per-gene results.
func checkSierraGenes(t *testing.T, res *Result, genes map[Gene]sierraGene) {
	t.Helper()
	for _, g := range []Gene{PR, RT, IN} {
		want, ok := genes[g]
		got := res.Gene(g)
		if !ok {
			if got != nil {
				t.Errorf("%s present (%d-%d), expected absent", g, got.FirstAA, got.LastAA)
			}
			continue
		}
		if got == nil {
			t.Errorf("%s absent, expected %d-%d", g, want.FirstAA, want.LastAA)
			continue
		}
		checkGene(t, g, got, expectedGene{want.FirstAA, want.LastAA, want.FirstNA, want.LastNA, splitList(want.Mutations), splitList(want.FrameShifts), want.MatchPcnt})
	}
}
