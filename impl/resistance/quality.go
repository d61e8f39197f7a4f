package resistance

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sitelib/sitesvc/impl/align"
	"github.com/sitelib/sitesvc/impl/asi"
)

// qualityFindings are the mutations a sequence's quality section names, each list in gene
// order (CA, PR, RT, IN) and by position. They are what the counts of qualityCounts count,
// named as Stanford's HIVdb program names them in its validation messages.
type qualityFindings struct {
	Stops      []Mutation // codons that read (or may read) a stop
	APOBEC     []Mutation // APOBEC signature mutations (apobecs.csv)
	APOBECDRMs []Mutation // drug-resistance mutations APOBEC can cause (apobec_drms.csv)
	Unusual    []Mutation // unusual mutations (rx-all_subtype-all.csv isUnusual, not DRMs)
}

// findings lists the named quality mutations of a sequence sample over its present genes.
func (e *Engine) findings(smp *sample) qualityFindings {
	var f qualityFindings
	if smp.Seq == nil {
		return f
	}
	for _, g := range smp.allGenes() {
		if !g.Sequenced || smp.Seq.Genes[g.Gene] == nil {
			continue
		}
		for _, m := range g.Mutations {
			if m.AAs&asi.Stop != 0 {
				f.Stops = append(f.Stops, m)
			}
			apobec, drm := e.apobecFlags(m)
			if apobec {
				f.APOBEC = append(f.APOBEC, m)
			}
			if drm {
				f.APOBECDRMs = append(f.APOBECDRMs, m)
			}
			if _, _, unusual := e.ref.flags(m); unusual {
				f.Unusual = append(f.Unusual, m)
			}
		}
	}
	return f
}

// hypermutated is the reference doc's APOBEC flag over named findings: two or more
// signature mutations. The reports then say which drug-resistance mutations APOBEC may
// have caused.
func (f qualityFindings) hypermutated() bool { return len(f.APOBEC) >= 2 }

// byGene names mutations grouped by gene as Stanford's messages do: "PR: D30N; RT: M184I,
// G190E".
func byGene(ms []Mutation) string {
	var b strings.Builder
	for i, m := range ms {
		switch {
		case i == 0:
			b.WriteString(m.Gene + ": ")
		case ms[i-1].Gene != m.Gene:
			b.WriteString("; " + m.Gene + ": ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(m.String())
	}
	return b.String()
}

// withGene names mutations each with its gene: "RT G190R, IN G118R".
func withGene(ms []Mutation) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.Gene + " " + m.String()
	}
	return strings.Join(parts, ", ")
}

func joinMutations(ms []Mutation) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.String()
	}
	return strings.Join(parts, ", ")
}

// plural picks the singular or plural form for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// isDRP tells whether a position carries any drug-resistance mutation (drms_hiv1.csv):
// a drug-resistance position.
func (r *reference) isDRP(gene string, pos int) bool {
	for _, c := range []byte("ACDEFGHIKLMNPQRSTVWYZdi") {
		if r.drms[typeKey{gene, pos, c}] {
			return true
		}
	}
	return false
}

// Gene sizes below which Stanford's program warns that a gene is too short for a complete
// interpretation (codons): a SEVERE WARNING below the first, a WARNING below the second.
var shortGene = map[string][2]int{"PR": {60, 80}, "RT": {150, 200}, "IN": {100, 200}}

