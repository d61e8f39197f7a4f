package align

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
)

// Low-quality end trimming (HIVDB's rule): scanning from an end, a prefix ending at a bad
// codon is trimmed when more than trimCutoffPcnt percent (integer) of its codons are bad;
// the scan stops after more than trimWindow good codons in a row.
const (
	trimWindow     = 15
	trimCutoffPcnt = 30
)

// region bounds one DP: query nucleotides [qlo, qhi) and protein rows (consumed codons)
// [jlo, jhi]. Alignments start and end free at its edges.
type region struct{ qlo, qhi, jlo, jhi int }

// maxRegionDepth bounds the realignment of the parts of a sequence an alignment left out.
const maxRegionDepth = 3

// alignProtein aligns q to prot around the seed anchors within rg, widening the band while
// the best path touches its edge, and adds the present genes of spans to res. Then the
// query before and after the aligned part are aligned again, each to the part of the
// protein before or after the aligned codons, when seed hits lie there: a gene beyond a
// stretch the single alignment would not cross (a long run of foreign nucleotides, many
// missing codons) is found on its own, never dropped.
func (a *Aligner) alignProtein(ws *workspace, q []uint8, res *Result, prot *protein, spans []geneSpan, anchors, hits []hit, rg region, depth int) {
	w := bandStart
	for {
		if !makeBand(&ws.dp.b, anchors, rg, w) {
			return
		}
		if !ws.dp.run(q, prot, a.sub, rg) {
			return
		}
		if !ws.dp.path.touchedEdge || w >= bandMax {
			break
		}
		w *= 2
	}
	path := &ws.dp.path
	// usedFirst..usedLast: the codons (protein indices) of the genes found here.
	usedFirst, usedLast := -1, -1
	for _, sp := range spans {
		from := max(path.first, sp.start)
		to := min(path.last, sp.start+sp.len-1)
		if to-from+1 < MinCodons(sp.gene) {
			continue
		}
		if g := a.buildGene(sp, q, res.Analysed, path, from, to); g != nil {
			addGene(res, g)
			if usedFirst < 0 {
				usedFirst = sp.start + g.FirstAA - 1
			}
			usedLast = sp.start + g.LastAA - 1
		}
	}
	if depth >= maxRegionDepth || usedFirst < 0 {
		return
	}
	// The rest of the query, on either side of the genes found, against the rest of the
	// protein: codons the path aligned there but no present gene kept (a gene part too
	// short or too poor after a stretch the path crossed) are free again.
	left := region{rg.qlo, int(path.codonStart[usedFirst]), rg.jlo, usedFirst}
	right := region{int(path.spanEnd[usedLast]), rg.qhi, usedLast + 1, rg.jhi}
	for _, sub := range []region{left, right} {
		if sub.qhi-sub.qlo < 3*MinCodons(PR) || sub.jhi-sub.jlo < MinCodons(IN) {
			continue // too small to hold a gene
		}
		var inside []hit
		for _, h := range hits {
			if int(h.p) >= sub.qlo && int(h.p)+3*kmerLen <= sub.qhi && int(h.r) >= sub.jlo && int(h.r)+kmerLen <= sub.jhi {
				inside = append(inside, h)
			}
		}
		if len(inside) < minChain {
			continue
		}
		if sa := a.chain(ws, inside); len(sa) >= minChain {
			a.alignProtein(ws, q, res, prot, spans, sa, inside, sub, depth+1)
		}
	}
}

// addGene adds g to res, or replaces the result for the same gene when g has more codons
// (a gene cut in two by a stretch no alignment crosses keeps its longer part).
func addGene(res *Result, g *GeneResult) {
	for i := range res.Genes {
		if res.Genes[i].Gene == g.Gene {
			if g.LastAA-g.FirstAA > res.Genes[i].LastAA-res.Genes[i].FirstAA {
				res.Genes[i] = *g
			}
			return
		}
	}
	res.Genes = append(res.Genes, *g)
}

