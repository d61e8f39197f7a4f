package asi

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func mustParse(t *testing.T, text string) *Condition {
	t.Helper()
	c, err := ParseCondition(text)
	if err != nil {
		t.Fatalf("ParseCondition(%q): %v", text, err)
	}
	return c
}

func TestBooleanGrammar(t *testing.T) {
	tests := []struct {
		cond, muts string
		want       bool
	}{
		// AND/OR are evaluated strictly left to right, without precedence:
		// "41L OR 67N AND 70R" is (41L OR 67N) AND 70R.
		{"41L OR 67N AND 70R", "M41L", false},
		{"41L OR 67N AND 70R", "M41L,K70R", true},
		{"41L AND 67N OR 70R", "K70R", true},
		{"41L AND (67N OR 70R)", "K70R", false},
		{"41L OR (67N AND 70R)", "M41L", true},
		{"41L", "M41L", true},
		{"M41L", "M41L", true},
		{"41L", "M41I", false},
		{"215FY", "T215Y", true},
		{"215FY", "T215S", false},
		// a mixture satisfies a residue when one of its amino acids is in the set
		{"184V", "M184MV", true},
		// NOT residue: true when the residue is absent (also when the position is not mutated)
		{"NOT 41L", "", true},
		{"NOT 41L", "M41L", false},
		{"NOT 41L", "M41I", true},
		// 41(NOT L): the position carries some amino acid outside the set
		{"41(NOT L)", "M41I", true},
		{"41(NOT L)", "M41L", false},
		{"41(NOT L)", "M41IL", true},
		{"41(NOT L)", "", false},
		{"118(NOT R)", "G118K", true},
		// NOT applied to a parenthesised group
		{"NOT (41L AND 215Y)", "M41L", true},
		{"NOT (41L AND 215Y)", "M41L,T215Y", false},
		{"(NOT 41L)", "M41L", false},
		// EXCLUDE
		{"41L AND EXCLUDE 184IV", "M41L", true},
		{"41L AND EXCLUDE 184IV", "M41L,M184I", false},
		{"(41L AND 210W AND 215Y AND EXCLUDE 184IV AND EXCLUDE 74V)", "M41L,L210W,T215Y", true},
		{"(41L AND 210W AND 215Y AND EXCLUDE 184IV AND EXCLUDE 74V)", "M41L,L210W,T215Y,L74V", false},
		// SELECT forms
		{"SELECT ATLEAST 2 FROM (41L,67N,70R)", "M41L,K70R", true},
		{"SELECT ATLEAST 2 FROM (41L,67N,70R)", "M41L", false},
		{"SELECT EXACTLY 1 FROM (41L,67N,70R)", "M41L", true},
		{"SELECT EXACTLY 1 FROM (41L,67N,70R)", "M41L,D67N", false},
		{"SELECT NOTMORETHAN 1 FROM (41L,67N,70R)", "", true},
		{"SELECT NOTMORETHAN 1 FROM (41L,67N,70R)", "D67N,K70R", false},
		{"SELECT ATLEAST 2 AND NOTMORETHAN 2 FROM (41L,67N,70R)", "D67N,K70R", true},
		{"SELECT ATLEAST 2 AND NOTMORETHAN 2 FROM (41L,67N,70R)", "M41L,D67N,K70R", false},
		{"SELECT ATLEAST 0 FROM (1P)", "", true},
		// a mixture matching two listed residues at one position counts each residue once
		{"SELECT ATLEAST 2 FROM (184V,184I)", "M184IV", true},
		{"SELECT ATLEAST 2 FROM (184IV)", "M184IV", false},
		{"148HKR AND SELECT ATLEAST 2 FROM (74I,97A,138AKT,140ACS)", "Q148H,G140S,E138K", true},
		// insertions, deletions, stops
		{"69i", "T69i", true},
		{"67d OR 68d OR 69d OR 70d", "T69d", true},
		{"215Z", "T215Z", true},
		// whitespace is free
		{"  41L\n\tAND\n  215Y ", "M41L,T215Y", true},
	}
	for _, tc := range tests {
		c := mustParse(t, tc.cond)
		if c.IsScore() {
			t.Fatalf("%q parsed as a score condition", tc.cond)
		}
		if got := c.Holds(mutations(t, tc.muts)); got != tc.want {
			t.Errorf("%q with [%s] = %v, want %v", tc.cond, tc.muts, got, tc.want)
		}
	}
}