// validate is the sequence-quality findings of an interpreted sample, in the order and with
// the levels of Stanford's HIVdb program (Sierra's sequence validator; docs/algorithm-reports.md
// lists each rule): reverse complement, removed characters, genes too short, unsequenced
// regions, trimmed ends, frameshifts and unusual indels per gene, APOBEC signature mutations
// (naming the drug-resistance mutations APOBEC may have caused), APOBEC signature mutations
// at drug-resistance positions, stop codons per gene, unusual mutations per gene and at
// drug-resistance positions.
func (e *Engine) validate(smp *sample, res *align.Result) []Validation {
	sq := smp.Seq
	var out []Validation
	add := func(level, format string, args ...any) {
		out = append(out, Validation{Level: level, Message: fmt.Sprintf(format, args...)})
	}
	if res.ReverseComplemented {
		add(LevelWarning, "the sequence was given as its reverse complement; it was analysed reverse-complemented")
	}
	if sq.Removed != "" {
		add(LevelNote, "%s", sq.Removed)
	}
	genes := smp.allGenes()
	for _, gi := range genes {
		g := sq.Genes[gi.Gene]
		limits, ok := shortGene[gi.Gene]
		if g == nil || !ok {
			continue
		}
		size := g.LastAA - g.FirstAA + 1
		switch {
		case size < limits[0]:
			add(LevelSevereWarning, "The %s sequence has only %d codons (%d–%d): not enough for a complete interpretation", gi.Gene, size, g.FirstAA, g.LastAA)
		case size < limits[1]:
			add(LevelWarning, "The %s sequence has only %d codons (%d–%d): not enough for a complete interpretation", gi.Gene, size, g.FirstAA, g.LastAA)
		}
	}
	for _, gi := range genes {
		if g := sq.Genes[gi.Gene]; g != nil && len(g.UnsequencedPositions) > 2 {
			add(LevelWarning, "There are %d %s positions in unsequenced regions: %s", len(g.UnsequencedPositions), gi.Gene, positionRanges(g.UnsequencedPositions))
		}
	}
	for _, gi := range genes {
		g := sq.Genes[gi.Gene]
		if g == nil {
			continue
		}
		if g.LeftTrimmed > 0 {
			add(LevelWarning, "The %s sequence had %d %s trimmed from its 5′ end for poor quality", gi.Gene, g.LeftTrimmed, plural(g.LeftTrimmed, "codon", "codons"))
		}
		if g.RightTrimmed > 0 {
			add(LevelWarning, "The %s sequence had %d %s trimmed from its 3′ end for poor quality", gi.Gene, g.RightTrimmed, plural(g.RightTrimmed, "codon", "codons"))
		}
	}
	for _, gi := range genes {
		g := sq.Genes[gi.Gene]
		if g == nil {
			continue
		}
		var indels []Mutation
		for _, m := range gi.Mutations {
			if m.AAs&(asi.Insertion|asi.Deletion) == 0 {
				continue
			}
			if _, _, unusual := e.ref.flags(m); unusual {
				indels = append(indels, m)
			}
		}
		fs := frameshiftList(g)
		n := len(g.Frameshifts) + len(indels)
		switch {
		case n > 1 && len(g.Frameshifts) > 0 && len(indels) > 0:
			add(LevelSevereWarning, "The %s gene has %d unusual indels and frameshifts: indels %s; frameshifts %s", gi.Gene, n, joinMutations(indels), fs)
		case n > 1 && len(indels) == 0:
			add(LevelSevereWarning, "The %s gene has %d frameshifts: %s", gi.Gene, n, fs)
		case n > 1:
			add(LevelSevereWarning, "The %s gene has %d unusual indels: %s", gi.Gene, n, joinMutations(indels))
		case n == 1 && len(indels) == 0:
			add(LevelWarning, "The %s gene has a frameshift: %s", gi.Gene, fs)
		case n == 1:
			add(LevelWarning, "The %s gene has an unusual indel: %s", gi.Gene, joinMutations(indels))
		}
	}
	f := e.findings(smp)
	if n := len(f.APOBEC); n >= 2 {
		msg := fmt.Sprintf("%d APOBEC signature mutations (G-to-A hypermutation): %s", n, byGene(f.APOBEC))
		if k := len(f.APOBECDRMs); k > 0 {
			msg += fmt.Sprintf(". %d drug-resistance %s may be caused by APOBEC hypermutation rather than drug selection: %s", k, plural(k, "mutation", "mutations"), byGene(f.APOBECDRMs))
		}
		level := LevelNote
		switch {
		case n > 4:
			level = LevelSevereWarning
		case n > 2:
			level = LevelWarning
		}
		out = append(out, Validation{Level: level, Message: msg})
	}
	var apobecAtDRP []Mutation
	for _, m := range f.APOBEC {
		if e.ref.isDRP(m.Gene, m.Pos) {
			apobecAtDRP = append(apobecAtDRP, m)
		}
	}
	switch n := len(apobecAtDRP); {
	case n > 1:
		add(LevelSevereWarning, "There are %d APOBEC signature mutations at drug-resistance positions: %s", n, withGene(apobecAtDRP))
	case n == 1:
		add(LevelWarning, "There is 1 APOBEC signature mutation at a drug-resistance position: %s", withGene(apobecAtDRP))
	}
	for _, gi := range genes {
		var stops []Mutation
		for _, m := range f.Stops {
			if m.Gene == gi.Gene {
				stops = append(stops, m)
			}
		}
		switch n := len(stops); {
		case n > 1:
			add(LevelSevereWarning, "There are %d stop codons in %s: %s", n, gi.Gene, joinMutations(stops))
		case n == 1:
			add(LevelNote, "There is 1 stop codon in %s: %s", gi.Gene, joinMutations(stops))
		}
	}
	for _, gi := range genes {
		var unusual, atDRP []Mutation
		for _, m := range f.Unusual {
			if m.Gene != gi.Gene {
				continue
			}
			unusual = append(unusual, m)
			if e.ref.isDRP(m.Gene, m.Pos) {
				atDRP = append(atDRP, m)
			}
		}
		switch n := len(unusual); {
		case n > 8:
			add(LevelSevereWarning, "There are %d unusual mutations in %s: %s", n, gi.Gene, joinMutations(unusual))
		case n > 4:
			add(LevelWarning, "There are %d unusual mutations in %s: %s", n, gi.Gene, joinMutations(unusual))
		case n > 2:
			add(LevelNote, "There are %d unusual mutations in %s: %s", n, gi.Gene, joinMutations(unusual))
		}
		switch n := len(atDRP); {
		case n > 1:
			add(LevelWarning, "There are %d unusual mutations at drug-resistance positions in %s: %s", n, gi.Gene, joinMutations(atDRP))
		case n == 1:
			add(LevelNote, "There is 1 unusual mutation at a drug-resistance position in %s: %s", gi.Gene, joinMutations(atDRP))
		}
	}
	return out
}

// positionRanges writes ascending codon positions as ranges: "1–3, 17".
func positionRanges(ps []int) string {
	var parts []string
	for i := 0; i < len(ps); {
		j := i
		for j+1 < len(ps) && ps[j+1] == ps[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, strconv.Itoa(ps[i])+"–"+strconv.Itoa(ps[j]))
		} else {
			parts = append(parts, strconv.Itoa(ps[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// worstLevel is the most serious level among findings, "" when there are none.
func worstLevel(vs []Validation) string {
	rank := map[string]int{LevelNote: 1, LevelWarning: 2, LevelSevereWarning: 3}
	worst := ""
	for _, v := range vs {
		if rank[v.Level] > rank[worst] {
			worst = v.Level
		}
	}
	return worst
}
