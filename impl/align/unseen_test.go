package align

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// unseenExpectation is one line of testdata/unseen/expected.tsv: the genes a real sequence
// holds, as its own span says (not as this aligner reads it), what is known of its
// mutations, and any documented tolerance.
type unseenExpectation struct {
	genes     map[Gene][2]int // codon range before trimming
	order     []Gene
	mutations string // "", "GENE=none", "GENE>=M41L,…", "GENE:unsequenced=a-b" or "fs=none"
	tolerance map[Gene]int
	notHIV1   bool // "not-HIV-1": no gene, or flagged as not HIV-1 (Result.NotHIV1)
}

func readUnseenExpectations(t *testing.T, dir string) map[string]unseenExpectation {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "expected.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]unseenExpectation{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 {
			t.Fatalf("expected.tsv: %d fields in %q", len(f), line)
		}
		e := unseenExpectation{genes: map[Gene][2]int{}, mutations: f[2], tolerance: map[Gene]int{}}
		if f[1] == "not-HIV-1" {
			e.notHIV1 = true
			out[f[0]] = e
			continue
		}
		for _, g := range strings.Fields(f[1]) {
			name, rng, _ := strings.Cut(g, ":")
			a, b, _ := strings.Cut(rng, "-")
			first, err1 := strconv.Atoi(a)
			last, err2 := strconv.Atoi(b)
			gene, ok := geneByName(name)
			if err1 != nil || err2 != nil || !ok {
				t.Fatalf("expected.tsv: bad gene %q", g)
			}
			e.genes[gene] = [2]int{first, last}
			e.order = append(e.order, gene)
		}
		if f[3] != "" {
			spec, _, _ := strings.Cut(f[3], " ")
			name, n, _ := strings.Cut(spec, ":")
			gene, ok := geneByName(name)
			k, err := strconv.Atoi(n)
			if !ok || err != nil {
				t.Fatalf("expected.tsv: bad tolerance %q", f[3])
			}
			e.tolerance[gene] = k
		}
		out[f[0]] = e
	}
	return out
}

func geneByName(name string) (Gene, bool) {
	g := Gene(name)
	return g, slices.Contains([]Gene{CA, PR, RT, IN}, g)
}

