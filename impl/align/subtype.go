package align

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Subtyping follows HIVDB's genotyper (hivdb/sierra-core, genotypes/Genotyper.java,
// BoundGenotype.java, GenotypeResult.java, Genotype.java); docs/alignment.md lists its rules.

// genotype is one entry of genotypes_hiv1.yml.
type genotype struct {
	key         string // "X01"
	display     string // "CRF01_AE"
	limit       float64
	parents     []string // keys
	isSimpleCRF bool
	regions     []crfRegion
}

// crfRegion is one part of a simple CRF: HXB2 start..end is genotype key.
type crfRegion struct {
	key        string
	start, end int
}

// subtypeRef is one reference of genotype-references_hiv1.json, in HXB2 coordinates
// ('-' where the reference has no base at an HXB2 position).
type subtypeRef struct {
	accession string
	genotype  string // key into the genotype table
	seq       []byte
	first     int // HXB2 position of seq[0]
}

// genotyper holds the references packed as 4-bit base masks, 16 per word, in HXB2
// coordinates from first, the genotypes, and the SDRM codons whose differences do not count.
type genotyper struct {
	first, length int
	refs          []subtypeRef
	words         [][]uint64
	genotypes     map[string]*genotype
	unknown       string // display name of the unknown genotype
	// sdrmCodons: HXB2 position of a codon's first base → the codons (unambiguous) of its
	// surveillance drug-resistance mutations.
	sdrmCodons map[int][]string
}

// unknownDistance is HIVDB's universal cut-off: farther than this from every reference,
// the subtype is Unknown (BoundGenotype.shouldDisplayUnknown).
const unknownDistance = 0.11

// fallbackDistanceDiff: a parent or child genotype replaces a match beyond its own distance
// limit only when it is at most this much farther (BoundGenotype.useOrFallbackTo).
const fallbackDistanceDiff = 0.01

// minRegionalProportion: a partial sequence lying at least this much inside one region of a
// simple CRF is shown as that region's genotype (Genotype.getPrimaryRegionalGenotype).
const minRegionalProportion = 0.9

