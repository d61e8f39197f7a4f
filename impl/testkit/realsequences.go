package testkit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RealSequencesDir is impl/align/testdata/real: real sequences beyond the shared ones
// (other subtypes, gag before PR, group O, HIV-2, hepatitis B) in FASTA files, with
// expected.tsv; its README says where they come from.
func RealSequencesDir(t testing.TB) string {
	t.Helper()
	return filepath.Join(RepoRoot(t), "impl", "align", "testdata", "real")
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
