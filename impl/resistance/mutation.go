package resistance

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sitelib/sitesvc/impl/asi"
)

// Limits on one sample's mutation lists.
const (
	maxMutationStrings = 1000 // strings per gene
	maxMutationBytes   = 200  // bytes per string
)

// Mutation is one mutated position of a gene as reported.
type Mutation struct {
	Gene      string
	Pos       int
	Consensus byte      // subtype B consensus amino acid at Pos
	AAs       asi.AASet // observed symbols (a mixture has several)
	Inserted  string    // amino acids inserted after Pos ("SS" of T69S_SS), when given
}

// String renders the mutation for reports: consensus, position, observed amino acids
// alphabetically, "*" for a stop codon, "~" for a deletion, "X" for unknown, and an insertion
// as "_" and the inserted amino acids (T69S_SS), or "i" when they are not known (T69i).
func (m Mutation) String() string {
	var b strings.Builder
	b.WriteByte(m.Consensus)
	b.WriteString(strconv.Itoa(m.Pos))
	insertion := false
	for _, c := range []byte(m.AAs.String()) {
		switch c {
		case 'Z':
			b.WriteByte('*')
		case 'd':
			b.WriteByte('~')
		case 'i':
			insertion = true
		default:
			b.WriteByte(c)
		}
	}
	// the insertion goes last: "_" takes the rest of the string as inserted amino acids
	if insertion {
		if m.Inserted != "" {
			b.WriteByte('_')
			b.WriteString(m.Inserted)
		} else {
			b.WriteByte('i')
		}
	}
	return b.String()
}

// Kind is "insertion", "deletion", "stop" or "substitution" (in that order of precedence).
func (m Mutation) Kind() string {
	switch {
	case m.AAs&asi.Insertion != 0:
		return "insertion"
	case m.AAs&asi.Deletion != 0:
		return "deletion"
	case m.AAs&asi.Stop != 0:
		return "stop"
	}
	return "substitution"
}

// geneInput is one gene of one sample after parsing.
type geneInput struct {
	Gene      string
	Sequenced bool
	Raw       []string   // the strings as given, trimmed
	Mutations []Mutation // merged by position, ascending
	Set       *asi.Mutations
	display   map[int]string // position → Mutation.String(), for partial scores and comments
}

// MutationError is a bad mutation string: which gene, which string and what is wrong.
type MutationError struct {
	Gene  string
	Input string
	What  string
}

func (e *MutationError) Error() string {
	return fmt.Sprintf("%s mutation %q: %s", e.Gene, e.Input, e.What)
}

// parseGene parses the mutation strings of one gene. A nil or empty list, or one whose strings
// are all blank, means the gene was not sequenced; the single word "WT" (or "none") means it was
// sequenced and carries no mutation. A string may hold several mutations separated by commas.
func (r *reference) parseGene(gene string, list []string) (geneInput, error) {
	gi := geneInput{Gene: gene}
	if len(list) > maxMutationStrings {
		return gi, &MutationError{Gene: gene, Input: "…", What: fmt.Sprintf("more than %d mutation strings", maxMutationStrings)}
	}
	consensus := r.consensus[gene]
	byPos := map[int]*Mutation{}
	for _, raw := range list {
		if len(raw) > maxMutationBytes {
			// quote its start, cut on a character boundary (a cut rune would show as \x escapes)
			cut := 40
			for cut > 0 && !utf8.RuneStart(raw[cut]) {
				cut--
			}
			return gi, &MutationError{Gene: gene, Input: raw[:cut] + "…", What: fmt.Sprintf("longer than %d bytes", maxMutationBytes)}
		}
		trimmed := strings.TrimSpace(raw)
		if trimmed == "" {
			continue
		}
		gi.Raw = append(gi.Raw, trimmed)
		gi.Sequenced = true
		for _, piece := range strings.Split(trimmed, ",") {
			compact := strings.Map(func(r rune) rune {
				if unicode.IsSpace(r) {
					return -1
				}
				return r
			}, piece)
			if compact == "" {
				continue
			}
			if u := strings.ToUpper(compact); u == "WT" || u == "NONE" {
				continue
			}
			m, err := parseMutation(gene, consensus, compact)
			if err != nil {
				return gi, &MutationError{Gene: gene, Input: strings.TrimSpace(piece), What: err.Error()}
			}
			if m.AAs == asi.SymbolSet(m.Consensus) && m.Inserted == "" {
				continue // only the consensus amino acid: not a mutation
			}
			if prev := byPos[m.Pos]; prev != nil {
				prev.AAs |= m.AAs
				if prev.Inserted == "" {
					prev.Inserted = m.Inserted
				}
				*prev = normalizeUnknown(*prev)
				continue
			}
			byPos[m.Pos] = &m
		}
	}
	if !gi.Sequenced {
		return gi, nil
	}
	gi.Set = asi.NewMutations(len(consensus))
	for _, m := range byPos {
		gi.Mutations = append(gi.Mutations, *m)
		// The consensus amino acid of a mixture (M of M184MV) is not a mutation: rules see only
		// the mutated symbols, so 184(NOT VI) holds for M184LM through L alone, never through M.
		gi.Set.Add(m.Pos, m.AAs&^asi.SymbolSet(m.Consensus))
	}
	sort.Slice(gi.Mutations, func(i, j int) bool { return gi.Mutations[i].Pos < gi.Mutations[j].Pos })
	gi.display = make(map[int]string, len(gi.Mutations))
	for _, m := range gi.Mutations {
		gi.display[m.Pos] = m.String()
	}
	return gi, nil
}

