package asi

import (
	"strings"
)

// AASet is a set of amino-acid symbols observed at (or named for) one codon position:
// the twenty amino acids, Z (stop codon), d (deletion), i (insertion) and, in input only,
// X (unknown: more amino acids than a report can list).
type AASet uint32

// The alphabet in bit order. Rules may name every symbol but X.
const alphabet = "ACDEFGHIKLMNPQRSTVWYZdiX"

const (
	// Stop is the stop-codon symbol Z.
	Stop AASet = 1 << 20
	// Deletion is the deletion symbol d.
	Deletion AASet = 1 << 21
	// Insertion is the insertion symbol i.
	Insertion AASet = 1 << 22
	// Unknown is X: the position was sequenced but its amino acids are too many to list.
	// It matches no rule residue.
	Unknown AASet = 1 << 23
	// ruleSymbols are the symbols a rule may name.
	ruleSymbols AASet = 1<<23 - 1
)

var symbolBit = func() [256]AASet {
	var t [256]AASet
	for i := 0; i < len(alphabet); i++ {
		t[alphabet[i]] = 1 << i
	}
	return t
}()

// SymbolSet returns the set holding the one symbol c, or 0 when c is not a symbol of the alphabet.
func SymbolSet(c byte) AASet { return symbolBit[c] }

// ParseAASet turns a string of symbols ("FY", "d", "KR") into a set; ok is false when the
// string is empty or holds anything but alphabet symbols.
func ParseAASet(s string) (AASet, bool) {
	var set AASet
	for i := 0; i < len(s); i++ {
		b := symbolBit[s[i]]
		if b == 0 {
			return 0, false
		}
		set |= b
	}
	return set, s != ""
}

// String lists the set's symbols in alphabet order (amino acids alphabetically, then Z, d, i, X).
func (s AASet) String() string {
	var b strings.Builder
	for i := 0; i < len(alphabet); i++ {
		if s&(1<<i) != 0 {
			b.WriteByte(alphabet[i])
		}
	}
	return b.String()
}

// Has reports whether the set holds symbol c.
func (s AASet) Has(c byte) bool { return symbolBit[c] != 0 && s&symbolBit[c] != 0 }

// Len is the number of symbols in the set.
func (s AASet) Len() int {
	n := 0
	for v := s; v != 0; v &= v - 1 {
		n++
	}
	return n
}

// Mutations holds the amino acids observed at the mutated positions of one gene. Positions
// not set are consensus (wild type) or unsequenced; rules match only set positions.
type Mutations struct {
	byPos []AASet // index = codon position; 0 = not mutated
	n     int
}

// NewMutations returns an empty mutation set for a gene of at most length codons.
func NewMutations(length int) *Mutations {
	return &Mutations{byPos: make([]AASet, length+1)}
}

// Add merges symbols into a position (a duplicate position becomes a mixture).
// Positions beyond the length given to NewMutations grow the set.
func (m *Mutations) Add(pos int, s AASet) {
	if pos < 1 || s == 0 {
		return
	}
	if pos >= len(m.byPos) {
		grown := make([]AASet, pos+1)
		copy(grown, m.byPos)
		m.byPos = grown
	}
	if m.byPos[pos] == 0 {
		m.n++
	}
	m.byPos[pos] |= s
}

// At returns the symbols observed at pos (0 when the position is not mutated).
func (m *Mutations) At(pos int) AASet {
	if m == nil || pos < 0 || pos >= len(m.byPos) {
		return 0
	}
	return m.byPos[pos]
}

// Len is the number of mutated positions.
func (m *Mutations) Len() int {
	if m == nil {
		return 0
	}
	return m.n
}

// Positions lists the mutated positions in ascending order.
func (m *Mutations) Positions() []int {
	if m == nil {
		return nil
	}
	out := make([]int, 0, m.n)
	for p, s := range m.byPos {
		if s != 0 {
			out = append(out, p)
		}
	}
	return out
}
