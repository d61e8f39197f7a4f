package align

import (
	"errors"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/sitelib/sitesvc/impl/testkit"
)

func mutationStrings(g *GeneResult) []string {
	var out []string
	for _, m := range g.Mutations {
		out = append(out, m.String())
	}
	return out
}

// mustAlign is a's alignment of seq; an error ends the test.
func mustAlign(t *testing.T, a *Aligner, seq string) *Result {
	t.Helper()
	res, err := a.Align([]byte(seq))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func mustGene(t *testing.T, res *Result, g Gene) *GeneResult {
	t.Helper()
	gr := res.Gene(g)
	if gr == nil {
		var have []Gene
		for _, x := range res.Genes {
			have = append(have, x.Gene)
		}
		t.Fatalf("gene %s not present (present: %v)", g, have)
	}
	return gr
}

// sameSet fails the test unless got holds the strings of want, as many times each, in any
// order.
func sameSet(t *testing.T, what string, got, want []string) {
	t.Helper()
	if missing, extra := testkit.Diff(want, got); len(missing)+len(extra) > 0 {
		t.Errorf("%s: missing %v, unexpected %v (got %v)", what, missing, extra, got)
	}
}

// codonOffset returns the 0-based nucleotide offset of codon pos of gene g in a synthetic
// sequence made of full genes in the order given.
func codonOffset(a *Aligner, g Gene, pos int, genes ...Gene) int {
	off := 0
	for _, x := range genes {
		if x == g {
			return off + 3*(pos-1)
		}
		off += 3 * len(a.Consensus(x))
	}
	return -1
}

func TestCleanPRRT(t *testing.T) {
	a := newTestAligner(t)
	seq, want := synth(t, a, 1, 17, synthGene{PR, 1, 99}, synthGene{RT, 1, 300})
	res := mustAlign(t, a, seq)
	if res.ReverseComplemented {
		t.Error("flagged as reverse complemented")
	}
	pr, rt := mustGene(t, res, PR), mustGene(t, res, RT)
	if pr.FirstAA != 1 || pr.LastAA != 99 || pr.FirstNA != 1 || pr.LastNA != 297 {
		t.Errorf("PR range %d-%d / %d-%d", pr.FirstAA, pr.LastAA, pr.FirstNA, pr.LastNA)
	}
	if rt.FirstAA != 1 || rt.LastAA != 300 || rt.FirstNA != 298 || rt.LastNA != 297+900 {
		t.Errorf("RT range %d-%d / %d-%d", rt.FirstAA, rt.LastAA, rt.FirstNA, rt.LastNA)
	}
	sameSet(t, "PR", mutationStrings(pr), want[PR])
	sameSet(t, "RT", mutationStrings(rt), want[RT])
	if len(pr.AlignedNA) != 3*99 || len(pr.AlignedAA) != 99 || pr.AlignedAA[0] != 'P' {
		t.Errorf("PR aligned sequences: %d nt, %d aa", len(pr.AlignedNA), len(pr.AlignedAA))
	}
	// Random synonymous codons put it far from every real virus.
	if res.Subtype.Name != "Unknown" || res.Subtype.Display != "Unknown" || res.Subtype.Accession == "" {
		t.Errorf("subtype of a random back-translation: %+v", res.Subtype)
	}
	if res.Gene(IN) != nil || res.Gene(CA) != nil {
		t.Error("IN or CA reported for a PR+RT sequence")
	}
}

func TestRT69Insertion(t *testing.T) {
	a := newTestAligner(t)
	seq, _ := synth(t, a, 2, 0, synthGene{PR, 1, 99}, synthGene{RT, 1, 240})
	at := codonOffset(a, RT, 69, PR, RT)
	// T69S plus two inserted serines after codon 69: the classic T69S_SS.
	seq = seq[:at] + "AGTTCTAGC" + seq[at+3:]
	res := mustAlign(t, a, seq)
	rt := mustGene(t, res, RT)
	sameSet(t, "RT", mutationStrings(rt), []string{"T69S_SS"})
	if len(rt.Frameshifts) != 0 {
		t.Errorf("frameshifts %v", rt.Frameshifts)
	}
	m := rt.Mutations[0]
	if !m.Insertion || m.InsertedCodons != "TCTAGC" || m.Codon != "AGT" {
		t.Errorf("insertion %+v", m)
	}
}

func TestRT67Deletion(t *testing.T) {
	a := newTestAligner(t)
	seq, _ := synth(t, a, 3, 0, synthGene{PR, 1, 99}, synthGene{RT, 1, 240})
	at := codonOffset(a, RT, 67, PR, RT)
	seq = seq[:at] + seq[at+3:]
	res := mustAlign(t, a, seq)
	rt := mustGene(t, res, RT)
	sameSet(t, "RT", mutationStrings(rt), []string{"D67Deletion"})
	if rt.AlignedAA[66] != '-' || rt.AlignedNA[3*66:3*67] != "---" {
		t.Errorf("aligned around 67: %q", rt.AlignedAA[60:75])
	}
}

func TestFrameshifts(t *testing.T) {
	a := newTestAligner(t)
	seq, _ := synth(t, a, 4, 0, synthGene{PR, 1, 99}, synthGene{RT, 1, 300})
	del := codonOffset(a, RT, 120, PR, RT)
	ins := codonOffset(a, RT, 200, PR, RT)
	// One nucleotide inserted after RT codon 200, one deleted from RT codon 120.
	seq = seq[:ins+3] + "A" + seq[ins+3:]
	seq = seq[:del+1] + seq[del+2:]
	res := mustAlign(t, a, seq)
	rt := mustGene(t, res, RT)
	if len(rt.Frameshifts) != 2 {
		t.Fatalf("frameshifts %v", rt.Frameshifts)
	}
	d, i := rt.Frameshifts[0], rt.Frameshifts[1]
	if d.Kind != FrameshiftDeletion || d.Size != 1 || d.Position < 119 || d.Position > 121 {
		t.Errorf("deletion %+v", d)
	}
	if i.Kind != FrameshiftInsertion || i.Size != 1 || i.Position < 199 || i.Position > 201 || len(i.NAs) != 1 {
		t.Errorf("insertion %+v", i)
	}
	// The frameshifted codon shows as X; no other mutation appears (the reading frame is
	// restored on both sides).
	for _, m := range rt.Mutations {
		if m.AAs != "X" && !m.Insertion {
			t.Errorf("unexpected mutation %s", m)
		}
	}
	if !strings.Contains(d.String(), "del1bp") || !strings.Contains(i.String(), "ins1bp_") {
		t.Errorf("frameshift strings %s %s", d, i)
	}
}

func TestAPOBECHypermutation(t *testing.T) {
	a := newTestAligner(t)
	seq, _ := synth(t, a, 5, 0, synthGene{PR, 1, 99}, synthGene{RT, 1, 250})
	// G-to-A in GG and GA contexts (APOBEC3G/F), every second site.
	b := []byte(seq)
	k := 0
	for p := 0; p+1 < len(b); p++ {
		if b[p] == 'G' && (b[p+1] == 'G' || b[p+1] == 'A') {
			if k%2 == 0 {
				b[p] = 'A'
			}
			k++
		}
	}
	res, err := a.Align(b)
	if err != nil {
		t.Fatal(err)
	}
	// Expected mutations: the codon-by-codon translation differences.
	cons := a.Consensus(PR) + a.Consensus(RT)[:250]
	want := map[Gene][]string{}
	for c := 0; c < len(cons); c++ {
		ci := a.codons[codonKey(ntMask[b[3*c]], ntMask[b[3*c+1]], ntMask[b[3*c+2]])]
		got := aaSetString(ci.aas)
		if got != string(cons[c]) {
			g, pos := PR, c+1
			if c >= 99 {
				g, pos = RT, c-98
			}
			want[g] = append(want[g], string(cons[c])+itoa(pos)+got)
		}
	}
	pr, rt := mustGene(t, res, PR), mustGene(t, res, RT)
	if len(want[PR])+len(want[RT]) < 10 {
		t.Fatalf("hypermutation too weak: %v", want)
	}
	// Trimming may drop a stop codon at an end; inside, every mutation must be found.
	inside := func(g *GeneResult, ms []string) []string {
		var out []string
		for _, m := range ms {
			pos := 0
			for _, c := range m[1:] {
				if c < '0' || c > '9' {
					break
				}
				pos = pos*10 + int(c-'0')
			}
			if pos >= g.FirstAA && pos <= g.LastAA {
				out = append(out, m)
			}
		}
		return out
	}
	sameSet(t, "PR", mutationStrings(pr), inside(pr, want[PR]))
	sameSet(t, "RT", mutationStrings(rt), inside(rt, want[RT]))
	if pr.StopCodons+rt.StopCodons == 0 || len(pr.StopPositions)+len(rt.StopPositions) != pr.StopCodons+rt.StopCodons {
		t.Errorf("stop codons %d+%d at %v %v (APOBEC turns TGG into TAG/TGA/TAA)", pr.StopCodons, rt.StopCodons, pr.StopPositions, rt.StopPositions)
	}
}

func TestAllMixtureBDHVN(t *testing.T) {
	a := newTestAligner(t)
	seq, _ := synth(t, a, 6, 0, synthGene{PR, 1, 99}, synthGene{RT, 1, 250})
	b := []byte(seq)
	// Every 11th nucleotide becomes one of the three-base codes B D H V (keeping the
	// original base among its expansions), every 37th an N.
	three := map[byte]string{'A': "DHV", 'C': "BHV", 'G': "BDV", 'T': "BDH"}
	for p := 5; p < len(b); p += 11 {
		b[p] = three[b[p]][p%3]
	}
	for p := 20; p < len(b); p += 37 {
		b[p] = 'N'
	}
	res, err := a.Align(b)
	if err != nil {
		t.Fatal(err)
	}
	pr, rt := mustGene(t, res, PR), mustGene(t, res, RT)
	for _, g := range []*GeneResult{pr, rt} {
		if len(g.Frameshifts) != 0 {
			t.Errorf("%s: frameshifts in a sequence without indels: %v", g.Gene, g.Frameshifts)
		}
		if g.AmbiguousCodons == 0 {
			t.Errorf("%s: no ambiguous codon counted", g.Gene)
		}
		for _, m := range g.Mutations {
			// The original base is kept in every code, so the consensus is always among
			// the expansions: every mutation is a mixture containing it, or X.
			if m.AAs != "X" && !strings.ContainsRune(m.AAs, rune(m.Consensus)) {
				t.Errorf("%s: %s lost the consensus amino acid", g.Gene, m)
			}
		}
	}
	if pr.FirstAA > 3 || rt.LastAA < 245 {
		t.Errorf("ranges PR %d-%d RT %d-%d", pr.FirstAA, pr.LastAA, rt.FirstAA, rt.LastAA)
	}
}

// alignRTOverwritten aligns a synthetic RT 1–200 (synth's seed and substEvery) with nts
// written over its nucleotides from codon on, and answers RT's result and the mutations
// synth made in it.
func alignRTOverwritten(t *testing.T, a *Aligner, seed uint64, substEvery, codon int, nts string) (*GeneResult, []string) {
	t.Helper()
	seq, want := synth(t, a, seed, substEvery, synthGene{RT, 1, 200})
	at := codonOffset(a, RT, codon, RT)
	seq = seq[:at] + nts + seq[at+len(nts):]
	return mustGene(t, mustAlign(t, a, seq), RT), want[RT]
}

func TestUnsequencedCodons(t *testing.T) {
	rt, _ := alignRTOverwritten(t, newTestAligner(t), 7, 0, 100, "NNNANN")
	if len(rt.Mutations) != 0 {
		t.Errorf("unsequenced codons reported as mutations: %v", mutationStrings(rt))
	}
	if rt.UnsequencedCodons != 2 || !slices.Equal(rt.UnsequencedPositions, []int{100, 101}) {
		t.Errorf("unsequenced %d %v", rt.UnsequencedCodons, rt.UnsequencedPositions)
	}
	if rt.StopCodons != 0 {
		t.Errorf("unsequenced codons counted as %d stop codons", rt.StopCodons)
	}
}

func TestMixtureOfConsensusIsNotAMutation(t *testing.T) {
	a := newTestAligner(t)
	seq, _ := synth(t, a, 8, 0, synthGene{RT, 1, 200})
	at := codonOffset(a, RT, 184, RT)
	// M184: ATG only; make codon 183 (Y: TAT/TAC) TAY — every expansion is Y.
	at183 := codonOffset(a, RT, 183, RT)
	seq = seq[:at183] + "TAY" + seq[at183+3:]
	// and M184V/I as a mixture: RTG → ATG (M) / GTG (V).
	seq = seq[:at] + "RTG" + seq[at+3:]
	res := mustAlign(t, a, seq)
	rt := mustGene(t, res, RT)
	sameSet(t, "RT", mutationStrings(rt), []string{"M184MV"})
	if m := rt.Mutations[0]; !m.Mixture || m.AAs != "MV" {
		t.Errorf("%+v", m)
	}
	if rt.AmbiguousCodons != 1 || !slices.Equal(rt.AmbiguousPositions, []int{184}) || rt.StopCodons != 0 {
		t.Errorf("ambiguous %d %v, stops %d", rt.AmbiguousCodons, rt.AmbiguousPositions, rt.StopCodons)
	}
}

func TestReverseComplement(t *testing.T) {
	a := newTestAligner(t)
	seq, want := synth(t, a, 9, 19, synthGene{PR, 1, 99}, synthGene{RT, 1, 250})
	res := mustAlign(t, a, reverseComplement(seq))
	if !res.ReverseComplemented {
		t.Fatal("reverse complement not detected")
	}
	if string(res.Analysed) != seq {
		t.Error("Analysed is not the reverse complement of the input")
	}
	sameSet(t, "PR", mutationStrings(mustGene(t, res, PR)), want[PR])
	sameSet(t, "RT", mutationStrings(mustGene(t, res, RT)), want[RT])
}

func TestOnlyIN(t *testing.T) {
	a := newTestAligner(t)
	seq, want := synth(t, a, 10, 23, synthGene{IN, 1, 288})
	res := mustAlign(t, a, seq)
	if len(res.Genes) != 1 || res.Genes[0].Gene != IN {
		t.Fatalf("genes %+v", res.Genes)
	}
	in := res.Genes[0]
	if in.FirstAA != 1 || in.LastAA != 288 || in.FirstNA != 1 || in.LastNA != 864 {
		t.Errorf("IN range %d-%d / %d-%d", in.FirstAA, in.LastAA, in.FirstNA, in.LastNA)
	}
	sameSet(t, "IN", mutationStrings(&in), want[IN])
}

func TestNineKilobases(t *testing.T) {
	a := newTestAligner(t)
	body, want := synth(t, a, 11, 29, synthGene{CA, 1, 231})
	pol, wantPol := synth(t, a, 12, 29, synthGene{PR, 1, 99}, synthGene{RT, 1, 560}, synthGene{IN, 1, 288})
	maps := []map[Gene][]string{want, wantPol}
	head := flank(2000, 3)
	mid := flank(1500, 4)
	seq := head + body + mid + pol
	seq += flank(9000-len(seq), 5)
	res := mustAlign(t, a, seq)
	var got []Gene
	for _, g := range res.Genes {
		got = append(got, g.Gene)
	}
	if !slices.Equal(got, []Gene{CA, PR, RT, IN}) {
		t.Fatalf("genes %v", got)
	}
	polStart := len(head) + len(body) + len(mid)
	if pr := res.Gene(PR); pr.FirstNA != polStart+1 || pr.LastNA != polStart+297 {
		t.Errorf("PR nucleotides %d-%d, want %d-%d", pr.FirstNA, pr.LastNA, polStart+1, polStart+297)
	}
	if in := res.Gene(IN); in.LastAA != 288 || in.LastNA != polStart+3*947 {
		t.Errorf("IN ends at %d/%d", in.LastAA, in.LastNA)
	}
	if ca := res.Gene(CA); ca.FirstNA != len(head)+1 || ca.LastAA != 231 {
		t.Errorf("CA %d-%d from %d", ca.FirstAA, ca.LastAA, ca.FirstNA)
	}
	for _, m := range maps {
		for g, ms := range m {
			sameSet(t, string(g), mutationStrings(res.Gene(g)), ms)
		}
	}
}

func TestNoGene(t *testing.T) {
	a := newTestAligner(t)
	for _, s := range []string{flank(1500, 99), strings.Repeat("N", 500), strings.Repeat("ACGT", 100)} {
		if _, err := a.Align([]byte(s)); !errors.Is(err, ErrNoGene) {
			t.Errorf("%.20s…: err %v, want ErrNoGene", s, err)
		}
	}
}

func TestInputErrors(t *testing.T) {
	a := newTestAligner(t)
	cases := []struct {
		in   string
		want error
	}{
		{strings.Repeat("A", MinNucleotides-1), ErrTooShort},
		{"", ErrTooShort},
		{strings.Repeat("A", MaxNucleotides+1), ErrTooLong},
		{strings.Repeat("A", 40) + "acgt", ErrInvalidChar},
		{strings.Repeat("A", 40) + "-", ErrInvalidChar},
	}
	for _, c := range cases {
		if _, err := a.Align([]byte(c.in)); !errors.Is(err, c.want) {
			t.Errorf("len %d: err %v, want %v", len(c.in), err, c.want)
		}
	}
	// The limits themselves are accepted (no gene, but no input error).
	for _, n := range []int{MinNucleotides, MaxNucleotides} {
		_, err := a.Align([]byte(flank(n, 5)))
		if err != nil && !errors.Is(err, ErrNoGene) {
			t.Errorf("%d nucleotides: %v", n, err)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	a := newTestAligner(t)
	oracles := alignedOracles(t, a)
	var wg sync.WaitGroup
	errs := make(chan string, 100)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, f := range oracles {
				r, err := a.Align([]byte(f.seq))
				if err != nil {
					errs <- err.Error()
					return
				}
				for k := range r.Genes {
					if r.Genes[k].AlignedNA != f.res.Genes[k].AlignedNA {
						errs <- f.name + " differs under concurrency"
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestNewAlignerErrors(t *testing.T) {
	full := os.DirFS(referenceDir(t))
	if _, err := NewAligner(fstest.MapFS{}); err == nil {
		t.Error("empty FS accepted")
	}
	copyFS := fstest.MapFS{}
	for _, name := range []string{"genes_hiv1.yml", "genotypes_hiv1.yml", "rx-all_subtype-all.csv"} {
		data, err := fs.ReadFile(full, name)
		if err != nil {
			t.Fatal(err)
		}
		copyFS[name] = &fstest.MapFile{Data: data}
	}
	if _, err := NewAligner(copyFS); err == nil || !strings.Contains(err.Error(), "genotype-references") {
		t.Errorf("missing genotype references: %v", err)
	}
	copyFS["genotype-references_hiv1.json"] = &fstest.MapFile{Data: []byte("[]")}
	if _, err := NewAligner(copyFS); err == nil {
		t.Error("empty genotype references accepted")
	}
	copyFS["genes_hiv1.yml"] = &fstest.MapFile{Data: []byte("- name: HIV1PR\n  refSequence: \"PQI\"\n  refRanges: [[1, 9]]\n")}
	if _, err := NewAligner(copyFS); err == nil {
		t.Error("genes file without RT/IN/CA accepted")
	}
}

func TestMutationString(t *testing.T) {
	cases := []struct {
		m    Mutation
		want string
	}{
		{Mutation{Position: 69, Consensus: 'T', AAs: "S", Insertion: true, InsertedAAs: "SA"}, "T69S_SA"},
		{Mutation{Position: 46, Consensus: 'M', Deletion: true}, "M46Deletion"},
		{Mutation{Position: 13, Consensus: 'I', AAs: "X"}, "I13X"},
		{Mutation{Position: 74, Consensus: 'L', AAs: "IL"}, "L74LI"},
		{Mutation{Position: 9, Consensus: 'P', AAs: "LPR"}, "P9PLR"},
		{Mutation{Position: 6, Consensus: 'W', AAs: "*"}, "W6*"},
		{Mutation{Position: 7, Consensus: 'Q', AAs: "Q", Insertion: true, InsertedAAs: "P"}, "Q7Q_P"},
	}
	for _, c := range cases {
		if got := c.m.String(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.m, got, c.want)
		}
	}
	fs := Frameshift{Gene: PR, Position: 7, Kind: FrameshiftInsertion, Size: 1, NAs: "C"}
	if fs.String() != "PR7ins1bp_C" {
		t.Error(fs.String())
	}
	fs = Frameshift{Gene: RT, Position: 12, Kind: FrameshiftDeletion, Size: 1}
	if fs.String() != "RT12del1bp" {
		t.Error(fs.String())
	}
}

func TestBLOSUM62Symmetric(t *testing.T) {
	for i := 0; i < 20; i++ {
		for j := 0; j < 20; j++ {
			if blosum62[i][j] != blosum62[j][i] {
				t.Errorf("%c%c: %d vs %d", aaOrder[i], aaOrder[j], blosum62[i][j], blosum62[j][i])
			}
		}
	}
	if blosum62[aaIndex('W')][aaIndex('W')] != 11 || blosum62[aaIndex('C')][aaIndex('C')] != 9 {
		t.Error("diagonal values")
	}
}

// TestSubtype aligns reference sequences of genotype-references_hiv1.json (gaps removed,
// a few percent of bases changed) and expects their own subtype back.
func TestSubtype(t *testing.T) {
	a := newTestAligner(t)
	seen := map[string]bool{}
	for _, ref := range a.genotyper.refs {
		name := a.genotyper.genotypes[ref.genotype].display
		if seen[name] || (name != "C" && name != "CRF01_AE" && name != "B" && name != "CRF02_AG") {
			continue
		}
		seen[name] = true
		var b []byte
		for i, c := range ref.seq {
			if c == '-' {
				continue
			}
			if i%50 == 7 { // 2% changed: a transition
				c = map[byte]byte{'A': 'G', 'G': 'A', 'C': 'T', 'T': 'C'}[c]
				if c == 0 {
					c = 'N'
				}
			}
			b = append(b, c)
		}
		res, err := a.Align(b)
		if err != nil {
			t.Fatalf("%s: %v", ref.accession, err)
		}
		st := res.Subtype
		if st.Name != name || st.PercentSimilarity < 96 || st.Compared < 2000 {
			t.Errorf("%s (%s): %+v", ref.accession, name, st)
		}
	}
	if len(seen) != 4 {
		t.Errorf("references found: %v", seen)
	}
}

// TestMatchPercentAsHIVDB: an NNN codon leaves the match percentage's denominator (HIVDB's
// AlignedGeneSeq.getMatchPcnt), a mutation costs three nucleotides.
func TestMatchPercentAsHIVDB(t *testing.T) {
	rt, want := alignRTOverwritten(t, newTestAligner(t), 9, 40, 121, "NNNNNN")
	if rt.FirstAA != 1 || rt.LastAA != 200 || len(rt.Mutations) != len(want) || len(want) == 0 {
		t.Fatalf("RT %d-%d mutations %v, want 1-200 %v", rt.FirstAA, rt.LastAA, mutationStrings(rt), want)
	}
	exp := 100 - 100*float64(3*len(want))/float64(3*200-6)
	if math.Abs(rt.MatchPercent-exp) > 1e-9 {
		t.Errorf("match %.6f%%, want %.6f%%", rt.MatchPercent, exp)
	}
}

// TestLongRT69InsertionOfRepeat: an insertion after RT69 that copies the codons before it
// (as the RT69 insertion complex does, up to eight codons and more in real sequences:
// AF315271 of testdata/unseen) is read as one insertion after codon 69, whatever its
// length and wherever the sequence starts, never split in two with the codons between
// them misread (docs/alignment.md, step 2: "anchors on a repeat").
func TestLongRT69InsertionOfRepeat(t *testing.T) {
	a := newTestAligner(t)
	cons := a.Consensus(RT)
	for _, from := range []int{1, 53} {
		for n := 1; n <= 10; n++ {
			seq, _ := synth(t, a, uint64(100+n), 0, synthGene{RT, from, 240})
			at := 3 * (69 - from + 1)
			rng := rand.New(rand.NewPCG(uint64(n), 7))
			copied := cons[69-n : 69] // codons 70-n … 69
			seq = seq[:at] + backTranslate(copied, rng) + seq[at:]
			res := mustAlign(t, a, seq)
			rt := mustGene(t, res, RT)
			want := "T69T_" + copied
			if got := mutationStrings(rt); len(got) != 1 || got[0] != want {
				t.Errorf("RT %d-240, %d codons copied after 69: mutations %v, want [%s]", from, n, got, want)
			}
			if rt.FirstAA != from || rt.LastAA != 240 || len(rt.Frameshifts) != 0 {
				t.Errorf("RT %d-240, %d codons copied: read %d-%d, frameshifts %v", from, n, rt.FirstAA, rt.LastAA, rt.Frameshifts)
			}
		}
	}
}

// TestWidenForRepeats: rows within a step's size (in codons) of the anchors around a change
// of diagonal get both diagonals; rows farther away keep their own.
func TestWidenForRepeats(t *testing.T) {
	// Anchors at rows 10 and 20 on diagonal 0, then rows 30 and 40 on diagonal +24 (8 codons
	// inserted somewhere between rows 20 and 30).
	anchors := []hit{{r: 10, p: 30}, {r: 20, p: 60}, {r: 30, p: 114}, {r: 40, p: 144}}
	steps := repeatSteps(anchors)
	if len(steps) != 1 || steps[0] != (repeatStep{first: 11, last: 39, d0: 0, d1: 24}) {
		t.Fatalf("steps %+v, want one over rows 11-39 (the step's anchors ± 9 codons)", steps)
	}
	for _, c := range []struct{ j, dmin, dmax, wantMin, wantMax int }{
		{5, 0, 0, 0, 0},      // far before the step
		{12, 0, 0, 0, 24},    // 8 codons before the step's first anchor: within 9
		{25, 0, 24, 0, 24},   // between the step's anchors (makeBand has both already)
		{38, 24, 24, 0, 24},  // 8 codons after the step's last anchor
		{45, 24, 24, 24, 24}, // beyond the step's size
	} {
		gotMin, gotMax := widenForRepeats(steps, c.j, c.dmin, c.dmax)
		if gotMin != c.wantMin || gotMax != c.wantMax {
			t.Errorf("row %d: diagonals %d..%d, want %d..%d", c.j, gotMin, gotMax, c.wantMin, c.wantMax)
		}
	}
	// A step of 1,500 nucleotides (missing codons) widens by at most maxRepeatShift rows.
	far := repeatSteps([]hit{{r: 100, p: 300}, {r: 700, p: 300}})
	if far[0].first != 100-maxRepeatShift || far[0].last != 700+maxRepeatShift {
		t.Errorf("long step %+v, want rows %d-%d", far[0], 100-maxRepeatShift, 700+maxRepeatShift)
	}
}

// TestMixtureOrderAsSierraText: Sierra writes a mutation's text (its human format: the
// oracle files' mutationListString, GraphQL's text and shortText) as the reference amino acid
// first when the mixture holds it, then the others alphabetically (sierra-core
// AAMutation.getAAsWithRefFirst, a TreeSet); its ASI and "HIVDB" formats sort all of them
// (L10IL, 10IL), which the resistance reports follow. This package's notation is the text
// one: every mixture of the shared oracle files, written by Sierra, has that order, and the
// aligner writes the same strings for them.
func TestMixtureOrderAsSierraText(t *testing.T) {
	a := newTestAligner(t)
	mixtures := 0
	for _, o := range alignedOracles(t, a) {
		for gene, g := range o.genes {
			for _, m := range strings.Split(g.MutationListString, ",") {
				m = strings.TrimSpace(m)
				i := strings.IndexFunc(m, func(r rune) bool { return r >= '0' && r <= '9' })
				j := strings.LastIndexFunc(m, func(r rune) bool { return r >= '0' && r <= '9' })
				if i != 1 || j < 0 {
					continue
				}
				aas := m[j+1:]
				if strings.ContainsAny(aas, "_*X") || len(aas) < 2 || strings.HasPrefix(aas, "Deletion") || strings.HasPrefix(aas, "del") {
					continue
				}
				mixtures++
				rest := aas
				if aas[0] == m[0] {
					rest = aas[1:]
				}
				if !slices.IsSorted([]byte(rest)) || strings.IndexByte(rest, m[0]) >= 0 {
					t.Errorf("%s %s: %s is not reference first, then alphabetical", o.name, gene, m)
				}
				var ours []string
				for _, r := range o.res.Genes {
					if string(r.Gene) == gene {
						ours = mutationStrings(&r)
					}
				}
				if !slices.Contains(ours, m) {
					t.Errorf("%s %s: Sierra's %s not among ours %v", o.name, gene, m, ours)
				}
			}
		}
	}
	if mixtures < 20 {
		t.Errorf("only %d mixtures in the oracle files", mixtures)
	}
	t.Logf("%d mixtures, all reference first then alphabetical", mixtures)
}
