package resistance

import (
	"strconv"
	"strings"
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

// renderText renders report type 3: tab-separated text for batch use. Lines starting with "#"
// are the header (algorithm, report name, method, date); then a column header line and one
// line per input: index, status, error, the PR, RT and IN mutations ("NA" when not
// sequenced), then per drug of the algorithm its score, level and SIR (empty when the drug's
// gene was not sequenced; the score is empty for drugs without a score rule).
func (e *Engine) renderText(s *settings, samples *batch) (string, error) {
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
	cols := []string{"input", "status", "error"}
	for _, g := range geneOrder {
		cols = append(cols, g+" mutations")
	}
	for _, d := range s.alg.Drugs {
		cols = append(cols, d.Name+" score", d.Name+" level", d.Name+" SIR")
	}
	b.WriteString(strings.Join(cols, "\t") + "\n")
	for smp := range samples.each(b.Len) {
		row := []string{strconv.Itoa(smp.Index)}
		if smp.Err != "" {
			row = append(row, "failure", textCell(smp.Err))
			for range geneOrder {
				row = append(row, "")
			}
			for range s.alg.Drugs {
				row = append(row, "", "", "")
			}
			b.WriteString(strings.Join(row, "\t") + "\n")
			continue
		}
		row = append(row, "success", "")
		for _, g := range smp.Genes {
			if !g.Sequenced {
				row = append(row, "NA")
				continue
			}
			var ms []string
			for _, m := range g.Mutations {
				ms = append(ms, m.String())
			}
			row = append(row, strings.Join(ms, ", "))
		}
		// Result.Drugs is a subsequence of the algorithm's drugs in the same order: one
		// walk over both (a lookup per drug was quadratic in the drugs of a user algorithm).
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
		b.WriteString(strings.Join(row, "\t") + "\n")
	}
	if samples.err != nil {
		return "", samples.err
	}
	return b.String(), nil
}
