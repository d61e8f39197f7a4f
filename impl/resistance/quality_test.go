package resistance

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/align"
	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// sharedSequence reads the input sequence of ../shared/data/hivdb/sequences/<stem>.json.
func sharedSequence(t testing.TB, stem string) *fasta.Record {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testkit.SharedDir(t), "data", "hivdb", "sequences", stem+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var genes map[string]struct {
		Sequence struct {
			Header   string `json:"header"`
			Sequence string `json:"sequence"`
		} `json:"sequence"`
	}
	if err := json.Unmarshal(raw, &genes); err != nil {
		t.Fatalf("%s: %v", stem, err)
	}
	for _, g := range genes {
		return fasta.Parse(">" + g.Sequence.Header + "\n" + g.Sequence.Sequence + "\n")[0]
	}
	t.Fatalf("%s: no gene", stem)
	return nil
}

// TestAPOBECNamedInEveryReportType: the shared hypermutated sequence (PROBLEM_SEQUENCES_APOBEC:
// PR W6*, D29N, G48R are APOBEC signature mutations; D30N, which drives NFV resistance, is a
// drug-resistance mutation APOBEC can cause) is named so in every report type, and the
// validation says which DRM may be an APOBEC artefact, at Stanford's level (3 signature
// mutations: WARNING; one at a drug-resistance position, G48R: WARNING).
func TestAPOBECNamedInEveryReportType(t *testing.T) {
	e := testEngine(t)
	rec := sharedSequence(t, "PROBLEM_SEQUENCES_APOBEC")
	wantFinding := map[string]string{
		"3 APOBEC signature mutations (G-to-A hypermutation): PR: W6*, D29N, G48R. 1 drug-resistance mutation may be caused by APOBEC hypermutation rather than drug selection: PR: D30N": LevelWarning,
		"There is 1 APOBEC signature mutation at a drug-resistance position: PR G48R":                                                                                                     LevelWarning,
		"There is 1 stop codon in PR: W6*": LevelNote,
	}
	for _, rt := range []ReportType{ReportSimple, ReportDetailed, Report2009, ReportText, ReportHTML} {
		rep, err := e.SequenceReport([]*fasta.Record{rec}, Options{Algorithm: AlgorithmHIVDB, ReportType: rt, ReportDate: "2026-05-01"})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		switch rt {
		case ReportSimple, ReportDetailed:
			validate(t, rep)
			want = []string{
				`<mutation classification="Major" type="substitution" drm="true" sdrm="true" apobecDRM="true" codon="AAT">D30N</mutation>`,
				`apobec="true" codon="AGG">G48R</mutation>`,
				`<apobecMutation gene="PR">W6*</apobecMutation>`, `<apobecMutation gene="PR">D29N</apobecMutation>`, `<apobecMutation gene="PR">G48R</apobecMutation>`,
				`<apobecDRM gene="PR">D30N</apobecDRM>`, `<stopCodon gene="PR">W6*</stopCodon>`, `<unusualMutation gene="PR">W6*</unusualMutation>`,
				`<hypermutated>true</hypermutated>`,
			}
			for msg, level := range wantFinding {
				if !regexp.MustCompile(`<level>` + level + `</level>\s*<message>` + regexp.QuoteMeta(xmlEscaped(msg)) + `</message>`).MatchString(rep) {
					t.Errorf("report type %v: no %s %q", rt, level, msg)
				}
			}
		case Report2009:
			validate(t, rep)
			want = []string{
				"<mutationString>D30N</mutationString>", "<isApobecDRM>true</isApobecDRM>",
				`<apobecDRM gene="PR">D30N</apobecDRM>`, `<apobecMutation gene="PR">G48R</apobecMutation>`,
			}
			for msg := range wantFinding {
				want = append(want, xmlEscaped(msg))
			}
		case ReportText:
			col := textColumns(t, rep)
			if col["APOBEC mutation list"] != "PR: W6*, D29N, G48R" || col["APOBEC DRM list"] != "PR: D30N" || col["stop codon list"] != "PR: W6*" || col["unusual mutation list"] != "PR: W6*" || col["APOBEC mutations"] != "3" {
				t.Errorf("text report quality columns: %v", col)
			}
			for msg, level := range wantFinding {
				if !strings.Contains(col["validation"], level+": "+msg) {
					t.Errorf("text report validation %q: no %s: %q", col["validation"], level, msg)
				}
			}
		case ReportHTML:
			want = []string{"D30N", "possibly APOBEC-induced", "APOBEC signature mutation", ">WARNING<"}
			for msg := range wantFinding {
				want = append(want, htmlEscaped(msg))
			}
		}
		for _, w := range want {
			if !strings.Contains(rep, w) {
				t.Errorf("report type %v: no %q in\n%s", rt, w, rep)
			}
		}
	}
}

