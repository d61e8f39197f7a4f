package align

import (
	"errors"
	"fmt"
	"io/fs"
)

// Aligner aligns nucleotide sequences to the consensus B genes. It holds only read-only
// tables after NewAligner, so one Aligner is safe for concurrent use by many goroutines.
type Aligner struct {
	genes    map[Gene]geneRef
	subtypes []subtypeRef
}

// NewAligner reads the reference data from reference, the hivdb reference/ directory
// (genes_hiv1.yml, genotype-references_hiv1.json, genotypes_hiv1.yml).
func NewAligner(reference fs.FS) (*Aligner, error) {
	genes, err := readGenes(reference)
	if err != nil {
		return nil, fmt.Errorf("align: %w", err)
	}
	subtypes, err := readSubtypes(reference)
	if err != nil {
		return nil, fmt.Errorf("align: %w", err)
	}
	return &Aligner{genes: genes, subtypes: subtypes}, nil
}

// Consensus returns the consensus B amino-acid sequence of gene g ("" for an unknown gene).
func (a *Aligner) Consensus(g Gene) string { return a.genes[g].consensus }

// Align analyses one sequence of upper-case IUPAC nucleotides (the caller removes other
// characters and enforces the length limits; Align checks them again and never panics).
// It returns ErrTooShort, ErrTooLong or ErrInvalidChar for bad input, and ErrNoGene when no
// gene is present in either orientation.
func (a *Aligner) Align(nucleotides []byte) (*Result, error) {
	return nil, errors.New("align: not implemented yet")
}
