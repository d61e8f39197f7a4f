package testkit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// HIVDBDir is ../shared/data/hivdb (the HIVDB reference sequences,
// algorithms, mutation patterns and sequences with expected results),
// joined with elem. Without ../shared the test is skipped as SharedDir
// says.
func HIVDBDir(t testing.TB, elem ...string) string {
	t.Helper()
	return filepath.Join(append([]string{SharedDir(t), "data", "hivdb"}, elem...)...)
}

// HIVDBGene is what HIVDB's program makes of one gene of a real sequence,
// as a file of ../shared/data/hivdb/sequences states it.
type HIVDBGene struct {
	FirstAA            int     `json:"firstAA"`
	LastAA             int     `json:"lastAA"`
	FirstNA            int     `json:"firstNA"`
	LastNA             int     `json:"lastNA"`
	MatchPcnt          float64 `json:"matchPcnt"`
	MutationListString string  `json:"mutationListString"`
	AlignedNAs         string  `json:"alignedNAs"`
	Mutations          []struct {
		Position int    `json:"position"`
		Triplet  string `json:"triplet"`
		Inserted string `json:"insertedNAs"`
	} `json:"mutations"`
	FrameShifts []struct {
		Gene     string `json:"gene"`
		Position int    `json:"position"`
		Size     int    `json:"size"`
		NAs      string `json:"nas"`
		Type     string `json:"type"`
	} `json:"frameShifts"`
}

// HIVDBSequence is one file of ../shared/data/hivdb/sequences: a real
// sequence and, per gene, its expected alignment.
type HIVDBSequence struct {
	Name     string               // the file's name without .json
	Header   string               // the FASTA header the file gives the sequence
	Sequence string               // the nucleotides
	Genes    map[string]HIVDBGene // by gene (PR, RT, IN: the file's HIV1 prefix dropped)
}

// FASTA is the sequence as one FASTA record named after its file.
func (s HIVDBSequence) FASTA() string {
	return ">" + s.Name + "\n" + s.Sequence + "\n"
}

// HIVDBSequences reads every file of ../shared/data/hivdb/sequences, in
// the order of their names.
func HIVDBSequences(t testing.TB) []HIVDBSequence {
	t.Helper()
	dir := HIVDBDir(t, "sequences")
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no sequence files in %s: %v", dir, err)
	}
	out := make([]HIVDBSequence, 0, len(paths))
	for _, p := range paths {
		out = append(out, ReadHIVDBSequence(t, strings.TrimSuffix(filepath.Base(p), ".json")))
	}
	return out
}

// ReadHIVDBSequence reads ../shared/data/hivdb/sequences/<name>.json. The
// expected results are those of HIVDB's current program: where it differs
// from the older program that wrote a file, the file's values are edited
// here (hivdbCurrentProgram), once for every test that reads them.
func ReadHIVDBSequence(t testing.TB, name string) HIVDBSequence {
	t.Helper()
	path := HIVDBDir(t, "sequences", name+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Every gene of a file holds the same input sequence.
	var raw map[string]struct {
		Sequence struct {
			Header   string `json:"header"`
			Sequence string `json:"sequence"`
		} `json:"sequence"`
		HIVDBGene
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	s := HIVDBSequence{Name: name, Genes: map[string]HIVDBGene{}}
	for key, g := range raw {
		gene := strings.TrimPrefix(key, "HIV1")
		if edit := hivdbCurrentProgram[name]; edit != nil {
			edit(gene, &g.HIVDBGene)
		}
		s.Genes[gene] = g.HIVDBGene
		s.Header, s.Sequence = g.Sequence.Header, g.Sequence.Sequence
	}
	if s.Sequence == "" {
		t.Fatalf("%s: no sequence", path)
	}
	return s
}

// hivdbCurrentProgram holds where HIVDB's current program (Sierra 3.5,
// PostAlign) differs from the older program that wrote a shared sequence
// file: the expected gene result is edited to the current one.
// RT_DELETIONS_67_AF311157 reads K65 K66 TCC GGT K70: the older program
// wrote D67Deletion + T69G, the current one places the deletion at 69
// (D67S, S68G, T69Deletion; docs/alignment.md, "Deletions"), one more
// mutated codon of 184.
var hivdbCurrentProgram = map[string]func(gene string, g *HIVDBGene){
	"RT_DELETIONS_67_AF311157": func(gene string, g *HIVDBGene) {
		if gene != "RT" {
			return
		}
		g.MutationListString = strings.Replace(g.MutationListString, "D67Deletion,T69G", "D67S,S68G,T69Deletion", 1)
		g.AlignedNAs = strings.Replace(g.AlignedNAs, "AAA---TCCGGTAAA", "AAATCCGGT---AAA", 1)
		g.Mutations = append(g.Mutations[:0:0], g.Mutations...)
		for i := range g.Mutations {
			switch g.Mutations[i].Position {
			case 67:
				g.Mutations[i].Triplet = "TCC"
			case 69:
				g.Mutations[i].Triplet = ""
			}
		}
		g.MatchPcnt = 100 * float64(3*184-3*10) / float64(3*184)
	},
}

// HIVDBPatterns reads ../shared/data/hivdb/patterns/<file>: mutation
// patterns with each drug's expected score and level.
func HIVDBPatterns(t testing.TB, file string) []map[string]any {
	t.Helper()
	path := HIVDBDir(t, "patterns", file)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var patterns []map[string]any
	if err := json.Unmarshal(data, &patterns); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return patterns
}