// makeBand sets, for each DP row, the query range: between two anchors the band spans both
// anchors' diagonals ± w nucleotides (so an indel between anchors stays inside), before the
// first and after the last anchor their diagonal ± w. It returns false for an empty band.
func makeBand(b *band, anchors []hit, rg region, w int) bool {
	if len(anchors) == 0 {
		return false
	}
	m := rg.jhi
	b.rg = rg
	if cap(b.lo) < m+1 {
		b.lo = make([]int32, m+1)
		b.hi = make([]int32, m+1)
		b.off = make([]int32, m+1)
	}
	b.lo, b.hi, b.off = b.lo[:m+1], b.hi[:m+1], b.off[:m+1]
	diag := func(h hit) int { return int(h.p) - 3*int(h.r) }
	k := 0
	rows := 0
	b.jFirst = -1
	for j := rg.jlo; j <= m; j++ {
		for k < len(anchors) && int(anchors[k].r) <= j {
			k++
		}
		var dmin, dmax int
		switch {
		case k == 0:
			dmin = diag(anchors[0])
			dmax = dmin
		case k == len(anchors):
			dmin = diag(anchors[k-1])
			dmax = dmin
		default:
			dmin, dmax = diag(anchors[k-1]), diag(anchors[k])
			if dmin > dmax {
				dmin, dmax = dmax, dmin
			}
		}
		lo := max(3*j+dmin-w, rg.qlo)
		hi := min(3*j+dmax+w, rg.qhi)
		if lo > hi {
			if b.jFirst >= 0 {
				break
			}
			continue
		}
		if b.jFirst < 0 {
			b.jFirst = j
		}
		b.lo[rows], b.hi[rows] = int32(lo), int32(hi)
		rows++
	}
	if rows == 0 {
		return false
	}
	b.jLast = b.jFirst + rows - 1
	return true
}

// codonRec is one aligned consensus codon before trimming.
type codonRec struct {
	pos         int   // codon number in the gene
	start       int32 // first nucleotide (0-based) of the span
	span        int32 // nucleotides attributed: 0 deletion, 1–2 partial, ≥3 codon + insertions
	info        codonInfo
	cons        byte
	bad         bool // low quality, for end trimming
	matched     bool // every expansion is the consensus amino acid
	mutation    bool // reported as a mutation
	unsequenced bool // more than one N
	nnn         bool // read as exactly NNN
	insCodon    int  // whole codons inserted after it
	fsIns       int  // nucleotides of a frameshift insertion after it
}

