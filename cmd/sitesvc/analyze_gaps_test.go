package main

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// report2009 is the part of the XML 2009 report these tests read.
type report2009 struct {
	Results []struct {
		Name  string `xml:"inputSequence>name"`
		Genes []struct {
			Gene      string   `xml:"gene"`
			Present   bool     `xml:"present"`
			FirstAA   int      `xml:"firstAA"`
			LastAA    int      `xml:"lastAA"`
			Mutations []string `xml:"mutation>mutationString"`
			Positions []int    `xml:"mutation>position"`
			Stops     int      `xml:"quality>stopCodons"`
			Unseq     int      `xml:"quality>unsequencedCodons"`
		} `xml:"geneData"`
		Drugs []string `xml:"drugScore>drugCode"`
	} `xml:"result"`
}

// sharedSequence reads one real sequence of the shared HIVDB data.
func sharedSequence(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testkit.SharedDir(t), "data", "hivdb", "sequences", file))
	if err != nil {
		t.Fatal(err)
	}
	var genes map[string]struct {
		Sequence struct {
			Sequence string `json:"sequence"`
		} `json:"sequence"`
	}
	if err := json.Unmarshal(data, &genes); err != nil {
		t.Fatal(err)
	}
	for _, g := range genes {
		return g.Sequence.Sequence
	}
	t.Fatalf("%s: no gene", file)
	return ""
}

// TestAnalyzeGapBetweenGenes runs `sitesvc analyze` on the real binary with a PR+RT sequence
// lacking RT codons 1–37 right after PR (protease must stay, with its drugs, and PR 97–99
// must not turn into RT 35–37) and an IN sequence with two codons masked by NNNNNN
// (unsequenced, never stop codons).
func TestAnalyzeGapBetweenGenes(t *testing.T) {
	prrt := sharedSequence(t, "RT_INSERTIONS_69_AF096884.json") // PR 1-99 at 1-297, RT from 298
	in := sharedSequence(t, "JUST_IN_EU618168.json")            // IN 1-288 at 1-864
	fasta := ">whole\n" + prrt + "\n>no-RT1-37\n" + prrt[:297] + prrt[297+3*37:] +
		"\n>IN-masked\n" + in[:300] + "NNNNNN" + in[306:] + "\n"
	file := filepath.Join(t.TempDir(), "gaps.fasta")
	if err := os.WriteFile(file, []byte(fasta), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runBinary(t, "", "analyze", file, "--report", "xml2009")
	if err != nil {
		t.Fatalf("analyze: %v\n%s", err, errOut)
	}
	var rep report2009
	if err := xml.Unmarshal([]byte(out), &rep); err != nil || len(rep.Results) != 3 {
		t.Fatalf("report (%v, %d results):\n%.600s", err, len(rep.Results), out)
	}
	whole, gap, masked := rep.Results[0], rep.Results[1], rep.Results[2]
	geneOf := func(r int, name string) (firstAA, lastAA int, muts []string, pos []int, ok bool) {
		for _, g := range rep.Results[r].Genes {
			if g.Gene == name && g.Present {
				return g.FirstAA, g.LastAA, g.Mutations, g.Positions, true
			}
		}
		return 0, 0, nil, nil, false
	}
	wf, wl, wm, _, ok := geneOf(0, "PR")
	if !ok {
		t.Fatalf("PR absent from the whole sequence")
	}
	gf, gl, gm, _, ok := geneOf(1, "PR")
	if !ok {
		t.Fatalf("PR dropped when RT 1-37 are missing")
	}
	if gf != wf || gl != wl || strings.Join(gm, ",") != strings.Join(wm, ",") {
		t.Errorf("PR %d-%d %v, the whole sequence gives %d-%d %v", gf, gl, gm, wf, wl, wm)
	}
	rf, _, rm, rpos, ok := geneOf(1, "RT")
	if !ok || rf != 38 {
		t.Errorf("RT from codon %d (present %v), want 38", rf, ok)
	}
	for i, p := range rpos {
		if p < 38 {
			t.Errorf("RT mutation %s before codon 38", rm[i])
		}
	}
	if len(gap.Drugs) != len(whole.Drugs) {
		t.Errorf("%d drugs scored, the whole sequence %d: %v", len(gap.Drugs), len(whole.Drugs), gap.Drugs)
	}
	for _, g := range masked.Genes {
		if g.Gene == "IN" && (g.Stops != 0 || g.Unseq != 2) {
			t.Errorf("masked IN: %d stop codons, %d unsequenced; want 0 and 2", g.Stops, g.Unseq)
		}
	}
	if i := strings.Index(out, "<result>"); i >= 0 {
		last := out[strings.LastIndex(out, "<result>"):]
		if strings.Contains(strings.ToLower(last), "stop codon") {
			t.Errorf("the masked sequence warns of stop codons:\n%s", last)
		}
	}
}