// parseMutation parses one whitespace-free mutation: an optional consensus letter, the
// position, then the observed amino acids. Accepted symbols: the twenty amino acids (upper
// case), X (unknown), Z or * (stop), d, ~, Δ or - (deletion), i or # (insertion), and _ followed
// by the inserted amino acids.
func parseMutation(gene, consensus, s string) (Mutation, error) {
	m := Mutation{Gene: gene}
	i := 0
	var given byte
	if c := s[0]; c >= 'A' && c <= 'Z' {
		given = c
		i = 1
	} else if c >= 'a' && c <= 'z' {
		return m, fmt.Errorf("the consensus letter must be upper case")
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return m, fmt.Errorf("no position (expected e.g. M184V or 184V)")
	}
	if j-i > 4 {
		return m, fmt.Errorf("position out of range 1–%d", len(consensus))
	}
	pos, _ := strconv.Atoi(s[i:j])
	if pos < 1 || pos > len(consensus) {
		return m, fmt.Errorf("position %d is outside %s (1–%d)", pos, gene, len(consensus))
	}
	m.Pos = pos
	m.Consensus = consensus[pos-1]
	if given != 0 && given != m.Consensus {
		return m, fmt.Errorf("the consensus amino acid at %s %d is %c, not %c", gene, pos, m.Consensus, given)
	}
	rest := s[j:]
	if rest == "" {
		return m, fmt.Errorf("no amino acid after the position")
	}
	for k := 0; k < len(rest); {
		r, size := utf8.DecodeRuneInString(rest[k:])
		switch {
		case r == '_':
			ins := rest[k+1:]
			for n := 0; n < len(ins); n++ {
				if c := ins[n]; c < 'A' || c > 'Z' || asi.SymbolSet(c) == 0 || c == 'Z' || c == 'X' {
					return m, fmt.Errorf("%q after _ is not an inserted amino acid", ins[n:n+1])
				}
			}
			m.AAs |= asi.Insertion
			m.Inserted = ins
			return normalizeUnknown(m), nil
		case r == 'd' || r == '~' || r == 'Δ' || r == '-':
			m.AAs |= asi.Deletion
		case r == 'i' || r == '#':
			m.AAs |= asi.Insertion
		case r == '*' || r == 'Z':
			m.AAs |= asi.Stop
		case r >= 'A' && r <= 'Z' && asi.SymbolSet(byte(r)) != 0:
			m.AAs |= asi.SymbolSet(byte(r))
		case r >= 'a' && r <= 'z':
			return m, fmt.Errorf("%q: amino acids are upper case (lower case d and i mean deletion and insertion)", string(r))
		default:
			return m, fmt.Errorf("%q is not an amino acid", string(r))
		}
		k += size
	}
	return normalizeUnknown(m), nil
}

// aminoAcids are the twenty amino-acid bits of an asi.AASet.
const aminoAcids asi.AASet = 1<<20 - 1

// maxMixture is the most amino acids a mixture lists; more show as X (reference doc).
const maxMixture = 6

// normalizeUnknown folds amino acids listed beside X into X: X already says "any amino acid".
// A mixture of more than maxMixture amino acids (after merging duplicates) becomes X too.
// Stop, deletion and insertion are kept.
func normalizeUnknown(m Mutation) Mutation {
	if (m.AAs & aminoAcids).Len() > maxMixture {
		m.AAs |= asi.Unknown
	}
	if m.AAs&asi.Unknown != 0 {
		m.AAs &^= aminoAcids
	}
	return m
}