// buildGene turns the codons from..to (protein indices) of the path into a GeneResult, or
// nil when the gene is not present after trimming.
func (a *Aligner) buildGene(sp geneSpan, q []uint8, seq []byte, p *alignPath, from, to int) *GeneResult {
	recs := make([]codonRec, 0, to-from+1)
	for c := from; c <= to; c++ {
		s, e := p.codonStart[c], p.spanEnd[c]
		if e < s {
			e = s
		}
		recs = append(recs, a.codonRecord(sp.gene, q, c-sp.start+1, s, e-s))
	}
	a.placeGaps(sp.gene, q, recs)
	// First, leading and trailing deletions and unsequenced codons are dropped (not counted
	// as trimmed); a gene whose match is then below MinMatchPercent is not present; then
	// low-quality ends are trimmed.
	// (A codon read from a single nucleotide counts as unsequenced here, as in HIVDB.)
	gap := func(r codonRec) bool { return r.span <= 1 || r.unsequenced }
	gapLeft, gapRight := 0, 0
	for gapLeft < len(recs) && gap(recs[gapLeft]) {
		gapLeft++
	}
	for gapRight < len(recs)-gapLeft && gap(recs[len(recs)-1-gapRight]) {
		gapRight++
	}
	aligned := recs[gapLeft : len(recs)-gapRight]
	// HIVDB's convention, which the reports keep: the nucleotide range of the whole
	// alignment moved inwards by three per dropped codon (the same as the kept codons'
	// range unless a dropped codon was a deletion or carried a frameshift).
	first, last := recs[0], recs[len(recs)-1]
	naRange := func(dropLeft, dropRight int) (int, int) {
		return int(first.start) + 1 + 3*dropLeft, int(last.start+min(last.span, 3)) - 3*dropRight
	}
	if len(aligned) < MinCodons(sp.gene) {
		return nil
	}
	if f, l := naRange(gapLeft, gapRight); matchPercent(aligned, f, l) < MinMatchPercent {
		return nil
	}
	left, right := trimCount(aligned, false), trimCount(aligned, true)
	if left+right > len(aligned)-MinCodons(sp.gene) {
		return nil
	}
	kept := aligned[left : len(aligned)-right]
	if len(kept) < MinCodons(sp.gene) {
		return nil
	}
	g := &GeneResult{
		Gene:         sp.gene,
		FirstAA:      kept[0].pos,
		LastAA:       kept[len(kept)-1].pos,
		LeftTrimmed:  left,
		RightTrimmed: right,
	}
	g.FirstNA, g.LastNA = naRange(gapLeft+left, gapRight+right)
	g.MatchPercent = matchPercent(kept, g.FirstNA, g.LastNA)
	var na, aa strings.Builder
	na.Grow(3 * len(kept))
	aa.Grow(len(kept))
	for _, r := range kept {
		switch {
		case r.span == 0:
			na.WriteString("---")
			aa.WriteByte('-')
			g.Mutations = append(g.Mutations, Mutation{Gene: sp.gene, Position: r.pos, Consensus: r.cons, Deletion: true})
		case r.span < 3 && r.unsequenced:
			// A partial codon holding an N: unsequenced, and no frameshift can be told.
			na.WriteString(string(seq[r.start:r.start+r.span]) + "--"[:3-r.span])
			aa.WriteByte('X')
			g.UnsequencedCodons++
			g.UnsequencedPositions = append(g.UnsequencedPositions, r.pos)
		case r.span < 3:
			// HIVDB's conventions: the aligned nucleotides keep the read ones first
			// ("AG-"); the mutation shows them where they fit the consensus ("-AG").
			read := string(seq[r.start : r.start+r.span])
			na.WriteString(read + "--"[:3-r.span])
			codon := placePartial(read, r.cons)
			aa.WriteByte('X')
			g.Mutations = append(g.Mutations, Mutation{Gene: sp.gene, Position: r.pos, Consensus: r.cons, AAs: "X", Codon: codon, Partial: true})
			g.Frameshifts = append(g.Frameshifts, Frameshift{Gene: sp.gene, Position: r.pos, Kind: FrameshiftDeletion, Size: 3 - int(r.span)})
		default:
			codon := string(seq[r.start : r.start+3])
			na.WriteString(codon)
			if r.info.count == 1 {
				aa.WriteString(aaSetString(r.info.aas))
			} else {
				aa.WriteByte('X')
			}
			// An unsequenced codon (more than one N) could be anything, a stop among it,
			// but it is no stop codon: it counts as unsequenced only.
			if r.info.aas&(1<<stopIdx) != 0 && !r.unsequenced {
				g.StopCodons++
				g.StopPositions = append(g.StopPositions, r.pos)
			}
			if r.info.ns > 1 {
				g.UnsequencedCodons++
				g.UnsequencedPositions = append(g.UnsequencedPositions, r.pos)
			} else if r.info.count > 1 {
				g.AmbiguousCodons++
				g.AmbiguousPositions = append(g.AmbiguousPositions, r.pos)
			}
			if r.fsIns > 0 {
				e := r.start + r.span
				g.Frameshifts = append(g.Frameshifts, Frameshift{Gene: sp.gene, Position: r.pos, Kind: FrameshiftInsertion, Size: r.fsIns, NAs: string(seq[e-int32(r.fsIns) : e])})
			}
			if r.info.ns > 1 || (r.matched && r.insCodon == 0) {
				continue
			}
			m := Mutation{Gene: sp.gene, Position: r.pos, Consensus: r.cons, Codon: codon,
				Mixture: r.info.count > 1, Stop: r.info.aas&(1<<stopIdx) != 0}
			if int(r.info.count) > MaxDisplayAAs {
				m.AAs = "X"
			} else {
				m.AAs = aaSetString(r.info.aas)
			}
			if r.insCodon > 0 {
				m.Insertion = true
				ins := seq[r.start+3 : r.start+3+int32(3*r.insCodon)]
				m.InsertedCodons = string(ins)
				b := make([]byte, r.insCodon)
				for k := range b {
					ci := a.codons[codonKey(q[r.start+3+int32(3*k)], q[r.start+4+int32(3*k)], q[r.start+5+int32(3*k)])]
					if ci.count == 1 {
						b[k] = aaSetString(ci.aas)[0]
					} else {
						b[k] = 'X'
					}
				}
				m.InsertedAAs = string(b)
			}
			g.Mutations = append(g.Mutations, m)
		}
	}
	g.AlignedNA = na.String()
	g.AlignedAA = aa.String()
	return g
}

