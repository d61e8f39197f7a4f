// Package align aligns HIV-1 nucleotide sequences to the subtype B consensus amino-acid
// sequences of capsid (CA), protease (PR), reverse transcriptase (RT) and integrase (IN), and
// reports per gene the aligned range, the mutations against consensus B, frameshifts and
// quality counts, plus the closest subtype reference.
//
// It is a pure domain package: no HTTP, no SOAP, no files (the reference data come in as an
// fs.FS). docs/alignment.md describes the method, its scores and limits.
package align

import (
	"errors"
	"strconv"
	"strings"
)

// Gene names a gene the aligner analyses.
type Gene string

// The analysed genes, in report order.
const (
	CA Gene = "CA"
	PR Gene = "PR"
	RT Gene = "RT"
	IN Gene = "IN"
)

// AllGenes lists the analysed genes in report order (CA, PR, RT, IN).
func AllGenes() []Gene { return []Gene{CA, PR, RT, IN} }

// Limits on the input of Align. The caller (the SOAP side) enforces the same bounds with its
// own messages; Align checks them again so that it never runs unbounded.
const (
	MinNucleotides = 30
	MaxNucleotides = 13000
)

// Errors of Align; test them with errors.Is.
var (
	// ErrTooShort and ErrTooLong: the input is outside MinNucleotides..MaxNucleotides.
	ErrTooShort = errors.New("sequence too short")
	ErrTooLong  = errors.New("sequence too long")
	// ErrInvalidChar: the input holds a byte that is not an upper-case IUPAC nucleotide code
	// (ACGTU RYKMSWBDHVN); the caller is expected to have cleaned the input.
	ErrInvalidChar = errors.New("invalid nucleotide character")
	// ErrNoGene: neither CA, PR, RT nor IN was found (in either orientation).
	ErrNoGene = errors.New("no PR, RT, IN or CA found in the sequence")
)

// Result is the analysis of one nucleotide sequence.
type Result struct {
	// ReverseComplemented is true when the input aligned better as its reverse complement; it
	// was then analysed as the reverse complement, and every nucleotide position (FirstNA,
	// LastNA) refers to that reverse complement. Reports flag it as a warning.
	ReverseComplemented bool
	// Analysed is the sequence actually analysed: the input, or its reverse complement.
	Analysed []byte
	// Genes holds the present genes in the order CA, PR, RT, IN. A gene is present when at
	// least MinCodons(gene) of its codons are aligned and its MatchPercent is at least 60.
	Genes []GeneResult
	// Discarded lists the genes (report order) the alignment read at least
	// MinDiscardedCodons codons of but did not keep: too few codons, a match below 60%, or
	// too much trimmed for poor quality. Reports warn that the sequence may hold such a
	// gene (Stanford's "gene not aligned" finding).
	Discarded []Gene
	// Subtype is the closest subtype reference over the aligned PR/RT/IN region.
	Subtype Subtype
	// NotHIV1 is set when the sequence is not HIV-1 (HIV-2, say): far from every HIV-1
	// reference and full of amino acids HIV-1 does not have (nothiv1.go). Its genes are
	// still given; the resistance reports refuse to interpret them.
	NotHIV1 *NotHIV1

	// parts: gene parts shorter than the gene's minimum, kept during Align to be joined
	// across a run of N (joinParts); always nil in a returned Result.
	parts []GeneResult
}

// Gene returns the result for gene g, or nil when g is not present.
func (r *Result) Gene(g Gene) *GeneResult {
	for i := range r.Genes {
		if r.Genes[i].Gene == g {
			return &r.Genes[i]
		}
	}
	return nil
}

// Subtype is the subtype as HIVDB determines and prints it (docs/alignment.md, Subtype):
// the closest reference of genotype-references_hiv1.json, judged against its genotype's own
// distance limit in genotypes_hiv1.yml.
type Subtype struct {
	// Name is what HIVDB's reports show: the genotype's display name ("B", "CRF01_AE"), a
	// CRF's regional genotype ("B" for a CRF03_A6B match inside its B region), its parents
	// ("A1 + G") when the match is beyond the CRF's limit, or "Unknown" (farther than 11%
	// from every reference, or fewer than MinSubtypeNAs positions to compare).
	Name string
	// Display is the report form: Name and the distance, "B (1.41%)"; "Unknown" alone.
	Display string
	// Genotype is the display name of the chosen reference's own genotype ("" when no
	// comparison was possible).
	Genotype string
	// Accession of the chosen reference sequence ("" when no comparison was possible).
	Accession string
	// Distance is the share of compared positions that differ (0..1); DistancePercent is
	// it as HIVDB prints it ("1.41%").
	Distance        float64
	DistancePercent string
	// PercentSimilarity is 100 × (1 − Distance), rounded to two decimals.
	PercentSimilarity float64
	// Compared is the number of nucleotide positions compared.
	Compared int
}

