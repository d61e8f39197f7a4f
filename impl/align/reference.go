package align

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"strings"
)

// geneRef is one gene's consensus and its place in HXB2.
type geneRef struct {
	gene      Gene
	consensus string // consensus B amino acids
	hxb2First int    // HXB2 position of the first nucleotide of codon 1
}

// readGenes reads the consensus amino-acid sequences and HXB2 starts of CA, PR, RT and IN
// from genes_hiv1.yml. The file is a YAML list; only the few keys needed are read, so a
// line-oriented reader is enough (the data are small and regular).
func readGenes(ref fs.FS) (map[Gene]geneRef, error) {
	data, err := fs.ReadFile(ref, "genes_hiv1.yml")
	if err != nil {
		return nil, fmt.Errorf("reading genes_hiv1.yml: %w", err)
	}
	out := map[Gene]geneRef{}
	var name, seq string
	var inSeq bool
	var seqBuf strings.Builder
	flush := func(rangesLine string) error {
		g := Gene(strings.TrimPrefix(name, "HIV1"))
		switch g {
		case CA, PR, RT, IN:
		default:
			return nil
		}
		var first, last int
		if _, err := fmt.Sscanf(rangesLine, "[[%d, %d]]", &first, &last); err != nil {
			return fmt.Errorf("genes_hiv1.yml: %s refRanges %q: %w", name, rangesLine, err)
		}
		if len(seq) == 0 || (last-first+1) != 3*len(seq) {
			return fmt.Errorf("genes_hiv1.yml: %s: %d amino acids do not fill HXB2 %d-%d", name, len(seq), first, last)
		}
		out[g] = geneRef{gene: g, consensus: seq, hxb2First: first}
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case inSeq:
			seqBuf.WriteString(strings.Trim(line, "\"\\"))
			if strings.HasSuffix(line, "\"") {
				inSeq = false
				seq = seqBuf.String()
			}
		case strings.HasPrefix(line, "- name:"):
			name = strings.TrimSpace(strings.TrimPrefix(line, "- name:"))
			seq = ""
		case strings.HasPrefix(line, "refSequence:"):
			seqBuf.Reset()
			rest := strings.TrimSpace(strings.TrimPrefix(line, "refSequence:"))
			inSeq = true
			if rest != "" {
				seqBuf.WriteString(strings.Trim(rest, "\"\\"))
				if len(rest) > 1 && strings.HasSuffix(rest, "\"") {
					inSeq = false
					seq = seqBuf.String()
				}
			}
		case strings.HasPrefix(line, "refRanges:"):
			if err := flush(strings.TrimSpace(strings.TrimPrefix(line, "refRanges:"))); err != nil {
				return nil, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading genes_hiv1.yml: %w", err)
	}
	for _, g := range AllGenes() {
		if _, ok := out[g]; !ok {
			return nil, fmt.Errorf("genes_hiv1.yml: gene HIV1%s missing", g)
		}
		for _, c := range []byte(out[g].consensus) {
			if aaIndex(c) < 0 || c == '*' {
				return nil, fmt.Errorf("genes_hiv1.yml: HIV1%s: unexpected amino acid %q", g, c)
			}
		}
	}
	return out, nil
}
