package align

import "slices"

// Codons beside a run of N. A run of N tells that nucleotides were not sequenced, not how
// many codons they stood for: a run may be shorter or longer than the stretch it replaced,
// by any number of nucleotides. So next to a run the gap costs that place the codons of an
// ordinary alignment say nothing, and the codons there are placed by what they match
// (docs/alignment.md, "Codons beside a run of N").

// pieceCodons: placePiece reads at most this many codons of a piece (a longer one is
// aligned on its own).
const pieceCodons = 60

// pieceMinScore is the least mean pieceScore of a piece's codons: a codon of the consensus
// amino acid and nucleotides scores 7–14, a mismatch about 0, so a piece 60% of whose
// codons match scores about 4–5 a codon; a few codons of another gene fitting by chance
// at one of the many placements tried score less (PR 97–99 read from RT's nucleotides: 3.3).
const pieceMinScore = 4

// placePiece reads the piece of gene beyond a run of N at a gene's end, in frame where it
// fits. The piece ends just before nucleotide edge, the run's first N (back), or starts at
// edge, one past the run's last N; it is read away from the run, in each of the three
// frames, its codon next to the run at every position of lo..hi that leaves between it
// and the gene (hi+1 or lo−1) a half to twice the run's nucleotides' worth of codons (two
// codons more either way): the run may be of any length, and its length need not be a
// whole number of codons. A piece ends before an unsequenced codon (two or more N), a
// stop, the gene's end, nucleotide naLo (reading backwards) or the end of seq (forwards):
// the caller leaves the nucleotides of other genes out of seq and naLo. The placement
// whose codons score best against the consensus (pieceScore; of equal ones the nearest to
// the run's own length) is kept, among those whose piece has at least nRunCodons codons,
// at least MinMatchPercent of them matching and at least pieceMinScore a codon; nil when
// there is none. A piece beyond a run as long as the stretch it replaced is where the
// run's length puts it; one beyond a run of another length is found too (it was dropped:
// up to 9 codons of a group M protease, 24 of a group O one).
func (a *Aligner) placePiece(q []uint8, seq []byte, gene Gene, edge, lo, hi, naLo int, back bool) *GeneResult {
	if edge < naLo || edge > len(seq) {
		return nil // the run reaches into another gene
	}
	nN := 0
	if back {
		for k := edge; k < len(seq) && seq[k] == 'N'; k++ {
			nN++
		}
	} else {
		for k := edge - 1; k >= 0 && seq[k] == 'N'; k-- {
			nN++
		}
	}
	type placement struct{ c, f int }
	var cands []placement
	for c := max(0, nN/6-2); 3*c <= 2*nN+6 && c <= hi-lo; c++ { // (no more codons than lo..hi)
		for f := range 3 {
			cands = append(cands, placement{c, f})
		}
	}
	off := func(p placement) int { return abs(3*p.c + p.f - nN) }
	slices.SortStableFunc(cands, func(x, y placement) int { return off(x) - off(y) })
	cons := a.genes[gene].consensus
	step := 1
	if back {
		step = -1
	}
	bestPos, bestStart, bestRead, bestScore := 0, 0, 0, 0.0
	for _, pl := range cands {
		pos, start := lo+pl.c, edge+pl.f
		if back {
			pos, start = hi-pl.c, edge-pl.f-3
		}
		score, read, matched := 0.0, 0, 0
		for p, s := pos, start; read < pieceCodons && p >= lo && p <= hi && s >= naLo && s+3 <= len(seq); p, s = p+step, s+3*step {
			ci := a.codons[codonKey(q[s], q[s+1], q[s+2])]
			if ci.ns > 1 {
				break // an unsequenced codon: the next run of N
			}
			if ci.aas&(1<<stopIdx) != 0 {
				break // the piece ends before a stop, as before an N
			}
			if ci.aas == 1<<uint(aaIndex(cons[p-1])) {
				matched++
			}
			score += a.pieceScore(gene, q, int32(s), p, ci)
			read++
		}
		if read < nRunCodons || 100*float64(matched) < MinMatchPercent*float64(read) || score < pieceMinScore*float64(read) {
			continue
		}
		if bestPos == 0 || score > bestScore {
			bestPos, bestStart, bestRead, bestScore = pos, start, read, score
		}
	}
	if bestPos == 0 {
		return nil
	}
	return a.readCodons(q, seq, gene, bestPos, bestStart, bestRead, back)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// pieceScore is placementScore for placePiece, also where no consensus nucleotides are
// known (CA: the subtype references hold no gag): there a codon of the consensus amino acid
// counts its three nucleotides as identical and another codon none.
func (a *Aligner) pieceScore(g Gene, q []uint8, s int32, pos int, ci codonInfo) float64 {
	if a.consNA[g][3*(pos-1)] != 'N' {
		return a.placementScore(g, q, s, pos)
	}
	cons := aaIndex(a.genes[g].consensus[pos-1])
	sum := 0
	for x := 0; x < 20; x++ {
		if ci.aas&(1<<uint(x)) != 0 {
			sum += int(blosum62[x][cons])
		}
	}
	score := float64(sum) / float64(ci.count)
	if ci.aas == 1<<uint(cons) {
		score += 3
	}
	return score
}

// indelBesideRun re-places the codons of gene part g next to a run of N — its first codons
// when atStart, else its last — when they match better a few codons away, with an indel
// of the sequence between them and the rest of g. Next to a run, g's own alignment ends
// free, so an indel a few codons from the run costs more than reading those codons
// shifted, as mismatches (RT_DELETIONS_69_AF277620's I167–Q174 deletion six codons after a
// run of 600 N was read E169Q … Q174K); but the run stands for any number of codons, so no
// gap cost tells where those codons go, only what they match. Of the first gapWindow clean
// codons of g (cleanEdge), the m > nRunEdgeCodons next to the run move d codons towards it
// (into the codons free between g and the run's other side — free is the first such codon
// when atStart, else the last — with d codons deleted after them), or k codons away from
// it (the k codons read after them then inserted), when that turns at least nRunCodons
// mismatching codons into matching ones and scores best (pieceScore). A deletion is then
// placed among the clean codons as any deletion is (placeGaps). Within nRunEdgeCodons of
// the run an indel is the run's length being off (deletionsToNRuns), so none is made
// there.
func (a *Aligner) indelBesideRun(q []uint8, seq []byte, g *GeneResult, free int, atStart bool) *GeneResult {
	n := g.LastAA - g.FirstAA + 1
	// pos(i), start(i): the i-th codon of g from the run's side, where it is read; dir:
	// +1 when codons towards the run have higher numbers
	pos := func(i int) int { return g.LastAA - i }
	start := func(i int) int { return g.readTo - 3 - 3*i }
	maxD, dir := free-g.LastAA, 1
	if atStart {
		pos = func(i int) int { return g.FirstAA + i }
		start = func(i int) int { return g.readFrom + 3*i }
		maxD, dir = g.FirstAA-free, -1
	}
	h := cleanEdge(g, atStart)
	if h <= nRunEdgeCodons || start(h-1) < 0 || start(h-1)+3 > len(seq) {
		return g
	}
	cons := a.genes[g.Gene].consensus
	// score of the i-th codon moved by shift codons towards the run (negative: away)
	score := func(i, shift int) (float64, int) {
		p := pos(i) + dir*shift
		if p < 1 || p > len(cons) {
			return -100, 0
		}
		s := start(i)
		ci := a.codons[codonKey(q[s], q[s+1], q[s+2])]
		match := 0
		if ci.aas == 1<<uint(aaIndex(cons[p-1])) {
			match = 1
		}
		return a.pieceScore(g.Gene, q, int32(s), p, ci), match
	}
	bestM, bestShift, bestGain := 0, 0, 0.0
	consider := func(m, shift int, gain float64, fixed int) {
		if m > nRunEdgeCodons && fixed >= nRunCodons && gain > bestGain {
			bestM, bestShift, bestGain = m, shift, gain
		}
	}
	for d := 1; d <= maxD; d++ { // deletions
		gain, fixed := 0.0, 0
		for i := range h {
			was, wasMatch := score(i, 0)
			now, nowMatch := score(i, d)
			gain, fixed = gain+now-was, fixed+nowMatch-wasMatch
			consider(i+1, d, gain, fixed)
		}
	}
	for k := 1; k < h; k++ { // insertions: codons m..m+k-1 inserted (before the m moved, at an end)
		gain, fixed := 0.0, 0
		for m := 1; m+k < h || atStart && m+k == h; m++ {
			was, wasMatch := score(m-1, 0)
			now, nowMatch := score(m-1, -k)
			gain, fixed = gain+now-was, fixed+nowMatch-wasMatch
			lost, lostMatch := 0.0, 0
			for i := m; i < m+k; i++ {
				sc, mt := score(i, 0)
				lost, lostMatch = lost+sc, lostMatch+mt
			}
			consider(m, -k, gain-lost, fixed-lostMatch)
		}
	}
	if bestM == 0 {
		return g
	}
	// the clean codons in the order of the gene, with the bestM next to the run moved
	type read struct{ pos, start, span int }
	var reads []read // from the run's side
	for i := range h {
		switch {
		case i < bestM:
			reads = append(reads, read{pos(i) + dir*bestShift, start(i), 3})
		case bestShift < 0 && i < bestM-bestShift:
			// inserted after the codon before them in the gene
		default:
			reads = append(reads, read{pos(i), start(i), 3})
		}
	}
	if bestShift < 0 {
		// the codon the inserted ones follow: the last moved one (atStart), else the
		// first one beyond the inserted ones
		k, at := -bestShift, bestM
		if atStart {
			at = bestM - 1
		}
		reads[at].span += 3 * k
		if !atStart {
			reads[at].start -= 3 * k
			reads[at].span = 3 + 3*k
		}
	}
	if !atStart {
		slices.Reverse(reads)
	}
	recs := make([]codonRec, 0, len(reads)+max(bestShift, 0))
	for j, r := range reads {
		recs = append(recs, a.codonRecord(g.Gene, q, r.pos, int32(r.start), int32(r.span)))
		if j+1 < len(reads) {
			for p := r.pos + 1; p < reads[j+1].pos; p++ { // the deleted codons
				recs = append(recs, a.codonRecord(g.Gene, q, p, int32(r.start+r.span), 0))
			}
		}
	}
	if bestShift > 0 {
		a.placeGaps(g.Gene, q, recs)
		// deletions placed next to the run are the run's codons, unsequenced
		for len(recs) > 0 && recs[0].span == 0 {
			recs = recs[1:]
		}
		for len(recs) > 0 && recs[len(recs)-1].span == 0 {
			recs = recs[:len(recs)-1]
		}
	}
	moved := a.partFromRecs(q, seq, g.Gene, recs)
	if h == n {
		return moved
	}
	if atStart {
		return concatParts(moved, cutPart(g, pos(h), g.LastAA))
	}
	return concatParts(cutPart(g, g.FirstAA, pos(h)), moved)
}

// cutPart returns the codons from..to of gene part g, whose codons outside them are read
// from three nucleotides each (so that the nucleotide range moves by three a codon).
func cutPart(g *GeneResult, from, to int) *GeneResult {
	in := func(p int) bool { return p >= from && p <= to }
	c := &GeneResult{Gene: g.Gene, FirstAA: from, LastAA: to,
		FirstNA: g.FirstNA + 3*(from-g.FirstAA), LastNA: g.LastNA - 3*(g.LastAA-to),
		readFrom: g.readFrom + 3*(from-g.FirstAA), readTo: g.readTo - 3*(g.LastAA-to),
		AlignedNA:    g.AlignedNA[3*(from-g.FirstAA) : 3*(to-g.FirstAA+1)],
		AlignedAA:    g.AlignedAA[from-g.FirstAA : to-g.FirstAA+1],
		MatchPercent: g.MatchPercent}
	if from == g.FirstAA {
		c.LeftTrimmed = g.LeftTrimmed
	}
	if to == g.LastAA {
		c.RightTrimmed = g.RightTrimmed
	}
	for _, m := range g.Mutations {
		if in(m.Position) {
			c.Mutations = append(c.Mutations, m)
		}
	}
	for _, f := range g.Frameshifts {
		if in(f.Position) {
			c.Frameshifts = append(c.Frameshifts, f)
		}
	}
	keep := func(ps []int) (out []int) {
		for _, p := range ps {
			if in(p) {
				out = append(out, p)
			}
		}
		return out
	}
	c.StopPositions, c.AmbiguousPositions, c.UnsequencedPositions = keep(g.StopPositions), keep(g.AmbiguousPositions), keep(g.UnsequencedPositions)
	c.StopCodons, c.AmbiguousCodons, c.UnsequencedCodons = len(c.StopPositions), len(c.AmbiguousPositions), len(c.UnsequencedPositions)
	return c
}

// cleanEdge counts the codons of gene part g from its start (atStart) or end, gapWindow at
// most, that are read from three nucleotides each with nothing inserted after them, up to
// the first that is not or is unsequenced.
func cleanEdge(g *GeneResult, atStart bool) int {
	n := g.LastAA - g.FirstAA + 1
	h := 0
	for h < min(n, gapWindow) {
		p := g.LastAA - h
		if atStart {
			p = g.FirstAA + h
		}
		if indelOrShift(g, p, p) || slices.Contains(g.UnsequencedPositions, p) {
			return h
		}
		h++
	}
	return h
}

// indelOrShift reports whether a codon lo..hi of gene part g is deleted or partial, has
// codons inserted after it, or carries a frameshift: one not read from three nucleotides.
func indelOrShift(g *GeneResult, lo, hi int) bool {
	for _, m := range g.Mutations {
		if (m.Deletion || m.Insertion || m.Partial) && m.Position >= lo && m.Position <= hi {
			return true
		}
	}
	for _, f := range g.Frameshifts {
		if f.Position >= lo && f.Position <= hi {
			return true
		}
	}
	return false
}

// joinAcrossDeletion joins parts x and y of one gene that follow each other in the
// sequence with nothing between them (as read: readTo, readFrom) while codons of the gene
// lie between them, each ending in clean codons (cleanEdge), more than nRunEdgeCodons in
// all; nil otherwise: those
// codons are a deletion of the sequence (the alignment beyond a run of N found the codons
// after a deletion apart from those before it: RT 157–166 and 175–219 of AF277620 after a
// run of N over RT 117–156, the latter lost), placed among the clean codons around it as
// any deletion is (placeGaps).
func (a *Aligner) joinAcrossDeletion(q []uint8, seq []byte, x, y *GeneResult) *GeneResult {
	hx, hy := cleanEdge(x, false), cleanEdge(y, true)
	if y.FirstAA == x.LastAA+1 || hx == 0 || hy == 0 || hx+hy <= nRunEdgeCodons || x.readTo != y.readFrom {
		return nil
	}
	var recs []codonRec
	for i := hx - 1; i >= 0; i-- {
		recs = append(recs, a.codonRecord(x.Gene, q, x.LastAA-i, int32(x.readTo-3-3*i), 3))
	}
	for p := x.LastAA + 1; p < y.FirstAA; p++ {
		recs = append(recs, a.codonRecord(x.Gene, q, p, int32(y.readFrom), 0))
	}
	for i := range hy {
		recs = append(recs, a.codonRecord(y.Gene, q, y.FirstAA+i, int32(y.readFrom+3*i), 3))
	}
	a.placeGaps(x.Gene, q, recs)
	m := a.partFromRecs(q, seq, x.Gene, recs)
	if hx < x.LastAA-x.FirstAA+1 {
		m = concatParts(cutPart(x, x.FirstAA, x.LastAA-hx), m)
	}
	if hy < y.LastAA-y.FirstAA+1 {
		m = concatParts(m, cutPart(y, y.FirstAA+hy, y.LastAA))
	}
	return m
}
