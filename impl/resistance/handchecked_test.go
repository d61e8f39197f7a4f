package resistance

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestHandCheckedHIVDB102Scores checks whole reports against scores worked out by hand from
// the SCORE FROM rules of ../shared/data/hivdb/algorithms/HIVDB_10.2.xml (not from this code):
// per drug of the sequenced gene, the score and level; a drug not listed must score 0 at
// level 1. GLOBALRANGE: ≤9 → 1, 10–14 → 2, 15–29 → 3, 30–59 → 4, ≥60 → 5.
func TestHandCheckedHIVDB102Scores(t *testing.T) {
	type want struct {
		score float64
		level int
	}
	cases := []struct {
		name  string
		genes [][]string // PR, RT, IN
		want  map[string]want
	}{
		{
			// EFV, NVP: MAX(103H, 103N => 60, …); DOR and RPV score 103N only with 100I/181C/225H.
			name:  "RT K103N",
			genes: [][]string{nil, {"K103N"}, nil},
			want:  map[string]want{"EFV": {60, 5}, "NVP": {60, 5}},
		},
		{
			// MAX(184I, 184V) per NRTI: ABC 15, AZT -10, D4T -10, DDI 10, FTC/3TC 60, TDF -10, ISL 30.
			name:  "RT M184V alone",
			genes: [][]string{nil, {"M184V"}, nil},
			want: map[string]want{"ABC": {15, 3}, "AZT": {-10, 1}, "D4T": {-10, 1}, "DDI": {10, 2},
				"FTC": {60, 5}, "3TC": {60, 5}, "TDF": {-10, 1}, "ISL": {30, 4}},
		},
		{
			// A mixture holds each item once: M184MV and M184IV score exactly as M184V
			// (MAX(184I => 60, 184V => 60) adds 60, never 120; 74V/115F combinations are absent).
			name:  "RT M184MV mixture with consensus",
			genes: [][]string{nil, {"M184MV"}, nil},
			want: map[string]want{"ABC": {15, 3}, "AZT": {-10, 1}, "D4T": {-10, 1}, "DDI": {10, 2},
				"FTC": {60, 5}, "3TC": {60, 5}, "TDF": {-10, 1}, "ISL": {30, 4}},
		},
		{
			name:  "RT M184IV mixture",
			genes: [][]string{nil, {"M184IV"}, nil},
			want: map[string]want{"ABC": {15, 3}, "AZT": {-10, 1}, "D4T": {-10, 1}, "DDI": {10, 2},
				"FTC": {60, 5}, "3TC": {60, 5}, "TDF": {-10, 1}, "ISL": {30, 4}},
		},
		{
			// MAX(84A, 84C, 84V) + 90M; 46IL/32I/47AV/54LM combinations need more mutations.
			name:  "PR I84V + L90M",
			genes: [][]string{{"I84V", "L90M"}, nil, nil},
			want: map[string]want{"ATV/r": {80, 5}, "DRV/r": {15, 3}, "FPV/r": {80, 5}, "IDV/r": {90, 5},
				"LPV/r": {40, 4}, "NFV": {120, 5}, "SQV/r": {105, 5}, "TPV/r": {30, 4}},
		},
		{
			// BIC/DTG: 140S 10 + 148H 25 + (140ACS AND 148HKR) 10; CAB: 15 + 60 (no such pair
			// item); EVG/RAL: 30 + 60.
			name:  "IN Q148H + G140S",
			genes: [][]string{nil, nil, {"Q148H", "G140S"}},
			want:  map[string]want{"BIC": {45, 4}, "CAB": {75, 5}, "DTG": {45, 4}, "EVG": {90, 5}, "RAL": {90, 5}},
		},
		{
			// 69S_SS carries S and an insertion: MAX(…, 69i => 60, …) adds 60 once; FTC/3TC
			// MAX(69i => 30, 69d => 15) adds 30; ISL 69i => 60. No rule names 69S.
			name:  "RT T69S_SS insertion",
			genes: [][]string{nil, {"T69S_SS"}, nil},
			want: map[string]want{"ABC": {60, 5}, "AZT": {60, 5}, "D4T": {60, 5}, "DDI": {60, 5},
				"FTC": {30, 4}, "3TC": {30, 4}, "TDF": {60, 5}, "ISL": {60, 5}},
		},
		{
			// 67d: ABC/TDF MAX(…, 67d => 15); AZT/D4T/DDI 67d => 30; FTC/3TC 67d => 15;
			// ISL names 67 only in combinations.
			name:  "RT D67 deletion",
			genes: [][]string{nil, {"D67d"}, nil},
			want: map[string]want{"ABC": {15, 3}, "AZT": {30, 4}, "D4T": {30, 4}, "DDI": {30, 4},
				"FTC": {15, 3}, "3TC": {15, 3}, "TDF": {15, 3}},
		},
	}
	e := testEngine(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, err := e.MutationListReport([][][]string{c.genes}, Options{Algorithm: AlgorithmHIVDB, ReportType: ReportDetailed})
			if err != nil {
				t.Fatal(err)
			}
			d := parseSite(t, rep)
			if len(d.Inputs) != 1 || d.Inputs[0].XMLName.Local != "success" {
				t.Fatalf("inputs: %+v", d.Inputs)
			}
			seen := map[string]bool{}
			for _, dr := range d.Inputs[0].Drugs {
				seen[dr.Code] = true
				w, ok := c.want[dr.Code]
				if !ok {
					w = want{0, 1}
				}
				score, err := strconv.ParseFloat(dr.Score, 64)
				if err != nil || score != w.score || dr.Level != w.level {
					t.Errorf("%s: score %q level %d, want %v level %d", dr.Code, dr.Score, dr.Level, w.score, w.level)
				}
			}
			for code := range c.want {
				if !seen[code] {
					t.Errorf("%s missing from the report", code)
				}
			}
		})
	}
}

