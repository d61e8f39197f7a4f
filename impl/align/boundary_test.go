package align

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Gene boundaries: whatever lies between two genes (codons missing, a run of N, a partial
// codon, a frameshift) must neither drop a gene nor move codons into the neighbouring one.
// The cases are built from the shared real sequences by deleting or masking a span around
// every boundary (CA/PR, PR/RT, RT/IN); each gene must then align exactly as the unmodified
// part of the sequence holding it aligns alone.

// codonOffset0 returns the 0-based offset in the analysed sequence of the first nucleotide
// of codon k of g (FirstAA ≤ k ≤ LastAA+1; LastAA+1 gives the offset just after the gene),
// walking the gene's indels; the caller checks the result against AlignedNA.
func codonOffset0(g *GeneResult, k int) int {
	off := g.FirstNA - 1
	byPos := map[int]Mutation{}
	for _, m := range g.Mutations {
		byPos[m.Position] = m
	}
	fsAt := map[int]Frameshift{}
	for _, f := range g.Frameshifts {
		fsAt[f.Position] = f
	}
	for c := g.FirstAA; c < k; c++ {
		m, ok := byPos[c]
		switch {
		case ok && m.Deletion:
		case ok && m.Partial:
			off += 3 - fsAt[c].Size
		default:
			off += 3
		}
		if ok && m.Insertion {
			off += 3 * len(m.InsertedAAs)
		}
		if f, ok := fsAt[c]; ok && f.Kind == FrameshiftInsertion {
			off += f.Size
		}
	}
	return off
}

// geneSummary is what must agree between a gene aligned in the whole sequence and in its
// part: codon range, nucleotide range (relative to the part), aligned nucleotides,
// mutations (with their triplets) and frameshifts.
func geneSummary(g *GeneResult, naShift int) string {
	if g == nil {
		return "absent"
	}
	var muts []string
	for _, m := range g.Mutations {
		muts = append(muts, m.String()+":"+m.Codon+m.InsertedCodons)
	}
	var fss []string
	for _, f := range g.Frameshifts {
		fss = append(fss, f.String())
	}
	return fmt.Sprintf("%s %d-%d muts [%s] fs [%s] stops %d unseq %d\n%s",
		g.Gene, g.FirstAA, g.LastAA,
		strings.Join(muts, " "), strings.Join(fss, " "), g.StopCodons, g.UnsequencedCodons, g.AlignedNA)
}

type boundaryCase struct {
	name        string
	cut1, cut2  int    // the span [cut1, cut2) of the original is replaced by middle
	middle      string // "" (deleted), Ns, …
	left, right Gene   // the genes on either side
	// tolerance: codons next to the cut where the whole and the part may differ (a
	// repeated amino acid or a partial codon makes two placements equally good); 0 means
	// exactly equal.
	tolerance int
}

// boundaryCases builds the edits around the boundary between genes x and y of one
// aligned sequence.
func boundaryCases(t *testing.T, seq string, x, y *GeneResult) []boundaryCase {
	t.Helper()
	at := func(g *GeneResult, k int) int {
		off := codonOffset0(g, k)
		if k <= g.LastAA {
			want := g.AlignedNA[3*(k-g.FirstAA) : 3*(k-g.FirstAA)+3]
			if !strings.Contains(want, "-") && seq[off:off+3] != want {
				t.Fatalf("%s codon %d: offset %d reads %q, aligned %q", g.Gene, k, off, seq[off:off+3], want)
			}
		}
		return off
	}
	xl, yf := x.LastAA, y.FirstAA
	ns := func(n int) string { return strings.Repeat("N", n) }
	var cs []boundaryCase
	add := func(name string, cut1, cut2 int, middle string, tolerance int) {
		cs = append(cs, boundaryCase{name: name, cut1: cut1, cut2: cut2, middle: middle, left: x.Gene, right: y.Gene, tolerance: tolerance})
	}
	for _, k := range []int{1, 3, 37} {
		add(fmt.Sprintf("%s%d-%d deleted", y.Gene, yf, yf+k-1), at(x, xl+1), at(y, yf+k), "", 1)
		add(fmt.Sprintf("%s%d-%d deleted", x.Gene, xl-k+1, xl), at(x, xl-k+1), at(y, yf), "", 1)
	}
	add(fmt.Sprintf("%s%d-%d and %s%d-%d deleted", x.Gene, xl-4, xl, y.Gene, yf, yf+9), at(x, xl-4), at(y, yf+10), "", 1)
	for _, k := range []int{2, 12} {
		c1, c2 := at(x, xl-k+1), at(y, yf+k)
		add(fmt.Sprintf("%s%d-%d and %s%d-%d masked with N", x.Gene, xl-k+1, xl, y.Gene, yf, yf+k-1), c1, c2, ns(c2-c1), 0)
	}
	// A run of N longer or shorter than the codons it replaces.
	c1, c2 := at(x, xl-1), at(y, yf+20)
	add("run of 30 N for 22 codons", c1, c2, ns(30), 1)
	add("run of 200 N for 22 codons", c1, c2, ns(200), 1)
	// Foreign nucleotides between the genes, more than one alignment crosses.
	add("600 foreign nucleotides between", at(x, xl+1), at(y, yf), flank(600, 3), 1)
	// Partial codons: the last codon of x cut to one or two nucleotides, the first codon of
	// y missing one or two.
	for _, k := range []int{1, 2} {
		// With a frameshift of the sequence itself near the cut (IN6 of AB097865), the
		// whole may explain both with one placement and trim a few codons more.
		const near = 6
		add(fmt.Sprintf("%s%d shortened by %d nt", x.Gene, xl, k), at(x, xl+1)-k, at(x, xl+1), "", near)
		add(fmt.Sprintf("%s%d shortened by %d nt", y.Gene, yf, k), at(y, yf), at(y, yf)+k, "", near)
		add(fmt.Sprintf("%s%d shortened by %d nt and %s%d-%d deleted", x.Gene, xl, k, y.Gene, yf, yf+4), at(x, xl+1)-k, at(y, yf+5), "", near)
	}
	return cs
}

func TestGeneBoundaries(t *testing.T) {
	a := newTestAligner(t)
	boundaries := [][2]Gene{{CA, PR}, {PR, RT}, {RT, IN}}
	tested := map[[2]Gene]int{}
	for _, f := range alignedOracles(t, a) {
		orig := f.res
		for _, bd := range boundaries {
			x, y := orig.Gene(bd[0]), orig.Gene(bd[1])
			// A boundary is tested where the sequence covers both genes up to it (CA and PR
			// are not adjacent: gag p2–p6 lie between them).
			if x == nil || y == nil || x.LastAA != len(a.Consensus(x.Gene)) || y.FirstAA != 1 {
				continue
			}
			tested[bd]++
			for _, c := range boundaryCases(t, f.seq, x, y) {
				t.Run(f.name+"/"+c.name, func(t *testing.T) {
					checkBoundaryCase(t, a, f.seq, orig, c)
				})
			}
		}
	}
	for _, bd := range boundaries {
		if tested[bd] == 0 {
			t.Errorf("no shared sequence covers the %s/%s boundary", bd[0], bd[1])
		}
	}
}

func checkBoundaryCase(t *testing.T, a *Aligner, seq string, orig *Result, c boundaryCase) {
	t.Helper()
	whole := seq[:c.cut1] + c.middle + seq[c.cut2:]
	res, err := a.Align([]byte(whole))
	if err != nil {
		t.Fatalf("whole: %v", err)
	}
	leftPart, err := a.Align([]byte(seq[:c.cut1]))
	if err != nil && !errors.Is(err, ErrNoGene) {
		t.Fatalf("left part: %v", err)
	} else if err != nil {
		leftPart = &Result{}
	}
	rightPart, err := a.Align([]byte(seq[c.cut2:]))
	if err != nil {
		t.Fatalf("right part: %v", err)
	}
	if res.ReverseComplemented || leftPart.ReverseComplemented || rightPart.ReverseComplemented {
		t.Fatalf("reverse complemented")
	}
	// Nucleotide positions compare in the coordinates of the part (or of the unmodified
	// sequence) the expectation comes from.
	shift := c.cut1 + len(c.middle) - c.cut2
	order := func(g Gene) int { return slices.Index(AllGenes(), g) }
	for _, g := range AllGenes() {
		var want, got string
		switch {
		case g == c.left:
			compareNearCut(t, res.Gene(g), leftPart.Gene(g), c.tolerance, true)
			continue
		case g == c.right:
			compareNearCut(t, res.Gene(g), rightPart.Gene(g), c.tolerance, false)
			continue
		case orig.Gene(g) == nil:
			continue
		case order(g) < order(c.left):
			want, got = geneSummary(orig.Gene(g), 0), geneSummary(res.Gene(g), 0)
		default:
			want, got = geneSummary(orig.Gene(g), 0), geneSummary(res.Gene(g), shift)
		}
		if got != want {
			t.Errorf("%s differs:\n got %s\nwant %s", g, got, want)
		}
	}
}

// compareNearCut compares a gene aligned in the whole sequence with the same gene aligned in
// its part: equal, except within tolerance codons of the cut (at the gene's end when
// cutAtEnd, else at its start), where the range may differ by that much and the codons
// there are not compared.
func compareNearCut(t *testing.T, got, want *GeneResult, tolerance int, cutAtEnd bool) {
	t.Helper()
	if want == nil {
		// The part alone is too short to hold the gene: neither may the whole.
		if got != nil {
			t.Errorf("%s present (%d-%d) where its part alone holds none", got.Gene, got.FirstAA, got.LastAA)
		}
		return
	}
	if got == nil {
		t.Errorf("%s dropped; alone: %s", want.Gene, geneSummary(want, 0))
		return
	}
	lo, hi := max(got.FirstAA, want.FirstAA), min(got.LastAA, want.LastAA)
	farOK := got.FirstAA == want.FirstAA
	near := got.LastAA - want.LastAA
	if cutAtEnd {
		hi -= tolerance
	} else {
		lo += tolerance
		farOK = got.LastAA == want.LastAA
		near = got.FirstAA - want.FirstAA
	}
	if !farOK || near > tolerance || near < -tolerance {
		t.Errorf("%s: codons %d-%d, alone %d-%d (tolerance %d at the cut)", got.Gene, got.FirstAA, got.LastAA, want.FirstAA, want.LastAA, tolerance)
		return
	}
	within := func(g *GeneResult) string {
		var b strings.Builder
		for _, m := range g.Mutations {
			if m.Position >= lo && m.Position <= hi {
				b.WriteString(m.String() + ":" + m.Codon + m.InsertedCodons + " ")
			}
		}
		for _, f := range g.Frameshifts {
			if f.Position >= lo && f.Position <= hi {
				b.WriteString(f.String() + " ")
			}
		}
		b.WriteString(g.AlignedNA[3*(lo-g.FirstAA) : 3*(hi-g.FirstAA+1)])
		return b.String()
	}
	if w, g := within(want), within(got); w != g {
		t.Errorf("%s %d-%d differs:\n got %s\nwant %s", got.Gene, lo, hi, g, w)
	}
}

// TestPRWithoutRTStart is the case that once lost protease: a PR+RT sequence lacking RT
// codons 1–37 right after PR. PR must stay whole and PR 97–99 must not be read as RT
// 35–37.
func TestPRWithoutRTStart(t *testing.T) {
	a := newTestAligner(t)
	for _, f := range alignedOracles(t, a) {
		orig := f.res
		pr, rt := orig.Gene(PR), orig.Gene(RT)
		if pr == nil || rt == nil || pr.LastAA != 99 || rt.FirstAA != 1 || rt.LastAA < 100 {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			seq := f.seq[:codonOffset0(pr, 100)] + f.seq[codonOffset0(rt, 38):]
			res := mustAlign(t, a, seq)
			gotPR, gotRT := res.Gene(PR), res.Gene(RT)
			if gotPR == nil {
				t.Fatalf("PR dropped")
			}
			if a, b := geneSummary(gotPR, 0), geneSummary(pr, 0); a != b {
				t.Errorf("PR differs:\n got %s\nwant %s", a, b)
			}
			if gotRT == nil || gotRT.FirstAA != 38 {
				t.Fatalf("RT %v, want from codon 38", gotRT)
			}
			for _, m := range gotRT.Mutations {
				if m.Position < 38 {
					t.Errorf("RT mutation %s before codon 38", m)
				}
			}
		})
	}
}

