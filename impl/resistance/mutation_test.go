package resistance

import (
	"errors"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/asi"
)

func TestParseMutationStrings(t *testing.T) {
	ref := testEngine(t).ref
	tests := []struct {
		gene string
		in   []string
		want string // merged mutations as reported, "|"-joined; "-" = not sequenced
	}{
		{"RT", []string{"M41L", "M184V", "T215Y"}, "M41L|M184V|T215Y"},
		{"RT", []string{" M 41 L ", "184V"}, "M41L|M184V"}, // whitespace ignored, consensus optional
		{"RT", []string{"M184V", "M184I"}, "M184IV"},       // duplicates merge into a mixture
		{"RT", []string{"M184VI", "184V"}, "M184IV"},
		{"RT", []string{"69S_SS"}, "T69S_SS"}, // inserted amino acids
		{"RT", []string{"T69i"}, "T69i"},
		{"RT", []string{"T69#"}, "T69i"},
		{"RT", []string{"69d", "D67~", "S68-", "L74Δ"}, "D67~|S68~|T69~|L74~"},
		{"RT", []string{"T215*", "Y181Z"}, "Y181*|T215*"},
		{"RT", []string{"K65X"}, "K65X"},
		{"RT", []string{"K65RX"}, "K65X"},
		{"RT", []string{"T69X_SS"}, "T69X_SS"},
		{"RT", []string{"T69SX~"}, "T69~X"},
		{"RT", []string{"P1A", "P1X"}, "P1X"},
		{"RT", []string{"M184ACDEFG"}, "M184ACDEFG"},       // six amino acids: listed
		{"RT", []string{"M184ACDEFGH"}, "M184X"},           // more than six: X
		{"RT", []string{"M184ACDE", "M184FGHZ"}, "M184*X"}, // merged duplicates count together
		{"RT", []string{"M184MV"}, "M184MV"},               // consensus kept in the display
		{"RT", []string{"M41L, M184V"}, "M41L|M184V"},      // several in one string
		{"RT", []string{"M41M"}, ""},                       // consensus only: sequenced, no mutation
		{"RT", []string{"WT"}, ""},
		{"RT", []string{"none"}, ""},
		{"RT", nil, "-"},
		{"RT", []string{}, "-"},
		{"RT", []string{"", "  "}, "-"},
		{"PR", []string{"L90M", "I50L"}, "I50L|L90M"},
		{"IN", []string{"Q148H", "G140S"}, "G140S|Q148H"},
	}
	for _, tc := range tests {
		gi, err := ref.parseGene(tc.gene, tc.in)
		if err != nil {
			t.Errorf("%s %q: %v", tc.gene, tc.in, err)
			continue
		}
		got := "-"
		if gi.Sequenced {
			var ms []string
			for _, m := range gi.Mutations {
				ms = append(ms, m.String())
				if gi.Set.At(m.Pos) != m.AAs&^asi.SymbolSet(m.Consensus) {
					t.Errorf("%s: set and list disagree at %d", tc.in, m.Pos)
				}
			}
			got = strings.Join(ms, "|")
		}
		if got != tc.want {
			t.Errorf("%s %q: %q, want %q", tc.gene, tc.in, got, tc.want)
		}
	}
}

func TestBadMutationStrings(t *testing.T) {
	ref := testEngine(t).ref
	tests := []struct {
		gene, in, what string
	}{
		{"RT", "K41L", "consensus amino acid at RT 41 is M, not K"},
		{"RT", "M561L", "position 561 is outside RT (1–560)"},
		{"PR", "100V", "position 100 is outside PR (1–99)"},
		{"RT", "M0L", "position 0 is outside"},
		{"RT", "M41", "no amino acid after the position"},
		{"RT", "ML", "no position"},
		{"RT", "M41l", "upper case"},
		{"RT", "m41L", "consensus letter must be upper case"},
		{"RT", "M41B", `"B" is not an amino acid`},
		{"RT", "M41L?", `"?" is not an amino acid`},
		{"RT", "T69S_S1", `"1" after _`},
		{"RT", "M123456789L", "out of range"},
		{"RT", strings.Repeat("M", 300), "longer than"},
	}
	for _, tc := range tests {
		_, err := ref.parseGene(tc.gene, []string{tc.in})
		var me *MutationError
		if !errors.As(err, &me) || !strings.Contains(me.What, tc.what) || me.Gene != tc.gene {
			t.Errorf("%s %q: %v, want %q", tc.gene, tc.in, err, tc.what)
		}
	}
	if _, err := ref.parseGene("RT", make([]string, maxMutationStrings+1)); err == nil {
		t.Error("too many strings accepted")
	}
}