// TestMixtureConsensusIsNotAMutation: the consensus amino acid of a mixture is not a mutation,
// so an inverted residue such as 184(NOT VI) holds through the other amino acids only, and
// $listMutsIn{184(NOT VI)} names M184L for M184LM, not M184LM (M is no "unusual mutation").
func TestMixtureConsensusIsNotAMutation(t *testing.T) {
	e := testEngine(t)
	rep, err := e.MutationListReport([][][]string{{nil, {"M184LM"}, nil}, {nil, {"M184MV"}, nil}}, Options{Algorithm: AlgorithmHIVDB})
	if err != nil {
		t.Fatal(err)
	}
	d := parseSite(t, rep)
	if len(d.Inputs) != 2 {
		t.Fatalf("inputs: %+v", d.Inputs)
	}
	ids := func(i int) string {
		var s []string
		for _, c := range d.Inputs[i].Comments {
			s = append(s, c.ID)
		}
		return strings.Join(s, ",")
	}
	if ids(0) != "RT184ACDEFGHKLNPQRSTWYid" || ids(1) != "RT184VI" {
		t.Fatalf("comments %q and %q, want RT184ACDEFGHKLNPQRSTWYid and RT184VI", ids(0), ids(1))
	}
	if !strings.Contains(rep, "M184L is a highly unusual mutation at this position.") {
		t.Errorf("the unusual-mutation comment does not name M184L alone:\n%s", rep)
	}
}

// TestINSTIPatternsThroughReports runs every pattern of patterns-INSTI.json through the
// engine's public path (mutation strings → parser → HIVDB 10.2 → simple report), all as one
// batch, and compares each INSTI drug's score and level with the file.
func TestINSTIPatternsThroughReports(t *testing.T) {
	patterns := testkit.HIVDBPatterns(t, "patterns-INSTI.json")
	if len(patterns) < 600 {
		t.Fatalf("only %d patterns", len(patterns))
	}
	lists := make([][][]string, len(patterns))
	for i, p := range patterns {
		lists[i] = [][]string{nil, nil, {p["pattern"].(string)}}
	}
	rep, err := testEngine(t).MutationListReport(lists, Options{Algorithm: AlgorithmHIVDB, ReportType: ReportSimple})
	if err != nil {
		t.Fatal(err)
	}
	d := parseSite(t, rep)
	if len(d.Inputs) != len(patterns) {
		t.Fatalf("%d results for %d patterns", len(d.Inputs), len(patterns))
	}
	for i, p := range patterns {
		in := d.Inputs[i]
		if in.XMLName.Local != "success" {
			t.Errorf("%s: %s", p["pattern"], in.ErrorMessage)
			continue
		}
		got := map[string]string{}
		for _, dr := range in.Drugs {
			got[dr.Code] = dr.Score + "/" + strconv.Itoa(dr.Level)
		}
		for _, drug := range []string{"BIC", "CAB", "DTG", "EVG", "RAL"} {
			want := strconv.FormatFloat(p[drug+" Score"].(float64), 'f', -1, 64) + "/" + strconv.Itoa(int(p[drug+" Level"].(float64)))
			if got[drug] != want {
				t.Errorf("%s %s: %s, want %s (score/level)", p["pattern"], drug, got[drug], want)
			}
		}
	}
}

// TestOverlongMutationStringFailsItsSampleOnly: a string beyond the byte limit fails its own
// sample with a message quoting its start (cut on a character boundary), the report stays
// valid XML and the next sample is interpreted.
func TestOverlongMutationStringFailsItsSampleOnly(t *testing.T) {
	long := "M41L " + strings.Repeat("€", 70) // 215 bytes; byte 40 falls inside a "€"
	rep, err := testEngine(t).MutationListReport([][][]string{{nil, {long}, nil}, {nil, {"M184V"}, nil}}, Options{Algorithm: AlgorithmHIVDB})
	if err != nil {
		t.Fatal(err)
	}
	validate(t, rep)
	d := parseSite(t, rep)
	if len(d.Inputs) != 2 || d.Inputs[0].XMLName.Local != "failure" || d.Inputs[1].XMLName.Local != "success" {
		t.Fatalf("inputs: %+v", d.Inputs)
	}
	msg := d.Inputs[0].ErrorMessage
	if !strings.Contains(msg, "longer than 200 bytes") || !strings.Contains(msg, "M41L €") || strings.ContainsRune(msg, utf8.RuneError) || strings.Contains(msg, `\x`) {
		t.Errorf("error message %q", msg)
	}
}
