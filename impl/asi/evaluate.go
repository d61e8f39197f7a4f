package asi

import (
	"strconv"
	"strings"
)

// Input is what an algorithm is evaluated against: the mutations of each sequenced gene.
// A gene missing from Genes was not sequenced: its drugs and comments are left out.
type Input struct {
	Genes map[string]*Mutations
	// Format renders an observed mutation for comment placeholders ($listMutsIn{…});
	// nil renders position and symbols ("118K").
	Format func(gene string, m Match) string
}

// Result is an algorithm's interpretation of one input.
type Result struct {
	Drugs    []DrugResult    // drugs of the sequenced genes, in the algorithm's order
	Comments []CommentResult // mutation comments (gene order), then drug-rule and result comments
}

// DrugResult is the interpretation for one drug.
type DrugResult struct {
	Drug     *Drug
	Level    Level
	HasScore bool    // the drug has a SCORE FROM rule
	Score    float64 // the largest score of its SCORE FROM rules
	Partials []Partial
}

// CommentResult is one triggered comment.
type CommentResult struct {
	Comment *Comment
	Kind    string // "mutation", "drug" (a drug rule's COMMENT action) or "result"
	Gene    string
	Drug    string  // the drug of a "drug" comment, the first drug of a "result" comment
	Matches []Match // observed positions that triggered a mutation or drug comment
	Text    string  // Comment.Text with placeholders filled in
}

// Evaluate interprets the input. It never fails: the algorithm was validated when it was read.
func (a *Algorithm) Evaluate(in Input) *Result {
	res := &Result{Drugs: make([]DrugResult, 0, len(a.Drugs))}
	seen := map[string]bool{}
	addComment := func(c CommentResult) {
		if seen[c.Comment.ID] {
			return
		}
		seen[c.Comment.ID] = true
		c.Text = a.fill(c.Comment.Text, c.Gene, in)
		res.Comments = append(res.Comments, c)
	}
	for _, gc := range a.MutationComments {
		g, ok := in.Genes[gc.Gene]
		if !ok || g == nil {
			continue
		}
		for _, r := range gc.Rules {
			if !r.Condition.Holds(g) || allSeen(r.Comments, seen) {
				continue
			}
			ms := r.Condition.Matches(g)
			for _, id := range r.Comments {
				addComment(CommentResult{Comment: a.Comments[id], Kind: "mutation", Gene: gc.Gene, Matches: ms})
			}
		}
	}
	levels := map[string]int{}
	for _, d := range a.Drugs {
		g, ok := in.Genes[d.Gene]
		if d.Gene == "" || !ok || g == nil {
			continue
		}
		dr := DrugResult{Drug: d, Partials: make([]Partial, 0, 16)}
		level := 0
		for _, r := range d.Rules {
			var holds bool
			if r.Condition.IsScore() {
				var score float64
				score, dr.Partials = r.Condition.ScoreDetail(g, dr.Partials)
				if !dr.HasScore || score > dr.Score {
					dr.Score = score
				}
				dr.HasScore = true
				if lv, ok := r.Ranges.Level(score); ok && lv > level {
					level = lv
				}
				holds = score != 0
			} else {
				holds = r.Condition.Holds(g)
				if holds && r.Level > level {
					level = r.Level
				}
			}
			if holds && !allSeen(r.Comments, seen) {
				// The matches once per rule, not once per comment it names.
				ms := r.Condition.Matches(g)
				for _, id := range r.Comments {
					addComment(CommentResult{Comment: a.Comments[id], Kind: "drug", Gene: d.Gene, Drug: d.Name, Matches: ms})
				}
			}
		}
		if level == 0 {
			level = a.DefaultLevel
		}
		dr.Level = a.Level(level)
		levels[d.Name] = level
		res.Drugs = append(res.Drugs, dr)
	}
	for _, rc := range a.ResultComments {
		if !rc.holds(levels) {
			continue
		}
		drug := a.Drug(rc.Conditions[0].Drug)
		for _, id := range rc.Comments {
			addComment(CommentResult{Comment: a.Comments[id], Kind: "result", Gene: drug.Gene, Drug: drug.Name})
		}
	}
	return res
}

// allSeen reports whether every comment of ids was triggered already (its matches need not
// be computed again).
func allSeen(ids []string, seen map[string]bool) bool {
	for _, id := range ids {
		if !seen[id] {
			return false
		}
	}
	return true
}

func (rc *ResultCommentRule) holds(levels map[string]int) bool {
	for _, c := range rc.Conditions {
		lv, ok := levels[c.Drug]
		if !ok {
			return false // the drug was not evaluated (gene not sequenced)
		}
		var hold bool
		switch c.Op {
		case "EQ":
			hold = lv == c.Value
		case "NEQ":
			hold = lv != c.Value
		case "LT":
			hold = lv < c.Value
		case "LTE":
			hold = lv <= c.Value
		case "GT":
			hold = lv > c.Value
		case "GTE":
			hold = lv >= c.Value
		}
		if !hold {
			return false
		}
	}
	return true
}

// fill expands $listMutsIn{residue} placeholders: the observed mutations matching the residue.
func (a *Algorithm) fill(text, gene string, in Input) string {
	const marker = "$listMutsIn{"
	if !strings.Contains(text, marker) {
		return text
	}
	var b strings.Builder
	for {
		i := strings.Index(text, marker)
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		j := strings.IndexByte(text[i:], '}')
		if j < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		spec := text[i+len(marker) : i+j]
		text = text[i+j+1:]
		r, err := ParseResidue(spec)
		if err != nil {
			b.WriteString(spec)
			continue
		}
		g := in.Genes[gene]
		m := Match{Pos: r.Pos, AAs: r.HoldsAt(g.At(r.Pos))}
		switch {
		case m.AAs == 0:
			b.WriteString(spec)
		case in.Format != nil:
			b.WriteString(in.Format(gene, m))
		default:
			b.WriteString(strconv.Itoa(m.Pos) + m.AAs.String())
		}
	}
}
