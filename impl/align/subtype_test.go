package align

import (
	"math"
	"testing"
)

func TestDistancePercent(t *testing.T) {
	for _, c := range []struct {
		d    float64
		want string
	}{
		{0, "0.00%"}, {0.0141, "1.41%"}, {0.01415, "1.42%"}, {0.00005, "0.01%"}, {0.1, "10.00%"},
		{0.105, "10.5%"}, {0.12345, "12.3%"}, {0.99999999999, "100%"}, {1, "100%"},
	} {
		if got := distancePercent(c.d); got != c.want {
			t.Errorf("distancePercent(%v) = %s, want %s", c.d, got, c.want)
		}
	}
}

// TestSubtypeDisplay: the display rules of genotypes_hiv1.yml on the real table — a simple
// CRF's regional genotype, a CRF's parents beyond its own limit, the plain name otherwise.
func TestSubtypeDisplay(t *testing.T) {
	gt := newTestAligner(t).genotyper
	x03, x02, b := gt.genotypes["X03"], gt.genotypes["X02"], gt.genotypes["B"]
	if x03 == nil || x02 == nil || b == nil {
		t.Fatal("genotypes X03, X02, B missing")
	}
	for _, c := range []struct {
		g           *genotype
		d           float64
		first, last int
		want        string
	}{
		{x03, 0.01, 2700, 4000, "B"},         // wholly inside X03's B region (2688–5094)
		{x03, 0.01, 2253, 4000, "CRF03_A6B"}, // 67% B, below 90%
		{x03, 0.01, 2253, 2600, "A6"},
		{x02, 0.03, 2253, 5093, "CRF02_AG"}, // within its limit 0.07
		{x02, 0.08, 2253, 5093, "A1 + G"},   // beyond it: the parents
		{b, 0.09, 2253, 5093, "B"},          // beyond B's limit, no parents: still B
	} {
		if got := gt.displayName(c.g, c.d, c.first, c.last); got != c.want {
			t.Errorf("%s at %.2f over %d-%d: %s, want %s", c.g.key, c.d, c.first, c.last, got, c.want)
		}
	}
}

// TestSubtypeFallback: a match beyond its genotype's limit falls back to a parent (or
// child) genotype at most 1% farther, as HIVDB's GenotypeResult.getBestMatch does.
func TestSubtypeFallback(t *testing.T) {
	gt := newTestAligner(t).genotyper
	idx := map[string]int{}
	for i, r := range gt.refs {
		if _, ok := idx[r.genotype]; !ok {
			idx[r.genotype] = i
		}
	}
	x01, a1, c := idx["X01"], idx["A1"], idx["C"]
	dist := make([]float64, len(gt.refs))
	for i := range dist {
		dist[i] = 0.5
	}
	// CRF01_AE (limit 0.05) at 6%, its parent A1 at 6.5%: A1.
	dist[x01], dist[a1], dist[c] = 0.06, 0.065, 0.07
	if got := gt.fallback(x01, dist); got != a1 {
		t.Errorf("fallback to %s, want A1", gt.refs[got].genotype)
	}
	// A1 2% farther: CRF01_AE stays.
	dist[a1] = 0.08
	if got := gt.fallback(x01, dist); got != x01 {
		t.Errorf("fallback to %s, want X01 itself", gt.refs[got].genotype)
	}
	// Within its limit: no fallback even with a closer-than-1% parent.
	dist[x01], dist[a1] = 0.04, 0.041
	if got := gt.fallback(x01, dist); got != x01 {
		t.Errorf("fallback to %s within the limit", gt.refs[got].genotype)
	}
}

// TestSubtypeSDRMCodons: a surveillance DRM codon does not count as a difference from the
// references (HIVDB ignores it), another change at the same codon does.
func TestSubtypeSDRMCodons(t *testing.T) {
	a := newTestAligner(t)
	for _, f := range alignedOracles(t, a) {
		orig := f.res
		rt := orig.Gene(RT)
		if rt == nil || rt.FirstAA > 184 || rt.LastAA < 184 || rt.AlignedNA[3*(184-rt.FirstAA):3*(184-rt.FirstAA)+3] != "ATG" {
			continue
		}
		at := codonOffset0(rt, 184)
		same := true
		with := func(codon string) Subtype {
			res := mustAlign(t, a, f.seq[:at]+codon+f.seq[at+3:])
			got := res.Gene(RT)
			k := 3 * (184 - rt.FirstAA)
			if res.Subtype.Accession != orig.Subtype.Accession || got == nil ||
				got.AlignedNA != rt.AlignedNA[:k]+codon+rt.AlignedNA[k+3:] {
				same = false // the change moved the alignment or the closest reference
			}
			return res.Subtype
		}
		differs := func(s Subtype) float64 { return s.Distance * float64(s.Compared) }
		base := differs(orig.Subtype)
		v, l := differs(with("GTG")), differs(with("CTG"))
		if !same {
			continue
		}
		if math.Abs(v-base) > 1e-6 {
			t.Errorf("%s: M184V (an SDRM codon) changed the differences %.0f → %.0f", f.name, base, v)
		}
		if math.Abs(l-base-1) > 1e-6 {
			t.Errorf("%s: M184L changed the differences %.0f → %.0f, want one more", f.name, base, l)
		}
		if orig.Subtype.Display != orig.Subtype.Name+" ("+orig.Subtype.DistancePercent+")" {
			t.Errorf("%s: display %q", f.name, orig.Subtype.Display)
		}
		return
	}
	t.Fatal("no shared sequence reads ATG at RT 184")
}