// codonRecord classifies consensus codon pos of gene g read from the query nucleotides
// start..start+span (span 0: deleted; 1–2: shortened by a frameshift; more than 3: codons
// or frameshift nucleotides inserted after it).
func (a *Aligner) codonRecord(g Gene, q []uint8, pos int, s, span int32) codonRec {
	cons := a.genes[g].consensus
	unusual, apobec := a.unusual[g], a.apobec[g]
	r := codonRec{pos: pos, start: s, span: span, cons: cons[pos-1]}
	consBit := uint32(1) << uint(aaIndex(r.cons))
	var unusualBits, apobecBits uint32
	if pos-1 < len(unusual) {
		unusualBits, apobecBits = unusual[pos-1], apobec[pos-1]
	}
	// A codon is of low quality (HIVDB's trimming rule) when it carries a frameshift, or
	// is a mutation (unsequenced codons are not) that is unusual, shown as X, an APOBEC
	// signature or a stop.
	switch {
	case r.span == 0:
		r.mutation = true
		r.bad = unusualBits&(1<<unusualDel) != 0
	case r.span < 3:
		// As HIVDB counts it, a missing nucleotide is an N: a partial codon with an N
		// is unsequenced (one read from a single nucleotide also is, for the trimming
		// of the ends, below).
		r.unsequenced = q[s] == 15 || r.span == 2 && q[s+1] == 15
		r.mutation = !r.unsequenced
		r.bad = true
	default:
		r.info = a.codons[codonKey(q[s], q[s+1], q[s+2])]
		r.matched = r.info.aas == consBit
		extra := int(r.span) - 3
		if pos == len(cons) {
			// Nucleotides after a gene's last codon lie between genes: they are no
			// insertion of this gene (nor of the next one).
			extra = 0
			r.span = 3
		}
		r.insCodon, r.fsIns = extra/3, extra%3
		r.unsequenced = r.info.ns > 1
		r.nnn = r.info.ns == 3
		r.mutation = !r.unsequenced && (!r.matched || r.insCodon > 0)
		r.bad = r.fsIns > 0 || r.mutation && (r.info.aas&(1<<stopIdx) != 0 ||
			int(r.info.count) > MaxDisplayAAs ||
			r.info.aas&^consBit&(unusualBits|apobecBits) != 0 ||
			r.insCodon > 0 && unusualBits&(1<<unusualIns) != 0)
	}
	return r
}

// matchPercent counts as HIVDB does (sierra-core AlignedGeneSeq.getMatchPcnt), in
// nucleotides over the gene's nucleotide range firstNA..lastNA (inserted nucleotides
// included): a deleted codon adds three, a codon shortened by a frameshift its missing
// nucleotides, an NNN codon takes three off; mismatches are three per mutation, deletion,
// shortened or unsequenced codon (NNN excepted) and the frameshift-inserted nucleotides.
func matchPercent(recs []codonRec, firstNA, lastNA int) float64 {
	all, bad := lastNA-firstNA+1, 0
	for _, r := range recs {
		switch {
		case r.span == 0:
			all += 3
			bad += 3
		case r.span < 3:
			all += 3 - int(r.span)
			bad += 3
		case r.nnn:
			all -= 3
		default:
			if r.mutation || r.unsequenced {
				bad += 3
			}
			bad += r.fsIns
		}
	}
	if all <= 0 {
		return 0
	}
	return 100 - 100*float64(bad)/float64(all)
}

// trimCount returns how many codons to trim from the start of recs (from the end when
// reverse is set).
func trimCount(recs []codonRec, reverse bool) int {
	problems, since, trim := 0, 0, 0
	for k := range recs {
		idx := k
		if reverse {
			idx = len(recs) - 1 - k
		}
		if recs[idx].bad {
			problems++
			since = 0
			if problems*100/(k+1) > trimCutoffPcnt {
				trim = k + 1
			}
		} else {
			since++
			if since > trimWindow {
				break
			}
		}
	}
	return trim
}

