package algorithm

import (
	"encoding/xml"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// canonicalExpected turns one mutation of a mutationListString (T69S_SA, M46Deletion, P9PLR,
// W6*, I13X, L33I_X) into "position:amino acids sorted[_inserted]", with * for stop and - for
// deletion.
func canonicalExpected(t *testing.T, m string) string {
	t.Helper()
	i := 1
	for i < len(m) && m[i] >= '0' && m[i] <= '9' {
		i++
	}
	pos, err := strconv.Atoi(m[1:i])
	if err != nil {
		t.Fatalf("expected mutation %q: %v", m, err)
	}
	aas, ins, _ := strings.Cut(m[i:], "_")
	if aas == "Deletion" {
		aas = "-"
	}
	return canonical(pos, aas, ins)
}

func canonical(pos int, aas, ins string) string {
	b := []byte(aas)
	slices.Sort(b)
	b = slices.Compact(b)
	s := strconv.Itoa(pos) + ":" + string(b)
	if ins != "" {
		s += "_" + ins
	}
	return s
}

// canonicalReported does the same for a reported mutation: aminoAcids in rule notation (Z
// stop, d deletion, i insertion) and the inserted amino acids.
func canonicalReported(pos int, aminoAcids, insertion string) string {
	aas := strings.NewReplacer("Z", "*", "d", "-", "i", "").Replace(aminoAcids)
	if insertion == "" && strings.Contains(aminoAcids, "i") {
		insertion = "X"
	}
	return canonical(pos, aas, insertion)
}

// TestSequenceCorrectness sends every sequence of ../shared/data/hivdb/sequences/ in one
// processSequencesInFasta request (report type 2) to the real binary and compares every
// gene's first/last codon and nucleotide, mutation set, frameshifts and match percentage
// (within 0.1) with the file's values, naming each mismatch.
func TestSequenceCorrectness(t *testing.T) {
	t.Parallel()
	files := testkit.HIVDBSequences(t)
	expected := map[string]map[string]testkit.HIVDBGene{} // file stem → gene (PR, RT, IN) → values
	var fastaText strings.Builder
	for _, f := range files {
		expected[f.Name] = f.Genes
		fastaText.WriteString(f.FASTA())
	}

	s := startBinary(t)
	body := `<alg:processSequencesInFasta><key>` + s.Key + `</key><reportTypeInt>2</reportTypeInt><sequencesInFasta>` + xmlText(fastaText.String()) + `</sequencesInFasta></alg:processSequencesInFasta>`
	code, resp := soapCall(t, s.Endpoint, body)
	r := parseSOAP(t, resp)
	if code != 200 || r.FaultString != "" {
		t.Fatalf("processSequencesInFasta: %d %s %s", code, r.FaultCode, r.FaultString)
	}
	validateReport(t, r.Part)
	var rep report2009
	if err := xml.Unmarshal([]byte(r.Part), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Results) != len(files) {
		t.Fatalf("%d results for %d sequences", len(rep.Results), len(files))
	}
	for _, res := range rep.Results {
		want, ok := expected[res.Name]
		if !ok {
			t.Errorf("result for an unknown sequence %q", res.Name)
			continue
		}
		if !res.Success {
			t.Errorf("%s: failed: %s", res.Name, res.ErrorMessage)
			continue
		}
		for _, gd := range res.GeneData {
			w, expectedPresent := want[gd.Gene]
			where := res.Name + " " + gd.Gene
			if gd.Present != expectedPresent {
				if gd.Gene != "CA" || expectedPresent {
					t.Errorf("%s: present %v, want %v", where, gd.Present, expectedPresent)
				}
				continue
			}
			if !gd.Present {
				continue
			}
			for _, c := range []struct {
				what      string
				got, want int
			}{{"firstAA", gd.FirstAA, w.FirstAA}, {"lastAA", gd.LastAA, w.LastAA}, {"firstNA", gd.FirstNA, w.FirstNA}, {"lastNA", gd.LastNA, w.LastNA}} {
				if c.got != c.want {
					t.Errorf("%s: %s %d, want %d", where, c.what, c.got, c.want)
				}
			}
			if math.Abs(gd.MatchPercentage-w.MatchPcnt) > 0.1 {
				t.Errorf("%s: match percentage %.2f, want %.2f", where, gd.MatchPercentage, w.MatchPcnt)
			}
			var got, exp []string
			for _, m := range gd.Mutations {
				got = append(got, canonicalReported(m.Position, m.AminoAcids, m.Insertion))
			}
			for _, m := range strings.Split(w.MutationListString, ",") {
				if m = strings.TrimSpace(m); m != "" {
					exp = append(exp, canonicalExpected(t, m))
				}
			}
			if missing, extra := testkit.Diff(exp, got); len(missing)+len(extra) > 0 {
				t.Errorf("%s: mutations missing %v, unexpected %v", where, missing, extra)
			}
			var fsWant []string
			for _, f := range w.FrameShifts {
				s := gd.Gene + strconv.Itoa(f.Position)
				if f.Type == "INSERTION" {
					s += "ins" + strconv.Itoa(f.Size) + "bp_" + f.NAs
				} else {
					s += "del" + strconv.Itoa(f.Size) + "bp"
				}
				fsWant = append(fsWant, s)
			}
			if missing, extra := testkit.Diff(fsWant, gd.Frameshifts); len(missing)+len(extra) > 0 {
				t.Errorf("%s: frameshifts missing %v, unexpected %v", where, missing, extra)
			}
		}
		for gene := range want {
			found := false
			for _, gd := range res.GeneData {
				found = found || gd.Gene == gene
			}
			if !found {
				t.Errorf("%s %s: no geneData", res.Name, gene)
			}
		}
	}
}

// xmlText escapes text for an XML element.
func xmlText(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