func xmlEscaped(s string) string {
	var b strings.Builder
	escapeXML(&b, s)
	return b.String()
}

// textColumns maps the header of a one-sequence text report to its row.
func textColumns(t *testing.T, rep string) map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(rep, "\n"), "\n")
	head, row := strings.Split(lines[len(lines)-2], "\t"), strings.Split(lines[len(lines)-1], "\t")
	if len(head) != len(row) {
		t.Fatalf("text report: %d columns, %d cells", len(head), len(row))
	}
	col := map[string]string{}
	for i, h := range head {
		col[h] = row[i]
	}
	return col
}

// findingLevels runs validate on a hand-made alignment and returns each finding's level by
// message.
func findingLevels(t *testing.T, res *align.Result) map[string]string {
	t.Helper()
	e := testEngine(t)
	s, err := e.resolve(Options{Algorithm: AlgorithmHIVDB})
	if err != nil {
		t.Fatal(err)
	}
	smp := e.sequenceSample(s, 1, fasta.Parse("ACGT")[0])
	e.interpret(s, &smp, res)
	out := map[string]string{}
	for _, v := range smp.Seq.Validation {
		out[v.Message] = v.Level
	}
	return out
}

func prMut(pos int, consensus byte, aas, codon string) align.Mutation {
	return align.Mutation{Gene: align.PR, Position: pos, Consensus: consensus, AAs: aas, Codon: codon}
}

func rtMut(pos int, consensus byte, aas, codon string) align.Mutation {
	return align.Mutation{Gene: align.RT, Position: pos, Consensus: consensus, AAs: aas, Codon: codon}
}