// MinDiscardedCodons is how many codons of a gene the alignment must have read for a gene
// it did not keep to count as discarded (Result.Discarded): fewer are the free end of an
// alignment running into the next gene, not a part of the sequence left out.
const MinDiscardedCodons = 10

// Subtype classification limits.
const (
	UnknownDistance = unknownDistance
	MinSubtypeNAs   = 90
)

// GeneResult is the alignment of one gene.
//
// Conventions: positions FirstAA..LastAA are codon numbers in the gene (1-based);
// FirstNA..LastNA are 1-based positions in Result.Analysed of the first nucleotide of codon
// FirstAA and the last nucleotide of codon LastAA. Ends trimmed for low quality are excluded
// from both ranges, from the aligned sequences and from the mutations, and so are leading
// and trailing deletions and unsequenced codons; as in HIVDB, the nucleotide range of the
// whole alignment then moves inwards by exactly three per dropped codon (which differs from
// the kept codons' own range only when a dropped codon was a deletion or carried a
// frameshift).
type GeneResult struct {
	Gene         Gene
	FirstAA      int
	LastAA       int
	FirstNA      int
	LastNA       int
	LeftTrimmed  int // codons trimmed at the start for low quality
	RightTrimmed int // codons trimmed at the end for low quality
	// AlignedNA holds three characters per consensus codon FirstAA..LastAA: the nucleotides
	// read for that codon, '-' for a nucleotide missing (deleted codon "---", or a codon
	// shortened by a frameshift deletion: the read nucleotides first, "AG-"). Inserted nucleotides are not included
	// (see Mutation.InsertedCodons and Frameshift.NAs), so len(AlignedNA) = 3×(LastAA−FirstAA+1).
	AlignedNA string
	// AlignedAA holds one character per consensus codon FirstAA..LastAA: the amino acid when
	// the codon translates to exactly one ('*' for stop), 'X' for a codon translating to
	// several amino acids or shortened by a frameshift, '-' for a deleted codon.
	AlignedAA string
	// MatchPercent is the share of matching nucleotides as HIVDB counts it over
	// FirstAA..LastAA: every codon (inserted codons too) counts three nucleotides and a
	// frameshift insertion its own; the codons of Mutations and the frameshift-inserted
	// nucleotides are the mismatches. Unsequenced codons count as matches.
	MatchPercent float64
	// Mutations are the differences from consensus B in codon order (see Mutation).
	Mutations []Mutation
	// Frameshifts are the indels whose length is not a multiple of three, in codon order.
	Frameshifts []Frameshift
	// Quality counts over FirstAA..LastAA.
	StopCodons        int // codons that can translate to a stop
	AmbiguousCodons   int // codons with an IUPAC mixture translating to more than one amino acid
	UnsequencedCodons int // codons with more than one N (never mutations)
	// The codon numbers counted in StopCodons, AmbiguousCodons and UnsequencedCodons.
	StopPositions        []int
	AmbiguousPositions   []int
	UnsequencedPositions []int
	// readFrom, readTo: the 0-based nucleotides [readFrom, readTo) the codons FirstAA..LastAA
	// are read from. FirstNA/LastNA follow HIVDB's convention (moved inwards by three per
	// end codon dropped, whatever it read); joining gene parts needs where they really are.
	readFrom, readTo int
	// trimmedMutations are the mutations of the codons trimmed for poor quality
	// (LeftTrimmed, RightTrimmed): not reported, but evidence that the sequence is not
	// HIV-1 (notHIV1), since trimming removes exactly the unusual amino acids that tell it.
	trimmedMutations []Mutation
}