// TestMaskedCodonsAreNoStops: two IN codons of a shared sequence replaced by NNNNNN are
// unsequenced, never stop codons.
func TestMaskedCodonsAreNoStops(t *testing.T) {
	a := newTestAligner(t)
	for _, f := range alignedOracles(t, a) {
		orig := f.res
		in := orig.Gene(IN)
		if in == nil || in.LastAA-in.FirstAA < 200 {
			continue
		}
		at := codonOffset0(in, in.FirstAA+100)
		res := mustAlign(t, a, f.seq[:at]+"NNNNNN"+f.seq[at+6:])
		got := res.Gene(IN)
		if got.StopCodons != in.StopCodons {
			t.Errorf("%s: %d stop codons, unmasked %d", f.name, got.StopCodons, in.StopCodons)
		}
		if got.UnsequencedCodons != in.UnsequencedCodons+2 {
			t.Errorf("%s: %d unsequenced codons, unmasked %d", f.name, got.UnsequencedCodons, in.UnsequencedCodons)
		}
		for _, m := range got.Mutations {
			if m.Position == in.FirstAA+100 || m.Position == in.FirstAA+101 {
				t.Errorf("%s: masked codon reported as mutation %s", f.name, m)
			}
		}
	}
}

// TestPRThenIN: a whole RT missing between PR and IN (1,680 nucleotides) — both genes are
// found, and the widest band the chain allows stays far below the per-sequence budget.
func TestPRThenIN(t *testing.T) {
	a := newTestAligner(t)
	seq, want := synth(t, a, 21, 11, synthGene{PR, 1, 99}, synthGene{IN, 1, 288})
	res, used := coldAlign(t, []byte(seq))
	if used > 8<<20 {
		t.Errorf("one alignment allocated %d bytes", used)
	}
	t.Logf("PR+IN on a cold aligner: %d bytes allocated", used)
	pr, in := mustGene(t, res, PR), mustGene(t, res, IN)
	if pr.FirstAA != 1 || pr.LastAA != 99 || in.FirstAA != 1 || in.LastAA != 288 || res.Gene(RT) != nil {
		t.Errorf("PR %d-%d IN %d-%d RT %v", pr.FirstAA, pr.LastAA, in.FirstAA, in.LastAA, res.Gene(RT))
	}
	sameSet(t, "PR", mutationStrings(pr), want[PR])
	sameSet(t, "IN", mutationStrings(in), want[IN])
}

