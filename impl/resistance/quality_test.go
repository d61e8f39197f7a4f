package resistance

import (
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/align"
	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// sharedSequence is the input sequence of ../shared/data/hivdb/sequences/<stem>.json.
func sharedSequence(t testing.TB, stem string) *fasta.Record {
	t.Helper()
	s := testkit.ReadHIVDBSequence(t, stem)
	return fasta.Parse(">" + s.Header + "\n" + s.Sequence + "\n")[0]
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
		checkReportHas(t, rt, rep, want)
	}
}

// checkReportHas checks a report of type rt: an XML one validates against the XSD, and
// every string of want is in it.
func checkReportHas(t *testing.T, rt ReportType, rep string, want []string) {
	t.Helper()
	if rt == ReportSimple || rt == ReportDetailed || rt == Report2009 {
		validate(t, rep)
	}
	for _, w := range want {
		if !strings.Contains(rep, w) {
			t.Errorf("report type %v: no %q in\n%s", rt, w, rep)
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
	s := hivdbSettings(t, e)
	smp := e.sequenceSample(s, 1, fasta.Parse("ACGT")[0])
	e.interpret(s, &smp, res)
	out := map[string]string{}
	for _, v := range smp.Validation {
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

// TestUnalignedGenesAndLongGaps: Stanford's two checks of how genes were found — a PR, RT or
// IN the sequence spans but the alignment did not keep (SEVERE WARNING), and a gap inside a
// gene longer than 30 nucleotides (SEVERE WARNING here; Stanford's program refuses such a
// sequence) — on hand-made alignments at their thresholds.
func TestUnalignedGenesAndLongGaps(t *testing.T) {
	const notAligned = "The sequence may also hold %s: that part of the input was not analysed (poor quality, too short, or partial sequences joined without N in place of the missing part)"
	gapMsg := func(what string) string {
		return "The sequence has a gap longer than 30 nucleotides (" + what + "): partial sequences may have been joined; put N in place of a missing part. Stanford's HIVdb program does not analyse such a sequence"
	}
	gene := func(g align.Gene, first, last, firstNA int, ms ...align.Mutation) align.GeneResult {
		n := last - first + 1
		return align.GeneResult{Gene: g, FirstAA: first, LastAA: last, FirstNA: firstNA, LastNA: firstNA + 3*n - 1, MatchPercent: 95,
			AlignedNA: strings.Repeat("AAA", n), AlignedAA: strings.Repeat("K", n), Mutations: ms}
	}
	deleted := func(g align.Gene, from, to int) []align.Mutation {
		var ms []align.Mutation
		for p := from; p <= to; p++ {
			ms = append(ms, align.Mutation{Gene: g, Position: p, Consensus: e21Consensus(t, g, p), Deletion: true})
		}
		return ms
	}
	inserted := func(g align.Gene, pos int, codons int) align.Mutation {
		c := e21Consensus(t, g, pos)
		return align.Mutation{Gene: g, Position: pos, Consensus: c, AAs: string(c), Codon: "AAA", Insertion: true,
			InsertedAAs: strings.Repeat("K", codons), InsertedCodons: strings.Repeat("AAA", codons)}
	}
	nts := func(n int) []byte { return []byte(strings.Repeat("A", n)) }
	cases := []struct {
		name       string
		res        align.Result
		want, none []string
	}{
		{name: "PR and IN found, RT between them not", res: align.Result{Analysed: nts(2000), Genes: []align.GeneResult{gene(align.PR, 1, 99, 1), gene(align.IN, 1, 288, 1100)}},
			want: []string{fmt.Sprintf(notAligned, "RT")}},
		{name: "RT read in part but not kept", res: align.Result{Analysed: nts(1000), Genes: []align.GeneResult{gene(align.PR, 1, 99, 1)}, Discarded: []align.Gene{align.RT}},
			want: []string{fmt.Sprintf(notAligned, "RT")}},
		{name: "801 nucleotides after PR: RT may be there", res: align.Result{Analysed: nts(297 + 801), Genes: []align.GeneResult{gene(align.PR, 1, 99, 1)}},
			want: []string{fmt.Sprintf(notAligned, "RT")}},
		{name: "800 nucleotides after PR: too few for RT", res: align.Result{Analysed: nts(297 + 800), Genes: []align.GeneResult{gene(align.PR, 1, 99, 1)}},
			none: []string{"may also hold"}},
		{name: "211 nucleotides before RT: PR may be there; 601 after: IN too", res: align.Result{Analysed: nts(211 + 1680 + 601), Genes: []align.GeneResult{gene(align.RT, 1, 560, 212)}},
			want: []string{fmt.Sprintf(notAligned, "PR or IN")}},
		{name: "210 before RT, 600 after", res: align.Result{Analysed: nts(210 + 1680 + 600), Genes: []align.GeneResult{gene(align.RT, 1, 560, 211)}},
			none: []string{"may also hold"}},
		{name: "IN alone after 801 unaligned nucleotides: RT", res: align.Result{Analysed: nts(801 + 864), Genes: []align.GeneResult{gene(align.IN, 1, 288, 802)}},
			want: []string{fmt.Sprintf(notAligned, "RT")}},
		{name: "IN alone after 1,680 + 211 unaligned nucleotides: PR and RT", res: align.Result{Analysed: nts(1891 + 864), Genes: []align.GeneResult{gene(align.IN, 1, 288, 1892)}},
			want: []string{fmt.Sprintf(notAligned, "PR or RT")}},
		{name: "PR alone before 1,680 + 601 unaligned nucleotides: RT and IN", res: align.Result{Analysed: nts(297 + 2281), Genes: []align.GeneResult{gene(align.PR, 1, 99, 1)}},
			want: []string{fmt.Sprintf(notAligned, "RT or IN")}},
		{name: "11 deleted RT codons", res: align.Result{Analysed: nts(1000), Genes: []align.GeneResult{gene(align.RT, 1, 300, 1, deleted(align.RT, 40, 50)...)}},
			want: []string{gapMsg("RT 40–50 deleted")}},
		{name: "10 deleted RT codons", res: align.Result{Analysed: nts(1000), Genes: []align.GeneResult{gene(align.RT, 1, 300, 1, deleted(align.RT, 40, 49)...)}},
			none: []string{"gap longer"}},
		{name: "two runs of 6 deleted codons", res: align.Result{Analysed: nts(1000), Genes: []align.GeneResult{gene(align.RT, 1, 300, 1, append(deleted(align.RT, 40, 45), deleted(align.RT, 60, 65)...)...)}},
			none: []string{"gap longer"}},
		{name: "11 inserted PR codons", res: align.Result{Analysed: nts(1000), Genes: []align.GeneResult{gene(align.PR, 1, 99, 1, inserted(align.PR, 35, 11))}},
			want: []string{gapMsg("PR 35 + 11 codons inserted")}},
		{name: "10 inserted PR codons", res: align.Result{Analysed: nts(1000), Genes: []align.GeneResult{gene(align.PR, 1, 99, 1, inserted(align.PR, 35, 10))}},
			none: []string{"gap longer"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := findingLevels(t, &c.res)
			for _, msg := range c.want {
				if got[msg] != LevelSevereWarning {
					t.Errorf("finding %q: level %q, want SEVERE WARNING; all: %q", msg, got[msg], got)
				}
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

// e21Consensus is the subtype B consensus amino acid at a gene position.
func e21Consensus(t *testing.T, g align.Gene, pos int) byte {
	return testEngine(t).ref.consensusAt(string(g), pos)
}

// TestUnalignedGeneAndGapInRealSequences: the two checks on real sequences. The shared
// PR+RT sequence whose RT is replaced by foreign nucleotides keeps PR and says RT may be
// there; the shared PR+RT+IN sequence with 11 RT codons cut out keeps every gene and names
// the gap; the unmodified sequences get neither finding.
func TestUnalignedGeneAndGapInRealSequences(t *testing.T) {
	e := testEngine(t)
	analyse := func(t *testing.T, rec *fasta.Record) *sample {
		t.Helper()
		s := hivdbSettings(t, e)
		smp := e.analyseSequence(s, 1, rec)
		if smp.Err != "" {
			t.Fatal(smp.Err)
		}
		return &smp
	}
	findings := func(smp *sample) string {
		var b strings.Builder
		for _, v := range smp.Validation {
			b.WriteString(v.Level + ": " + v.Message + "\n")
		}
		return b.String()
	}
	for _, stem := range []string{"RT_INSERTIONS_69_AF096886", "PRRTIN_AB097865"} {
		if f := findings(analyse(t, sharedSequence(t, stem))); strings.Contains(f, "may also hold") || strings.Contains(f, "gap longer") {
			t.Errorf("%s unmodified: %s", stem, f)
		}
	}

	rec := sharedSequence(t, "RT_INSERTIONS_69_AF096886")
	smp := analyse(t, rec)
	pr := smp.Seq.Genes["PR"]
	foreign := []byte(strings.Repeat("CCTTAGGA", 125)) // 1,000 nucleotides, no HIV-1 gene
	mod := append(append([]byte(nil), rec.Sequence[:pr.LastNA]...), foreign...)
	smp = analyse(t, &fasta.Record{Name: "PR then foreign", Sequence: mod, Length: len(mod)})
	if smp.Seq.Genes["PR"] == nil || smp.Seq.Genes["RT"] != nil {
		t.Fatalf("PR then foreign nucleotides: genes %v", smp.geneRanges())
	}
	if f := findings(smp); !strings.Contains(f, "SEVERE WARNING: The sequence may also hold RT:") {
		t.Errorf("PR then %d foreign nucleotides: %s", len(foreign), f)
	}

	rec = sharedSequence(t, "PRRTIN_AB097865")
	smp = analyse(t, rec)
	rt := smp.Seq.Genes["RT"]
	cut := rt.FirstNA - 1 + 3*(100-rt.FirstAA) // RT codons 100–110
	mod = append(append([]byte(nil), rec.Sequence[:cut]...), rec.Sequence[cut+33:]...)
	smp = analyse(t, &fasta.Record{Name: "RT 100-110 cut", Sequence: mod, Length: len(mod)})
	for _, g := range []string{"PR", "RT", "IN"} {
		if smp.Seq.Genes[g] == nil {
			t.Errorf("%s lost: %s", g, smp.geneRanges())
		}
	}
	if f := findings(smp); !regexp.MustCompile(`SEVERE WARNING: The sequence has a gap longer than 30 nucleotides \(RT \d+–\d+ deleted\)`).MatchString(f) {
		t.Errorf("11 RT codons cut: %s", f)
	}
}

// TestMutationListQualityLevels: the quality findings of mutation lists at the thresholds
// where Stanford's program (its mutations validator) changes their level: stop codons per
// gene, APOBEC signature mutations (from one), naming the DRMs APOBEC may have caused, at
// drug-resistance positions, and unusual mutations per gene.
func TestMutationListQualityLevels(t *testing.T) {
	e := testEngine(t)
	s := hivdbSettings(t, e)
	cases := []struct {
		name  string
		lists [][]string
		want  map[string]string
	}{
		{"no findings", [][]string{nil, {"M41L", "M184V", "T215Y"}, nil}, map[string]string{}},
		{"one APOBEC signature mutation: NOTE, naming the APOBEC-caused DRM", [][]string{{"D25N", "D30N"}, nil, nil}, map[string]string{
			"1 APOBEC signature mutation (G-to-A hypermutation): PR: D25N. 1 drug-resistance mutation may be caused by APOBEC hypermutation rather than drug selection: PR: D30N": LevelNote,
		}},
		{"three APOBEC signature mutations, one a stop, one at a drug-resistance position: WARNING", [][]string{{"W6*", "D29N", "D30N", "G48R"}, nil, nil}, map[string]string{
			"3 APOBEC signature mutations (G-to-A hypermutation): PR: W6*, D29N, G48R. 1 drug-resistance mutation may be caused by APOBEC hypermutation rather than drug selection: PR: D30N": LevelWarning,
			"There is 1 APOBEC signature mutation at a drug-resistance position: PR G48R":                                                                                                     LevelWarning,
			"There is 1 stop codon in PR: W6*": LevelWarning,
		}},
		{"five APOBEC signature mutations over two genes: SEVERE (more than three)", [][]string{{"D25N", "G48R"}, {"M184I", "G190R", "W212*", "W229*"}, nil}, map[string]string{
			"5 APOBEC signature mutations (G-to-A hypermutation): PR: D25N, G48R; RT: G190R, W212*, W229*. 1 drug-resistance mutation may be caused by APOBEC hypermutation rather than drug selection: RT: M184I": LevelSevereWarning,
			"There are 2 APOBEC signature mutations at drug-resistance positions: PR G48R, RT G190R":                                                                                                               LevelSevereWarning,
			"There are 2 stop codons in RT: W212*, W229*":       LevelSevereWarning,
			"There are 2 unusual mutations in RT: W212*, W229*": LevelWarning,
		}},
		{"unusual mutations: two elsewhere WARNING; at drug-resistance positions", [][]string{{"I3W", "T4W"}, {"M184W", "I2W"}, {"G118W", "E138W", "I5W", "K7W"}}, map[string]string{
			"There are 2 unusual mutations in PR: I3W, T4W":                                  LevelWarning,
			"There is 1 unusual mutation at a drug-resistance position in RT: M184W":         LevelWarning,
			"There is 1 additional unusual mutation in RT: I2W":                              LevelWarning,
			"There are 2 unusual mutations at drug-resistance positions in IN: G118W, E138W": LevelSevereWarning,
			"There are 2 additional unusual mutations in IN: I5W, K7W":                       LevelSevereWarning,
		}},
		{"one unusual mutation away from drug-resistance positions: no finding", [][]string{{"I3W"}, nil, nil}, map[string]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			smp := e.evaluate(s, 1, c.lists)
			if smp.Err != "" {
				t.Fatal(smp.Err)
			}
			got := map[string]string{}
			for _, v := range smp.Validation {
				got[v.Message] = v.Level
			}
			for msg, level := range c.want {
				if got[msg] != level {
					t.Errorf("finding %q: level %q, want %q; all: %q", msg, got[msg], level, got)
				}
			}
			if len(got) != len(c.want) {
				t.Errorf("findings %q, want exactly %q", got, c.want)
			}
		})
	}
}

// TestAPOBECInMutationListReports: a mutation list holding the shared hypermutated sequence's
// PR mutations names its APOBEC signature mutations and the DRM APOBEC may have caused (D30N)
// in every report type, as sequences do; the XML ones validate against the XSD; with quality
// off (the earlier vocabulary without QA ANALYSIS) no quality section appears.
func TestAPOBECInMutationListReports(t *testing.T) {
	e := testEngine(t)
	lists := [][][]string{{{"W6*", "D29N", "D30N", "G48R"}, nil, nil}}
	finding := "3 APOBEC signature mutations (G-to-A hypermutation): PR: W6*, D29N, G48R. 1 drug-resistance mutation may be caused by APOBEC hypermutation rather than drug selection: PR: D30N"
	siteXML := []string{
		`<mutation classification="Major" type="substitution" drm="true" sdrm="true" apobecDRM="true">D30N</mutation>`,
		`apobec="true">G48R</mutation>`, `<apobecMutation gene="PR">D29N</apobecMutation>`, `<apobecDRM gene="PR">D30N</apobecDRM>`,
		`<stopCodons>1</stopCodons>`, `<apobecMutations>3</apobecMutations>`, `<hypermutated>true</hypermutated>`,
		"<level>WARNING</level>", xmlEscaped(finding),
	}
	for rt, want := range map[ReportType][]string{
		ReportSimple:   siteXML,
		ReportDetailed: siteXML,
		Report2009:     {"<isApobecDRM>true</isApobecDRM>", "<isApobec>true</isApobec>", "<sequenceQualityCounts>", `<apobecMutation gene="PR">W6*</apobecMutation>`, xmlEscaped(finding)},
		ReportHTML:     {"<h4>Mutation list quality</h4>", "possibly APOBEC-induced", "APOBEC signature mutation", htmlEscaped(finding)},
	} {
		rep, err := e.MutationListReport(lists, Options{Algorithm: AlgorithmHIVDB, ReportType: rt, ReportDate: "2026-05-01"})
		if err != nil {
			t.Fatal(err)
		}
		checkReportHas(t, rt, rep, want)
	}
	rep, err := e.MutationListReport(lists, Options{Algorithm: AlgorithmHIVDB, ReportType: ReportText, ReportDate: "2026-05-01"})
	if err != nil {
		t.Fatal(err)
	}
	col := textColumns(t, rep)
	if col["APOBEC mutation list"] != "PR: W6*, D29N, G48R" || col["APOBEC DRM list"] != "PR: D30N" || col["stop codon list"] != "PR: W6*" || col["APOBEC mutations"] != "3" || !strings.Contains(col["validation"], "WARNING: "+finding) {
		t.Errorf("text report quality columns: %v", col)
	}
	if col["NFV level"] == "" || col["PR mutations"] != "W6*, D29N, D30N, G48R" {
		t.Errorf("text report columns shifted: %v", col)
	}
	for _, words := range []string{"XMLVER1", "SIMPLEREPORT", "BATCHTEXT", "HTML"} {
		rep, err := e.MutationListReport(lists, Options{Algorithm: AlgorithmHIVDB, ReportOptions: words, ReportDate: "2026-05-01"})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(rep, "APOBEC signature mutations (") || strings.Contains(rep, "APOBEC mutation list") || strings.Contains(rep, "Mutation list quality") {
			t.Errorf("%s without QA ANALYSIS has a quality section", words)
		}
	}
}
