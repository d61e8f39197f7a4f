package align

// Banded codon-aware dynamic programming: nucleotides of the query against amino acids of a
// reference protein. Scores are integers scaled by 100 (BLOSUM62 × 100).

const negInf = int32(-1 << 29)

// Scoring parameters (× 100). docs/alignment.md explains them.
const (
	scoreScale      = 100
	stopPenalty     = 4 * scoreScale  // a stop codon scores −4 against any amino acid
	gapOpen         = 10 * scoreScale // opening any gap
	gapExtendNA     = 2 * scoreScale  // per nucleotide of a gap
	codonIndelBonus = 2 * scoreScale  // per whole codon inserted or deleted
	// endPenalty is the cost of starting or ending the alignment inside both sequences
	// (ends are otherwise free): a junk tail scoring below it is left unaligned.
	endPenalty       = 10 * scoreScale
	fsInsertPenalty1 = gapOpen + 1*gapExtendNA
	fsInsertPenalty2 = gapOpen + 2*gapExtendNA
)

// Traceback codes, one uint16 per cell. States: H (best), E (insertion after the row's
// codon), F (the row's codon deleted), P (the row's codon read from 1–2 nucleotides, a
// frameshift deletion). P is kept apart from H so that a deletion can extend it.
const (
	tbStart  = 0 // H: free start
	tbMatch  = 1 // H: a whole codon
	tbFromE  = 2
	tbFromF  = 3
	tbFromP  = 4
	tbHMask  = 0x0f
	tbEExt   = 0 << 4 // E: extended by a codon
	tbEOpen  = 1 << 4 // E: opened by a codon from H
	tbEFs2   = 2 << 4 // E: opened by 2 frameshift nucleotides from H
	tbEFs1   = 3 << 4 // E: opened by 1 frameshift nucleotide from H
	tbEMask  = 3 << 4
	tbFOpen  = 0 << 6 // F: opened from H
	tbFExt   = 1 << 6 // F: extended from F
	tbFFromP = 2 << 6 // F: extended from P (the shortened codon opened the gap)
	tbFMask  = 3 << 6
	tbPShift = 8 // P: bit 8 = 2 nucleotides (else 1); bit 9 = from F (else from H)
	tbPTwo   = 1 << 8
	tbPFromF = 1 << 9
)

// protein is a reference protein prepared for the DP.
type protein struct {
	aa []int8 // aaOrder indices
	// Per row j (codons consumed): scores of an insertion after codon j, and of deleting
	// codon j+1 (index j of aa).
	insOpen, insExt []int32
	delOpen, delExt []int32
}

// newProtein prepares aa (consensus letters) with positional indel scores from indel, a
// function returning (open, extension) adjustments for an insertion after codon index j
// (1-based count of consumed codons) or a deletion of codon j (1-based).
func newProtein(aa string, indel func(ins bool, codon int) (int32, int32)) *protein {
	m := len(aa)
	p := &protein{
		aa:      make([]int8, m),
		insOpen: make([]int32, m+1), insExt: make([]int32, m+1),
		delOpen: make([]int32, m), delExt: make([]int32, m),
	}
	for i := 0; i < m; i++ {
		p.aa[i] = int8(aaIndex(aa[i]))
	}
	for j := 0; j <= m; j++ {
		o, e := indel(true, j)
		p.insOpen[j] = -gapOpen - 3*gapExtendNA + o + e
		p.insExt[j] = -3*gapExtendNA + e
		if j < m {
			o, e = indel(false, j+1)
			p.delOpen[j] = -gapOpen - 3*gapExtendNA + o + e
			p.delExt[j] = -3*gapExtendNA + e
		}
	}
	return p
}

// subTable holds the score of every IUPAC codon against every amino acid: the mean over
// the codon's expansions of BLOSUM62 × 100, a stop expansion scoring −stopPenalty.
type subTable [4096][20]int16

func buildSubTable(ct *[4096]codonInfo) *subTable {
	var t subTable
	bases := []uint8{bA, bC, bG, bT}
	for m1 := uint8(1); m1 < 16; m1++ {
		for m2 := uint8(1); m2 < 16; m2++ {
			for m3 := uint8(1); m3 < 16; m3++ {
				var sum [20]int
				n := 0
				for _, b1 := range bases {
					if m1&b1 == 0 {
						continue
					}
					for _, b2 := range bases {
						if m2&b2 == 0 {
							continue
						}
						for _, b3 := range bases {
							if m3&b3 == 0 {
								continue
							}
							n++
							aa := aaIndex(geneticCode[baseOrder(b1)*16+baseOrder(b2)*4+baseOrder(b3)])
							for r := 0; r < 20; r++ {
								if aa == stopIdx {
									sum[r] -= stopPenalty
								} else {
									sum[r] += int(blosum62[aa][r]) * scoreScale
								}
							}
						}
					}
				}
				k := codonKey(m1, m2, m3)
				for r := 0; r < 20; r++ {
					t[k][r] = int16(sum[r] / n)
				}
			}
		}
	}
	return &t
}

