package resistance

import (
	"fmt"
	"slices"
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

// findings lists the named quality mutations of a sample over its sequenced genes: a
// sequence's present genes, or the genes of a mutation list.
func (e *Engine) findings(smp *sample) qualityFindings {
	var f qualityFindings
	for _, g := range smp.allGenes() {
		if !g.Sequenced || smp.Seq != nil && smp.Seq.Genes[g.Gene] == nil {
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
	if missed := e.unalignedGenes(res); len(missed) > 0 {
		add(LevelSevereWarning, "The sequence may also hold %s: that part of the input was not analysed (poor quality, too short, or partial sequences joined without N in place of the missing part)", strings.Join(missed, " or "))
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
	if gap := longGap(genes); gap != "" {
		add(LevelSevereWarning, "The sequence has a gap longer than %d nucleotides (%s): partial sequences may have been joined; put N in place of a missing part. Stanford's HIVdb program does not analyse such a sequence", 3*maxGapCodons, gap)
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
	out = append(out, apobecSignatures(f, 2, 2, 4)...)
	out = append(out, e.apobecAtDRP(f)...)
	out = append(out, stopCodons(f, genes, LevelNote)...)
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

// How many nucleotides of an absent gene the part of a sequence an alignment left out before
// the first present gene (after the last) must reach for the gene to be there (Stanford's
// thresholds): PR before RT 210, RT before IN or after PR 800, IN after RT 600. A gene
// farther away adds the genes between (IN after PR: RT's 1,680 + 600).
var unalignedNTs = map[align.Gene][2]int{align.PR: {210, 0}, align.RT: {800, 800}, align.IN: {0, 600}}

// unalignedGenes names the drug-target genes (PR, RT, IN) absent from an alignment although
// the sequence spans them, as Stanford's program warns of them: a gene the aligner read part
// of but did not keep (Result.Discarded), a gene between two present genes, or a gene that
// the unaligned nucleotides before the first present gene (after the last) are long enough
// to hold.
func (e *Engine) unalignedGenes(res *align.Result) []string {
	order := align.AllGenes()
	firstIdx, lastIdx := len(order), -1
	firstNA, lastNA := len(res.Analysed)+1, 0
	for _, g := range res.Genes {
		i := slices.Index(order, g.Gene)
		firstIdx, lastIdx = min(firstIdx, i), max(lastIdx, i)
		firstNA, lastNA = min(firstNA, g.FirstNA), max(lastNA, g.LastNA)
	}
	before, after := firstNA-1, len(res.Analysed)-lastNA
	// between(i, j) is the nucleotides of the genes strictly between order[i] and order[j].
	between := func(i, j int) int {
		n := 0
		for k := i + 1; k < j; k++ {
			n += 3 * len(e.aligner.Consensus(order[k]))
		}
		return n
	}
	var out []string
	for i, g := range order {
		if g == align.CA || res.Gene(g) != nil {
			continue
		}
		limits := unalignedNTs[g]
		switch {
		case slices.Contains(res.Discarded, g),
			i > firstIdx && i < lastIdx,
			i < firstIdx && limits[0] > 0 && before > limits[0]+between(i, firstIdx),
			i > lastIdx && limits[1] > 0 && after > limits[1]+between(lastIdx, i):
			out = append(out, string(g))
		}
	}
	return out
}

// maxGapCodons is the longest gap, in codons, Stanford's program accepts inside the genes:
// more than 10 deleted codons in a row, or an insertion of more than 10 codons, is "a large
// sequence gap" (> 30 nucleotides).
const maxGapCodons = 10

// longGap names the first gap inside the genes longer than maxGapCodons codons ("RT 40–50
// deleted", "PR 35 + 12 codons inserted"), "" when there is none. Deleted codons count
// together while they follow each other.
func longGap(genes []geneInput) string {
	for _, gi := range genes {
		run, start := 0, 0
		for i, m := range gi.Mutations {
			if m.AAs&asi.Deletion != 0 {
				if run > 0 && gi.Mutations[i-1].Pos == m.Pos-1 {
					run++
				} else {
					run, start = 1, m.Pos
				}
				if run > maxGapCodons && (i+1 == len(gi.Mutations) || gi.Mutations[i+1].Pos != m.Pos+1 || gi.Mutations[i+1].AAs&asi.Deletion == 0) {
					return fmt.Sprintf("%s %d–%d deleted", gi.Gene, start, m.Pos)
				}
			} else {
				run = 0
			}
			if n := len(m.Inserted); m.AAs&asi.Insertion != 0 && n > maxGapCodons {
				return fmt.Sprintf("%s %d + %d codons inserted", gi.Gene, m.Pos, n)
			}
		}
	}
	return ""
}

// validateMutationList is the quality findings of a mutation list, with the levels of
// Stanford's HIVdb program for mutation lists (Sierra's mutations validator): stop codons per
// gene (1: WARNING, more: SEVERE WARNING), APOBEC signature mutations (1: NOTE, 2–3: WARNING,
// more: SEVERE WARNING; naming the drug-resistance mutations APOBEC may have caused),
// APOBEC signature mutations at drug-resistance positions, and unusual mutations per gene
// (at drug-resistance positions: 1 WARNING, more SEVERE WARNING; the others: WARNING, more
// than one beside unusual ones at drug-resistance positions SEVERE WARNING).
func (e *Engine) validateMutationList(smp *sample) []Validation {
	var out []Validation
	add := func(level, format string, args ...any) {
		out = append(out, Validation{Level: level, Message: fmt.Sprintf(format, args...)})
	}
	f := e.findings(smp)
	out = append(out, stopCodons(f, smp.Genes, LevelWarning)...)
	out = append(out, apobecSignatures(f, 1, 1, 3)...)
	out = append(out, e.apobecAtDRP(f)...)
	for _, gi := range smp.Genes {
		unusual := ofGene(f.Unusual, gi.Gene)
		var atDRP, other []Mutation
		for _, m := range unusual {
			if e.ref.isDRP(m.Gene, m.Pos) {
				atDRP = append(atDRP, m)
			} else {
				other = append(other, m)
			}
		}
		switch n := len(atDRP); {
		case n > 1:
			add(LevelSevereWarning, "There are %d unusual mutations at drug-resistance positions in %s: %s", n, gi.Gene, joinMutations(atDRP))
		case n == 1:
			add(LevelWarning, "There is 1 unusual mutation at a drug-resistance position in %s: %s", gi.Gene, joinMutations(atDRP))
		}
		switch {
		case len(unusual) < 2 || len(other) == 0:
		case len(atDRP) == 0:
			add(LevelWarning, "There are %d unusual mutations in %s: %s", len(other), gi.Gene, joinMutations(other))
		case len(other) == 1:
			add(LevelWarning, "There is 1 additional unusual mutation in %s: %s", gi.Gene, joinMutations(other))
		default:
			add(LevelSevereWarning, "There are %d additional unusual mutations in %s: %s", len(other), gi.Gene, joinMutations(other))
		}
	}
	return out
}

// apobecSignatures is the finding about APOBEC signature mutations, for sequences and
// mutation lists alike: none below from mutations, a NOTE up to warnOver, a WARNING up to
// severeOver, a SEVERE WARNING past it; it names the drug-resistance mutations APOBEC may
// have caused.
func apobecSignatures(f qualityFindings, from, warnOver, severeOver int) []Validation {
	n := len(f.APOBEC)
	if n < from || n == 0 {
		return nil
	}
	msg := fmt.Sprintf("%d APOBEC signature %s (G-to-A hypermutation): %s", n, plural(n, "mutation", "mutations"), byGene(f.APOBEC))
	if k := len(f.APOBECDRMs); k > 0 {
		msg += fmt.Sprintf(". %d drug-resistance %s may be caused by APOBEC hypermutation rather than drug selection: %s", k, plural(k, "mutation", "mutations"), byGene(f.APOBECDRMs))
	}
	level := LevelNote
	switch {
	case n > severeOver:
		level = LevelSevereWarning
	case n > warnOver:
		level = LevelWarning
	}
	return []Validation{{Level: level, Message: msg}}
}

// stopCodons is the findings about stop codons, per gene of genes: one is at level one
// (a NOTE for a sequence, a WARNING for a mutation list), more a SEVERE WARNING.
func stopCodons(f qualityFindings, genes []geneInput, one string) []Validation {
	var out []Validation
	for _, gi := range genes {
		stops := ofGene(f.Stops, gi.Gene)
		switch n := len(stops); {
		case n > 1:
			out = append(out, Validation{Level: LevelSevereWarning, Message: fmt.Sprintf("There are %d stop codons in %s: %s", n, gi.Gene, joinMutations(stops))})
		case n == 1:
			out = append(out, Validation{Level: one, Message: fmt.Sprintf("There is 1 stop codon in %s: %s", gi.Gene, joinMutations(stops))})
		}
	}
	return out
}

// apobecAtDRP is the finding about APOBEC signature mutations at drug-resistance positions
// (1: WARNING, more: SEVERE WARNING), for sequences and mutation lists alike.
func (e *Engine) apobecAtDRP(f qualityFindings) []Validation {
	var at []Mutation
	for _, m := range f.APOBEC {
		if e.ref.isDRP(m.Gene, m.Pos) {
			at = append(at, m)
		}
	}
	switch n := len(at); {
	case n > 1:
		return []Validation{{Level: LevelSevereWarning, Message: fmt.Sprintf("There are %d APOBEC signature mutations at drug-resistance positions: %s", n, withGene(at))}}
	case n == 1:
		return []Validation{{Level: LevelWarning, Message: "There is 1 APOBEC signature mutation at a drug-resistance position: " + withGene(at)}}
	}
	return nil
}

// ofGene is the mutations of ms in gene.
func ofGene(ms []Mutation, gene string) []Mutation {
	var out []Mutation
	for _, m := range ms {
		if m.Gene == gene {
			out = append(out, m)
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

// notHIV1Failure is the failure of a sequence the aligner found not to be HIV-1
// (align.NotHIV1; docs/alignment.md, "Not HIV-1"): its genes aligned, but far from every
// HIV-1 reference and with many amino acids HIV-1 does not have, as HIV-2's do. Its HIV-1
// drug scores would mean nothing, so none are given (Stanford's HIV-1 program stopped
// at "The sequence is from an HIV-2 virus" in the same case).
func notHIV1Failure(nh *align.NotHIV1) string {
	names := make([]string, len(nh.Unusual))
	for i, m := range nh.Unusual {
		names[i] = m.String()
	}
	return fmt.Sprintf("not HIV-1: the sequence looks like HIV-2 (or another virus related to it), so HIV-1 drug-resistance "+
		"interpretation does not apply to it. Its %s (codons %d–%d) is %.1f%% from the closest HIV-1 subtype reference, "+
		"and %d of its %d codons hold amino acids that HIV-1 almost never has there: %s",
		nh.Gene, nh.FirstAA, nh.LastAA, 100*nh.Distance, len(nh.Unusual), nh.LastAA-nh.FirstAA+1, strings.Join(names, ", "))
}
