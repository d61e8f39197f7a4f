package asi

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// hivdbDir is ../shared/data/hivdb beside the module root.
func hivdbDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(testkit.SharedDir(t), "data", "hivdb")
}

func loadAlgorithm(t testing.TB, name string) *Algorithm {
	t.Helper()
	f, err := os.Open(filepath.Join(hivdbDir(t), "algorithms", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := Read(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return a
}

// mutations parses "G140S,Q148H" (consensus letter optional) into one gene's mutations.
func mutations(t testing.TB, list string) *Mutations {
	t.Helper()
	m := NewMutations(600)
	for _, s := range strings.Split(list, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		i := 0
		if s[0] >= 'A' && s[0] <= 'Z' {
			i = 1
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		pos, err := strconv.Atoi(s[i:j])
		if err != nil {
			t.Fatalf("bad test mutation %q", s)
		}
		set, ok := ParseAASet(s[j:])
		if !ok {
			t.Fatalf("bad test mutation %q", s)
		}
		m.Add(pos, set)
	}
	return m
}

func TestINSTIPatternsHIVDB102(t *testing.T) {
	alg := loadAlgorithm(t, "HIVDB_10.2.xml")
	data, err := os.ReadFile(filepath.Join(hivdbDir(t), "patterns", "patterns-INSTI.json"))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []map[string]any
	if err := json.Unmarshal(data, &patterns); err != nil {
		t.Fatal(err)
	}
	if len(patterns) < 600 {
		t.Fatalf("only %d patterns", len(patterns))
	}
	checked := 0
	for _, p := range patterns {
		pattern := p["pattern"].(string)
		res := alg.Evaluate(Input{Genes: map[string]*Mutations{"IN": mutations(t, pattern)}})
		got := map[string]DrugResult{}
		for _, d := range res.Drugs {
			got[d.Drug.Name] = d
		}
		if len(got) != 5 {
			t.Fatalf("%s: %d drugs evaluated for IN, want the 5 INSTIs", pattern, len(got))
		}
		for _, drug := range []string{"BIC", "CAB", "DTG", "EVG", "RAL"} {
			wantScore := p[drug+" Score"].(float64)
			wantLevel := int(p[drug+" Level"].(float64))
			d := got[drug]
			if d.Score != wantScore || d.Level.Order != wantLevel {
				t.Errorf("%s %s: score %v level %d, want score %v level %d", pattern, drug, d.Score, d.Level.Order, wantScore, wantLevel)
			}
			checked++
		}
	}
	t.Logf("%d patterns, %d drug results checked", len(patterns), checked)
}

func TestOtherAlgorithmsLoadAndEvaluate(t *testing.T) {
	tests := []struct {
		file, name, version string
		gene, muts          string
		drug                string
		wantLevel           int
		wantSIR             string
	}{
		{"ANRS_34.xml", "ANRS", "34", "RT", "M41L,M184V,T215Y", "3TC", 3, "R"},
		{"ANRS_34.xml", "ANRS", "34", "RT", "M41L,M184V,T215Y", "AZT", 3, "R"},
		{"ANRS_34.xml", "ANRS", "34", "RT", "K103N", "EFV", 3, "R"},
		{"Rega_10.0.xml", "Rega v10.0.0", "10.0.0", "RT", "M184V", "3TC", 6, "R"},
		{"Rega_10.0.xml", "Rega v10.0.0", "10.0.0", "RT", "K103N", "EFV", 6, "R"},
		{"HIVDB_9.8.xml", "HIVDB", "9.8", "RT", "M184V", "3TC", 5, "R"},
		{"HIVDB_9.8.xml", "HIVDB", "9.8", "PR", "I50L", "ATV/r", 5, "R"},
		{"HIVDB_9.8.xml", "HIVDB", "9.8", "IN", "Q148H,G140S", "RAL", 5, "R"},
	}
	for _, tc := range tests {
		t.Run(tc.file+"/"+tc.drug+"/"+tc.muts, func(t *testing.T) {
			alg := loadAlgorithm(t, tc.file)
			if alg.Name != tc.name || alg.Version != tc.version {
				t.Errorf("name %q version %q, want %q %q", alg.Name, alg.Version, tc.name, tc.version)
			}
			res := alg.Evaluate(Input{Genes: map[string]*Mutations{tc.gene: mutations(t, tc.muts)}})
			for _, d := range res.Drugs {
				if d.Drug.Name == tc.drug {
					if d.Level.Order != tc.wantLevel || d.Level.SIR != tc.wantSIR {
						t.Errorf("level %d %s, want %d %s", d.Level.Order, d.Level.SIR, tc.wantLevel, tc.wantSIR)
					}
					return
				}
			}
			t.Fatalf("drug %s not evaluated", tc.drug)
		})
	}
	// Wild type everywhere is susceptible (the lowest level) for every drug of every algorithm.
	for _, file := range []string{"ANRS_34.xml", "Rega_10.0.xml", "HIVDB_9.8.xml", "HIVDB_10.2.xml"} {
		alg := loadAlgorithm(t, file)
		res := alg.Evaluate(Input{Genes: map[string]*Mutations{"PR": NewMutations(99), "RT": NewMutations(560), "IN": NewMutations(288)}})
		if len(res.Drugs) == 0 {
			t.Errorf("%s: no drugs evaluated", file)
		}
		for _, d := range res.Drugs {
			if d.Level.SIR != "S" {
				t.Errorf("%s %s: wild type gives %s (%s)", file, d.Drug.Name, d.Level.Text, d.Level.SIR)
			}
		}
	}
}

func TestHIVDB102ReadmeExample(t *testing.T) {
	alg := loadAlgorithm(t, "HIVDB_10.2.xml")
	res := alg.Evaluate(Input{Genes: map[string]*Mutations{"RT": mutations(t, "M41L,M184V,T215Y")}})
	got := map[string]string{}
	for _, d := range res.Drugs {
		got[d.Drug.Name] = fmt.Sprintf("%v/%d", d.Score, d.Level.Order)
	}
	for drug, want := range map[string][]string{
		"3TC": {"5"}, "FTC": {"5"}, "AZT": {"4", "5"},
	} {
		lv := got[drug][strings.Index(got[drug], "/")+1:]
		ok := false
		for _, w := range want {
			ok = ok || lv == w
		}
		if !ok {
			t.Errorf("%s: %s, want level in %v", drug, got[drug], want)
		}
	}
	t.Logf("RT M41L M184V T215Y: %v", got)
}

// BenchmarkReadHIVDB102 measures reading and validating the largest bundled algorithm (the
// cost a user-submitted algorithm of that size adds to a request when it is not cached).
func BenchmarkReadHIVDB102(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(hivdbDir(b), "algorithms", "HIVDB_10.2.xml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}

// HIVDB 9.8 has result comments conditioned on two drugs' levels at once.
func TestHIVDB98ResultComments(t *testing.T) {
	alg := loadAlgorithm(t, "HIVDB_9.8.xml")
	for muts, want := range map[string]string{
		"I50V,I54M,L76V,I84V":           "DRVHigh,DRVHighAndTPVIntermediate",
		"I50V,I54L,L76V,I84V,L89V":      "DRVHigh,DRVHighAndTPVPotentialLow",
		"V32I,I47V,I50V,I54M,L76V,I84V": "DRVHigh",
		"I47A,I50V,L76V":                "DRVIntermediate",
		"L90M":                          "",
	} {
		res := alg.Evaluate(Input{Genes: map[string]*Mutations{"PR": mutations(t, muts)}})
		var ids []string
		for _, c := range res.Comments {
			if c.Kind == "result" {
				ids = append(ids, c.Comment.ID)
				if c.Gene != "PR" || c.Text == "" {
					t.Errorf("%s: comment %s gene %q text %q", muts, c.Comment.ID, c.Gene, c.Text)
				}
			}
		}
		if got := strings.Join(ids, ","); got != want {
			t.Errorf("%s: result comments %q, want %q", muts, got, want)
		}
	}
}
