package resistance

import (
	"sort"
	"strconv"
	"strings"

	"github.com/sitelib/sitesvc/impl/asi"
)

// ScoringMatrix returns the default algorithm's mutation-score table as tab-separated text:
// comment lines ("#") naming the algorithm and version, a column header line (gene, drug
// class, rule, then one column per drug with a score rule), then one line per scored mutation
// or combination. A cell is the score the rule adds for that drug, 0 when the drug's rule does
// not score it, and empty for drugs of another class.
func (e *Engine) ScoringMatrix() string { return e.matrix }

type matrixRow struct {
	gene, class, label string
	firstPos, size     int
	scores             map[string]float64
}

func (e *Engine) scoringMatrix(a *asi.Algorithm) string {
	var drugs []*asi.Drug
	for _, d := range a.Drugs {
		if d.HasScore() {
			drugs = append(drugs, d)
		}
	}
	var b strings.Builder
	b.WriteString("# " + a.Name + " " + a.Version)
	if a.Date != "" {
		b.WriteString(" (" + a.Date + ")")
	}
	b.WriteString(" mutation scores\n")
	b.WriteString("# one row per scored mutation or combination; rows of one MAX group are not added together: the group adds only its largest score\n")
	cols := []string{"gene", "class", "rule"}
	for _, d := range drugs {
		cols = append(cols, d.Name)
	}
	b.WriteString(strings.Join(cols, "\t") + "\n")
	for _, class := range a.Classes {
		rows := map[string]*matrixRow{}
		var order []*matrixRow
		var add func(d *asi.Drug, items []asi.ScoreItem)
		add = func(d *asi.Drug, items []asi.ScoreItem) {
			for i := range items {
				it := &items[i]
				if it.IsMax() {
					add(d, it.Max)
					continue
				}
				row := rows[it.Text]
				if row == nil {
					row = &matrixRow{gene: d.Gene, class: class.Name, label: it.Text, scores: map[string]float64{}}
					if rs, ok := it.Residues(); ok {
						var parts []string
						for _, r := range rs {
							parts = append(parts, e.residueLabel(d.Gene, r))
						}
						row.label = strings.Join(parts, " + ")
						row.firstPos, row.size = rs[0].Pos, len(rs)
					} else {
						row.firstPos, row.size = 1<<30, 1<<30
					}
					rows[it.Text] = row
					order = append(order, row)
				}
				row.scores[d.Name] += it.Value
			}
		}
		for _, d := range drugs {
			if d.Class != class.Name {
				continue
			}
			for _, r := range d.Rules {
				if r.Condition.IsScore() {
					add(d, r.Condition.Items())
				}
			}
		}
		sort.SliceStable(order, func(i, j int) bool {
			x, y := order[i], order[j]
			if x.size == 1 || y.size == 1 {
				if x.size != y.size {
					return x.size < y.size // single mutations first, then combinations
				}
			}
			return x.firstPos < y.firstPos
		})
		for _, row := range order {
			line := []string{row.gene, row.class, row.label}
			for _, d := range drugs {
				switch {
				case d.Class != class.Name:
					line = append(line, "")
				default:
					line = append(line, formatScore(row.scores[d.Name]))
				}
			}
			b.WriteString(strings.Join(line, "\t") + "\n")
		}
	}
	return b.String()
}

// residueLabel renders a rule residue with its consensus letter: 41L → M41L, 215FY → T215FY,
// 69i → T69i, 41(NOT L) → M41(NOT L).
func (e *Engine) residueLabel(gene string, r asi.Residue) string {
	label := string(e.ref.consensusAt(gene, r.Pos)) + strconv.Itoa(r.Pos)
	if gene == "" {
		label = strconv.Itoa(r.Pos)
	}
	if r.Inverted {
		return label + "(NOT " + r.AAs.String() + ")"
	}
	return label + r.AAs.String()
}
