package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// File is one file a test reads: its path and its content.
type File struct {
	Path string
	Data []byte
}

// Files reads every file matching the glob pattern (filepath.Glob), in
// name order. No match fails the test: a corpus that moved must not pass
// as one with nothing to check.
func Files(t testing.TB, pattern string) []File {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		t.Fatalf("testkit: no files match %s (%v)", pattern, err)
	}
	files := make([]File, len(paths))
	for i, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("testkit: %v", err)
		}
		files[i] = File{Path: p, Data: data}
	}
	return files
}