// TestUnseenRealSequences aligns real HIV-1 sequences the project had not seen before
// (testdata/unseen: subtype B PR+RT whose RT Stanford's database lists without mutations,
// subtype A/C RT from an aligned export with "." gaps, RegaDB's lower-case and mixed-case
// test sequences, PR and RT read apart, an RT69 insertion, Stanford's "possible VGI"
// set, HIV-2, Los Alamos whole-pol consensus of 18 subtypes and CRFs, HXB2's genes each
// alone, NL4-3's first 5.6 kb; origin in its README) and requires every gene the sequence holds, over the
// span the sequence itself gives, the mutations published beside it, the same reading of
// the reverse complement, and no HIV-2 sequence read as HIV-1.
func TestUnseenRealSequences(t *testing.T) {
	a := newTestAligner(t)
	dir := filepath.Join(testkit.RepoRoot(t), "impl", "align", "testdata", "unseen")
	want := readUnseenExpectations(t, dir)
	seen := map[string]bool{}
	for _, f := range testkit.Files(t, filepath.Join(dir, "*.fasta")) {
		recs, err := fasta.ReadAll(bytes.NewReader(f.Data))
		if err != nil {
			t.Fatalf("%s: %v", f.Path, err)
		}
		for _, r := range recs {
			e, ok := want[r.Name]
			if !ok {
				t.Errorf("%s: %q has no line in expected.tsv", filepath.Base(f.Path), r.Name)
				continue
			}
			seen[r.Name] = true
			t.Run(r.Name, func(t *testing.T) {
				res, err := a.Align(r.Sequence)
				if e.notHIV1 {
					// HIV-2: no HIV-1 gene at all, or genes flagged so that the reports
					// refuse them; never a gene read as HIV-1.
					if err == nil && res.NotHIV1 == nil {
						t.Errorf("HIV-2 read as HIV-1: %v (subtype %s)", geneRanges(res), res.Subtype.Display)
					} else if err != nil && !errors.Is(err, ErrNoGene) {
						t.Errorf("align: %v", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("align: %v", err)
				}
				var got []Gene
				for _, g := range res.Genes {
					got = append(got, g.Gene)
				}
				if !slices.Equal(got, e.order) {
					t.Fatalf("genes %v, want %v (discarded %v)", got, e.order, res.Discarded)
				}
				for _, g := range res.Genes {
					w, tol := e.genes[g.Gene], e.tolerance[g.Gene]
					first, last := g.FirstAA-g.LeftTrimmed, g.LastAA+g.RightTrimmed
					if abs(first-w[0]) > tol || abs(last-w[1]) > tol {
						t.Errorf("%v %d-%d before trimming (%d-%d after), want %d-%d", g.Gene, first, last, g.FirstAA, g.LastAA, w[0], w[1])
					}
					checkUnseenMutations(t, &g, e.mutations)
				}
				// The same sequence reverse-complemented (as a sequencer may hand it over)
				// must give the same genes over the same codons.
				rc, err := a.Align([]byte(reverseComplement(string(r.Sequence))))
				if err != nil {
					t.Fatalf("reverse complement: %v", err)
				}
				if !rc.ReverseComplemented || len(rc.Genes) != len(res.Genes) {
					t.Fatalf("reverse complement: %d genes (reverse-complemented %v), want %d", len(rc.Genes), rc.ReverseComplemented, len(res.Genes))
				}
				for i, g := range rc.Genes {
					if w := res.Genes[i]; g.Gene != w.Gene || g.FirstAA != w.FirstAA || g.LastAA != w.LastAA || !slices.Equal(mutationStrings(&g), mutationStrings(&w)) {
						t.Errorf("reverse complement: %v %d-%d %v, want %v %d-%d %v", g.Gene, g.FirstAA, g.LastAA, mutationStrings(&g), w.Gene, w.FirstAA, w.LastAA, mutationStrings(&w))
					}
				}
			})
		}
	}
	for name := range want {
		if !seen[name] {
			t.Errorf("expected.tsv names %q, found in no FASTA file", name)
		}
	}
	if len(seen) < 217 {
		t.Errorf("only %d unseen sequences, want the 217 of testdata/unseen", len(seen))
	}
}

// checkUnseenMutations checks a gene against the mutation column: specs separated by "; ",
// each "fs=none", "GENE=none", "GENE>=M41L,…", "GENE:unsequenced=a-b" or one of
//
//	GENE:deletion=a-b     at least one codon of a..b deleted (an RT67/69 deletion, placed at
//	                      67, 68 or 69 by the program that reads it)
//	GENE:insertion=a      whole codons inserted after codon a (the RT69 insertion complex)
//	GENE:insertion        whole codons inserted somewhere in the gene
//	GENE:nomutation=a-b   no mutation at codons a..b (the sequence's own codons there,
//	                      read by hand, are the consensus's)
//	GENE:stop             at least one stop codon (a hypermutated, "nonfunctional" gene)
//	GENE:frameshift=a-b   a frameshift at codon a..b and none elsewhere (a real 1-nt
//	                      deletion in a homopolymer run, whose codon within the run is
//	                      arbitrary)
func checkUnseenMutations(t *testing.T, g *GeneResult, spec string) {
	t.Helper()
	for _, s := range strings.Split(spec, "; ") {
		checkUnseenSpec(t, g, s)
	}
}

func checkUnseenSpec(t *testing.T, g *GeneResult, spec string) {
	t.Helper()
	if spec == "" {
		return
	}
	if name, rest, ok := strings.Cut(spec, ":"); ok && !strings.HasPrefix(rest, "unsequenced=") {
		if name != string(g.Gene) {
			return
		}
		kind, arg, _ := strings.Cut(rest, "=")
		a, b, ranged := strings.Cut(arg, "-")
		first, _ := strconv.Atoi(a)
		last := first
		if ranged {
			last, _ = strconv.Atoi(b)
		}
		switch kind {
		case "deletion":
			if !slices.ContainsFunc(g.Mutations, func(m Mutation) bool { return m.Deletion && m.Position >= first && m.Position <= last }) {
				t.Errorf("%v: no deletion at %d-%d in %v", g.Gene, first, last, mutationStrings(g))
			}
		case "insertion":
			if !slices.ContainsFunc(g.Mutations, func(m Mutation) bool { return m.Insertion && (arg == "" || m.Position == first) }) {
				t.Errorf("%v: no insertion %s in %v", g.Gene, arg, mutationStrings(g))
			}
		case "nomutation":
			for _, m := range g.Mutations {
				if m.Position >= first && m.Position <= last {
					t.Errorf("%v: %s, but the sequence holds the consensus codons %d-%d", g.Gene, m.String(), first, last)
				}
			}
		case "stop":
			if g.StopCodons == 0 {
				t.Errorf("%v: no stop codon in %v", g.Gene, mutationStrings(g))
			}
		case "frameshift":
			if len(g.Frameshifts) != 1 || g.Frameshifts[0].Position < first || g.Frameshifts[0].Position > last {
				t.Errorf("%v frameshifts %v, want one at %d-%d", g.Gene, g.Frameshifts, first, last)
			}
		default:
			t.Fatalf("expected.tsv: bad mutations %q", spec)
		}
		return
	}
	if spec == "fs=none" {
		if len(g.Frameshifts) > 0 {
			t.Errorf("%v frameshifts %v; the sequence's gaps are whole codons in frame", g.Gene, g.Frameshifts)
		}
		return
	}
	if name, rng, ok := strings.Cut(spec, ":unsequenced="); ok {
		if name != string(g.Gene) {
			return
		}
		a, b, _ := strings.Cut(rng, "-")
		first, err1 := strconv.Atoi(a)
		last, err2 := strconv.Atoi(b)
		if err1 != nil || err2 != nil {
			t.Fatalf("expected.tsv: bad mutations %q", spec)
		}
		for k := first; k <= last; k++ {
			if !slices.Contains(g.UnsequencedPositions, k) {
				t.Errorf("%v%d not unsequenced (unsequenced: %v)", g.Gene, k, g.UnsequencedPositions)
			}
		}
		return
	}
	ms := mutationStrings(g)
	if name, ok := strings.CutSuffix(spec, "=none"); ok {
		if name == string(g.Gene) && len(ms) > 0 {
			t.Errorf("%v mutations %v, want none", g.Gene, ms)
		}
		return
	}
	name, list, ok := strings.Cut(spec, ">=")
	if !ok {
		t.Fatalf("expected.tsv: bad mutations %q", spec)
	}
	if name != string(g.Gene) {
		return
	}
	for _, m := range strings.Split(list, ",") {
		if !slices.Contains(ms, m) {
			t.Errorf("%v: %s missing from %v", g.Gene, m, ms)
		}
	}
}

// TestUnseenFragments cuts windows of 90–300 nucleotides, every 37 nucleotides, out of the
// unseen real sequences (RT67 deletions, single-genome gag–PR–RT, integrase only, RT69
// insertions, the 9.7 kb genome) — short fragments that start and end mid-gene, as a lab
// sends when only part of a gene amplified — and requires every gene part of at least its
// minimum size (PR 30, RT 50, IN 50, CA 50 codons, plus 3) that the window holds whole to be
// found, over the codons the whole sequence's alignment puts in the window (within 2
// codons: the window's codons are counted from the whole sequence's nucleotide range,
// which an indel nearby shifts by one). Measured when written: 6,466 windows, none lost.
func TestUnseenFragments(t *testing.T) {
	a := newTestAligner(t)
	dir := filepath.Join(testkit.RepoRoot(t), "impl", "align", "testdata", "unseen")
	minCodons := map[Gene]int{PR: 30, RT: 50, IN: 50, CA: 50}
	windows := 0
	for _, name := range []string{"rt_deletions67.fasta", "maldarelli_sgs.fasta", "kearney_sgs.fasta", "justin_rna_lower.fasta", "rt_insertions69.fasta", "genome_ltr_numbered.fasta"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		recs, err := fasta.ReadAll(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			whole, err := a.Align(r.Sequence)
			if err != nil {
				t.Fatalf("%s: %v", r.Name, err)
			}
			n := len(r.Sequence)
			for _, w := range []int{90, 120, 150, 180, 240, 300} {
				for off := 0; off+w <= n; off += 37 {
					windows++
					res, err := a.Align(r.Sequence[off : off+w])
					for _, g := range whole.Genes {
						first := g.FirstAA + max(0, (off+1-g.FirstNA+2)/3)
						last := g.LastAA - max(0, (g.LastNA-(off+w)+2)/3)
						if last-first+1 < minCodons[g.Gene]+3 {
							continue
						}
						var got *GeneResult
						if err == nil {
							for i := range res.Genes {
								if res.Genes[i].Gene == g.Gene {
									got = &res.Genes[i]
								}
							}
						}
						switch {
						case got == nil:
							t.Errorf("%s, nucleotides %d-%d: %v %d-%d lost (%v)", r.Name, off+1, off+w, g.Gene, first, last, err)
						case abs(got.FirstAA-got.LeftTrimmed-first) > 2 || abs(got.LastAA+got.RightTrimmed-last) > 2:
							t.Errorf("%s, nucleotides %d-%d: %v %d-%d, want %d-%d", r.Name, off+1, off+w, g.Gene, got.FirstAA-got.LeftTrimmed, got.LastAA+got.RightTrimmed, first, last)
						}
					}
				}
			}
		}
	}
	if windows < 6000 {
		t.Errorf("only %d windows", windows)
	}
}

// TestUnseenThroughAnalyze runs every unseen FASTA file through the binary (`sitesvc
// analyze --report tsv`, as a lab would) and requires each HIV-1 record to succeed with the
// genes and codon ranges the library reads (the reports print the ranges after trimming),
// and each HIV-2 record to fail.
func TestUnseenThroughAnalyze(t *testing.T) {
	bin := testkit.Binary(t)
	a := newTestAligner(t)
	dir := filepath.Join(testkit.RepoRoot(t), "impl", "align", "testdata", "unseen")
	want := readUnseenExpectations(t, dir)
	records := 0
	for _, f := range testkit.Files(t, filepath.Join(dir, "*.fasta")) {
		out, err := exec.Command(bin, "analyze", f.Path, "--report", "tsv").Output()
		if err != nil {
			t.Fatalf("sitesvc analyze %s: %v", filepath.Base(f.Path), err)
		}
		recs, err := fasta.ReadAll(bytes.NewReader(f.Data))
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]*fasta.Record{}
		for _, r := range recs {
			byName[r.Name] = r
		}
		var header []string
		for _, line := range strings.Split(string(out), "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			cols := strings.Split(line, "\t")
			if cols[0] == "input" {
				header = cols
				continue
			}
			col := func(name string) string {
				if i := slices.Index(header, name); i >= 0 && i < len(cols) {
					return cols[i]
				}
				t.Fatalf("%s: no column %q in the tsv report", filepath.Base(f.Path), name)
				return ""
			}
			name := col("name")
			e, ok := want[name]
			r := byName[name]
			if !ok || r == nil {
				t.Errorf("%s: the report names %q, not a record of the file", filepath.Base(f.Path), name)
				continue
			}
			records++
			status := col("status")
			if e.notHIV1 {
				if status != "failure" {
					t.Errorf("%s: HIV-2 analysed as %s", name, status)
				}
				continue
			}
			if status != "success" {
				t.Errorf("%s: %s: %s", name, status, col("error"))
				continue
			}
			res, err := a.Align(r.Sequence)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, g := range []Gene{CA, PR, RT, IN} {
				wantRange := "NA"
				if gr := res.Gene(g); gr != nil {
					wantRange = strconv.Itoa(gr.FirstAA) + "-" + strconv.Itoa(gr.LastAA)
				}
				if got := col(string(g) + " codons"); got != wantRange {
					t.Errorf("%s: %s codons %s in the report, %s from the aligner", name, g, got, wantRange)
				}
			}
		}
	}
	if records != len(want) {
		t.Errorf("%d records in the reports, %d in expected.tsv", records, len(want))
	}
}
