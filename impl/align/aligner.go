package align

import (
	"fmt"
	"io/fs"
	"slices"
	"sync"
)

// Aligner aligns nucleotide sequences to the consensus B genes. It holds only read-only
// tables after NewAligner, so one Aligner is safe for concurrent use by many goroutines.
type Aligner struct {
	genes     map[Gene]geneRef
	genotyper *genotyper
	consNA    map[Gene][]byte // majority subtype B nucleotides per gene (gaps.go)
	codons    *[4096]codonInfo
	sub       *subTable
	// pol is PR+RT+IN concatenated (they are adjacent in HXB2); ca is capsid alone.
	pol, ca  *protein
	polGenes []geneSpan
	caGenes  []geneSpan
	// kmers indexes every amino-acid 4-mer of CA (positions 0..len(CA)-1) and of pol
	// (positions len(CA)+…): head[code] is the first position + 1, next[pos] the following.
	kmerHead []int32
	kmerNext []int32
	caLen    int
	apobec   map[Gene][]uint32 // per codon (index pos-1): APOBEC signature amino acids (aaOrder bits)
	unusual  map[Gene][]uint32 // per codon (index pos-1): aaOrder bits flagged unusual; bit 21 '-' deletion, 22 '_' insertion
	pool     sync.Pool
}

// geneSpan places a gene inside a protein.
type geneSpan struct {
	gene  Gene
	start int // index of codon 1 in the protein
	len   int
}

const (
	kmerLen     = 4
	kmerSpace   = 20 * 20 * 20 * 20
	unusualDel  = 21
	unusualIns  = 22
	minChain    = 3  // seed hits needed to attempt a protein
	bandStart   = 15 // initial half-width of the band, in nucleotides
	bandMax     = 120
	chainLookup = 64 // hits looked back at when chaining
	// Chained hits normally stay within smallDiagJump nucleotides of each other's diagonal
	// (small indels). A larger change, up to maxDiagJump, is a block of codons missing from
	// the query (between genes, say); it costs bigJumpCost hits, so that a lone spurious
	// hit far off the diagonal is never chained but a run of real hits on the far side is.
	// More than smallDiagJump nucleotides inserted into the query (foreign sequence, a
	// long run of N) end the chain: the genes on either side are then aligned apart
	// (alignProtein's regions), since no single alignment should cross such a stretch.
	smallDiagJump = 90
	maxDiagJump   = 1800
	bigJumpCost   = 4
	// insertionWindow: anchors closer than this many query nucleotides may not drift apart
	// by more than smallDiagJump towards an insertion, however many steps they take
	// (longestWithoutInsertion).
	insertionWindow = 600
	// reverseCheckNTs: the reverse complement is tried when the input has fewer than one
	// chained seed hit per this many nucleotides.
	reverseCheckNTs = 12
)

