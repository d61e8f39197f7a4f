package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/fasta"
)

// RealSequencesDir is impl/align/testdata/real: real sequences beyond the shared ones
// (other subtypes, gag before PR, group O, HIV-2, hepatitis B) in FASTA files, with
// expected.tsv; its README says where they come from.
func RealSequencesDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(RepoRoot(t), "impl", "align", "testdata", "real")
}

// RealSequences are the records of the FASTA files of RealSequencesDir, file by file
// in name order.
func RealSequences(t testing.TB) []*fasta.Record {
	t.Helper()
	var recs []*fasta.Record
	for _, f := range Files(t, filepath.Join(RealSequencesDir(t), "*.fasta")) {
		recs = append(recs, fasta.Parse(string(f.Data))...)
	}
	return recs
}

// RealRecord is the record of RealSequences with the GenBank accession (the first such);
// none fails the test.
func RealRecord(t testing.TB, accession string) *fasta.Record {
	t.Helper()
	for _, r := range RealSequences(t) {
		if Accession(r.Name) == accession {
			return r
		}
	}
	t.Fatalf("testkit: %s is not among the real sequences of %s", accession, RealSequencesDir(t))
	return nil
}

// ExampleFASTA is the project's example sequence, samples/sequences/example.fasta (the
// README's and the quick start's).
func ExampleFASTA(t testing.TB) string {
	t.Helper()
	return string(RepoFile(t, "samples/sequences/example.fasta"))
}

// RealExpectations reads expected.tsv of RealSequencesDir: by GenBank accession, the genes
// found in the sequence in report order, each as "GENE:firstAA-lastAA:firstNA-lastNA"; nil
// for a sequence in which none must be found.
func RealExpectations(t testing.TB) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(RealSequencesDir(t), "expected.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		acc, genes, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("expected.tsv: bad line %q", line)
		}
		if genes == "error" {
			out[acc] = nil
			continue
		}
		out[acc] = strings.Fields(genes)
	}
	return out
}

// Accession is the GenBank accession of a FASTA header: the field after "gb|", "dbj|" or
// "emb|" of an NCBI header (without its version), else the first word.
func Accession(header string) string {
	fields := strings.Split(header, "|")
	for i, f := range fields {
		if (f == "gb" || f == "dbj" || f == "emb") && i+1 < len(fields) {
			acc, _, _ := strings.Cut(fields[i+1], ".")
			return acc
		}
	}
	word, _, _ := strings.Cut(header, " ")
	return word
}