// band describes, per DP row j (jFirst..jLast), the query positions i in [lo, hi].
type band struct {
	rg            region
	jFirst, jLast int
	lo, hi        []int32 // indexed by j - jFirst
	off           []int32 // offset of row j's first cell in the traceback matrix
}

// alignPath is the outcome of one DP: per consumed codon, the query span assigned to it.
type alignPath struct {
	first, last int // codon indices (0-based) of the first and last aligned codon
	// codonStart[j]: the first nucleotide read for codon j; spanEnd[j]: the end of the
	// nucleotides attributed to codon j, the inserted ones after it included (HIVDB reads
	// the span: 0 = deletion, 1–2 = frameshift deletion, 3 + 3k + r = codon, k inserted
	// codons and r frameshift nucleotides).
	codonStart, spanEnd []int32
	touchedEdge         bool
}

// dpWork holds the reusable buffers of one DP.
type dpWork struct {
	hPrev, hCur, fPrev, fCur, eCur, pPrev, pCur []int32
	tb                                          []uint16
	b                                           band
	path                                        alignPath
}

func growI32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n, n+n/4)
	}
	return s[:n]
}

// run fills the banded DP of query masks q against protein p and traces back the best path.
// It returns false when no cell could be reached.
func (w *dpWork) run(q []uint8, p *protein, st *subTable, rg region) bool {
	b := &w.b
	// The region's edges play the sequences' ends: starting or ending there is free.
	qlo, n := int32(rg.qlo), int32(rg.qhi)
	jlo, m := rg.jlo, rg.jhi
	rows := b.jLast - b.jFirst + 1
	total, maxW := 0, 0
	for r := 0; r < rows; r++ {
		b.off[r] = int32(total)
		wd := int(b.hi[r]-b.lo[r]) + 1
		total += wd
		maxW = max(maxW, wd)
	}
	if cap(w.tb) < total {
		w.tb = make([]uint16, total, total+total/4)
	}
	w.tb = w.tb[:total]
	w.hPrev = growI32(w.hPrev, maxW)
	w.hCur = growI32(w.hCur, maxW)
	w.fPrev = growI32(w.fPrev, maxW)
	w.fCur = growI32(w.fCur, maxW)
	w.eCur = growI32(w.eCur, maxW)
	w.pPrev = growI32(w.pPrev, maxW)
	w.pCur = growI32(w.pCur, maxW)

	bestScore, bestI, bestJ := negInf, int32(-1), -1
	var prevLo, prevHi int32 = 1, 0 // no previous row
	for r := 0; r < rows; r++ {
		j := b.jFirst + r
		lo, hi := b.lo[r], b.hi[r]
		hCur, fCur, eCur, pCur := w.hCur, w.fCur, w.eCur, w.pCur
		hPrev, fPrev, pPrev := w.hPrev, w.fPrev, w.pPrev
		tb := w.tb[b.off[r] : b.off[r]+hi-lo+1]
		var ref int8
		var delOpen, delExt int32
		if j > 0 {
			ref = p.aa[j-1]
			delOpen, delExt = p.delOpen[j-1], p.delExt[j-1]
		}
		insOpen, insExt := p.insOpen[j], p.insExt[j]
		for i := lo; i <= hi; i++ {
			x := i - lo
			var code uint16
			// Free start at the query's or the consensus's beginning; elsewhere a start
			// costs endPenalty, so that junk before the gene is skipped rather than aligned.
			h := int32(-endPenalty)
			if i <= qlo+2 {
				h = 0
			}
			f, pp := negInf, negInf
			if j > jlo {
				// F: codon j deleted.
				if i >= prevLo && i <= prevHi {
					px := i - prevLo
					if hPrev[px] > negInf {
						f = hPrev[px] + delOpen
					}
					if fPrev[px] > negInf {
						if v := fPrev[px] + delExt; v >= f {
							f = v
							code = code&^tbFMask | tbFExt
						}
					}
					if pPrev[px] > negInf {
						if v := pPrev[px] + delExt; v >= f {
							f = v
							code = code&^tbFMask | tbFFromP
						}
					}
				}
				// P: codon j read from k = 1 or 2 nucleotides.
				for k := int32(1); k <= 2; k++ {
					pi := i - k
					if pi < prevLo || pi > prevHi {
						continue
					}
					px := pi - prevLo
					ps := -(3 - k) * gapExtendNA
					var bits uint16
					if k == 2 {
						bits = tbPTwo
					}
					if hPrev[px] > negInf {
						if v := hPrev[px] - gapOpen + ps; v > pp {
							pp = v
							code = code&^(tbPTwo|tbPFromF) | bits
						}
					}
					// After deleted codons, a shortened codon opens a gap of its own: were it
					// free, one gap could hold two frameshifts (codon from 2 nt, codon deleted,
					// codon from 1 nt), and two whole codons deleted one codon apart — in frame
					// — read cheaper as RT119del1bp + RT121del2bp (docs/alignment.md, Scores).
					if fPrev[px] > negInf {
						if v := fPrev[px] - gapOpen + ps; v > pp {
							pp = v
							code = code&^(tbPTwo|tbPFromF) | bits | tbPFromF
						}
					}
				}
				if pp > h {
					h = pp
					code = code&^tbHMask | tbFromP
				}
				// A whole codon.
				if pi := i - 3; pi >= prevLo && pi <= prevHi && hPrev[pi-prevLo] > negInf {
					key := codonKey(q[pi], q[pi+1], q[pi+2])
					if v := hPrev[pi-prevLo] + int32(st[key][ref]); v >= h {
						h = v
						code = code&^tbHMask | tbMatch
					}
				}
			}
			// E: nucleotides inserted after codon j: whole codons (opened or extended) or a
			// frameshift of 1–2 nucleotides, which whole codons may then extend.
			e := negInf
			if j > jlo {
				if i-3 >= lo && eCur[x-3] > negInf {
					e = eCur[x-3] + insExt
				}
				if i-3 >= lo && hCur[x-3] > negInf {
					if v := hCur[x-3] + insOpen; v > e {
						e = v
						code = code&^tbEMask | tbEOpen
					}
				}
				if i-2 >= lo && hCur[x-2] > negInf {
					if v := hCur[x-2] - fsInsertPenalty2; v > e {
						e = v
						code = code&^tbEMask | tbEFs2
					}
				}
				if i-1 >= lo && hCur[x-1] > negInf {
					if v := hCur[x-1] - fsInsertPenalty1; v > e {
						e = v
						code = code&^tbEMask | tbEFs1
					}
				}
			}
			// Ties go to the gaps, so that an indel is placed as far 3' as it can be.
			if e >= h && e > negInf {
				h = e
				code = code&^tbHMask | tbFromE
			}
			if f >= h && f > negInf {
				h = f
				code = code&^tbHMask | tbFromF
			}
			eCur[x], fCur[x], pCur[x], hCur[x] = e, f, pp, h
			tb[x] = code
			if i >= n-2 || j == m {
				if h >= bestScore {
					bestScore, bestI, bestJ = h, i, j
				}
			} else if h-endPenalty >= bestScore {
				bestScore, bestI, bestJ = h-endPenalty, i, j
			}
		}
		w.hPrev, w.hCur = hCur, hPrev
		w.fPrev, w.fCur = fCur, fPrev
		w.pPrev, w.pCur = pCur, pPrev
		prevLo, prevHi = lo, hi
	}
	if bestJ < 0 {
		return false
	}
	w.traceback(bestI, bestJ, qlo, n)
	return true
}