// TestDiscardedGenes: a gene the alignment read part of but could not keep is listed in
// Result.Discarded (reports warn that the sequence may hold it): the shared PR+RT sequences
// cut after RT codon 30 (too few codons for RT) keep PR and list RT; whole sequences list
// nothing.
func TestDiscardedGenes(t *testing.T) {
	a := newTestAligner(t)
	tried := 0
	for _, f := range alignedOracles(t, a) {
		orig := f.res
		if len(orig.Discarded) > 0 {
			t.Errorf("%s: discarded %v", f.name, orig.Discarded)
		}
		pr, rt := orig.Gene(PR), orig.Gene(RT)
		if pr == nil || rt == nil || pr.LastAA != 99 || rt.FirstAA != 1 || rt.LastAA < 100 {
			continue
		}
		tried++
		t.Run(f.name, func(t *testing.T) {
			res := mustAlign(t, a, f.seq[:codonOffset0(rt, 31)])
			if res.Gene(PR) == nil || res.Gene(RT) != nil || !slices.Equal(res.Discarded, []Gene{RT}) {
				t.Errorf("genes %v, discarded %v; want PR, RT discarded", geneNames(res), res.Discarded)
			}
		})
	}
	if tried == 0 {
		t.Fatal("no PR+RT sequence")
	}
}