func readGenotyper(ref fs.FS, genes map[Gene]geneRef) (*genotyper, error) {
	data, err := fs.ReadFile(ref, "genotypes_hiv1.yml")
	if err != nil {
		return nil, fmt.Errorf("reading genotypes_hiv1.yml: %w", err)
	}
	var raw map[string]struct {
		DisplayName        string  `yaml:"displayName"`
		DistanceUpperLimit float64 `yaml:"distanceUpperLimit"`
		ParentGenotypes    *string `yaml:"parentGenotypes"`
		IsSimpleCRF        bool    `yaml:"isSimpleCRF"`
		Regions            []struct {
			GenotypeName string `yaml:"genotypeName"`
			Start        int    `yaml:"start"`
			End          int    `yaml:"end"`
		} `yaml:"regions"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("parsing genotypes_hiv1.yml: %w", err)
	}
	gt := &genotyper{genotypes: map[string]*genotype{}, unknown: "Unknown"}
	for key, r := range raw {
		g := &genotype{key: key, display: r.DisplayName, limit: r.DistanceUpperLimit, isSimpleCRF: r.IsSimpleCRF}
		if g.display == "" {
			g.display = key
		}
		if r.ParentGenotypes != nil && *r.ParentGenotypes != "" {
			g.parents = strings.Split(*r.ParentGenotypes, "|")
		}
		for _, reg := range r.Regions {
			g.regions = append(g.regions, crfRegion{reg.GenotypeName, reg.Start, reg.End})
		}
		gt.genotypes[key] = g
	}
	if u, ok := gt.genotypes["U"]; ok {
		gt.unknown = u.display
	}
	for key, g := range gt.genotypes {
		for _, p := range g.parents {
			if gt.genotypes[p] == nil {
				return nil, fmt.Errorf("genotypes_hiv1.yml: %s: unknown parent genotype %q", key, p)
			}
		}
		for _, reg := range g.regions {
			if gt.genotypes[reg.key] == nil {
				return nil, fmt.Errorf("genotypes_hiv1.yml: %s: unknown regional genotype %q", key, reg.key)
			}
		}
	}

	data, err = fs.ReadFile(ref, "genotype-references_hiv1.json")
	if err != nil {
		return nil, fmt.Errorf("reading genotype-references_hiv1.json: %w", err)
	}
	var refs []struct {
		Accession    string `json:"accession"`
		GenotypeName string `json:"genotypeName"`
		FirstNA      int    `json:"firstNA"`
		LastNA       int    `json:"lastNA"`
		Sequence     string `json:"sequence"`
	}
	if err := json.Unmarshal(data, &refs); err != nil {
		return nil, fmt.Errorf("parsing genotype-references_hiv1.json: %w", err)
	}
	if len(refs) == 0 {
		return nil, fmt.Errorf("genotype-references_hiv1.json: no references")
	}
	gt.first, gt.length = refs[0].FirstNA, refs[0].LastNA-refs[0].FirstNA+1
	nw := (gt.length + 15) / 16
	for _, r := range refs {
		if r.LastNA-r.FirstNA+1 != len(r.Sequence) {
			return nil, fmt.Errorf("genotype-references_hiv1.json: %s: %d bases for HXB2 %d-%d", r.Accession, len(r.Sequence), r.FirstNA, r.LastNA)
		}
		// As HIVDB requires: every reference covers the same HXB2 range.
		if r.FirstNA != gt.first || len(r.Sequence) != gt.length {
			return nil, fmt.Errorf("genotype-references_hiv1.json: %s covers HXB2 %d-%d, the others %d-%d", r.Accession, r.FirstNA, r.LastNA, gt.first, gt.first+gt.length-1)
		}
		if gt.genotypes[r.GenotypeName] == nil {
			return nil, fmt.Errorf("genotype-references_hiv1.json: %s: genotype %q not in genotypes_hiv1.yml", r.Accession, r.GenotypeName)
		}
		seq := []byte(strings.ToUpper(r.Sequence))
		w := make([]uint64, nw)
		for i, c := range seq {
			w[i/16] |= uint64(ntMask[c]) << (4 * uint(i%16))
		}
		gt.refs = append(gt.refs, subtypeRef{accession: r.Accession, genotype: r.GenotypeName, seq: seq, first: r.FirstNA})
		gt.words = append(gt.words, w)
	}
	gt.sdrmCodons, err = readSDRMCodons(ref, genes)
	if err != nil {
		return nil, err
	}
	return gt, nil
}

// readSDRMCodons reads sdrms_hiv1.csv (drug_class,gene,position,aas): per codon (HXB2
// position of its first base) the unambiguous codons of its SDRM amino acids.
func readSDRMCodons(ref fs.FS, genes map[Gene]geneRef) (map[int][]string, error) {
	data, err := fs.ReadFile(ref, "sdrms_hiv1.csv")
	if err != nil {
		return nil, fmt.Errorf("reading sdrms_hiv1.csv: %w", err)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	out := map[int][]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for line := 1; sc.Scan(); line++ {
		f := strings.Split(strings.TrimSpace(sc.Text()), ",")
		if line == 1 || len(f) < 4 {
			continue
		}
		g, ok := genes[Gene(f[1])]
		pos, err := strconv.Atoi(f[2])
		if !ok || err != nil {
			continue
		}
		at := g.hxb2First + 3*(pos-1)
		for _, aa := range []byte(f[3]) { // one or more amino acids ("VI"); '-', '_' mark no codon
			for i := 0; i < 64; i++ {
				if geneticCode[i] == aa {
					out[at] = append(out[at], string([]byte{"TCAG"[i/16], "TCAG"[i/4%4], "TCAG"[i%4]}))
				}
			}
		}
	}
	return out, sc.Err()
}

// subtype compares the aligned PR/RT/IN nucleotides with every reference at the same HXB2
// positions, as HIVDB does:
//   - the compared sequence is the genes' aligned nucleotides (deletions '-' included,
//     insertions left out, genes not present skipped), without leading and trailing N;
//   - a position differs when none of the query's bases is among the reference's (a
//     reference gap differs from every base); N and '-' in the query never differ;
//   - at an SDRM codon that reads an SDRM codon, differences do not count;
//   - distance = differences / compared positions (N and '-' included);
//   - the closest reference wins (the first in file order on a tie); beyond its genotype's
//     own distance limit, a parent or child genotype at most 1% farther replaces it;
//     beyond 11%, the subtype is Unknown; a simple CRF over a sequence lying ≥ 90% in one
//     of its regions shows that region's genotype; beyond the limit with no regional
//     genotype, a CRF shows its parents ("A1 + G").
func (a *Aligner) subtype(res *Result) Subtype {
	gt := a.genotyper
	nw := (gt.length + 15) / 16
	qw := make([]uint64, nw)   // countable query bases
	qcnt := make([]uint64, nw) // low bit per countable position
	lowW, highW := nw, -1
	firstPos, lastPos, positions := -1, -1, 0
	leadingN, trailingN := 0, 0
	for _, g := range res.Genes {
		if g.Gene == CA {
			continue
		}
		start := a.genes[g.Gene].hxb2First + 3*(g.FirstAA-1)
		for k := 0; k < len(g.AlignedNA); k++ {
			c := g.AlignedNA[k]
			pos := start + k - gt.first
			if pos < 0 || pos >= gt.length {
				continue
			}
			if c == 'N' {
				if firstPos < 0 {
					leadingN++
				}
				trailingN++
				positions++
				continue
			}
			if firstPos < 0 {
				firstPos = pos
			}
			lastPos, trailingN = pos, 0
			positions++
			m := ntMask[c]
			if m == 0 {
				continue // a deletion: compared, never different
			}
			if k%3 == 0 && k+3 <= len(g.AlignedNA) && gt.sdrmCodon(start+k, g.AlignedNA[k:k+3]) {
				k += 2
				positions += 2
				lastPos = pos + 2
				continue
			}
			qw[pos/16] |= uint64(m) << (4 * uint(pos%16))
			qcnt[pos/16] |= 1 << (4 * uint(pos%16))
			lowW, highW = min(lowW, pos/16), max(highW, pos/16)
		}
	}
	out := Subtype{Name: gt.unknown, Display: gt.unknown}
	compared := positions - leadingN - trailingN
	if firstPos < 0 || compared < MinSubtypeNAs || highW < 0 {
		return out
	}
	best, bestDist := -1, 0.0
	dist := make([]float64, len(gt.refs))
	for r, rw := range gt.words {
		differ := 0
		for k := lowW; k <= highW; k++ {
			differ += bits.OnesCount64(qcnt[k] &^ nibbleNonZero(qw[k]&rw[k]))
		}
		dist[r] = float64(differ) / float64(compared)
		if best < 0 || dist[r] < bestDist {
			best, bestDist = r, dist[r]
		}
	}
	chosen := gt.fallback(best, dist)
	ref := gt.refs[chosen]
	g := gt.genotypes[ref.genotype]
	out.Accession = ref.accession
	out.Genotype = g.display
	out.Distance = dist[chosen]
	out.Compared = compared
	out.PercentSimilarity = math.Round(10000*(1-out.Distance)) / 100
	out.DistancePercent = distancePercent(out.Distance)
	if out.Distance > unknownDistance {
		return out
	}
	out.Name = gt.displayName(g, out.Distance, gt.first+firstPos, gt.first+lastPos)
	out.Display = out.Name + " (" + out.DistancePercent + ")"
	return out
}

// sdrmCodon tells whether the codon at HXB2 position at reads one of its SDRM codons.
func (gt *genotyper) sdrmCodon(at int, codon string) bool {
	for _, c := range gt.sdrmCodons[at] {
		if c == codon {
			return true
		}
	}
	return false
}

// fallback applies GenotypeResult.getBestMatch: when the closest reference is beyond its
// genotype's distance limit, the closest reference of a parent genotype, or of a child
// genotype (one that names it as parent), at most fallbackDistanceDiff farther, may replace
// it.
func (gt *genotyper) fallback(best int, dist []float64) int {
	first := gt.genotypes[gt.refs[best].genotype]
	if dist[best] < first.limit {
		return best
	}
	closest := func(match func(g *genotype) bool) int {
		c := -1
		for r := range gt.refs {
			if r != best && match(gt.genotypes[gt.refs[r].genotype]) && (c < 0 || dist[r] < dist[c]) {
				c = r
			}
		}
		return c
	}
	contains := func(list []string, key string) bool {
		for _, x := range list {
			if x == key {
				return true
			}
		}
		return false
	}
	parent := closest(func(g *genotype) bool { return contains(first.parents, g.key) })
	child := closest(func(g *genotype) bool { return contains(g.parents, first.key) })
	diff := func(r int) float64 {
		if r < 0 {
			return 1
		}
		return dist[r] - dist[best]
	}
	withinLimit := func(r int) bool {
		return r >= 0 && dist[r] < gt.genotypes[gt.refs[r].genotype].limit
	}
	pd, cd := diff(parent), diff(child)
	pok, cok := withinLimit(parent), withinLimit(child)
	switch {
	case pd < fallbackDistanceDiff && (pok && !cok || pd < cd):
		return parent
	case cd < fallbackDistanceDiff && (cok && !pok || cd < pd):
		return child
	}
	return best
}

// displayName is the genotype a report shows for a match of g at distance d over HXB2
// first..last (BoundGenotype.getDisplayGenotypes).
func (gt *genotyper) displayName(g *genotype, d float64, first, last int) string {
	regional := g
	if g.isSimpleCRF && last > first {
		share := map[string]float64{}
		var order []string
		for _, reg := range g.regions {
			if last >= reg.start && first <= reg.end {
				s, e := max(first, reg.start), min(last, reg.end)
				if _, seen := share[reg.key]; !seen {
					order = append(order, reg.key)
				}
				share[reg.key] += float64(e-s) / float64(last-first)
			}
		}
		top := ""
		for _, k := range order {
			if top == "" || share[k] > share[top] {
				top = k
			}
		}
		if top != "" && share[top] >= minRegionalProportion {
			regional = gt.genotypes[top]
		}
	}
	if d >= g.limit && regional == g && len(g.parents) > 0 {
		names := make([]string, len(g.parents))
		for i, p := range g.parents {
			names[i] = gt.genotypes[p].display
		}
		return strings.Join(names, " + ")
	}
	return regional.display
}

// distancePercent prints a distance as HIVDB does: two decimals up to 10%, one above,
// none at 100%, rounded half up on the exact value of distance × 100 ("1.41%").
func distancePercent(d float64) string {
	scale := 2
	switch {
	case d+1e-8 > 1:
		scale = 0
	case d > 0.1:
		scale = 1
	}
	// As HIVDB: the product in double precision, then its exact decimal value rounded.
	digits := new(big.Float).SetFloat64(d*100).Text('f', 60)
	dot := strings.IndexByte(digits, '.')
	keep := digits[:dot+1+scale]
	if scale == 0 {
		keep = digits[:dot]
	}
	r, _ := new(big.Float).SetPrec(200).SetString(keep)
	if digits[dot+1+scale] >= '5' {
		step, _ := new(big.Float).SetPrec(200).SetString("1e-" + strconv.Itoa(scale))
		r.Add(r, step)
	}
	return r.Text('f', scale) + "%"
}

const nibbleLow = 0x1111111111111111

func nibbleNonZero(v uint64) uint64 { return (v | v>>1 | v>>2 | v>>3) & nibbleLow }