func TestScoreGrammar(t *testing.T) {
	tests := []struct {
		cond, muts string
		want       float64
	}{
		{"SCORE FROM (41L => 15, 215Y => 60)", "M41L,T215Y", 75},
		{"SCORE FROM (41L => 15, 215Y => 60, 41L AND 215FY => 10)", "M41L,T215Y", 85},
		// MAX takes the largest holding item, negative values included; 0 when none holds
		{"SCORE FROM (MAX(50L => -10, 50V => 20))", "I50L", -10},
		{"SCORE FROM (MAX(50L => -10, 50V => 20))", "I50LV", 20},
		{"SCORE FROM (MAX(50L => -10, 50V => 20))", "", 0},
		{"SCORE FROM (MAX(184I => -10, 184V => -10), 41L => 15)", "M184V,M41L", 5},
		{"SCORE FROM (MAX(50L => -10, 50F => -5))", "I50FL", -5},
		{"SCORE FROM (65R => -10)", "K65R", -10},
		// a mixture never adds its score twice to one item
		{"SCORE FROM (184IV => 15)", "M184IV", 15},
		{"SCORE FROM (MAX(184I => 15, 184V => 15))", "M184IV", 15},
		{"SCORE FROM (41L AND 215FY => 10)", "M41L,T215FY", 10},
		// decimal scores (Rega)
		{"SCORE FROM ( 98G => 0.5, MAX ( 101P => 2, 101EHNQ => 0.5 ), (101E AND 184IV) => 2.5 )", "A98G,K101E,M184V", 3.5},
		// nested MAX
		{"SCORE FROM (MAX(41L => 5, MAX(215Y => 20, 215F => 30)))", "T215F", 30},
		// parenthesised and NOT/SELECT items
		{"SCORE FROM ((41L OR 215Y) => 7, NOT 184V => 1, SELECT ATLEAST 2 FROM (41L,215Y) => 4)", "M41L,T215Y", 12},
	}
	for _, tc := range tests {
		c := mustParse(t, tc.cond)
		if !c.IsScore() {
			t.Fatalf("%q did not parse as a score condition", tc.cond)
		}
		if got := c.Score(mutations(t, tc.muts)); got != tc.want {
			t.Errorf("%q with [%s] = %v, want %v", tc.cond, tc.muts, got, tc.want)
		}
	}
}