// traceback follows the codes from (i, j) to the start and fills w.path.
func (w *dpWork) traceback(i int32, j int, qlo, n int32) {
	b := &w.b
	pth := &w.path
	m := b.jLast + 1
	pth.codonStart = growI32(pth.codonStart, m)
	pth.spanEnd = growI32(pth.spanEnd, m)
	pth.touchedEdge = false
	pth.last = j - 1
	spanEnd := i
	const (
		sH = iota
		sE
		sF
		sP
	)
	state := sH
	for j >= b.jFirst {
		r := j - b.jFirst
		lo, hi := b.lo[r], b.hi[r]
		if i < lo || i > hi {
			break // defensive: every move stays inside the band
		}
		if (i == lo && lo > qlo) || (i == hi && hi < n) {
			pth.touchedEdge = true
		}
		code := w.tb[b.off[r]+i-lo]
		switch state {
		case sE:
			switch code & tbEMask {
			case tbEExt:
				i -= 3
			case tbEOpen:
				i -= 3
				state = sH
			case tbEFs2:
				i -= 2
				state = sH
			default:
				i--
				state = sH
			}
			continue
		case sF:
			pth.codonStart[j-1] = i
			pth.spanEnd[j-1] = spanEnd
			switch code & tbFMask {
			case tbFOpen:
				state = sH
			case tbFExt:
				state = sF
			default:
				state = sP
			}
			j--
			spanEnd = i
			continue
		case sP:
			k := int32(1)
			if code&tbPTwo != 0 {
				k = 2
			}
			pth.codonStart[j-1] = i - k
			pth.spanEnd[j-1] = spanEnd
			i -= k
			state = sH
			if code&tbPFromF != 0 {
				state = sF
			}
			j--
			spanEnd = i
			continue
		}
		switch code & tbHMask {
		case tbStart:
			pth.first = j
			return
		case tbMatch:
			pth.codonStart[j-1] = i - 3
			pth.spanEnd[j-1] = spanEnd
			i -= 3
			j--
			spanEnd = i
		case tbFromE:
			state = sE
		case tbFromF:
			state = sF
		default:
			state = sP
		}
	}
	pth.first = j
}
