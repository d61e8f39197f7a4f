package align

// Placement of in-frame deletions as HIVDB's current program (Sierra 3.5 with PostAlign,
// hivdb/post-align processors/codon_alignment.py, configured by hivdb/hivfacts
// data/alignment-config_hiv1.json) places them: a run of deleted codons is moved, within a
// window of up to gapWindow clean codons on either side, to the codon boundary where the
// window's codons score best against the consensus — per codon the nucleotide identity
// (IUPAC: 1 for the same code, else −|A△B|/|A∪B| of the base sets) plus the mean BLOSUM62
// score of its amino acids — the leftmost of equal scores winning. The nucleotide consensus
// is the majority base of the subtype B references of genotype-references_hiv1.json at each
// HXB2 position. (Insertions keep the DP's placement: its RT 63–73 positional scores put
// them after RT69 as the program's configured bonus does; docs/alignment.md.)

const gapWindow = 10

// buildConsensusNA returns, per gene, the majority subtype B nucleotide at every position of
// the gene's codons ('N' where no reference has a base).
func buildConsensusNA(gt *genotyper, genes map[Gene]geneRef) map[Gene][]byte {
	out := map[Gene][]byte{}
	for g, ref := range genes {
		na := make([]byte, 3*len(ref.consensus))
		for k := range na {
			pos := ref.hxb2First + k - gt.first
			var count [4]int
			if pos >= 0 && pos < gt.length {
				for _, r := range gt.refs {
					if r.genotype != "B" {
						continue
					}
					switch r.seq[pos] {
					case 'A':
						count[0]++
					case 'C':
						count[1]++
					case 'G':
						count[2]++
					case 'T':
						count[3]++
					}
				}
			}
			best := -1
			for b := range count {
				if count[b] > 0 && (best < 0 || count[b] > count[best]) {
					best = b
				}
			}
			na[k] = 'N'
			if best >= 0 {
				na[k] = "ACGT"[best]
			}
		}
		out[g] = na
	}
	return out
}

// clean tells whether a codon is read from exactly three nucleotides with nothing inserted.
func clean(r codonRec) bool { return r.span == 3 && r.insCodon == 0 && r.fsIns == 0 }

// placeGaps moves every internal run of deleted codons of a gene's codon records to the
// place HIVDB's codon alignment gives it (see above).
func (a *Aligner) placeGaps(g Gene, q []uint8, recs []codonRec) {
	// Deletions from the gene's first codon on are leading end gaps, dropped later, not
	// internal: moving the part of such a run after its first codon into the gene read
	// RT 5–6 of a real sequence lacking RT 1–4 as deleted and trimmed them.
	lead := 0
	for lead < len(recs) && recs[lead].span == 0 {
		lead++
	}
	forInternalDeletions(recs, max(1, lead), func(i, j int) int {
		return a.placeDeletion(g, q, recs, i, j)
	})
}

// forInternalDeletions calls fix for each run recs[i:j] of deleted codons (span 0) from
// recs[from] on that has a codon record after it: trailing deletions are dropped anyway,
// so the walk ends at them. fix answers the index the walk goes on after (the end of the
// run where it left it, or where it moved it).
func forInternalDeletions(recs []codonRec, from int, fix func(i, j int) int) {
	for i := from; i < len(recs)-1; i++ {
		if recs[i].span != 0 {
			continue
		}
		j := i
		for j < len(recs) && recs[j].span == 0 {
			j++
		}
		if j == len(recs) {
			return
		}
		i = fix(i, j)
	}
}

// window returns the clean codons around recs[i:j]: up to gapWindow on each side, stopping
// at any other indel.
func window(recs []codonRec, i, j int) (left, right int) {
	left, right = i, j
	for left > 0 && i-left < gapWindow && clean(recs[left-1]) {
		left--
	}
	for right < len(recs) && right-j < gapWindow && clean(recs[right]) {
		right++
	}
	return left, right
}

// placeDeletion re-places the deleted codons recs[i:j]; it returns the index to go on from.
func (a *Aligner) placeDeletion(g Gene, q []uint8, recs []codonRec, i, j int) int {
	left, right := window(recs, i, j)
	d := j - i
	var starts []int32 // query starts of the window's read codons, in order
	for k := left; k < right; k++ {
		if k < i || k >= j {
			starts = append(starts, recs[k].start)
		}
	}
	best, bestScore := -1, 0.0
	for p := 0; p <= len(starts); p++ {
		score := 0.0
		for t, s := range starts {
			pos := recs[left].pos + t
			if t >= p {
				pos += d
			}
			score += a.placementScore(g, q, s, pos)
		}
		if best < 0 || score > bestScore {
			best, bestScore = p, score
		}
	}
	if best == i-left {
		return right - 1
	}
	gapStart := recs[j].start
	if best < len(starts) {
		gapStart = starts[best]
	} else if right > j {
		gapStart = recs[right-1].start + 3
	}
	for t := 0; t < right-left; t++ {
		pos := recs[left].pos + t
		switch {
		case t < best:
			recs[left+t] = a.codonRecord(g, q, pos, starts[t], 3)
		case t < best+d:
			recs[left+t] = a.codonRecord(g, q, pos, gapStart, 0)
		default:
			recs[left+t] = a.codonRecord(g, q, pos, starts[t-d], 3)
		}
	}
	return right - 1
}

// placementScore scores the query codon at s against consensus codon pos of g: nucleotide
// identity with the consensus nucleotides plus the mean BLOSUM62 score of its amino acids
// against the consensus amino acid (a stop scores 0), as post-align scores a placement.
func (a *Aligner) placementScore(g Gene, q []uint8, s int32, pos int) float64 {
	ref := a.consNA[g][3*(pos-1) : 3*pos]
	score := 0.0
	for k := 0; k < 3; k++ {
		qm, rm := q[s+int32(k)], ntMask[ref[k]]
		if qm == rm {
			score++
			continue
		}
		score -= float64(popcount4(qm^rm)) / float64(popcount4(qm|rm))
	}
	ci := a.codons[codonKey(q[s], q[s+1], q[s+2])]
	cons := aaIndex(a.genes[g].consensus[pos-1])
	sum := 0
	for x := 0; x < 20; x++ {
		if ci.aas&(1<<uint(x)) != 0 {
			sum += int(blosum62[x][cons])
		}
	}
	return score + float64(sum)/float64(ci.count)
}

func popcount4(m uint8) int { return int(m&1 + m>>1&1 + m>>2&1 + m>>3&1) }