// NewAligner reads the reference data from reference, the hivdb reference/ directory
// (genes_hiv1.yml, genotype-references_hiv1.json, genotypes_hiv1.yml,
// rx-all_subtype-all.csv, apobecs.csv).
func NewAligner(reference fs.FS) (*Aligner, error) {
	genes, err := readGenes(reference)
	if err != nil {
		return nil, fmt.Errorf("align: %w", err)
	}
	gt, err := readGenotyper(reference, genes)
	if err != nil {
		return nil, fmt.Errorf("align: %w", err)
	}
	unusual, err := readUnusual(reference, genes)
	if err != nil {
		return nil, fmt.Errorf("align: %w", err)
	}
	apobec, err := readAPOBEC(reference, genes)
	if err != nil {
		return nil, fmt.Errorf("align: %w", err)
	}
	a := &Aligner{genes: genes, genotyper: gt, unusual: unusual, apobec: apobec}
	a.consNA = buildConsensusNA(gt, genes)
	a.codons = buildCodonTable()
	a.sub = buildSubTable(a.codons)
	polSeq := genes[PR].consensus + genes[RT].consensus + genes[IN].consensus
	a.polGenes = []geneSpan{
		{PR, 0, len(genes[PR].consensus)},
		{RT, len(genes[PR].consensus), len(genes[RT].consensus)},
		{IN, len(genes[PR].consensus) + len(genes[RT].consensus), len(genes[IN].consensus)},
	}
	a.caGenes = []geneSpan{{CA, 0, len(genes[CA].consensus)}}
	prLen, rtLen := len(genes[PR].consensus), len(genes[RT].consensus)
	a.pol = newProtein(polSeq, func(ins bool, codon int) (int32, int32) {
		o, e := positionalIndel(ins, codon-prLen)
		// Between two otherwise equal placements, an indel at a gene boundary wins by a
		// hair: codons missing at the end of PR and the start of RT are then PR's
		// trailing and RT's leading deletions (dropped), not a deletion inside one gene
		// with the neighbouring codons shifted; nucleotides inserted there fall between
		// the genes.
		for _, b := range []int{prLen, prLen + rtLen} {
			switch {
			case ins && codon == b, !ins && (codon == b || codon == b+1):
				o += boundaryIndelBonus
			}
		}
		return o, e
	})
	a.ca = newProtein(genes[CA].consensus, func(bool, int) (int32, int32) { return 0, codonIndelBonus })
	a.caLen = len(genes[CA].consensus)
	a.buildKmers(genes[CA].consensus + polSeq)
	a.pool.New = func() any { return &workspace{} }
	return a, nil
}

// boundaryIndelBonus favours indels at a gene boundary over equal-scoring ones inside a
// gene (scores are × 100, so it only breaks ties).
const boundaryIndelBonus = 1

// positionalIndel returns the (opening, extension) score adjustments of an insertion after
// RT codon rt, or of the deletion of RT codon rt. Outside RT 63–73 whole-codon indels get
// the plain bonus. The values steer the RT69 insertion (T69S_SS, …) to codon 69 and keep
// the RT 63–73 deletions where HIVDB reports them; they follow the published HIVDB practice
// (insertions in the β3–β4 loop are reported at 69).
func positionalIndel(ins bool, rt int) (int32, int32) {
	const s = scoreScale
	if ins {
		switch {
		case rt == 63 || rt == 64:
			return -5 * s, 0
		case rt >= 65 && rt <= 67:
			return -7 * s, 0
		case rt == 68:
			return -3 * s, 0
		case rt == 69:
			return 18 * s, -3 * s
		case rt >= 70 && rt <= 73:
			return -3 * s, 0
		}
	} else {
		switch rt {
		case 63, 64:
			return -5 * s, 0
		case 68:
			return 0, 0
		}
	}
	return 0, codonIndelBonus
}

func (a *Aligner) buildKmers(seq string) {
	a.kmerHead = make([]int32, kmerSpace)
	a.kmerNext = make([]int32, len(seq))
	for p := len(seq) - kmerLen; p >= 0; p-- {
		code := 0
		ok := true
		for k := 0; k < kmerLen; k++ {
			x := aaIndex(seq[p+k])
			if x < 0 || x >= 20 {
				ok = false
				break
			}
			code = code*20 + x
		}
		if !ok {
			continue
		}
		a.kmerNext[p] = a.kmerHead[code]
		a.kmerHead[code] = int32(p + 1)
	}
}

// Consensus returns the consensus B amino-acid sequence of gene g ("" for an unknown gene).
func (a *Aligner) Consensus(g Gene) string { return a.genes[g].consensus }

// IsAPOBEC tells whether amino acid aa ('*' for a stop) at codon pos of gene g is an APOBEC
// signature mutation (apobecs.csv). The resistance reports read the aligner's table through
// this instead of parsing apobecs.csv a second time.
func (a *Aligner) IsAPOBEC(g Gene, pos int, aa byte) bool {
	tab := a.apobec[g]
	x := aaIndex(aa)
	return pos >= 1 && pos <= len(tab) && x >= 0 && tab[pos-1]&(1<<uint(x)) != 0
}

