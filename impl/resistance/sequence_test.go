package resistance

import (
	"errors"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/align"
	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// handMade is an alignment written by hand (independent of the aligner): CA, PR and RT
// present, reverse complemented, with a stop codon, a mixture, an insertion, a deletion, a
// frameshift and an APOBEC signature mutation (PR W6*).
func handMade() *align.Result {
	return &align.Result{
		ReverseComplemented: true,
		Subtype:             align.Subtype{Name: "B", Accession: "K03455", Distance: 0.045, PercentSimilarity: 95.5, Compared: 900},
		Genes: []align.GeneResult{
			{Gene: align.CA, FirstAA: 150, LastAA: 231, FirstNA: 1, LastNA: 246, MatchPercent: 98.78,
				AlignedNA: strings.Repeat("AAA", 82), AlignedAA: strings.Repeat("K", 82),
				Mutations: []align.Mutation{{Gene: align.CA, Position: 157, Consensus: 'P', AAs: "S", Codon: "TCA"}}},
			{Gene: align.PR, FirstAA: 1, LastAA: 99, FirstNA: 247, LastNA: 543, MatchPercent: 94.95,
				AlignedNA: strings.Repeat("CCT", 99), AlignedAA: strings.Repeat("P", 99), StopCodons: 1, AmbiguousCodons: 1,
				Mutations: []align.Mutation{
					{Gene: align.PR, Position: 6, Consensus: 'W', AAs: "*", Codon: "TGA", Stop: true},
					{Gene: align.PR, Position: 16, Consensus: 'G', AAs: "E", Codon: "GAA"},
					{Gene: align.PR, Position: 46, Consensus: 'M', AAs: "IM", Codon: "ATR", Mixture: true},
					{Gene: align.PR, Position: 90, Consensus: 'L', AAs: "M", Codon: "ATG"},
				}},
			{Gene: align.RT, FirstAA: 1, LastAA: 240, FirstNA: 544, LastNA: 1263, MatchPercent: 93.1,
				AlignedNA: strings.Repeat("CCA", 240), AlignedAA: strings.Repeat("P", 240),
				Mutations: []align.Mutation{
					{Gene: align.RT, Position: 12, Consensus: 'T', AAs: "X", Codon: "AC-", Partial: true},
					{Gene: align.RT, Position: 67, Consensus: 'D', Deletion: true},
					{Gene: align.RT, Position: 69, Consensus: 'T', AAs: "S", Codon: "AGT", Insertion: true, InsertedAAs: "SS", InsertedCodons: "AGTAGT"},
					{Gene: align.RT, Position: 184, Consensus: 'M', AAs: "V", Codon: "GTG"},
				},
				Frameshifts: []align.Frameshift{{Gene: align.RT, Position: 12, Kind: align.FrameshiftDeletion, Size: 1}}},
		},
	}
}

func batchReport(t *testing.T, opts Options, rec *fasta.Record, res *align.Result) string {
	t.Helper()
	b, err := testEngine(t).NewBatch(opts)
	if err != nil {
		t.Fatal(err)
	}
	return b.Header() + b.Interpret(1, rec, res) + b.Footer()
}

// TestSequenceReportsFromHandMadeAlignment renders every report type for a hand-made
// alignment, validates the XML ones against the XSD and checks what each carries.
func TestSequenceReportsFromHandMadeAlignment(t *testing.T) {
	rec := fasta.Parse(">sample 1\nACGT-ACGT12\n")[0]
	for _, rt := range []ReportType{ReportSimple, ReportDetailed, Report2009, ReportText} {
		rep := batchReport(t, Options{Algorithm: AlgorithmHIVDB, ReportType: rt, ReportDate: "2026-05-01"}, rec, handMade())
		if rt != ReportText {
			validate(t, rep)
		}
		for _, want := range []string{"sample 1", "RT", "M184V", "T69S_SS", "D67~", "W6*", "M46IM", "P157S"} {
			if !strings.Contains(rep, want) {
				t.Errorf("type %v: no %q in\n%s", rt, want, rep)
			}
		}
		switch rt {
		case Report2009:
			for _, want := range []string{
				"<md5sum>", "<sequence>ACGTACGT</sequence>", "<removedCharacters>3 characters that are not nucleotides removed: &#39;-&#39; ×1, &#39;1&#39; ×1, &#39;2&#39; ×1</removedCharacters>",
				"<gene>CA</gene>", "<firstAA>150</firstAA>", "<firstNA>247</firstNA>", "<lastNA>1263</lastNA>", "<matchPercentage>94.95</matchPercentage>",
				"<type>B</type>", "<percentSimilarity>95.50</percentSimilarity>", "<nucleicAcid>AGTAGTAGT</nucleicAcid>", "<translatedNA>S_SS</translatedNA>",
				"<translatedNA>-</translatedNA>", "<frameshift>RT12del1bp</frameshift>", "<sequenceQualityCounts>", "<reverseComplemented>true</reverseComplemented>",
				"<level>WARNING</level>", "reverse complement", "<drugCode>LEN</drugCode>", "<isApobec>true</isApobec>",
			} {
				if !strings.Contains(rep, want) {
					t.Errorf("XML 2009: no %q", want)
				}
			}
			// geneData children in the order the earlier service used
			gd := rep[strings.Index(rep, "<gene>PR</gene>"):]
			order := []string{"<present>", "<consensus>", "<alignedNASequence>", "<alignedAASequence>", "<firstAA>", "<lastAA>", "<firstNA>", "<lastNA>", "<matchPercentage>", "<subtype>", "<mutation>", "<quality>"}
			last := -1
			for _, o := range order {
				i := strings.Index(gd, o)
				if i < last {
					t.Errorf("XML 2009 geneData: %s out of order", o)
				}
				last = i
			}
		case ReportSimple, ReportDetailed:
			for _, want := range []string{`<summary gene="PR">`, `<summary gene="IN">`, "<present>false</present>", "<CA_mutations>", "<PR_mutations>", `codon="GTG"`, "<quality>", "<stopCodons>1</stopCodons>"} {
				if !strings.Contains(rep, want) {
					t.Errorf("type %v: no %q", rt, want)
				}
			}
			if (rt == ReportDetailed) != strings.Contains(rep, "<alignedNASequence>") {
				t.Errorf("type %v: aligned sequences belong to the detailed report only", rt)
			}
		case ReportText:
			col := textColumns(t, rep)
			if col["name"] != "sample 1" || col["status"] != "success" {
				t.Errorf("text report: %v", col)
			}
			if col["PR codons"] != "1-99" || col["IN codons"] != "NA" || col["frameshifts"] != "RT12del1bp" || col["subtype"] != "B (95.50%)" || !strings.Contains(col["validation"], "WARNING: the sequence was given as its reverse complement") {
				t.Errorf("text report columns: %v", col)
			}
		}
	}
}

// TestSequenceQualityLevels: the counts and the reference doc's validation levels.
func TestSequenceQualityLevels(t *testing.T) {
	e := testEngine(t)
	s := hivdbSettings(t, e)
	smp := e.sequenceSample(s, 1, fasta.Parse("ACGT")[0])
	res := handMade()
	// three APOBEC signature mutations (PR W6*, G17K, D25N; G16E is none) → WARNING
	res.Genes[1].Mutations = append(res.Genes[1].Mutations,
		align.Mutation{Gene: align.PR, Position: 17, Consensus: 'G', AAs: "K", Codon: "AAA"},
		align.Mutation{Gene: align.PR, Position: 25, Consensus: 'D', AAs: "N", Codon: "AAT"})
	res.Genes[2].Frameshifts = append(res.Genes[2].Frameshifts, align.Frameshift{Gene: align.RT, Position: 40, Kind: align.FrameshiftInsertion, Size: 2, NAs: "AA"})
	e.interpret(s, &smp, res)
	c := smp.Seq.Counts
	if c.StopCodons != 1 || c.Frameshifts != 2 || c.APOBEC != 3 || c.APOBECDRMs != 1 {
		t.Errorf("counts %+v: want 1 stop, 2 frameshifts, 3 APOBEC (PR W6*, G17K, D25N), 1 APOBEC-caused DRM (M46I)", c)
	}
	want := map[string]string{"frameshifts": LevelSevereWarning, "stop codon": LevelNote, "APOBEC signature": LevelWarning, "reverse complement": LevelWarning, "caused by APOBEC": LevelWarning} // unusual mutations: per gene (quality_test.go)
	for frag, level := range want {
		found := false
		for _, v := range smp.Validation {
			if strings.Contains(v.Message, frag) {
				found = true
				if v.Level != level {
					t.Errorf("%q: level %s, want %s", v.Message, v.Level, level)
				}
			}
		}
		if !found {
			t.Errorf("no validation finding about %q in %+v", frag, smp.Validation)
		}
	}
}

// TestSequenceFailuresStayInside: too short, too long and an empty record fail alone,
// inside a report that still validates; the other sequences are reported.
func TestSequenceFailuresStayInside(t *testing.T) {
	e := testEngine(t)
	recs := fasta.Parse(">short\nACGTACGT\n>long\n" + strings.Repeat("ACGT", 3300) + "\n>empty\n")
	for _, rt := range []ReportType{ReportSimple, Report2009, ReportText} {
		rep, err := e.SequenceReport(recs, Options{Algorithm: AlgorithmHIVDB, ReportType: rt})
		if err != nil {
			t.Fatal(err)
		}
		if rt != ReportText {
			validate(t, rep)
		}
		for _, want := range []string{"Sequence too short: 8 nucleotides; at least 30", "Sequence too long: 13200 nucleotides; at most 13000", "Sequence too short: 0 nucleotides"} {
			if !strings.Contains(rep, want) {
				t.Errorf("type %v: no %q in\n%s", rt, want, rep)
			}
		}
	}
	reps, err := e.SequenceReports(recs, Options{Algorithm: AlgorithmHIVDB, ReportType: Report2009})
	if err != nil || len(reps) != 3 {
		t.Fatalf("%d reports, %v", len(reps), err)
	}
	for _, r := range reps {
		validate(t, r)
	}
}

func TestSequenceLimits(t *testing.T) {
	many := make([]*fasta.Record, MaxSequences+1)
	for i := range many {
		many[i] = &fasta.Record{Length: 100}
	}
	if err := CheckSequenceLimits(many); !errors.Is(err, ErrTooMuchInput) {
		t.Errorf("%d sequences: %v", len(many), err)
	}
	if err := CheckSequenceLimits(many[:MaxSequences]); err != nil {
		t.Errorf("%d sequences: %v", MaxSequences, err)
	}
	big := make([]*fasta.Record, 1001)
	for i := range big {
		big[i] = &fasta.Record{Length: MaxTotalBases / 1000}
	}
	if err := CheckSequenceLimits(big); !errors.Is(err, ErrTooMuchInput) || !strings.Contains(err.Error(), "at most 10000000") {
		t.Errorf("over the total: %v", err)
	}
	if err := CheckSequenceLimits(big[:1000]); err != nil {
		t.Errorf("exactly the total: %v", err)
	}
	if err := CheckSequenceLimits(nil); !errors.Is(err, ErrBadOptions) {
		t.Errorf("no sequence: %v", err)
	}
}

// reverseComplement of upper-case IUPAC nucleotides.
func reverseComplement(s string) string {
	comp := map[byte]byte{'A': 'T', 'T': 'A', 'C': 'G', 'G': 'C', 'R': 'Y', 'Y': 'R', 'K': 'M', 'M': 'K', 'S': 'S', 'W': 'W', 'B': 'V', 'V': 'B', 'D': 'H', 'H': 'D', 'N': 'N'}
	out := make([]byte, len(s))
	for i := range s {
		out[len(s)-1-i] = comp[s[i]]
	}
	return string(out)
}

// TestSequencePipelineWithTheAligner runs real alignments through the pipeline: the
// project's example sequence, its reverse complement (same mutations, flagged), and a
// sequence that is not HIV-1 (its own failure, the others unaffected).
func TestSequencePipelineWithTheAligner(t *testing.T) {
	e := testEngine(t)
	example := fasta.Parse(testkit.ExampleFASTA(t))[0]
	rc := &fasta.Record{Name: "rc", Sequence: []byte(reverseComplement(string(example.Sequence))), Length: example.Length}
	notHIV := &fasta.Record{Name: "not-hiv", Sequence: []byte(strings.Repeat("GGGCCCAAATTTGCGC", 40)), Length: 640}
	recs := []*fasta.Record{example, rc, notHIV}
	s, err := e.resolve(Options{Algorithm: AlgorithmHIVDB, ReportType: Report2009})
	if err != nil {
		t.Fatal(err)
	}
	samples := make([]sample, len(recs))
	e.analyseInto(s, samples, recs, 1)
	muts := func(smp sample) string {
		var out []string
		for _, g := range smp.Genes {
			for _, m := range g.Mutations {
				out = append(out, g.Gene+":"+m.String())
			}
		}
		return strings.Join(out, " ")
	}
	want := "PR:L10I PR:L90M RT:M41L RT:K65KR RT:K103N RT:M184V RT:T215Y"
	if samples[0].Err != "" || muts(samples[0]) != want {
		t.Errorf("example: %q %q, want %q", samples[0].Err, muts(samples[0]), want)
	}
	if samples[1].Err != "" || muts(samples[1]) != want || !samples[1].Seq.Align.ReverseComplemented {
		t.Errorf("reverse complement: %q %q", samples[1].Err, muts(samples[1]))
	}
	found := false
	for _, v := range samples[1].Validation {
		found = found || (v.Level == LevelWarning && strings.Contains(v.Message, "reverse complement"))
	}
	if !found {
		t.Errorf("reverse complement not flagged: %+v", samples[1].Validation)
	}
	if !strings.HasPrefix(samples[2].Err, "no PR, RT or IN found in the sequence (640 nucleotides)") {
		t.Errorf("not HIV-1: %q", samples[2].Err)
	}
	// the ASI rules see the sequence's mutations as they see the same mutation list
	rep, err := e.SequenceReport(recs[:1], Options{Algorithm: AlgorithmHIVDB, ReportType: ReportText})
	if err != nil {
		t.Fatal(err)
	}
	list, err := e.MutationListReport([][][]string{{{"L10I", "L90M"}, {"M41L", "K65KR", "K103N", "M184V", "T215Y"}, nil}}, Options{Algorithm: AlgorithmHIVDB, ReportType: ReportText})
	if err != nil {
		t.Fatal(err)
	}
	drugCols := func(r string) string {
		lines := strings.Split(strings.TrimSpace(r), "\n")
		head, row := strings.Split(lines[len(lines)-2], "\t"), strings.Split(lines[len(lines)-1], "\t")
		var out []string
		for i, h := range head {
			if strings.HasSuffix(h, " score") || strings.HasSuffix(h, " level") {
				if !strings.HasPrefix(h, "LEN") && !isINDrug(h) {
					out = append(out, h+"="+row[i])
				}
			}
		}
		return strings.Join(out, " ")
	}
	if a, b := drugCols(rep), drugCols(list); a != b {
		t.Errorf("sequence and mutation list score differently:\n%s\n%s", a, b)
	}
}

func isINDrug(col string) bool {
	for _, d := range []string{"BIC", "CAB", "DTG", "EVG", "RAL"} {
		if strings.HasPrefix(col, d+" ") {
			return true
		}
	}
	return false
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
