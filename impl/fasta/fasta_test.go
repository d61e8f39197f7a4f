package fasta

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []Record // Name, Sequence, Length, Removed
	}{
		{"bare", "acgtn\nRYKM\n", []Record{{Sequence: []byte("ACGTNRYKM"), Length: 9}}},
		{"bare with gaps and digits", "  1 ACG-T.. 10\r\n", []Record{{Sequence: []byte("ACGT"), Length: 4,
			Removed: []Removal{{'1', 2}, {'-', 1}, {'.', 2}, {'0', 1}}}}},
		{"rna", "ACGU", []Record{{Sequence: []byte("ACGT"), Length: 4}}},
		{"empty", " \n\r\n", nil},
		{"fasta, multi-line, CRLF, lower case, IUPAC", ">s1 first one\r\nacgt\r\nBDHV\r\n>s2\r\nswn\r\n",
			[]Record{{Name: "s1 first one", Sequence: []byte("ACGTBDHV"), Length: 8}, {Name: "s2", Sequence: []byte("SWN"), Length: 3}}},
		{"header without sequence", ">a\n>b\nAC", []Record{{Name: "a"}, {Name: "b", Sequence: []byte("AC"), Length: 2}}},
		{"header at the end", ">a\nAC\n>b", []Record{{Name: "a", Sequence: []byte("AC"), Length: 2}, {Name: "b"}}},
		{"comments, blank lines", "\n\n>a\n;comment\n\nAC\n\nGT\n", []Record{{Name: "a", Sequence: []byte("ACGT"), Length: 4}}},
		{"leading comment", "; made by hand\n>a\nAC\n", []Record{{Name: "a", Sequence: []byte("AC"), Length: 2}}},
		// Stanford's test files start with the database query that made them: its letters
		// (SELECT, AccNum, …) are no bases, neither of a first unnamed record nor of the first
		// named one.
		{"leading # comment (exported query)", "#SELECT d.AccNum FROM GBSequences AND Species = 'HIV1';\r\n>AF1\r\nacg\r\n# note\r\nT\r\n",
			[]Record{{Name: "AF1", Sequence: []byte("ACGT"), Length: 4}}},
		{"# comment before a bare sequence", "# pasted from the lab\nACGT\nAC\n", []Record{{Sequence: []byte("ACGTAC"), Length: 6}}},
		{"only comments", "# a\n; b\n", nil},
		{"unicode removed", ">x\nAC\u0394GT\u00e9", []Record{{Name: "x", Sequence: []byte("ACGT"), Length: 4, Removed: []Removal{{'Δ', 1}, {'é', 1}}}}},
		{"bom", "\ufeff>x\nA", []Record{{Name: "x", Sequence: []byte("A"), Length: 1}}},
		{"empty name", ">\nACG", []Record{{Sequence: []byte("ACG"), Length: 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Parse(tc.in)
			if len(got) != len(tc.want) {
				t.Fatalf("%d records, want %d: %+v", len(got), len(tc.want), got)
			}
			for i, g := range got {
				w := tc.want[i]
				if g.Name != w.Name || string(g.Sequence) != string(w.Sequence) || g.Length != w.Length || !equalRemovals(g.Removed, w.Removed) {
					t.Errorf("record %d = %q %q %d %v, want %q %q %d %v", i, g.Name, g.Sequence, g.Length, g.Removed, w.Name, w.Sequence, w.Length, w.Removed)
				}
			}
		})
	}
}

func equalRemovals(a, b []Removal) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRemovedSummary(t *testing.T) {
	r := Parse("AC--G1")[0]
	if got, want := r.RemovedSummary(), `3 characters that are not nucleotides removed: '-' ×2, '1' ×1`; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if got := Parse("ACG")[0].RemovedSummary(); got != "" {
		t.Errorf("summary %q for a clean sequence", got)
	}
}

func TestIsFASTA(t *testing.T) {
	for in, want := range map[string]bool{">a\nAC": true, ";c\n>a": true, "#SELECT AccNum\n\n>a\nAC": true, "#c\nACGT": false, "#c": true, "\r\n  >a": true, "ACGT": false, "": false, "A>": false} {
		if IsFASTA(in) != want {
			t.Errorf("IsFASTA(%q) = %v", in, !want)
		}
	}
}

// TestLongLinesAndMaxKeep reads lines far longer than the read buffer, in
// one-byte reads, and keeps at most MaxKeep nucleotides while counting all.
func TestLongLinesAndMaxKeep(t *testing.T) {
	long := strings.Repeat("ACGT", 50_000) // 200,000 nt on one line
	name := strings.Repeat("n", 3*MaxNameBytes)
	in := ">" + name + "\n" + long + "\n>b\nAC\n"
	rd := NewReader(iotest.OneByteReader(strings.NewReader(in)))
	rd.MaxKeep = 1000
	a, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	if a.Length != 200_000 || len(a.Sequence) != 1000 || len(a.Name) != MaxNameBytes {
		t.Errorf("first record: length %d, kept %d, name %d bytes", a.Length, len(a.Sequence), len(a.Name))
	}
	b, err := rd.Next()
	if err != nil || b.Name != "b" || string(b.Sequence) != "AC" {
		t.Fatalf("second record %+v, %v", b, err)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Errorf("after the last record: %v, want EOF", err)
	}
}

func TestReadError(t *testing.T) {
	_, err := ReadAll(iotest.TimeoutReader(strings.NewReader(strings.Repeat(">a\nACGT\n", 100_000))))
	if err == nil || !strings.Contains(err.Error(), "fasta:") {
		t.Errorf("error %v, want a fasta read error", err)
	}
}

// FuzzRead: never panics; every kept byte is an upper-case nucleotide;
// lengths add up; names are valid UTF-8 and bounded; the same input read
// in one-byte pieces gives the same records.
func FuzzRead(f *testing.F) {
	for _, s := range []string{"", ">a\nACGT\n", "acgt", ">a\r\n\r\n>b\nRYK-M\n;c\n", "\ufeff>\xff\nA\xffC", ">x\n>y\n>z", "A>C\n>D", "#SELECT AccNum\n>a\nAC\n# x\nGT", "# only\n; comments", "#c\nACGT\n#d\nAC"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		recs := Parse(in)
		for _, r := range recs {
			if len(r.Sequence) != r.Length {
				t.Fatalf("kept %d of %d nucleotides (MaxKeep is larger)", len(r.Sequence), r.Length)
			}
			for _, c := range r.Sequence {
				if !strings.ContainsRune(Nucleotides, rune(c)) {
					t.Fatalf("kept %q", c)
				}
			}
			if !utf8.ValidString(r.Name) || len(r.Name) > MaxNameBytes {
				t.Fatalf("name %q", r.Name)
			}
			for _, x := range r.Removed {
				if x.Count <= 0 {
					t.Fatalf("removal %v", x)
				}
			}
		}
		slow, err := ReadAll(iotest.OneByteReader(strings.NewReader(in)))
		if err != nil {
			t.Fatal(err)
		}
		if len(slow) != len(recs) {
			t.Fatalf("%d records read in one-byte pieces, %d at once", len(slow), len(recs))
		}
		for i := range slow {
			if slow[i].Name != recs[i].Name || !bytes.Equal(slow[i].Sequence, recs[i].Sequence) || slow[i].RemovedCount() != recs[i].RemovedCount() {
				t.Fatalf("record %d differs when read in pieces: %+v vs %+v", i, slow[i], recs[i])
			}
		}
	})
}