// Mutation is one difference from the consensus at a codon: a substitution (possibly a
// mixture), an insertion after the codon, a deletion of the codon, or a codon made partial
// by a frameshift.
type Mutation struct {
	Gene      Gene
	Position  int  // codon number in the gene
	Consensus byte // consensus B amino acid
	// AAs is the sorted set of amino acids the codon can translate to ('*' for stop); "X"
	// when there are more than MaxDisplayAAs, or when the codon is partial (frameshift). Empty
	// for a deletion.
	AAs string
	// Codon is the triplet as read; for a codon shortened by a frameshift, '-' marks the
	// missing nucleotides where the read ones fit a consensus codon best ("-AG" for K,
	// HIVDB's placement). Empty for a deletion.
	Codon string
	// Insertion: amino acids were inserted after this codon. InsertedAAs holds one character
	// per inserted codon (its amino acid, or 'X' when ambiguous); InsertedCodons the inserted
	// whole codons (nucleotides of a frameshift insertion excluded).
	Insertion      bool
	InsertedAAs    string
	InsertedCodons string
	// Deletion: the consensus codon is missing.
	Deletion bool
	// Mixture: the codon holds IUPAC codes and translates to more than one amino acid.
	Mixture bool
	// Partial: the codon is shortened by a frameshift deletion (AAs is "X").
	Partial bool
	// Stop: the codon can translate to a stop codon.
	Stop bool
}

// MaxDisplayAAs is the largest number of amino acids a mixture shows; more are shown as X.
const MaxDisplayAAs = 6

// AAString returns the observed amino acids as reports show them: the consensus first when
// present, then the others in order ("LI" for L74 with I and L). "Deletion" for a deletion;
// for an insertion the codon's amino acids then "_" and the inserted ones ("S_SA").
func (m Mutation) AAString() string {
	if m.Deletion {
		return "Deletion"
	}
	var b strings.Builder
	if strings.IndexByte(m.AAs, m.Consensus) >= 0 && len(m.AAs) > 1 {
		b.WriteByte(m.Consensus)
		for i := 0; i < len(m.AAs); i++ {
			if m.AAs[i] != m.Consensus {
				b.WriteByte(m.AAs[i])
			}
		}
	} else {
		b.WriteString(m.AAs)
	}
	if m.Insertion {
		b.WriteByte('_')
		b.WriteString(m.InsertedAAs)
	}
	return b.String()
}

// String formats the mutation as the oracle files' mutationListString does: T69S_SA,
// M46Deletion, I13X, L74LI, W6*.
func (m Mutation) String() string {
	return string(m.Consensus) + strconv.Itoa(m.Position) + m.AAString()
}

// FrameshiftKind tells a frameshift insertion from a deletion.
type FrameshiftKind string

// Frameshift kinds, as the oracle files spell them.
const (
	FrameshiftInsertion FrameshiftKind = "INSERTION"
	FrameshiftDeletion  FrameshiftKind = "DELETION"
)

// Frameshift is an indel whose length is not a multiple of three. Its nucleotides are kept
// out of the amino-acid calls.
type Frameshift struct {
	Gene     Gene
	Position int // codon number after which nucleotides were inserted, or whose nucleotides were deleted
	Kind     FrameshiftKind
	Size     int    // nucleotides inserted or deleted, modulo whole codons (1 or 2)
	NAs      string // the inserted nucleotides (insertions only)
}

// String formats the frameshift as HIVDB reports do: "PR7ins1bp_C", "RT12del1bp".
func (f Frameshift) String() string {
	s := string(f.Gene) + strconv.Itoa(f.Position)
	if f.Kind == FrameshiftInsertion {
		return s + "ins" + strconv.Itoa(f.Size) + "bp_" + f.NAs
	}
	return s + "del" + strconv.Itoa(f.Size) + "bp"
}

// MinCodons returns the number of aligned codons a gene needs to count as present: PR 30,
// RT 50, IN 50, CA 50, the minimum sizes of HIVDB's current program (hivdb/hivfacts
// alignment-config_hiv1.json, minNumOfAA).
func MinCodons(g Gene) int {
	switch g {
	case PR:
		return 30
	case RT:
		return 50
	case IN:
		return 50
	default:
		return 50
	}
}

// MinMatchPercent is the amino-acid match percentage below which a gene is not present.
const MinMatchPercent = 60.0