// workspace holds the per-call buffers, reused through a sync.Pool so that an alignment
// allocates little beyond its result.
type workspace struct {
	fwd, rev   []uint8 // base masks of the input and of its reverse complement
	revBytes   []byte
	aaAt       []int8
	hits       []hit
	chainScore []int32
	chainPrev  []int32
	dp         dpWork
}

// hit is a seed: query nucleotide p starts a 4-mer equal to reference position r.
type hit struct{ p, r int32 }

// Align analyses one sequence of upper-case IUPAC nucleotides (the caller removes other
// characters and enforces the length limits; Align checks them again and never panics).
// It returns ErrTooShort, ErrTooLong or ErrInvalidChar for bad input, and ErrNoGene when no
// gene is present in either orientation.
func (a *Aligner) Align(nucleotides []byte) (*Result, error) {
	n := len(nucleotides)
	if n < MinNucleotides {
		return nil, fmt.Errorf("%w: %d nucleotides, at least %d needed", ErrTooShort, n, MinNucleotides)
	}
	if n > MaxNucleotides {
		return nil, fmt.Errorf("%w: %d nucleotides, at most %d allowed", ErrTooLong, n, MaxNucleotides)
	}
	ws := a.pool.Get().(*workspace)
	defer a.pool.Put(ws)
	ws.fwd = growU8(ws.fwd, n)
	ws.rev = growU8(ws.rev, n)
	ws.revBytes = growU8(ws.revBytes, n)
	for i, c := range nucleotides {
		m := ntMask[c]
		if m == 0 {
			return nil, fmt.Errorf("%w %q at position %d", ErrInvalidChar, c, i+1)
		}
		ws.fwd[i] = m
		rc := complement[c]
		ws.revBytes[n-1-i] = rc
		ws.rev[n-1-i] = ntMask[rc]
	}
	fPol, fCA, fHits, fSplit := a.seed(ws, ws.fwd)
	fScore := chainLen(fPol) + chainLen(fCA)
	// The reverse complement is only seeded when the input itself chains poorly (fewer
	// than one hit per twelve nucleotides); a real HIV-1 sequence gives about one per five.
	var rPol, rCA, rHits []hit
	rScore, rSplit := 0, 0
	if fScore*reverseCheckNTs < n {
		fHits = slices.Clone(fHits) // seeding the reverse reuses the buffer
		rPol, rCA, rHits, rSplit = a.seed(ws, ws.rev)
		rScore = chainLen(rPol) + chainLen(rCA)
	}

	res := &Result{}
	q := ws.fwd
	polA, caA, hits, split := fPol, fCA, fHits, fSplit
	if rScore > fScore {
		res.ReverseComplemented = true
		res.Analysed = slices.Clone(ws.revBytes)
		q = ws.rev
		polA, caA, hits, split = rPol, rCA, rHits, rSplit
	} else {
		res.Analysed = slices.Clone(nucleotides)
	}
	if len(caA) >= minChain {
		a.alignProtein(ws, q, res, a.ca, a.caGenes, caA, hits[:split], region{0, n, 0, len(a.ca.aa)}, 0)
	}
	if len(polA) >= minChain {
		// Seed positions count from the start of the CA+pol index; the DP counts pol codons.
		for i := range polA {
			polA[i].r -= int32(a.caLen)
		}
		polHits := hits[split:]
		for i := range polHits {
			polHits[i].r -= int32(a.caLen)
		}
		a.alignProtein(ws, q, res, a.pol, a.polGenes, polA, polHits, region{0, n, 0, len(a.pol.aa)}, 0)
	}
	a.joinParts(res, q)
	slices.SortStableFunc(res.Genes, func(x, y GeneResult) int {
		return slices.Index(AllGenes(), x.Gene) - slices.Index(AllGenes(), y.Gene)
	})
	if len(res.Genes) == 0 {
		return nil, ErrNoGene
	}
	// A gene discarded by one alignment but found by another (realigning the rest of the
	// query) is present, not discarded.
	var discarded []Gene
	for _, g := range AllGenes() {
		if slices.Contains(res.Discarded, g) && res.Gene(g) == nil {
			discarded = append(discarded, g)
		}
	}
	res.Discarded = discarded
	res.Subtype = a.subtype(res)
	res.NotHIV1 = a.notHIV1(res)
	return res, nil
}

