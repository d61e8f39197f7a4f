package testkit

import (
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// SendEndless gets the answer of a server that refuses without reading the
// body, with the headers it was given, and the endless body really is sent:
// a server that reads some of it sees spaces.
func TestSendEndless(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer ok" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		buf := make([]byte, 1<<20)
		n, _ := io.ReadFull(r.Body, buf)
		for _, b := range buf[:n] {
			if b != ' ' {
				http.Error(w, "not a space", http.StatusBadRequest)
				return
			}
		}
		http.Error(w, "too large", http.StatusRequestEntityTooLarge)
	}))
	defer srv.Close()

	resp, body := SendEndless(t, http.MethodPost, srv.URL, http.Header{"Content-Type": {"application/xml"}})
	if resp.StatusCode != http.StatusUnauthorized || string(body) != "no\n" {
		t.Errorf("without a token: %d %q, want 401", resp.StatusCode, body)
	}
	resp, body = SendEndless(t, http.MethodPut, srv.URL, http.Header{"Authorization": {"Bearer ok"}})
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("with a token, after reading 1 MiB: %d %q, want 413", resp.StatusCode, body)
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		want, got      []string
		missing, extra []string
	}{
		{nil, nil, nil, nil},
		{[]string{"a", "b"}, []string{"b", "a"}, nil, nil},
		{[]string{"a", "a", "b"}, []string{"a", "c"}, []string{"a", "b"}, []string{"c"}},
		{nil, []string{"x", "x"}, nil, []string{"x", "x"}},
	} {
		missing, extra := Diff(c.want, c.got)
		if !slices.Equal(missing, c.missing) || !slices.Equal(extra, c.extra) {
			t.Errorf("Diff(%q, %q) = %q, %q; want %q, %q", c.want, c.got, missing, extra, c.missing, c.extra)
		}
	}
}

// TestRealSequencesListed: every sequence of the real FASTA files is found in expected.tsv
// by its accession, and every line of expected.tsv names one of them.
func TestRealSequencesListed(t *testing.T) {
	t.Parallel()
	want := RealExpectations(t)
	seen := map[string]bool{}
	for _, f := range Files(t, filepath.Join(RealSequencesDir(t), "*.fasta")) {
		for _, line := range strings.Split(string(f.Data), "\n") {
			header, ok := strings.CutPrefix(strings.TrimSpace(line), ">")
			if !ok {
				continue
			}
			acc := Accession(header)
			if _, listed := want[acc]; !listed || seen[acc] {
				t.Errorf("%s: accession %q of %q not listed once in expected.tsv", filepath.Base(f.Path), acc, header)
			}
			seen[acc] = true
		}
	}
	if len(seen) != len(want) {
		t.Errorf("%d sequences, expected.tsv lists %d", len(seen), len(want))
	}
}

func TestOnceLoadsOnce(t *testing.T) {
	t.Parallel()
	var o Once[int]
	calls := 0
	load := func() (int, error) { calls++; return 42, nil }
	for range 3 {
		if v := o.Get(t, load); v != 42 {
			t.Fatalf("Get = %d", v)
		}
	}
	if calls != 1 {
		t.Errorf("load ran %d times", calls)
	}
}

// TestXMLOutline: the root with its attributes as written and the root's
// children by resolved name, in order; grandchildren are not children; a
// document that is not well-formed is the decoder's error.
func TestXMLOutline(t *testing.T) {
	t.Parallel()
	root, kids, err := XMLOutline([]byte(`<?xml version="1.0"?>
<r xmlns="urn:a" xmlns:b="urn:b" id="1" b:x="2"><one><deep/></one><b:two/>text<three/></r>`))
	if err != nil {
		t.Fatal(err)
	}
	if root.Name != (xml.Name{Space: "urn:a", Local: "r"}) || len(root.Attr) != 4 || root.Attr[2].Value != "1" || root.Attr[3].Name != (xml.Name{Space: "urn:b", Local: "x"}) {
		t.Errorf("root %v %v", root.Name, root.Attr)
	}
	want := []xml.Name{{Space: "urn:a", Local: "one"}, {Space: "urn:b", Local: "two"}, {Space: "urn:a", Local: "three"}}
	if !slices.Equal(kids, want) {
		t.Errorf("children %v, want %v", kids, want)
	}
	if _, _, err := XMLOutline([]byte(`<r><a></r>`)); err == nil {
		t.Error("a document that is not well-formed was read")
	}
}

// TestMarkdownBlock: the first block of the language after the marker that
// holds every needle, without its fences.
func TestMarkdownBlock(t *testing.T) {
	t.Parallel()
	const doc = "impl/testkit/testdata/blocks.md"
	for _, c := range []struct {
		lang, after string
		needles     []string
		want        string
	}{
		{"go", "", nil, "package first\n"},
		{"go", "## Later", nil, "package second\n"},
		{"sh", "", nil, "echo one\n"},
		{"sh", "", []string{"echo", "needle"}, "echo two\necho needle\n"},
	} {
		if got := MarkdownBlock(t, doc, c.lang, c.after, c.needles...); got != c.want {
			t.Errorf("%s block after %q with %q: %q, want %q", c.lang, c.after, c.needles, got, c.want)
		}
	}
	if got := string(RepoFile(t, doc)); !strings.HasPrefix(got, "# Blocks for TestMarkdownBlock\n") {
		t.Errorf("RepoFile: %.40q", got)
	}
}

// TestJSONSchema: a compiled schema accepts a valid document and says why
// it refuses one that breaks it or is not JSON; a missing file is an error.
func TestJSONSchema(t *testing.T) {
	t.Parallel()
	s, err := CompileJSONSchema(filepath.Join("testdata", "point.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate([]byte(`{"x": 1}`)); err != nil {
		t.Errorf("valid document refused: %v", err)
	}
	if err := s.Validate([]byte(`{"x": "one"}`)); err == nil || !strings.Contains(err.Error(), "/x") {
		t.Errorf("x as a string: %v, want an error naming /x", err)
	}
	if err := s.Validate([]byte(`{"x": 1`)); err == nil || !strings.Contains(err.Error(), "not JSON") {
		t.Errorf("truncated document: %v", err)
	}
	if _, err := CompileJSONSchema(filepath.Join("testdata", "missing.schema.json")); err == nil {
		t.Error("a missing schema file compiled")
	}
}