func FuzzParseMutations(f *testing.F) {
	for _, s := range []string{"M41L", "184V", "69S_SS", "T69i", "67d", "T215*", "M184IV, K65R", " M 41 L ", "K65X", "WT", "Q148H", "M184ACDEFGH", "M184MV", "M184LM"} {
		f.Add("RT", s)
	}
	f.Add("PR", "L90M")
	f.Add("IN", "G140S")
	ref := testEngine(f).ref
	f.Fuzz(func(t *testing.T, gene, s string) {
		if gene != "PR" && gene != "RT" && gene != "IN" {
			gene = "RT"
		}
		gi, err := ref.parseGene(gene, []string{s})
		if err != nil {
			var me *MutationError
			if !errors.As(err, &me) {
				t.Fatalf("error %v is not a *MutationError", err)
			}
			return
		}
		// every accepted mutation renders to a string that parses back to the same mutation
		for _, m := range gi.Mutations {
			if m.Pos < 1 || m.Pos > len(ref.consensus[gene]) || m.AAs == 0 {
				t.Fatalf("accepted %+v from %q", m, s)
			}
			again, err := ref.parseGene(gene, []string{m.String()})
			if err != nil {
				t.Fatalf("%q rendered as %q which does not parse: %v", s, m.String(), err)
			}
			if len(again.Mutations) != 1 || again.Mutations[0].AAs != m.AAs || again.Mutations[0].Inserted != m.Inserted {
				t.Fatalf("%q → %q → %+v", s, m.String(), again.Mutations)
			}
		}
	})
}

func TestMutationFlags(t *testing.T) {
	ref := testEngine(t).ref
	tests := []struct {
		gene, mut            string
		drm, sdrm, unusual   bool
		classification, kind string
	}{
		{"RT", "M184V", true, true, false, "NRTI", "substitution"},
		{"RT", "M184A", false, false, true, "Other", "substitution"},
		{"RT", "M184L", false, false, false, "Other", "substitution"},
		{"RT", "M184AV", true, true, true, "NRTI", "substitution"},
		{"RT", "K103N", true, true, false, "NNRTI", "substitution"},
		{"PR", "L90M", true, true, false, "Major", "substitution"},
		{"IN", "G140S", true, true, false, "Major", "substitution"},
		{"IN", "T97A", true, false, false, "Accessory", "substitution"},
		{"RT", "T69S_SS", true, true, false, "NRTI", "insertion"},
		{"RT", "D67d", true, false, false, "NRTI", "deletion"},
		{"RT", "T215*", false, false, true, "Other", "stop"},
	}
	for _, tc := range tests {
		gi, err := ref.parseGene(tc.gene, []string{tc.mut})
		if err != nil || len(gi.Mutations) != 1 {
			t.Fatalf("%s: %v", tc.mut, err)
		}
		m := gi.Mutations[0]
		drm, sdrm, unusual := ref.flags(m)
		if drm != tc.drm || sdrm != tc.sdrm || unusual != tc.unusual {
			t.Errorf("%s %s: drm %v sdrm %v unusual %v, want %v %v %v", tc.gene, tc.mut, drm, sdrm, unusual, tc.drm, tc.sdrm, tc.unusual)
		}
		if c := ref.classify(tc.gene, m.Pos, m.AAs); c != tc.classification || m.Kind() != tc.kind {
			t.Errorf("%s %s: %s %s, want %s %s", tc.gene, tc.mut, c, m.Kind(), tc.classification, tc.kind)
		}
	}
}