func chainLen(h []hit) int {
	if len(h) < minChain {
		return 0
	}
	return len(h)
}

func growU8(s []uint8, n int) []uint8 {
	if cap(s) < n {
		return make([]uint8, n)
	}
	return s[:n]
}

// seed finds exact amino-acid 4-mer matches between the three-frame translation of q and
// the references, and returns the best chains (collinear hits with a slowly varying
// diagonal) for pol and for CA, and all hits (sorted by reference position: CA's, then
// from split on, pol's; the slice is the workspace's buffer).
func (a *Aligner) seed(ws *workspace, q []uint8) (pol, ca, hits []hit, split int) {
	n := len(q)
	if cap(ws.aaAt) < n {
		ws.aaAt = make([]int8, n)
	}
	aaAt := ws.aaAt[:n]
	for p := 0; p+3 <= n; p++ {
		ci := a.codons[codonKey(q[p], q[p+1], q[p+2])]
		aaAt[p] = -1
		if ci.count == 1 && ci.aas&(1<<stopIdx) == 0 {
			for x := int8(0); x < 20; x++ {
				if ci.aas&(1<<uint(x)) != 0 {
					aaAt[p] = x
					break
				}
			}
		}
	}
	for p := max(0, n-2); p < n; p++ {
		aaAt[p] = -1
	}
	hits = ws.hits[:0]
	for p := 0; p+3*kmerLen <= n; p++ {
		code := 0
		ok := true
		for k := 0; k < kmerLen; k++ {
			x := aaAt[p+3*k]
			if x < 0 {
				ok = false
				break
			}
			code = code*20 + int(x)
		}
		if !ok {
			continue
		}
		for r := a.kmerHead[code]; r != 0; r = a.kmerNext[r-1] {
			hits = append(hits, hit{int32(p), r - 1})
		}
	}
	ws.hits = hits
	slices.SortFunc(hits, func(x, y hit) int {
		if x.r != y.r {
			return int(x.r - y.r)
		}
		return int(x.p - y.p)
	})
	// Split: CA hits are r < caLen, pol hits after (sorted, so a prefix and a suffix).
	split, _ = slices.BinarySearchFunc(hits, int32(a.caLen), func(h hit, r int32) int { return int(h.r - r) })
	return a.chain(ws, hits[split:]), a.chain(ws, hits[:split]), hits, split
}

// chain returns the highest-scoring chain of hits (sorted by r then p): each step moves
// forward in both sequences with a diagonal change of at most maxDiagJump nucleotides.
func (a *Aligner) chain(ws *workspace, hits []hit) []hit {
	if len(hits) == 0 {
		return nil
	}
	ws.chainScore = growI32(ws.chainScore, len(hits))
	ws.chainPrev = growI32(ws.chainPrev, len(hits))
	sc, prev := ws.chainScore, ws.chainPrev
	best := 0
	for h := range hits {
		sc[h], prev[h] = 1, -1
		dh := hits[h].p - 3*hits[h].r
		for g := h - 1; g >= 0 && g >= h-chainLookup; g-- {
			if hits[g].r >= hits[h].r || hits[g].p >= hits[h].p {
				continue
			}
			// dd > 0: codons missing from the query; dd < 0: nucleotides inserted.
			dd := hits[g].p - 3*hits[g].r - dh
			s := sc[g] + 1
			switch {
			case dd > maxDiagJump || dd < -smallDiagJump:
				continue
			case dd > smallDiagJump:
				s -= bigJumpCost
			}
			if s > sc[h] {
				sc[h], prev[h] = s, int32(g)
			}
		}
		if sc[h] > sc[best] {
			best = h
		}
	}
	n := 0
	for h := int32(best); h >= 0; h = prev[h] {
		n++
	}
	out := make([]hit, 0, n)
	for h := int32(best); h >= 0; h = prev[h] {
		out = append(out, hits[h])
	}
	slices.Reverse(out)
	return longestWithoutInsertion(withoutStrayHits(out))
}

