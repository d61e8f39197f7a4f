package align

// Amino acids in the order of the scoring matrix rows; index 20 is the stop codon.
const aaOrder = "ARNDCQEGHILKMFPSTWYV*"

const stopIdx = 20

// aaIndexTable maps a byte to its index in aaOrder, or -1.
var aaIndexTable = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(aaOrder); i++ {
		t[aaOrder[i]] = int8(i)
	}
	return t
}()

// aaIndex returns the index of amino acid c in aaOrder, or -1.
func aaIndex(c byte) int { return int(aaIndexTable[c]) }

// blosum62 is the BLOSUM62 substitution matrix (Henikoff & Henikoff 1992) over the 20 amino
// acids in aaOrder, written out from the published table.
var blosum62 = [20][20]int8{
	//A   R   N   D   C   Q   E   G   H   I   L   K   M   F   P   S   T   W   Y   V
	{4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0},      // A
	{-1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3},      // R
	{-2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3},          // N
	{-2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3},     // D
	{0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1},  // C
	{-1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2},         // Q
	{-1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2},        // E
	{0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3},    // G
	{-2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3},      // H
	{-1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3},     // I
	{-1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1},     // L
	{-1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2},      // K
	{-1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1},      // M
	{-2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1},      // F
	{-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2}, // P
	{1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2},         // S
	{0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0},     // T
	{-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3},  // W
	{-2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1},    // Y
	{0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4},      // V
}

// Nucleotide bit masks: an IUPAC code is the set of bases it stands for.
const (
	bA = 1 << iota
	bC
	bG
	bT
)

// ntMask maps a byte to its IUPAC base set (0 for anything else).
var ntMask = func() (m [256]uint8) {
	set := map[byte]uint8{
		'A': bA, 'C': bC, 'G': bG, 'T': bT, 'U': bT,
		'R': bA | bG, 'Y': bC | bT, 'K': bG | bT, 'M': bA | bC, 'S': bC | bG, 'W': bA | bT,
		'B': bC | bG | bT, 'D': bA | bG | bT, 'H': bA | bC | bT, 'V': bA | bC | bG,
		'N': bA | bC | bG | bT,
	}
	for c, v := range set {
		m[c] = v
	}
	return m
}()

// complement maps an IUPAC code to the code of its complement.
var complement = func() (m [256]byte) {
	pairs := "ATTAUACGGCRYYRKMMKSSWWBVVBDHHDNN"
	for i := 0; i+1 < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	return m
}()

// geneticCode is the standard code in TCAG order of first, second, third base.
const geneticCode = "FFLLSSSSYY**CC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"

// baseOrder maps a single-base mask to its TCAG index.
func baseOrder(b uint8) int {
	switch b {
	case bT:
		return 0
	case bC:
		return 1
	case bA:
		return 2
	default:
		return 3
	}
}

// codonKey packs three base masks (each 1..15) into a table index.
func codonKey(m1, m2, m3 uint8) int { return int(m1)<<8 | int(m2)<<4 | int(m3) }

// codonInfo describes every codon of IUPAC codes: the set of amino acids its expansions
// translate to (bit i = aaOrder[i]) and how many Ns it holds.
type codonInfo struct {
	aas   uint32
	count uint8 // number of amino acids in aas
	ns    uint8
}

// buildCodonTable expands every codon of IUPAC masks.
func buildCodonTable() *[4096]codonInfo {
	var t [4096]codonInfo
	for m1 := uint8(1); m1 < 16; m1++ {
		for m2 := uint8(1); m2 < 16; m2++ {
			for m3 := uint8(1); m3 < 16; m3++ {
				var set uint32
				for _, b1 := range []uint8{bA, bC, bG, bT} {
					if m1&b1 == 0 {
						continue
					}
					for _, b2 := range []uint8{bA, bC, bG, bT} {
						if m2&b2 == 0 {
							continue
						}
						for _, b3 := range []uint8{bA, bC, bG, bT} {
							if m3&b3 == 0 {
								continue
							}
							aa := geneticCode[baseOrder(b1)*16+baseOrder(b2)*4+baseOrder(b3)]
							set |= 1 << uint(aaIndex(aa))
						}
					}
				}
				ci := codonInfo{aas: set}
				for s := set; s != 0; s &= s - 1 {
					ci.count++
				}
				for _, m := range []uint8{m1, m2, m3} {
					if m == 15 {
						ci.ns++
					}
				}
				t[codonKey(m1, m2, m3)] = ci
			}
		}
	}
	return &t
}

// alphaOrder lists the amino acids alphabetically ('*' last) with their aaOrder bits.
var alphaOrder = func() (o [21]struct {
	c   byte
	bit uint32
}) {
	const alpha = "ACDEFGHIKLMNPQRSTVWY*"
	for i := 0; i < len(alpha); i++ {
		o[i].c = alpha[i]
		o[i].bit = 1 << uint(aaIndex(alpha[i]))
	}
	return o
}()

// aaSetString lists the amino acids of a set in alphabetical order ('*' last).
func aaSetString(set uint32) string {
	var buf [21]byte
	b := buf[:0]
	for _, x := range alphaOrder {
		if set&x.bit != 0 {
			b = append(b, x.c)
		}
	}
	return string(b)
}