// placePartial shows a codon read from 1–2 nucleotides with '-' for the missing ones, at
// the first placement (for two: "xy-", "-xy", "x-y"; for one: "x--", "-x-", "--x") where a
// codon of the consensus amino acid has the read nucleotides; when none has all of them,
// the last placement where one of them fits; otherwise "xy-" / "x--".
func placePartial(read string, cons byte) string {
	fits := func(pattern string) (all, some bool) {
		all = false
		for i := 0; i < 64; i++ {
			if geneticCode[i] != cons {
				continue
			}
			codon := [3]byte{"TCAG"[i/16], "TCAG"[i/4%4], "TCAG"[i%4]}
			n, ok := 0, true
			for k := 0; k < 3; k++ {
				if pattern[k] == '-' {
					continue
				}
				if ntMask[pattern[k]]&ntMask[codon[k]] != 0 {
					n++
				} else {
					ok = false
				}
			}
			if ok {
				all = true
			}
			if n > 0 {
				some = true
			}
		}
		return all, some
	}
	var placements []string
	if len(read) == 2 {
		x, y := read[:1], read[1:]
		placements = []string{x + y + "-", "-" + x + y, x + "-" + y}
	} else {
		placements = []string{read + "--", "-" + read + "-", "--" + read}
	}
	fallback := placements[0]
	for _, p := range placements {
		all, some := fits(p)
		if all {
			return p
		}
		if some {
			fallback = p
		}
	}
	return fallback
}

// readUnusual reads rx-all_subtype-all.csv: per gene and codon, the amino acids (and
// insertion '_', deletion '-') flagged isUnusual.
func readUnusual(ref fs.FS, genes map[Gene]geneRef) (map[Gene][]uint32, error) {
	data, err := fs.ReadFile(ref, "rx-all_subtype-all.csv")
	if err != nil {
		return nil, fmt.Errorf("reading rx-all_subtype-all.csv: %w", err)
	}
	out := map[Gene][]uint32{}
	for g, r := range genes {
		out[g] = make([]uint32, len(r.consensus))
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for sc.Scan() {
		line++
		if line == 1 {
			continue
		}
		f := strings.Split(sc.Text(), ",")
		if len(f) < 8 {
			return nil, fmt.Errorf("rx-all_subtype-all.csv line %d: %d fields", line, len(f))
		}
		if f[7] != "True" {
			continue
		}
		pos, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("rx-all_subtype-all.csv line %d: position: %w", line, err)
		}
		tab, ok := out[Gene(f[0])]
		if !ok || pos < 1 || pos > len(tab) || len(f[2]) != 1 {
			continue
		}
		var bit int
		switch f[2][0] {
		case '-':
			bit = unusualDel
		case '_':
			bit = unusualIns
		default:
			bit = aaIndex(f[2][0])
			if bit < 0 {
				continue
			}
		}
		tab[pos-1] |= 1 << uint(bit)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading rx-all_subtype-all.csv: %w", err)
	}
	return out, nil
}

// readAPOBEC reads apobecs.csv: per gene and codon, the APOBEC signature amino acids.
func readAPOBEC(ref fs.FS, genes map[Gene]geneRef) (map[Gene][]uint32, error) {
	data, err := fs.ReadFile(ref, "apobecs.csv")
	if err != nil {
		return nil, fmt.Errorf("reading apobecs.csv: %w", err)
	}
	out := map[Gene][]uint32{}
	for g, r := range genes {
		out[g] = make([]uint32, len(r.consensus))
	}
	for n, line := range strings.Split(string(data), "\n") {
		f := strings.Split(strings.TrimSpace(line), ",")
		if n == 0 || len(f) < 3 {
			continue
		}
		pos, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("apobecs.csv line %d: position: %w", n+1, err)
		}
		tab, ok := out[Gene(f[0])]
		if !ok || pos < 1 || pos > len(tab) || len(f[2]) != 1 || aaIndex(f[2][0]) < 0 {
			continue
		}
		tab[pos-1] |= 1 << uint(aaIndex(f[2][0]))
	}
	return out, nil
}
