package align

import (
	"bytes"
	"fmt"
	"io/fs"
	"slices"
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
	lastNucleotideToEarlierGene(path, spans)
	// usedFirst..usedLast: the codons (protein indices) of the genes found here; beside:
	// the query on either side of a short gene part.
	usedFirst, usedLast := -1, -1
	var beside []region
	for _, sp := range spans {
		from := max(path.first, sp.start)
		to := min(path.last, sp.start+sp.len-1)
		// A part of a gene shorter than the gene's minimum size may be one side of a gene
		// split by a run of N no alignment crosses: it is kept aside (res.parts) to be
		// joined to the other side (joinParts), and the query beyond it is aligned again
		// so that the other side is found. Alone it is dropped as any short gene is.
		var g *GeneResult
		if to-from+1 >= MinDiscardedCodons {
			g = a.buildGene(sp, q, res.Analysed, path, from, to, MinDiscardedCodons)
		}
		if g == nil || !a.addGene(res, g, q) {
			if to-from+1 >= MinDiscardedCodons {
				res.Discarded = append(res.Discarded, sp.gene)
			}
			if g != nil {
				res.parts = append(res.parts, *g)
				if depth < maxRegionDepth {
					first, last := sp.start+g.FirstAA-1, sp.start+g.LastAA-1
					beside = append(beside,
						region{rg.qlo, int(path.codonStart[first]), rg.jlo, first},
						region{int(path.spanEnd[last]), rg.qhi, last + 1, rg.jhi})
				}
			}
			continue
		}
		if usedFirst < 0 {
			usedFirst = sp.start + g.FirstAA - 1
		}
		usedLast = sp.start + g.LastAA - 1
	}
	if depth >= maxRegionDepth {
		return
	}
	// The rest of the query, on either side of the genes found, against the rest of the
	// protein: codons the path aligned there but no present gene kept (a gene part too
	// short or too poor after a stretch the path crossed) are free again.
	subs := beside
	if usedFirst >= 0 {
		subs = append([]region{
			{rg.qlo, int(path.codonStart[usedFirst]), rg.jlo, usedFirst},
			{int(path.spanEnd[usedLast]), rg.qhi, usedLast + 1, rg.jhi},
		}, beside...)
	}
	for _, sub := range subs {
		if sub.qhi-sub.qlo < 3*MinDiscardedCodons || sub.jhi-sub.jlo < MinDiscardedCodons {
			continue // too small to hold a gene part
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

// lastNucleotideToEarlierGene settles a tie the scores leave open, as HIVDB's aligner
// settles it: where codons are missing on both sides of a gene boundary (PR's last codons
// and RT's first) and one nucleotide is read among the later gene's missing codons, that
// nucleotide is read as the last codon of the earlier gene instead. Both are dropped as end
// gaps either way; only the nucleotide ranges differ by one (HIVDB moves a gene's range
// inwards by three per dropped codon from the nucleotides its dropped codons read).
func lastNucleotideToEarlierGene(p *alignPath, spans []geneSpan) {
	for _, sp := range spans[1:] {
		b := sp.start
		if b-1 < p.first || b > p.last || p.spanEnd[b-1] != p.codonStart[b-1] {
			continue
		}
		k := b
		for k <= p.last && k < sp.start+sp.len && p.spanEnd[k] == p.codonStart[k] {
			k++
		}
		if k > p.last || k >= sp.start+sp.len || p.spanEnd[k]-p.codonStart[k] != 1 {
			continue
		}
		s := p.codonStart[k]
		p.codonStart[b-1], p.spanEnd[b-1] = s, s+1
		for j := b; j <= k; j++ {
			p.codonStart[j], p.spanEnd[j] = s+1, s+1
		}
	}
}

// addGene adds g to res and tells whether it was kept. When res already holds the same
// gene, the two are its parts on either side of a run of N that no single alignment
// crosses: they become one result with the codons between them unsequenced
// (mergeSplitGene). Otherwise (overlapping codons, or something other than N between
// them) the part with more codons is kept; a part below the gene's minimum size never is.
func (a *Aligner) addGene(res *Result, g *GeneResult, q []uint8) bool {
	for i := range res.Genes {
		h := &res.Genes[i]
		if h.Gene != g.Gene {
			continue
		}
		if m := a.mergeSplitGene(q, res.Analysed, h, g); m != nil {
			*h = *m
			return true
		}
		if g.LastAA-g.FirstAA+1 < MinCodons(g.Gene) {
			return false
		}
		if g.LastAA-g.FirstAA > h.LastAA-h.FirstAA {
			*h = *g
		}
		return true
	}
	if g.LastAA-g.FirstAA+1 < MinCodons(g.Gene) {
		return false
	}
	res.Genes = append(res.Genes, *g)
	return true
}

// joinParts joins the short gene parts kept aside (res.parts) to the present gene of the
// same name or to each other, across runs of N (mergeSplitGene); a join of at least the
// gene's minimum size is added to res.Genes.
func (a *Aligner) joinParts(res *Result, q []uint8) {
	for joined := true; joined; {
		joined = false
		for i := 0; i < len(res.parts) && !joined; i++ {
			p := &res.parts[i]
			if h := res.Gene(p.Gene); h != nil {
				if m := a.mergeSplitGene(q, res.Analysed, h, p); m != nil {
					*h = *m
					res.parts = slices.Delete(res.parts, i, i+1)
					joined = true
				}
				continue
			}
			for j := i + 1; j < len(res.parts) && !joined; j++ {
				if res.parts[j].Gene != p.Gene {
					continue
				}
				if m := a.mergeSplitGene(q, res.Analysed, p, &res.parts[j]); m != nil {
					res.parts = slices.Delete(res.parts, j, j+1)
					res.parts[i] = *m
					if m.LastAA-m.FirstAA+1 >= MinCodons(m.Gene) {
						res.Genes = append(res.Genes, *m)
						res.parts = slices.Delete(res.parts, i, i+1)
					}
					joined = true
				}
			}
		}
	}
	res.parts = nil
	// First every gene reads on the codons between it and a run of N next to it, then the
	// pieces beyond the runs are placed, in the nucleotides no gene holds: the codons
	// before a run belong to the gene they follow, not to a piece of the gene beyond it
	// (RT 1–3 read from PR 81–83 before a run over PR 84–RT 16).
	for i := range res.Genes {
		res.Genes[i] = *a.acrossNRuns(q, res.Analysed, &res.Genes[i], 0, len(q), false)
	}
	for i := range res.Genes {
		// the nucleotides of no other gene, around gene i
		naLo, naHi := 0, len(q)
		for j, h := range res.Genes {
			switch {
			case j == i:
			case h.readTo <= res.Genes[i].readFrom:
				naLo = max(naLo, h.readTo)
			case h.readFrom >= res.Genes[i].readTo:
				naHi = min(naHi, h.readFrom)
			}
		}
		res.Genes[i] = *a.acrossNRuns(q, res.Analysed, &res.Genes[i], naLo, naHi, true)
	}
}

// maxNonNBetweenParts is how many nucleotides other than N may lie between two parts of a
// gene for them to be one gene split by a run of N: codons beside the run that were dropped
// or trimmed with it.
const maxNonNBetweenParts = 30

// deletionsInNRuns reads deleted codons inside or beside a run of at least nRunCodons
// unsequenced codons as unsequenced too: where the codons around a deletion were not
// sequenced, which codons are missing cannot be told (the alignment places the deletions
// anywhere among the N codons at equal score) — a run of N shorter than the codons it
// stands for is an unsequenced region, as Stanford reads it, not deletions.
func deletionsInNRuns(recs []codonRec) {
	for i := 0; i < len(recs); {
		if recs[i].span != 0 && !recs[i].unsequenced {
			i++
			continue
		}
		j, unsequenced := i, 0
		for j < len(recs) && (recs[j].span == 0 || recs[j].unsequenced) {
			if recs[j].unsequenced {
				unsequenced++
			}
			j++
		}
		if unsequenced >= nRunCodons {
			for k := i; k < j; k++ {
				recs[k].inNRun = true
				if recs[k].span == 0 {
					recs[k].unsequenced, recs[k].mutation, recs[k].bad = true, false, false
				}
			}
		}
		i = j
	}
}

// extendPart returns g read on codon by codon in frame, forwards (backwards when back)
// up to codon limit, while the next codon holds no N: the codons beside a run of N that
// g's own alignment left out. It returns g itself when there is none.
func (a *Aligner) extendPart(q []uint8, seq []byte, g *GeneResult, limit int, back bool) *GeneResult {
	if back {
		if piece := a.readPiece(q, seq, g.Gene, g.FirstAA-1, g.readFrom-3, limit, true); piece != nil {
			return concatParts(piece, g)
		}
	} else if piece := a.readPiece(q, seq, g.Gene, g.LastAA+1, g.readTo, limit, false); piece != nil {
		return concatParts(g, piece)
	}
	return g
}

// readPiece reads codons pos, pos+1, … (pos, pos−1, … when back) of gene from the
// sequence in frame, the first at 0-based nucleotide start, up to codon limit and before
// the first codon holding an N or running off the sequence; nil when there is none.
func (a *Aligner) readPiece(q []uint8, seq []byte, gene Gene, pos, start, limit int, back bool) *GeneResult {
	n, step := 0, 1
	if back {
		step = -1
	}
	for p, s := pos, start; (back && p >= limit || !back && p <= limit) && s >= 0 && s+3 <= len(seq); p, s = p+step, s+3*step {
		if bytes.IndexByte(seq[s:s+3], 'N') >= 0 {
			break
		}
		n++
	}
	return a.readCodons(q, seq, gene, pos, start, n, back)
}

// readCodons reads n codons pos, pos+1, … (pos, pos−1, … when back) of gene from the
// sequence in frame, the first at 0-based nucleotide start, as a gene part; nil for none.
func (a *Aligner) readCodons(q []uint8, seq []byte, gene Gene, pos, start, n int, back bool) *GeneResult {
	recs := make([]codonRec, 0, n)
	for range n {
		recs = append(recs, a.codonRecord(gene, q, pos, int32(start), 3))
		if back {
			pos, start = pos-1, start-3
		} else {
			pos, start = pos+1, start+3
		}
	}
	if len(recs) == 0 {
		return nil
	}
	if back {
		slices.Reverse(recs)
	}
	return a.partFromRecs(q, seq, gene, recs)
}

// partFromRecs turns codon records (the first read from three nucleotides, the last from
// three or more) into a gene part; its match percentage counts three
// mismatching nucleotides per mutation (a deletion too) or unsequenced codon.
func (a *Aligner) partFromRecs(q []uint8, seq []byte, gene Gene, recs []codonRec) *GeneResult {
	piece := &GeneResult{Gene: gene, FirstAA: recs[0].pos, LastAA: recs[len(recs)-1].pos,
		FirstNA: int(recs[0].start) + 1, LastNA: int(recs[len(recs)-1].start + recs[len(recs)-1].span)}
	piece.readFrom, piece.readTo = piece.FirstNA-1, piece.LastNA
	var na, aa strings.Builder
	bad := 0
	for _, r := range recs {
		a.writeCodon(piece, r, q, seq, &na, &aa)
		if r.mutation || r.unsequenced {
			bad += 3
		}
	}
	piece.AlignedNA, piece.AlignedAA = na.String(), aa.String()
	piece.MatchPercent = 100 - 100*float64(bad)/float64(3*len(recs))
	return piece
}

// acrossNRuns reads on the codons of gene g beyond a run of N at its start or end: the
// codons holding an N next to g are unsequenced, and the piece beyond the run, too short to
// be aligned on its own (PR 1–9 before a run of N over PR 10–45), is read in frame where it
// fits (placePiece) — when it has at least nRunCodons codons, at least MinMatchPercent of
// it matches and it holds no stop — within the 0-based nucleotides naLo..naHi−1, those
// of no other gene; without place, only the codons between g and a run are read on. Stanford's aligner, which aligns the whole sequence, reads such a piece.
func (a *Aligner) acrossNRuns(q []uint8, seq []byte, g *GeneResult, naLo, naHi int, place bool) *GeneResult {
	geneLen := len(a.genes[g.Gene].consensus)
	if place {
		// a few codons the gene's alignment read beyond a run of N at its ends are a
		// piece to place, not codons the alignment placed
		// (not where the gene's first or last codon, trimmed or not, lies against the
		// neighbouring gene, which places it: RT 1–3 right after the frameshifted problem
		// sequence's PR; two codons' slack for a frameshift among the trimmed codons)
		if g.FirstAA-g.LeftTrimmed != 1 || naLo == 0 || g.readFrom < naLo || g.readFrom-naLo > 3*g.LeftTrimmed+6 {
			g = cutBeyondRun(seq, g, true)
		}
		if g.LastAA+g.RightTrimmed != geneLen || naHi == len(seq) || g.readTo > naHi || naHi-g.readTo > 3*g.RightTrimmed+6 {
			g = cutBeyondRun(seq, g, false)
		}
	}
	hasN := func(start int) bool { return bytes.IndexByte(seq[start:start+3], 'N') >= 0 }
	// before the gene's first codon. Codons trimmed for poor quality next to the run
	// (maxTrimmedBesideRun at most) are the run's edge, unsequenced with it; codons g's own
	// alignment left out at its free end (a mismatch: T63 of a group O protease) are read
	// on in frame up to the run, as for the parts of a split gene (extendPart).
	if g.LeftTrimmed <= maxTrimmedBesideRun {
		free, start := 0, g.readFrom-3-3*g.LeftTrimmed
		for g.LeftTrimmed == 0 && free < nRunEdgeCodons && start >= 0 && g.FirstAA-free > 1 && !hasN(start) {
			free, start = free+1, start-3
		}
		run := 0 // codons with an N before g
		for start >= 0 && hasN(start) {
			run, start = run+1, start-3
		}
		if run >= nRunCodons && g.FirstAA-free > 1 && start >= 0 {
			g = a.extendPart(q, seq, g, g.FirstAA-free, true)
			edge := start + 3 // the run's first N
			for seq[edge] != 'N' {
				edge++
			}
			if !place {
			} else if piece := a.placePiece(q, seq[:naHi], g.Gene, edge, 1, g.FirstAA-1-g.LeftTrimmed, naLo, true); piece != nil {
				g = concatParts(piece, g)
			}
		}
	}
	// after its last codon
	if g.RightTrimmed <= maxTrimmedBesideRun {
		free, start := 0, g.readTo+3*g.RightTrimmed
		for g.RightTrimmed == 0 && free < nRunEdgeCodons && start+3 <= len(seq) && g.LastAA+free < geneLen && !hasN(start) {
			free, start = free+1, start+3
		}
		run := 0
		for start+3 <= len(seq) && hasN(start) {
			run, start = run+1, start+3
		}
		if run >= nRunCodons && g.LastAA+free < geneLen && start < len(seq) {
			g = a.extendPart(q, seq, g, g.LastAA+free, false)
			edge := start // one past the run's last N
			for seq[edge-1] != 'N' {
				edge--
			}
			if !place {
			} else if piece := a.placePiece(q, seq[:naHi], g.Gene, edge, g.LastAA+1+g.RightTrimmed, geneLen, naLo, false); piece != nil {
				g = concatParts(g, piece)
			}
		}
	}
	return g
}

// deletionsToNRuns moves every internal run of unusual deleted codons (isUnusual in
// rx-all_subtype-all.csv) that lies within
// nRunEdgeCodons read codons of a run of N (nRunCodons or more unsequenced codons) next to
// that run, the read codons between shifting onto the positions beyond the deletion: when
// a run of N is shorter than the codons it stands for, the codons missing are the
// unsequenced ones (deletionsInNRuns), not a deletion a codon or two away with its
// neighbours read one position off (the alignment put V179's codon at 178 beside a run
// of 30 N replacing RT 89–178, and V179 deleted).
func (a *Aligner) deletionsToNRuns(g Gene, q []uint8, recs []codonRec) {
	nBlock := func(k, step int) bool { // ≥ nRunCodons unsequenced codons from k on, in direction step
		n := 0
		for ; k >= 0 && k < len(recs) && (recs[k].unsequenced || recs[k].span == 0); k += step {
			if recs[k].unsequenced {
				n++
			}
		}
		return n >= nRunCodons
	}
	readClean := func(r codonRec) bool { return clean(r) && !r.unsequenced }
	forInternalDeletions(recs, 1, func(i, j int) int {
		d := j - i
		// A deletion HIV-1 is known to carry there (not isUnusual: RT 67–70, say) is
		// believed; an unusual one beside a run of N is the run's length being off.
		usual := false
		for k := i; k < j; k++ {
			usual = usual || !recs[k].bad
		}
		if usual {
			return j
		}
		// read codons between the deletion and a run of N before it, or after it
		before, after := -1, -1
		for m := 1; m <= nRunEdgeCodons && i-m-1 >= 0 && readClean(recs[i-m]); m++ {
			if nBlock(i-m-1, -1) {
				before = m
				break
			}
		}
		for m := 1; m <= nRunEdgeCodons && j+m < len(recs) && readClean(recs[j+m-1]); m++ {
			if nBlock(j+m, 1) {
				after = m
				break
			}
		}
		switch {
		case before > 0 && (after < 0 || before <= after):
			// recs[i-before:i] read codons, then d deletions: deletions first
			starts := make([]int32, before)
			for t := range starts {
				starts[t] = recs[i-before+t].start
			}
			for t := 0; t < d; t++ {
				recs[i-before+t] = a.codonRecord(g, q, recs[i-before+t].pos, starts[0], 0)
			}
			for t, st := range starts {
				recs[i-before+d+t] = a.codonRecord(g, q, recs[i-before+d+t].pos, st, 3)
			}
		case after > 0:
			// d deletions, then recs[j:j+after] read codons: read codons first
			starts := make([]int32, after)
			for t := range starts {
				starts[t] = recs[j+t].start
			}
			for t, st := range starts {
				recs[i+t] = a.codonRecord(g, q, recs[i+t].pos, st, 3)
			}
			for t := 0; t < d; t++ {
				recs[i+after+t] = a.codonRecord(g, q, recs[i+after+t].pos, starts[after-1]+3, 0)
			}
		}
		return j
	})
}

// nRunEdgeCodons is how many read codons may lie between a deletion and a run of N for the
// deletion to be moved next to the run (deletionsToNRuns).
const nRunEdgeCodons = 3

// maxTrimmedBesideRun is how many codons trimmed for poor quality may lie between a gene
// part and a run of N for the run still to be the part's edge (acrossNRuns: the trimmed
// codons are unsequenced with the run and the piece beyond it is placed). A divergent
// protease (group O AF380209: H17 L18 C19 E20) had four trimmed beside a run over PR 7–16
// when the run was longer than the codons it replaced, and PR 1–6 beyond it was lost; three
// were allowed (TestPieceBesideTrimmedCodons).
const maxTrimmedBesideRun = 6

// nRunCodons is the shortest run of unsequenced codons (nine N) whose neighbouring
// deletions deletionsInNRuns reads as unsequenced; a deletion beside one or two N codons
// stays a deletion.
const nRunCodons = 3

// mergeSplitGene joins two parts of one gene found by separate alignments on either side
// of a run of N (a gene cut in two by more N than the codons they replace, so that no
// single alignment crosses them): x before y in both the gene and the sequence, and the
// nucleotides between them N but for at most maxNonNBetweenParts. The codons between the
// parts are unsequenced ("NNN", never mutations or deletions), as Stanford reports an
// unsequenced region of a gene. It returns nil when x and y are not such parts.
func (a *Aligner) mergeSplitGene(q []uint8, seq []byte, x, y *GeneResult) *GeneResult {
	if y.FirstAA < x.FirstAA {
		x, y = y, x
	}
	if x.LastAA >= y.FirstAA || x.LastNA >= y.FirstNA || y.FirstNA-1 > len(seq) {
		return nil
	}
	if m := a.joinAcrossDeletion(q, seq, x, y); m != nil {
		return m
	}
	between := seq[x.LastNA : y.FirstNA-1]
	nN := 0
	for _, c := range between {
		if c == 'N' {
			nN++
		}
	}
	if nN < 3*nRunCodons || len(between)-nN > maxNonNBetweenParts {
		return nil
	}
	// The codons the parts' own alignments left out next to the run (a mismatching codon
	// at a free end) are read on in frame up to the first codon holding an N.
	// (one after the other, so that the two never read the same codon)
	x = a.extendPart(q, seq, x, y.FirstAA-1, false)
	y = a.extendPart(q, seq, y, x.LastAA+1, true)
	// Codons beside the run go where they match, an indel of the sequence there read as
	// in the sequence without the run (indelBesideRun).
	y = a.indelBesideRun(q, seq, y, x.LastAA+1, true)
	x = a.indelBesideRun(q, seq, x, y.FirstAA-1, false)
	return concatParts(x, y)
}

// concatParts joins gene parts x and y (x's codons before y's, in the sequence too) into
// one result; the codons between them are unsequenced ("NNN", "X"). The match percentage
// is the parts' own over their nucleotides: the codons between count as NNN codons do, not
// at all.
func concatParts(x, y *GeneResult) *GeneResult {
	gap := y.FirstAA - x.LastAA - 1
	m := &GeneResult{
		Gene: x.Gene, FirstAA: x.FirstAA, LastAA: y.LastAA, FirstNA: x.FirstNA, LastNA: y.LastNA,
		readFrom: x.readFrom, readTo: y.readTo,
		LeftTrimmed: x.LeftTrimmed, RightTrimmed: y.RightTrimmed,
		AlignedNA:         x.AlignedNA + strings.Repeat("NNN", gap) + y.AlignedNA,
		AlignedAA:         x.AlignedAA + strings.Repeat("X", gap) + y.AlignedAA,
		Mutations:         append(slices.Clone(x.Mutations), y.Mutations...),
		Frameshifts:       append(slices.Clone(x.Frameshifts), y.Frameshifts...),
		StopCodons:        x.StopCodons + y.StopCodons,
		AmbiguousCodons:   x.AmbiguousCodons + y.AmbiguousCodons,
		UnsequencedCodons: x.UnsequencedCodons + gap + y.UnsequencedCodons,
	}
	m.StopPositions = append(slices.Clone(x.StopPositions), y.StopPositions...)
	m.AmbiguousPositions = append(slices.Clone(x.AmbiguousPositions), y.AmbiguousPositions...)
	m.UnsequencedPositions = slices.Clone(x.UnsequencedPositions)
	for k := x.LastAA + 1; k < y.FirstAA; k++ {
		m.UnsequencedPositions = append(m.UnsequencedPositions, k)
	}
	m.UnsequencedPositions = append(m.UnsequencedPositions, y.UnsequencedPositions...)
	lx, ly := float64(x.LastNA-x.FirstNA+1), float64(y.LastNA-y.FirstNA+1)
	m.MatchPercent = 100 - ((100-x.MatchPercent)*lx+(100-y.MatchPercent)*ly)/(lx+ly)
	return m
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
	steps := repeatSteps(anchors)
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
		dmin, dmax = widenForRepeats(steps, j, dmin, dmax)
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

// maxRepeatShift bounds, in codons, how far an indel may lie beyond the anchors that frame
// it (widenForRepeats; the band then holds at most this many more rows of both diagonals).
const maxRepeatShift = 30

// repeatStep is a change of diagonal between two consecutive anchors (an indel): rows
// first..last of the band hold both diagonals d0 and d1.
type repeatStep struct{ first, last, d0, d1 int }

// repeatSteps lists the anchor steps of a chain, each widened by its own size in codons
// (plus one, at most maxRepeatShift) on either side. An inserted stretch is often a copy of
// the codons next to it (the RT69 insertion complex duplicates the codons around 69:
// T69S_SS, and longer), so the seed hits of the copy match the consensus as well as those
// of the original: the chain may then step to the new diagonal up to the stretch's length
// before or after where the indel belongs. Without this the band held the indel to where
// the chain stepped, and an 8-codon RT69 insertion (AF315271: …D67 S68 T69 + TEGKKDST +
// K70R) was split into two 4-codon insertions at 62 and 69 with six codons between them
// misread.
func repeatSteps(anchors []hit) []repeatStep {
	diag := func(h hit) int { return int(h.p) - 3*int(h.r) }
	var out []repeatStep
	for i := 1; i < len(anchors); i++ {
		d0, d1 := diag(anchors[i-1]), diag(anchors[i])
		if d0 == d1 {
			continue
		}
		shift := min((max(d0, d1)-min(d0, d1))/3+1, maxRepeatShift)
		out = append(out, repeatStep{int(anchors[i-1].r) - shift, int(anchors[i].r) + shift, d0, d1})
	}
	return out
}

// widenForRepeats widens row j's diagonal range [dmin, dmax] to both diagonals of every
// step (repeatSteps) whose widened rows hold j.
func widenForRepeats(steps []repeatStep, j, dmin, dmax int) (int, int) {
	for _, st := range steps {
		if j >= st.first && j <= st.last {
			dmin, dmax = min(dmin, st.d0, st.d1), max(dmax, st.d0, st.d1)
		}
	}
	return dmin, dmax
}

// strayCodonsBesideRun marks as unsequenced, with the run, the one or two codons a gene's
// alignment reads between a run of N (nRunCodons or more unsequenced codons) and the gene's
// codons deleted to its end (or from its start): codons that lie beyond a run of N shorter
// than the codons it replaced, where the next gene's alignment starts (or the previous one
// ends). The path may give such a codon to either gene when both read it the same — RT's I5
// (ATT) read as PR's I93, beside a run of 57 N over PR 74 – RT 4, with PR 94–99 and RT 1–4
// deleted: the same nucleotides then held by PR and RT —, and a piece of one or two codons
// beyond a run is too short to be placed (placePiece keeps nRunCodons or more). They are
// then dropped with the run as the gene's unsequenced end.
func strayCodonsBesideRun(recs []codonRec) {
	read := func(r codonRec) bool { return r.span >= 3 && !r.unsequenced }
	for _, back := range []bool{false, true} {
		at := func(i int) *codonRec {
			if back {
				return &recs[len(recs)-1-i]
			}
			return &recs[i]
		}
		// codons deleted at this end, then 1–2 read codons, then a run of N
		i := 0
		for i < len(recs) && at(i).span == 0 {
			i++
		}
		if i == 0 {
			continue
		}
		stray := 0
		for i+stray < len(recs) && stray <= 2 && read(*at(i + stray)) {
			stray++
		}
		if stray == 0 || stray > 2 {
			continue
		}
		run := 0
		for i+stray+run < len(recs) && at(i+stray+run).unsequenced {
			run++
		}
		if run < nRunCodons {
			continue
		}
		for k := i; k < i+stray; k++ {
			at(k).unsequenced = true
		}
	}
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
	inNRun      bool // deleted or unsequenced within a run of N (deletionsInNRuns)
}

// buildGene turns the codons from..to (protein indices) of the path into a GeneResult, or
// nil when the gene is not present after trimming.
func (a *Aligner) buildGene(sp geneSpan, q []uint8, seq []byte, p *alignPath, from, to, minCodons int) *GeneResult {
	recs := make([]codonRec, 0, to-from+1)
	for c := from; c <= to; c++ {
		s, e := p.codonStart[c], p.spanEnd[c]
		if e < s {
			e = s
		}
		recs = append(recs, a.codonRecord(sp.gene, q, c-sp.start+1, s, e-s))
	}
	a.placeGaps(sp.gene, q, recs)
	a.deletionsToNRuns(sp.gene, q, recs)
	deletionsInNRuns(recs)
	strayCodonsBesideRun(recs)
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
	if len(aligned) < minCodons {
		return nil
	}
	if f, l := naRange(gapLeft, gapRight); matchPercent(aligned, f, l) < MinMatchPercent {
		return nil
	}
	left, right := trimCount(aligned, false), trimCount(aligned, true)
	if left+right > len(aligned)-minCodons {
		return nil
	}
	kept := aligned[left : len(aligned)-right]
	if len(kept) < minCodons {
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
	g.readFrom, g.readTo = int(kept[0].start), int(kept[len(kept)-1].start+kept[len(kept)-1].span)
	g.MatchPercent = matchPercent(kept, g.FirstNA, g.LastNA)
	if left+right > 0 {
		trimmed := &GeneResult{Gene: sp.gene}
		var tna, taa strings.Builder
		for _, r := range slices.Concat(aligned[:left], aligned[len(aligned)-right:]) {
			a.writeCodon(trimmed, r, q, seq, &tna, &taa)
		}
		g.trimmedMutations = trimmed.Mutations
	}
	var na, aa strings.Builder
	na.Grow(3 * len(kept))
	aa.Grow(len(kept))
	for _, r := range kept {
		a.writeCodon(g, r, q, seq, &na, &aa)
	}
	g.AlignedNA = na.String()
	g.AlignedAA = aa.String()
	return g
}

// writeCodon adds codon record r to g: its nucleotides and amino acid to na and aa, and
// its mutation, frameshift and quality counts to g.
func (a *Aligner) writeCodon(g *GeneResult, r codonRec, q []uint8, seq []byte, na, aa *strings.Builder) {
	sp := geneSpan{gene: g.Gene}
	switch {
	case r.span == 0 && r.unsequenced:
		// A codon deleted beside a run of N (deletionsInNRuns): unsequenced.
		na.WriteString("NNN")
		aa.WriteByte('X')
		g.UnsequencedCodons++
		g.UnsequencedPositions = append(g.UnsequencedPositions, r.pos)
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
			return
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
		case r.inNRun && r.span < 3:
			// deleted or cut short within a run of N: unsequenced, counted as an NNN
			// codon is (its nucleotides taken off, no mismatch)
			all -= int(r.span)
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
	return readCodonBits(ref, "rx-all_subtype-all.csv", genes, 8, func(f []string) int {
		if f[7] != "True" {
			return -1
		}
		switch f[2] {
		case "-":
			return unusualDel
		case "_":
			return unusualIns
		}
		return aaIndex(f[2][0])
	})
}

// readAPOBEC reads apobecs.csv: per gene and codon, the APOBEC signature amino acids.
func readAPOBEC(ref fs.FS, genes map[Gene]geneRef) (map[Gene][]uint32, error) {
	return readCodonBits(ref, "apobecs.csv", genes, 3, func(f []string) int { return aaIndex(f[2][0]) })
}

// readCodonBits reads the reference table name, a CSV file of a header line then a
// line per gene, position and amino acid (its first three fields) with at least
// fields fields: per gene and codon, the set of the bits bit answers for its lines (a
// bit of 0–31, or -1 to pass a line over). A line of a gene not in genes, a position
// outside the gene or an amino acid that is not one letter is passed over.
func readCodonBits(ref fs.FS, name string, genes map[Gene]geneRef, fields int, bit func(f []string) int) (map[Gene][]uint32, error) {
	data, err := fs.ReadFile(ref, name)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	out := map[Gene][]uint32{}
	for g, r := range genes {
		out[g] = make([]uint32, len(r.consensus))
	}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if n == 0 || line == "" {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) < fields {
			return nil, fmt.Errorf("%s line %d: %d fields", name, n+1, len(f))
		}
		pos, err := strconv.Atoi(f[1])
		if err != nil {
			return nil, fmt.Errorf("%s line %d: position: %w", name, n+1, err)
		}
		tab, ok := out[Gene(f[0])]
		if !ok || pos < 1 || pos > len(tab) || len(f[2]) != 1 {
			continue
		}
		if b := bit(f); b >= 0 && b < 32 {
			tab[pos-1] |= 1 << uint(b)
		}
	}
	return out, nil
}

// islandCodons is the most codons read beyond a run of N at a gene's end that
// cutBeyondRun takes for a piece beyond the run rather than codons the alignment placed.
const islandCodons = 6

// cutBeyondRun returns g without a run of N (at least nRunCodons codons holding an N) at
// its start (atStart) or end and the at most islandCodons codons read beyond it. The run
// stands for any number of codons, so the alignment's gap costs cannot say where so few
// codons beyond it go, nor whether a codon half of N at the run's edge is the gene's:
//   - AF268338's PR 1–4, before a run of 33 N over PR 5–23 (24 nucleotides shorter than
//     the codons it replaced), was read as PR 9–12 (V11I, a false mutation), with 9–10
//     trimmed;
//   - with AF339014's PR 92 – RT 26 replaced by 76 N, RT codon 1 was read as CCN (a
//     proline) from the last two nucleotides of PR's T91 and the run's first N, so both
//     genes held them, and RT ran from codon 1 through the run.
//
// Cut off, codons beyond the run are placed where they fit (placePiece), as a piece beyond
// a run at a gene's end always is, or dropped when fewer than nRunCodons. The codons of a
// run need not hold three nucleotides each, so where the rest of g starts (or ends) in seq
// is found beyond the run's N and checked against its first (last) codon. g is returned as
// it is when an indel or frameshift lies in the codons cut off or the run, or that check
// fails.
func cutBeyondRun(seq []byte, g *GeneResult, atStart bool) *GeneResult {
	n := g.LastAA - g.FirstAA + 1
	if len(g.AlignedNA) != 3*n {
		return g
	}
	at := func(i int) int { // the i-th codon from the end cut, 0-based in g
		if atStart {
			return i
		}
		return n - 1 - i
	}
	codon := func(i int) string { k := at(i); return g.AlignedNA[3*k : 3*k+3] }
	hasN := func(i int) bool { return strings.IndexByte(codon(i), 'N') >= 0 }
	island := 0
	for island < n && !hasN(island) {
		island++
	}
	run := 0
	for island+run < n && hasN(island+run) {
		run++
	}
	if island > islandCodons || run < nRunCodons || island+run >= n {
		return g
	}
	// the codons cut off, island and run: g.FirstAA..last, or first..g.LastAA
	first, last := g.FirstAA, g.FirstAA+island+run-1
	if !atStart {
		first, last = g.LastAA-island-run+1, g.LastAA
	}
	if indelOrShift(g, first-1, last+1) {
		return g
	}
	// The island holds three nucleotides a codon; then come the nucleotides of the run's
	// first codon before its first N, the run's N, and those of its last codon after them.
	outer, inner := codon(island), codon(island+run-1) // the run's codons at each end
	kept := codon(island + run)                        // the codon of g next to the run
	if atStart {
		p := g.readFrom + 3*island + strings.IndexByte(outer, 'N')
		for p < len(seq) && seq[p] == 'N' {
			p++
		}
		p += 2 - strings.LastIndexByte(inner, 'N')
		if p+3 > len(seq) || !strings.EqualFold(string(seq[p:p+3]), kept) {
			return g
		}
		c := cutPart(g, last+1, g.LastAA)
		c.readFrom, c.FirstNA, c.LeftTrimmed = p, p+1, 0
		return c
	}
	p := g.readTo - 3*island - (2 - strings.LastIndexByte(outer, 'N')) // one past the run's last N
	for p > 0 && seq[p-1] == 'N' {
		p--
	}
	p -= strings.IndexByte(inner, 'N')
	if p-3 < 0 || !strings.EqualFold(string(seq[p-3:p]), kept) {
		return g
	}
	c := cutPart(g, g.FirstAA, first-1)
	c.readTo, c.LastNA, c.RightTrimmed = p, p, 0
	return c
}
