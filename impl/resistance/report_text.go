package resistance

import (
	"strconv"
	"strings"

	"github.com/sitelib/sitesvc/impl/align"
)

// textCell keeps a value on one line and inside its column.
func textCell(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, s)
}

// headerText begins report type 3: tab-separated text for batch use. Lines starting with "#"
// are the header (algorithm, report name, method, date); then a column header line and one
// line per input: index, status, error, the PR, RT and IN mutations ("NA" when not
// sequenced), then per drug of the algorithm its score, level and SIR (empty when the drug's
// gene was not sequenced; the score is empty for drugs without a score rule). Sequence
// reports have more columns (sequenceTextColumns).
func (e *Engine) headerText(s *settings) string {
	var b strings.Builder
	b.WriteString("# algorithm\t" + textCell(s.alg.Name+" "+s.alg.Version))
	if s.alg.Date != "" {
		b.WriteString(" (" + textCell(s.alg.Date) + ")")
	}
	b.WriteString("\n# webServiceVersion\t" + WebServiceVersion + "\n")
	if n := strings.TrimSpace(s.opts.ReportName); n != "" {
		b.WriteString("# reportName\t" + textCell(n) + "\n")
	}
	if n := strings.TrimSpace(s.opts.MethodName); n != "" {
		b.WriteString("# methodName\t" + textCell(n) + "\n")
	}
	b.WriteString("# reportDate\t" + textCell(s.date) + "\n")
	var cols []string
	if s.sequences {
		cols = sequenceTextColumns(s)
	} else {
		cols = []string{"input", "status", "error"}
		for _, g := range geneOrder {
			cols = append(cols, g+" mutations")
		}
	}
	for _, d := range s.alg.Drugs {
		cols = append(cols, d.Name+" score", d.Name+" level", d.Name+" SIR")
	}
	b.WriteString(strings.Join(cols, "\t") + "\n")
	return b.String()
}

// sequenceTextColumns are the leading columns of a sequence text report: input, name,
// md5sum, status, error, subtype, per gene (CA, PR, RT, IN) its codons (first-last, "NA" when
// absent) and its mutations, the frameshifts, the removed characters, and with quality on the
// stop-codon, APOBEC and unusual counts, the validation findings ("LEVEL: message; …") and
// the mutations counted, named by gene ("PR: D30N; RT: M184I").
func sequenceTextColumns(s *settings) []string {
	cols := []string{"input", "name", "md5sum", "status", "error", "subtype"}
	for _, g := range sequenceGenes {
		cols = append(cols, g+" codons")
	}
	for _, g := range sequenceGenes {
		cols = append(cols, g+" mutations")
	}
	cols = append(cols, "frameshifts", "removed characters")
	if s.quality {
		cols = append(cols, "stop codons", "APOBEC mutations", "unusual mutations", "validation",
			"stop codon list", "APOBEC mutation list", "APOBEC DRM list", "unusual mutation list")
	}
	return cols
}

// sampleText renders one input's line of report type 3.
func (e *Engine) sampleText(s *settings, smp *sample) string {
	row := []string{strconv.Itoa(smp.Index)}
	lead := 3 + len(geneOrder)
	if s.sequences {
		lead = len(sequenceTextColumns(s))
		name, md5sum := "", ""
		if smp.Seq != nil {
			name, md5sum = textCell(smp.Seq.Name), smp.Seq.MD5
		}
		row = append(row, name, md5sum)
	}
	if smp.Err != "" {
		row = append(row, "failure", textCell(smp.Err))
		for len(row) < lead {
			row = append(row, "")
		}
		for range s.alg.Drugs {
			row = append(row, "", "", "")
		}
		return strings.Join(row, "\t") + "\n"
	}
	row = append(row, "success", "")
	mutations := func(g *geneInput) string {
		if g == nil || !g.Sequenced {
			return "NA"
		}
		ms := make([]string, 0, len(g.Mutations))
		for _, m := range g.Mutations {
			ms = append(ms, m.String())
		}
		return strings.Join(ms, ", ")
	}
	if sq := smp.Seq; sq != nil && s.sequences {
		row = append(row, subtypeLabel(sq))
		var present []*align.GeneResult
		for _, gene := range sequenceGenes {
			g := sq.Genes[gene]
			present = append(present, g)
			if g == nil {
				row = append(row, "NA")
			} else {
				row = append(row, geneRange(g))
			}
		}
		for _, gene := range sequenceGenes {
			row = append(row, mutations(smp.gene(gene)))
		}
		row = append(row, frameshiftList(present...), textCell(sq.Removed))
		if s.quality {
			c := sq.Counts
			var v []string
			for _, x := range sq.Validation {
				v = append(v, x.Level+": "+x.Message)
			}
			f := e.findings(smp)
			row = append(row, strconv.Itoa(c.StopCodons), strconv.Itoa(c.APOBEC), strconv.Itoa(c.Unusual), textCell(strings.Join(v, "; ")),
				byGene(f.Stops), byGene(f.APOBEC), byGene(f.APOBECDRMs), byGene(f.Unusual))
		}
	} else {
		for i := range smp.Genes {
			row = append(row, mutations(&smp.Genes[i]))
		}
	}
	// Result.Drugs is a subsequence of the algorithm's drugs in the same order: one walk
	// over both (a lookup per drug was quadratic in the drugs of a user algorithm).
	next := 0
	for _, d := range s.alg.Drugs {
		if next < len(smp.Result.Drugs) && smp.Result.Drugs[next].Drug == d {
			r := smp.Result.Drugs[next]
			next++
			score := ""
			if r.HasScore {
				score = formatScore(r.Score)
			}
			row = append(row, score, strconv.Itoa(r.Level.Order), r.Level.SIR)
			continue
		}
		row = append(row, "", "", "")
	}
	return strings.Join(row, "\t") + "\n"
}

// subtypeLabel is how the text and HTML reports print a sequence's subtype, as Stanford's
// report prints it: the genotype and its distance, "B (1.41%)". The one place that formats it.
func subtypeLabel(sq *sequenceInput) string {
	if sq.Align == nil {
		return ""
	}
	// Stanford's form: the genotype and its distance ("B (1.41%)"), or
	// "Unknown" beyond every genotype's distance limit.
	if d := sq.Align.Subtype.Display; d != "" {
		return d
	}
	return sq.Align.Subtype.Name + " (" + percent(sq.Align.Subtype.PercentSimilarity) + "%)"
}
