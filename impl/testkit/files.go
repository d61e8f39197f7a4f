package testkit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
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

// RepoFile reads the repository's file rel (slash-separated, from the
// module root).
func RepoFile(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(RepoRoot(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	return data
}

// MarkdownBlock returns the body of the first fenced block of language
// lang (```lang) after the text after ("" for the start) in the
// repository's Markdown file rel that contains every one of needles. No
// such block fails the test: a documented example that moved must not
// pass unchecked.
func MarkdownBlock(t testing.TB, rel, lang, after string, needles ...string) string {
	t.Helper()
	_, text, ok := strings.Cut(string(RepoFile(t, rel)), after)
	if !ok {
		t.Fatalf("testkit: %s has no %q", rel, after)
	}
blocks:
	for _, block := range strings.Split(text, "```"+lang+"\n")[1:] {
		block, _, _ = strings.Cut(block, "```\n")
		for _, n := range needles {
			if !strings.Contains(block, n) {
				continue blocks
			}
		}
		return block
	}
	t.Fatalf("testkit: %s has no %s block after %q containing %q", rel, lang, after, needles)
	return ""
}

// CopyPURLSample copies the files of the sample object id
// (samples/purl/<id>) into the directory dst, made if needed, as object
// newID: id becomes newID in its XML documents (newID = id for a plain
// copy). A test publishes or spoils the copy, never the sample.
func CopyPURLSample(t testing.TB, id, dst, newID string) {
	t.Helper()
	from := filepath.Join(RepoRoot(t), "samples", "purl", id)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatalf("testkit: %v", err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatalf("testkit: %v", err)
		}
		if strings.HasSuffix(e.Name(), ".xml") {
			data = bytes.ReplaceAll(data, []byte(id), []byte(newID))
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatalf("testkit: %v", err)
		}
	}
}