func TestPartialScores(t *testing.T) {
	c := mustParse(t, "SCORE FROM (41L => 15, MAX(184I => -10, 184V => -10), 41L AND 215FY => 10, 67N => 5)")
	score, parts := c.ScoreDetail(mutations(t, "M41L,M184V,T215Y"), nil)
	if score != 15 {
		t.Fatalf("score %v", score)
	}
	var got []string
	for _, p := range parts {
		var ms []string
		for _, m := range p.Item.Matches(mutations(t, "M41L,M184V,T215Y")) {
			ms = append(ms, strconv.Itoa(m.Pos)+m.AAs.String())
		}
		got = append(got, p.Item.Text+"="+strings.Join(ms, "+"))
	}
	want := "41L=41L|184V=184V|41L AND 215FY=41L+215Y"
	if strings.Join(got, "|") != want {
		t.Errorf("partials %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestRanges(t *testing.T) {
	rs, err := ParseRanges("(-INF TO 9 => 1,  10 TO 14 => 2,  15 TO 29 => 3,  30 TO 59 => 4,  60 TO INF => 5)")
	if err != nil {
		t.Fatal(err)
	}
	for score, want := range map[float64]int{-20: 1, 9: 1, 9.5: 1, 10: 2, 14: 2, 15: 3, 59: 4, 60: 5, 1000: 5} {
		if got, _ := rs.Level(score); got != want {
			t.Errorf("score %v: level %d, want %d", score, got, want)
		}
	}
	rega, err := ParseRanges("(-INF TO 0.99 => 1, 1 TO 1.99 => 5, 2 TO INF => 6)")
	if err != nil {
		t.Fatal(err)
	}
	for score, want := range map[float64]int{0.5: 1, 0.995: 1, 1: 5, 1.75: 5, 2: 6} {
		if got, _ := rega.Level(score); got != want {
			t.Errorf("rega score %v: level %d, want %d", score, got, want)
		}
	}
	for _, bad := range []string{"", "(1 TO 2 => )", "(1 TO 2 => 1, 2 TO 3 => 2)", "(3 TO 1 => 1)", "(1 TO 2 => 1", "1 TO 2 => 1 x"} {
		if _, err := ParseRanges(bad); err == nil {
			t.Errorf("ParseRanges(%q) accepted", bad)
		}
	}
}

func TestConditionErrorsSayWhere(t *testing.T) {
	tests := []struct {
		cond    string
		offset  int
		contain string
	}{
		{"41L AND", 7, "expected a residue"},
		{"41L AMD 67N", 4, "unexpected text"},
		{"41B", 2, `'B' is not an amino acid`},
		{"41", 2, "expected amino acids"},
		{"SCORE FROM (41L => 5, 67N)", 25, `expected "=>"`},
		{"SCORE FROM (41L => x)", 19, "expected a number"},
		{"SCORE FROM 41L => 5", 11, `expected "("`},
		{"SELECT SOME 2 FROM (41L)", 7, "ATLEAST"},
		{"SELECT ATLEAST 3 AND NOTMORETHAN 2 FROM (41L)", 45, "no count"},
		{"(41L AND 67N", 12, `expected "AND", "OR" or ")"`},
		{"41(NOT L", 8, `expected ")"`},
		{"0L", 0, "position must be"},
		{"41L\nAND 67X", 10, `'X' is not an amino acid`},
	}
	for _, tc := range tests {
		_, err := ParseCondition(tc.cond)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: error %v is not an *Error", tc.cond, err)
			continue
		}
		if e.Offset != tc.offset || !strings.Contains(e.What, tc.contain) {
			t.Errorf("%q: offset %d %q, want offset %d containing %q", tc.cond, e.Offset, e.What, tc.offset, tc.contain)
		}
	}
	_, err := ParseCondition("41L\nAND 67X")
	if e := err.(*Error); e.Line != 2 || e.Column != 7 {
		t.Errorf("line %d column %d, want 2 7", e.Line, e.Column)
	}
	deep := strings.Repeat("(", MaxDepth+1) + "41L" + strings.Repeat(")", MaxDepth+1)
	if _, err := ParseCondition(deep); err == nil || !strings.Contains(err.Error(), "nesting deeper") {
		t.Errorf("deep nesting: %v", err)
	}
	if _, err := ParseCondition(strings.Repeat("41L OR ", MaxConditionBytes/7+1) + "41L"); err == nil {
		t.Error("oversize condition accepted")
	}
}

func FuzzParseCondition(f *testing.F) {
	for _, s := range []string{
		"41L", "M41L AND 215FY", "41(NOT L)", "NOT 41L OR EXCLUDE 67N",
		"SELECT ATLEAST 2 AND NOTMORETHAN 3 FROM (41L,67N,70R)",
		"SCORE FROM (41L => 5, MAX(65R => -10, 65N => 30), (41L AND 215Y) => 2.5)",
		"((((41L))))", "NOT (41L AND 67N)", "SELECT EXACTLY 1 FROM (NOT 41L)",
	} {
		f.Add(s)
	}
	g := mutations(f, "M41L,D67N,K70R,M184IV,T215Y,T69i,K65R")
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseCondition(text)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if e.Offset > len(text) {
				t.Fatalf("offset %d beyond text of %d bytes", e.Offset, len(text))
			}
			return
		}
		if c.IsScore() {
			s1 := c.Score(g)
			s2, _ := c.ScoreDetail(g, nil)
			if s1 != s2 {
				t.Fatalf("Score %v and ScoreDetail %v differ", s1, s2)
			}
		} else {
			_ = c.Holds(g)
			_ = c.Matches(g)
		}
	})
}