func geneNames(res *Result) []Gene {
	var out []Gene
	for _, g := range res.Genes {
		out = append(out, g.Gene)
	}
	return out
}

// TestMinimumGeneSizes: a gene is present from HIVDB's current minimum sizes on (PR 30, RT
// 50, IN 50 codons): the shared sequences (not the problem ones, whose poor ends are
// trimmed) cut to exactly that many codons of a gene keep it, one codon fewer drops it (and
// lists it as discarded).
func TestMinimumGeneSizes(t *testing.T) {
	a := newTestAligner(t)
	checked := map[Gene]bool{}
	for _, f := range alignedOracles(t, a) {
		orig := f.res
		for _, gene := range []Gene{PR, RT, IN} {
			g := orig.Gene(gene)
			n := MinCodons(gene)
			if g == nil || checked[gene] || g.FirstAA != 1 || g.LastAA < n+10 || len(g.Frameshifts) > 0 || g.LeftTrimmed > 0 || strings.HasPrefix(f.name, "PROBLEM") {
				continue
			}
			checked[gene] = true
			t.Run(f.name+"/"+string(gene), func(t *testing.T) {
				start := codonOffset0(g, 1)
				for _, size := range []int{n, n - 1} {
					res, err := a.Align([]byte(f.seq[start:codonOffset0(g, size+1)]))
					got := (*GeneResult)(nil)
					if err == nil {
						got = res.Gene(gene)
					}
					switch {
					case size == n && (got == nil || got.FirstAA != 1 || got.LastAA != n):
						t.Errorf("%s codons 1–%d: got %v, want present 1–%d", gene, n, got, n)
					case size < n && got != nil:
						t.Errorf("%s codons 1–%d: present %d–%d, want absent", gene, size, got.FirstAA, got.LastAA)
					case size < n && err == nil && !slices.Contains(res.Discarded, gene):
						t.Errorf("%s codons 1–%d: not listed as discarded (%v)", gene, size, res.Discarded)
					}
				}
			})
		}
	}
	if len(checked) != 3 {
		t.Errorf("checked only %v", checked)
	}
}
