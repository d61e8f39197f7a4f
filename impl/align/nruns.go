package align

import "slices"

// Codons beside a run of N. A run of N tells that nucleotides were not sequenced, not how
// many codons they stood for: a run may be shorter or longer than the stretch it replaced,
// by any number of nucleotides. So next to a run the gap costs that place the codons of an
// ordinary alignment say nothing, and the codons there are placed by what they match
// (docs/alignment.md, "Codons beside a run of N").

// pieceScoreCodons: placePiece reads at most this many codons of a piece (a longer one is
// aligned on its own) and scores the first gapWindow of them, next to the run.
const pieceCodons = 60

// pieceMinScore is the least mean placementScore of the codons placePiece scores: a codon
// of the consensus amino acid and nucleotides scores 7–14, a mismatch about 0, so a piece
// 60% of whose codons match scores about 5 a codon (the real pieces of TestRandomNRuns
// score 5.7–10); a few codons of another gene read as this one, fitting by chance at one
// of the many placements tried, score less.
const pieceMinScore = 4

// placePiece reads the piece of gene beyond a run of N at a gene's end, in frame where it
// fits. The piece ends just before nucleotide edge, the run's first N (back), or starts at
// edge, one past the run's last N; it is read away from the run, in each of the three
// frames, its codon next to the run at every position of lo..hi that leaves between it
// and the gene (hi+1 or lo−1) a half to twice the run's nucleotides' worth of codons (two
// codons more either way) — the
// run may be of any length, and its length need not be a whole number of codons. The
// placement whose first gapWindow codons score best against the consensus
// (placementScore; of equal ones the nearest to the run's own length) is kept, among those
// whose piece has at least nRunCodons codons, at least MinMatchPercent of them matching
// and no stop; nil when there is none. A piece beyond a run as long as the stretch it
// replaced is where the run's length puts it; one beyond a run of another length is found
// too (it was dropped: up to 9 codons of a group M protease, 24 of a group O one).
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
	for c := max(0, nN/6-2); 3*c <= 2*nN+6; c++ {
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
// when atStart, else its last — when they match better a few codons further towards the
// run, with a deletion of the sequence between them and the rest of g. Next to a run,
// g's own alignment ends free, so a deletion a few codons from the run costs more than
// reading those codons shifted, as mismatches (RT_DELETIONS_69_AF277620's I167–Q174
// deletion six codons after a run of 600 N was read E169Q … Q174K); but the run stands for
// any number of codons, so no gap cost tells where those codons go, only what they match.
// Of the first gapWindow clean codons of g (none deleted, cut short or followed by
// inserted nucleotides), the m > nRunEdgeCodons next to the run move d codons towards it,
// into the codons free between g and the run's other side (free: the first such codon
// when atStart, else the last), when that turns at least nRunCodons mismatching codons
// into matching ones and scores best (pieceScore); the deletion is then placed among the
// clean codons as any deletion is (placeGaps). Within nRunEdgeCodons of the run a
// deletion is the run's length being off (deletionsToNRuns), so none is made there.
func (a *Aligner) indelBesideRun(q []uint8, seq []byte, g *GeneResult, free int, atStart bool) *GeneResult {
	n := g.LastAA - g.FirstAA + 1
	// pos(i), start(i): the i-th codon of g from the run's side, where it is read
	pos := func(i int) int { return g.LastAA - i }
	start := func(i int) int { return g.LastNA - 3 - 3*i }
	maxD := free - g.LastAA
	if atStart {
		pos = func(i int) int { return g.FirstAA + i }
		start = func(i int) int { return g.FirstNA - 1 + 3*i }
		maxD = g.FirstAA - free
	}
	if maxD <= 0 {
		return g
	}
	h := 0 // clean codons from the run's side
	for h < min(n, gapWindow) && start(h) >= 0 && start(h)+3 <= len(seq) {
		p, clean := pos(h), true
		for _, m := range g.Mutations {
			clean = clean && !(m.Position == p && (m.Deletion || m.Insertion || m.Partial))
		}
		for _, f := range g.Frameshifts {
			clean = clean && f.Position != p
		}
		if !clean || slices.Contains(g.UnsequencedPositions, p) {
			break
		}
		h++
	}
	if h <= nRunEdgeCodons {
		return g
	}
	cons := a.genes[g.Gene].consensus
	score := func(i, shift int) (float64, bool) {
		p := pos(i) + shift
		if atStart {
			p = pos(i) - shift
		}
		s := start(i)
		ci := a.codons[codonKey(q[s], q[s+1], q[s+2])]
		return a.pieceScore(g.Gene, q, int32(s), p, ci), ci.aas == 1<<uint(aaIndex(cons[p-1]))
	}
	bestM, bestD, bestGain := 0, 0, 0.0
	for d := 1; d <= maxD; d++ {
		gain, fixed := 0.0, 0
		for i := range h {
			was, wasMatch := score(i, 0)
			now, nowMatch := score(i, d)
			gain += now - was
			if nowMatch && !wasMatch {
				fixed++
			} else if wasMatch && !nowMatch {
				fixed--
			}
			if m := i + 1; m > nRunEdgeCodons && fixed >= nRunCodons && gain > bestGain {
				bestM, bestD, bestGain = m, d, gain
			}
		}
	}
	if bestM == 0 {
		return g
	}
	// the clean codons with the m next to the run moved by d, the deletion between them
	// and the others, in the order of the gene
	recs := make([]codonRec, 0, h+bestD)
	for i := range h {
		p := pos(i)
		switch {
		case i < bestM && atStart:
			p -= bestD
		case i < bestM:
			p += bestD
		}
		recs = append(recs, a.codonRecord(g.Gene, q, p, int32(start(i)), 3))
		if i == bestM-1 {
			for k := 1; k <= bestD; k++ {
				dp, ds := p+k, start(i)+3
				if !atStart {
					dp, ds = p-k, start(i)
				}
				recs = append(recs, a.codonRecord(g.Gene, q, dp, int32(ds), 0))
			}
		}
	}
	if !atStart {
		slices.Reverse(recs)
	}
	a.placeGaps(g.Gene, q, recs)
	// deletions placed next to the run are the run's codons, unsequenced
	for len(recs) > 0 && recs[0].span == 0 {
		recs = recs[1:]
	}
	for len(recs) > 0 && recs[len(recs)-1].span == 0 {
		recs = recs[:len(recs)-1]
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
