package align

import (
	"testing"
)

// TestAllSubtypeReferences aligns every reference of genotype-references_hiv1.json (720
// real PR+RT+IN sequences of all subtypes and CRFs, gaps removed): PR, RT and IN must be
// present and nearly complete, and the closest subtype must be the sequence's own.
func TestAllSubtypeReferences(t *testing.T) {
	if testing.Short() {
		t.Skip("720 alignments")
	}
	a := newTestAligner(t)
	fsTotal, trimmed := 0, 0
	for _, ref := range a.genotyper.refs {
		name := a.genotyper.genotypes[ref.genotype].display
		var b []byte
		for _, c := range ref.seq {
			if c != '-' {
				b = append(b, c)
			}
		}
		res, err := a.Align(b)
		if err != nil {
			t.Errorf("%s (%s): %v", ref.accession, name, err)
			continue
		}
		for _, g := range []Gene{PR, RT, IN} {
			gr := res.Gene(g)
			if gr == nil {
				t.Errorf("%s (%s): %s absent", ref.accession, name, g)
				continue
			}
			fsTotal += len(gr.Frameshifts)
			trimmed += gr.LeftTrimmed + gr.RightTrimmed
			if gr.LastAA-gr.FirstAA+1 < len(a.Consensus(g))-20 {
				t.Errorf("%s (%s): %s only %d-%d", ref.accession, name, g, gr.FirstAA, gr.LastAA)
			}
		}
		if res.ReverseComplemented {
			t.Errorf("%s: reverse complemented", ref.accession)
		}
		if res.Subtype.Genotype != name || res.Subtype.Distance > 0.005 || res.Subtype.Display == "" {
			t.Errorf("%s (%s): subtype %+v", ref.accession, name, res.Subtype)
		}
	}
	t.Logf("%d references: %d frameshifts, %d codons trimmed in all", len(a.genotyper.refs), fsTotal, trimmed)
}
