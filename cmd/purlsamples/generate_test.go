package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSamplesFresh regenerates the samples and compares them with the
// committed ones: the generator is deterministic and samples/purl is its
// current output.
func TestSamplesFresh(t *testing.T) {
	out := t.TempDir()
	if err := Generate(out); err != nil {
		t.Fatal(err)
	}
	committed := "../../samples/purl"
	n := 0
	err := filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(out, p)
		want, err := os.ReadFile(filepath.Join(committed, rel))
		if err != nil {
			t.Errorf("%s is not committed (run go run ./cmd/purlsamples): %v", rel, err)
			return nil
		}
		got, _ := os.ReadFile(p)
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the generator's output (run go run ./cmd/purlsamples)", rel)
		}
		n++
		return nil
	})
	if err != nil || n == 0 {
		t.Fatalf("walked %d files: %v", n, err)
	}
}