// withoutStrayHits drops the hits of a chain that share their diagonal with neither
// neighbour. Real sequence gives runs of hits on one diagonal (a frameshift or an indel
// starts a new run); a lone hit on a diagonal of its own is an off-frame coincidence, and
// as a chain's first or last anchor it steered the band off the real diagonal (RT codons
// 3–29 of a real sequence were dropped behind one such hit beside a run of N).
func withoutStrayHits(chain []hit) []hit {
	if len(chain) < 3 {
		return chain
	}
	diag := func(h hit) int32 { return h.p - 3*h.r }
	n := 0
	for i := range chain {
		if (i > 0 && diag(chain[i-1]) == diag(chain[i])) || (i+1 < len(chain) && diag(chain[i+1]) == diag(chain[i])) {
			n++
		}
	}
	if n < minChain || n == len(chain) {
		return chain
	}
	// (in place: hit i is kept or dropped by its neighbours in the original chain, and the
	// kept ones only move towards the front, behind the ones still to be judged)
	kept := chain[:0]
	prev := int32(-1 << 30) // diagonal of the original hit before i
	for i := range chain {
		d := diag(chain[i])
		if d == prev || (i+1 < len(chain) && diag(chain[i+1]) == d) {
			kept = append(kept, chain[i])
		}
		prev = d
	}
	return kept
}

// longestWithoutInsertion enforces on a whole chain what chain enforces on each step: no
// more than smallDiagJump nucleotides inserted into the query. A stray hit can bridge a
// longer insertion (a run of N or foreign sequence between two genes) in two steps that
// are each small enough: PR, a run of N 144 nucleotides longer than the codons it
// replaced and an off-frame hit beyond it chained PR to RT, the band then held no path
// through the N run, and RT codons 3–29 were misread and dropped. So wherever anchors less than insertionWindow
// nucleotides apart drift by more than smallDiagJump towards an insertion, the chain is
// cut at the largest single step of that drift, and the part with the most hits is kept;
// the genes of the other part are found by realigning the rest of the query
// (alignProtein's regions), as for any longer insertion.
func longestWithoutInsertion(chain []hit) []hit {
	diag := func(h hit) int32 { return h.p - 3*h.r }
	start, bestLo, bestHi := 0, 0, 0
	cut := func(end int) {
		if end-start > bestHi-bestLo {
			bestLo, bestHi = start, end
		}
		start = end
	}
	for k := 1; k < len(chain); k++ {
		// the anchor of the current part, within the window, whose diagonal is lowest
		low := -1
		for i := k - 1; i >= start && chain[k].p-chain[i].p <= insertionWindow; i-- {
			if low < 0 || diag(chain[i]) < diag(chain[low]) {
				low = i
			}
		}
		if low < 0 || diag(chain[k])-diag(chain[low]) <= smallDiagJump {
			continue
		}
		// cut before the largest single increase of the diagonal in (low, k]
		at := low + 1
		for i := low + 1; i <= k; i++ {
			if diag(chain[i])-diag(chain[i-1]) > diag(chain[at])-diag(chain[at-1]) {
				at = i
			}
		}
		cut(at)
	}
	cut(len(chain))
	return chain[bestLo:bestHi]
}