// TestQualityRulesAndLevels: each of Stanford's sequence-quality rules at the thresholds
// where its level changes, with the mutations named (docs/algorithm-reports.md).
func TestQualityRulesAndLevels(t *testing.T) {
	gene := func(g align.Gene, first, last int, ms ...align.Mutation) align.GeneResult {
		n := last - first + 1
		return align.GeneResult{Gene: g, FirstAA: first, LastAA: last, FirstNA: 1, LastNA: 3 * n, MatchPercent: 95,
			AlignedNA: strings.Repeat("AAA", n), AlignedAA: strings.Repeat("K", n), Mutations: ms}
	}
	cases := []struct {
		name string
		res  align.Result
		want map[string]string // message → level
		none []string          // fragments no finding may hold
	}{
		{
			name: "clean, full genes",
			res:  align.Result{Genes: []align.GeneResult{gene(align.PR, 1, 99, prMut(10, 'L', "I", "ATC")), gene(align.RT, 1, 240, rtMut(184, 'M', "V", "GTG"))}},
			want: map[string]string{},
		},
		{
			name: "two APOBEC signature mutations: NOTE, naming the APOBEC-caused DRM",
			res:  align.Result{Genes: []align.GeneResult{gene(align.PR, 1, 99, prMut(25, 'D', "N", "AAT"), prMut(29, 'D', "N", "AAT"), prMut(30, 'D', "N", "AAC"))}},
			want: map[string]string{
				"2 APOBEC signature mutations (G-to-A hypermutation): PR: D25N, D29N. 1 drug-resistance mutation may be caused by APOBEC hypermutation rather than drug selection: PR: D30N": LevelNote,
			},
		},
		{
			name: "one APOBEC signature mutation: no finding, even beside an APOBEC-caused DRM",
			res:  align.Result{Genes: []align.GeneResult{gene(align.PR, 1, 99, prMut(25, 'D', "N", "AAT"), prMut(30, 'D', "N", "AAC"))}},
			want: map[string]string{},
		},
		{
			name: "five APOBEC signature mutations over two genes: SEVERE WARNING, two at drug-resistance positions",
			res: align.Result{Genes: []align.GeneResult{
				gene(align.PR, 1, 99, prMut(25, 'D', "N", "AAT"), prMut(29, 'D', "N", "AAT"), prMut(48, 'G', "R", "AGA")),
				gene(align.RT, 1, 240, rtMut(184, 'M', "I", "ATA"), rtMut(190, 'G', "R", "AGA"), rtMut(212, 'W', "*", "TAG"))}},
			want: map[string]string{
				"5 APOBEC signature mutations (G-to-A hypermutation): PR: D25N, D29N, G48R; RT: G190R, W212*. 1 drug-resistance mutation may be caused by APOBEC hypermutation rather than drug selection: RT: M184I": LevelSevereWarning,
				"There are 2 APOBEC signature mutations at drug-resistance positions: PR G48R, RT G190R":                                                                                                              LevelSevereWarning,
				"There is 1 stop codon in RT: W212*": LevelNote,
			},
		},
		{
			name: "stop codons per gene: one NOTE, two SEVERE",
			res: align.Result{Genes: []align.GeneResult{
				gene(align.PR, 1, 99, prMut(7, 'Q', "*", "TAA")),
				gene(align.RT, 1, 240, rtMut(23, 'Q', "*", "TAG"), rtMut(28, 'E', "*Q", "YAA"))}},
			want: map[string]string{
				"There is 1 stop codon in PR: Q7*":           LevelNote,
				"There are 2 stop codons in RT: Q23*, E28Q*": LevelSevereWarning,
			},
			none: []string{"unusual mutations in"},
		},
		{
			name: "short, trimmed, unsequenced",
			res: func() align.Result {
				p := gene(align.PR, 10, 60)
				p.LeftTrimmed = 2
				r := gene(align.RT, 1, 180)
				r.RightTrimmed = 1
				r.UnsequencedPositions = []int{40, 41, 42, 90}
				r.UnsequencedCodons = 4
				return align.Result{Genes: []align.GeneResult{p, r}}
			}(),
			want: map[string]string{
				"The PR sequence has only 51 codons (10–60): not enough for a complete interpretation":  LevelSevereWarning,
				"The RT sequence has only 180 codons (1–180): not enough for a complete interpretation": LevelWarning,
				"There are 4 RT positions in unsequenced regions: 40–42, 90":                            LevelWarning,
				"The PR sequence had 2 codons trimmed from its 5′ end for poor quality":                 LevelWarning,
				"The RT sequence had 1 codon trimmed from its 3′ end for poor quality":                  LevelWarning,
			},
		},
		{
			name: "a frameshift and an unusual indel in one gene: SEVERE",
			res: func() align.Result {
				r := gene(align.RT, 1, 240, align.Mutation{Gene: align.RT, Position: 30, Consensus: 'K', Deletion: true})
				r.Frameshifts = []align.Frameshift{{Gene: align.RT, Position: 12, Kind: align.FrameshiftDeletion, Size: 1}}
				return align.Result{Genes: []align.GeneResult{gene(align.PR, 1, 99), r}}
			}(),
			want: map[string]string{"The RT gene has 2 unusual indels and frameshifts: indels K30~; frameshifts RT12del1bp": LevelSevereWarning},
		},
		{
			name: "one frameshift: WARNING",
			res: func() align.Result {
				r := gene(align.RT, 1, 240)
				r.Frameshifts = []align.Frameshift{{Gene: align.RT, Position: 12, Kind: align.FrameshiftInsertion, Size: 2, NAs: "AA"}}
				return align.Result{Genes: []align.GeneResult{r}}
			}(),
			want: map[string]string{"The RT gene has a frameshift: RT12ins2bp_AA": LevelWarning},
		},
		{
			name: "unusual mutations per gene: 3 NOTE, 5 WARNING; at drug-resistance positions",
			res: align.Result{Genes: []align.GeneResult{
				gene(align.PR, 1, 99, prMut(3, 'I', "W", "TGG"), prMut(4, 'T', "W", "TGG"), prMut(5, 'L', "W", "TGG")),
				gene(align.RT, 1, 240, rtMut(2, 'I', "W", "TGG"), rtMut(3, 'S', "W", "TGG"), rtMut(5, 'I', "W", "TGG"), rtMut(7, 'T', "W", "TGG"), rtMut(184, 'M', "W", "TGG"))}},
			want: map[string]string{
				"There are 3 unusual mutations in PR: I3W, T4W, L5W":                     LevelNote,
				"There are 5 unusual mutations in RT: I2W, S3W, I5W, T7W, M184W":         LevelWarning,
				"There is 1 unusual mutation at a drug-resistance position in RT: M184W": LevelNote,
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := findingLevels(t, &c.res)
			for msg, level := range c.want {
				if got[msg] != level {
					t.Errorf("finding %q: level %q, want %q; all: %q", msg, got[msg], level, got)
				}
			}
			if len(got) != len(c.want) {
				t.Errorf("findings %q, want exactly %q", got, c.want)
			}
			for msg := range got {
				for _, frag := range c.none {
					if strings.Contains(msg, frag) {
						t.Errorf("unexpected finding %q", msg)
					}
				}
			}
		})
	}
}

func TestPositionRanges(t *testing.T) {
	for in, want := range map[string]string{"": "", "5": "5", "1 2 3": "1–3", "1 2 3 7 9 10": "1–3, 7, 9–10"} {
		var ps []int
		for _, f := range strings.Fields(in) {
			ps = append(ps, must(strconv.Atoi(f)))
		}
		if got := positionRanges(ps); got != want {
			t.Errorf("positionRanges(%v) = %q, want %q", ps, got, want)
		}
	}
}

func htmlEscaped(s string) string { return html.EscapeString(s) }
