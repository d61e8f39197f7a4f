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
