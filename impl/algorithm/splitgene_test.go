package algorithm

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// xml2009Genes is the part of an XML 2009 report TestAnalyzeGeneSplitByN reads.
type xml2009Genes struct {
	Results []struct {
		Genes []struct {
			Gene        string   `xml:"gene"`
			Present     bool     `xml:"present"`
			FirstAA     int      `xml:"firstAA"`
			LastAA      int      `xml:"lastAA"`
			Mutations   []string `xml:"mutation>mutationString"`
			Positions   []int    `xml:"mutation>position"`
			Unsequenced int      `xml:"quality>unsequencedCodons"`
		} `xml:"geneData"`
		Drugs []string `xml:"drugScore>drugCode"`
	} `xml:"result"`
}

// TestAnalyzeGeneSplitByN runs `sitesvc analyze` on the real binary with a shared
// PR+RT+IN sequence whose RT codons 121–220 are replaced by 600 N and IN codons 101–180 by
// 900 N (more than one alignment crosses): RT and IN come out whole (1–560, 1–288) with
// the stretches unsequenced (and named so in the report's findings), and every mutation
// outside them as in the unmodified sequence, with their drug scores.
func TestAnalyzeGeneSplitByN(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(testkit.SharedDir(t), "data", "hivdb", "sequences", "PRRTIN_AB097865.json"))
	if err != nil {
		t.Fatal(err)
	}
	var genes map[string]struct {
		Sequence struct {
			Sequence string `json:"sequence"`
		} `json:"sequence"`
		FirstNA int `json:"firstNA"`
	}
	if err := json.Unmarshal(data, &genes); err != nil {
		t.Fatal(err)
	}
	seq := genes["HIV1RT"].Sequence.Sequence
	// 0-based start of codon 1 of RT (no indel before codon 221) and of IN, less one for
	// IN6's missing nucleotide (IN6del1bp), so that codon k > 6 starts at in+3(k-1)
	rt, in := genes["HIV1RT"].FirstNA-1, genes["HIV1IN"].FirstNA-2
	masked := seq[:rt+3*120] + strings.Repeat("N", 600) + seq[rt+3*220:in+3*100] + strings.Repeat("N", 900) + seq[in+3*180:]
	dir := t.TempDir()
	file := filepath.Join(dir, "split.fasta")
	if err := os.WriteFile(file, []byte(">whole\n"+seq+"\n>split\n"+masked+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testkit.Binary(t), "analyze", file, "--report", "xml2009")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("analyze: %v\n%s", err, stderr.String())
	}
	var rep xml2009Genes
	if err := xml.Unmarshal(out, &rep); err != nil || len(rep.Results) != 2 {
		t.Fatalf("report (%v):\n%.600s", err, out)
	}
	whole, split := rep.Results[0], rep.Results[1]
	for _, c := range []struct {
		gene           string
		last, from, to int
	}{{"RT", 560, 121, 220}, {"IN", 288, 101, 180}} {
		var w, s []string
		unsequenced := -1
		for _, g := range whole.Genes {
			if g.Gene == c.gene {
				for i, m := range g.Mutations {
					if p := g.Positions[i]; p < c.from || p > c.to {
						w = append(w, m)
					}
				}
			}
		}
		for _, g := range split.Genes {
			if g.Gene != c.gene {
				continue
			}
			if !g.Present || g.FirstAA != 1 || g.LastAA != c.last {
				t.Errorf("%s: present %v, %d-%d; want 1-%d", c.gene, g.Present, g.FirstAA, g.LastAA, c.last)
			}
			for i, m := range g.Mutations {
				if p := g.Positions[i]; p >= c.from && p <= c.to {
					t.Errorf("%s: mutation %s inside the run of N", c.gene, m)
				}
				s = append(s, m)
			}
			unsequenced = g.Unsequenced
		}
		if len(w) == 0 || !slices.Equal(s, w) {
			t.Errorf("%s mutations %v, unmodified (outside %d–%d) %v", c.gene, s, c.from, c.to, w)
		}
		if unsequenced != c.to-c.from+1 {
			t.Errorf("%s: %d unsequenced codons, want %d", c.gene, unsequenced, c.to-c.from+1)
		}
	}
	for _, w := range []string{"There are 100 RT positions in unsequenced regions: 121–220", "There are 80 IN positions in unsequenced regions: 101–180"} {
		if !strings.Contains(string(out), w) {
			t.Errorf("report: no %q", w)
		}
	}
	if !slices.Equal(split.Drugs, whole.Drugs) || len(split.Drugs) == 0 {
		t.Errorf("drugs %v, unmodified %v", split.Drugs, whole.Drugs)
	}
}
