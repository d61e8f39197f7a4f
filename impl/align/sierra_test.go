package align

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
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
			res, err := a.Align([]byte(strings.TrimSpace(string(seq))))
			if err != nil {
				t.Fatal(err)
			}
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
				if got.FirstAA != want.FirstAA || got.LastAA != want.LastAA || got.FirstNA != want.FirstNA || got.LastNA != want.LastNA {
					t.Errorf("%s: %d-%d (nt %d-%d), want %d-%d (nt %d-%d)", g, got.FirstAA, got.LastAA, got.FirstNA, got.LastNA, want.FirstAA, want.LastAA, want.FirstNA, want.LastNA)
				}
				var wantM []string
				if want.Mutations != "" {
					wantM = strings.Split(want.Mutations, ",")
				}
				sameSetT(t, string(g)+" mutations", mutationStrings(got), wantM)
				var gotF, wantF []string
				for _, f := range got.Frameshifts {
					gotF = append(gotF, f.String())
				}
				if want.FrameShifts != "" {
					wantF = strings.Split(want.FrameShifts, ",")
				}
				sameSetT(t, string(g)+" frameshifts", gotF, wantF)
				if math.Abs(got.MatchPercent-want.MatchPcnt) > 0.1 {
					t.Errorf("%s: match %.4f%%, want %.4f%%", g, got.MatchPercent, want.MatchPcnt)
				}
			}
		})
	}
}

func sameSetT(t *testing.T, what string, got, want []string) {
	t.Helper()
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got %v\nwant %v", what, got, want)
	}
}
