package algorithm

import (
	"fmt"
	"strings"
)

// The worst shapes of every construct of the ASI language, each an algorithm of about size
// bytes: the work budget's cost model is calibrated on them (BenchmarkWorkShapes) and
// TestWorkBudgetBoundsEveryShape checks that the largest request each is accepted with
// stays within the CPU bound.

// asiDocument wraps drugs (DRUG elements of the NRTI class on RT), comment definitions,
// mutation comments (RULE elements of RT) and result comments into an algorithm.
func asiDocument(drugNames []string, drugs, commentDefs, mutationComments, resultComments string) string {
	var b strings.Builder
	b.WriteString(`<ALGORITHM><ALGNAME>SHAPE</ALGNAME><ALGVERSION>1</ALGVERSION><DEFINITIONS><GENE_DEFINITION><NAME>RT</NAME><DRUGCLASSLIST>NRTI</DRUGCLASSLIST></GENE_DEFINITION>`)
	b.WriteString(`<LEVEL_DEFINITION><ORDER>1</ORDER><ORIGINAL>S</ORIGINAL><SIR>S</SIR></LEVEL_DEFINITION><LEVEL_DEFINITION><ORDER>2</ORDER><ORIGINAL>R</ORIGINAL><SIR>R</SIR></LEVEL_DEFINITION>`)
	b.WriteString(`<DRUGCLASS><NAME>NRTI</NAME><DRUGLIST>` + strings.Join(drugNames, ",") + `</DRUGLIST></DRUGCLASS><GLOBALRANGE>(-INF TO 9 => 1, 10 TO INF => 2)</GLOBALRANGE>`)
	if commentDefs != "" {
		b.WriteString(`<COMMENT_DEFINITIONS>` + commentDefs + `</COMMENT_DEFINITIONS>`)
	}
	b.WriteString(`</DEFINITIONS>` + drugs)
	if mutationComments != "" {
		b.WriteString(`<MUTATION_COMMENTS><GENE><NAME>RT</NAME>` + mutationComments + `</GENE></MUTATION_COMMENTS>`)
	}
	if resultComments != "" {
		b.WriteString(`<RESULT_COMMENTS>` + resultComments + `</RESULT_COMMENTS>`)
	}
	b.WriteString(`</ALGORITHM>`)
	return b.String()
}

// rtResidue is the i-th residue of a shape: RT positions 1–560 in turn, amino acid L,
// which the worst-case sample (worstSample) carries everywhere.
func rtResidue(i int) string { return fmt.Sprintf("%dL", i%560+1) }

// conditionOf fills a condition of at most limit bytes with item(i) joined by sep.
func conditionOf(limit int, sep string, item func(i int) string) string {
	var b strings.Builder
	for i := 0; ; i++ {
		it := item(i)
		if b.Len()+len(sep)+len(it) > limit {
			return b.String()
		}
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(it)
	}
}

// drugsOf is drugs of rule bodies (RULE elements) until the document reaches size bytes.
func drugsOf(size int, rules func(d int) string) ([]string, string) {
	var names []string
	var b strings.Builder
	for d := 0; b.Len() < size; d++ {
		n := fmt.Sprintf("D%d", d)
		names = append(names, n)
		b.WriteString("<DRUG><NAME>" + n + "</NAME>" + rules(d) + "</DRUG>")
	}
	return names, b.String()
}

const scoreRange = `<ACTIONS><SCORERANGE><USE_GLOBALRANGE/></SCORERANGE></ACTIONS>`

// costShapes are the worst shapes of the language, by name.
func costShapes(size int) []struct{ name, doc string } {
	const cond = 60 << 10 // below asi.MaxConditionBytes with the SCORE FROM ( … ) around it
	scoreItems := "SCORE FROM (" + conditionOf(cond, ", ", func(i int) string { return rtResidue(i) + " => 1" }) + ")"
	var shapes []struct{ name, doc string }
	add := func(name, doc string) { shapes = append(shapes, struct{ name, doc string }{name, doc}) }

	// Long SCORE FROM lists: every item holds and is a partial score.
	names, drugs := drugsOf(size, func(int) string { return "<RULE><CONDITION>" + scoreItems + "</CONDITION>" + scoreRange + "</RULE>" })
	add("score-from-lists", asiDocument(names, drugs, "", "", ""))

	// Short SCORE FROM lists in many rules and drugs.
	names, drugs = drugsOf(size, func(int) string {
		return "<RULE><CONDITION>SCORE FROM (41L => 10, 184V => 5)</CONDITION>" + scoreRange + "</RULE>"
	})
	add("many-drugs", asiDocument(names, drugs, "", "", ""))

	// Many small boolean rules per drug.
	names, drugs = drugsOf(size, func(int) string {
		var b strings.Builder
		for r := range 2000 {
			b.WriteString("<RULE><CONDITION>" + rtResidue(r) + "</CONDITION><ACTIONS><LEVEL>2</LEVEL></ACTIONS></RULE>")
		}
		return b.String()
	})
	add("many-rules", asiDocument(names, drugs, "", "", ""))

	// Large MAX groups, nested.
	maxGroup := func(inner string) string { return "MAX (" + inner + ")" }
	names, drugs = drugsOf(size, func(int) string {
		items := conditionOf(cond/2, ", ", func(i int) string { return rtResidue(i) + " => 1" })
		return "<RULE><CONDITION>SCORE FROM (" + maxGroup(maxGroup(items)) + ", " + maxGroup(conditionOf(cond/2-20, ", ", func(i int) string { return rtResidue(i+7) + " => 2" })) + ")</CONDITION>" + scoreRange + "</RULE>"
	})
	add("max-groups", asiDocument(names, drugs, "", "", ""))

	// Deep AND/OR: parentheses nested to the limit, long chains at each level.
	deep := func() string {
		c := rtResidue(0)
		for d := range 30 {
			c = "(" + c + " AND " + conditionOf(60, " OR ", func(i int) string { return rtResidue(d*7 + i) }) + ")"
		}
		return conditionOf(cond, " OR ", func(int) string { return c })
	}()
	names, drugs = drugsOf(size, func(int) string {
		return "<RULE><CONDITION>" + deep + "</CONDITION><ACTIONS><LEVEL>2</LEVEL></ACTIONS></RULE>"
	})
	add("deep-and-or", asiDocument(names, drugs, "", "", ""))

	// SELECT over long residue lists.
	names, drugs = drugsOf(size, func(int) string {
		return "<RULE><CONDITION>SELECT ATLEAST 1 FROM (" + conditionOf(cond, ", ", rtResidue) + ")</CONDITION><ACTIONS><LEVEL>2</LEVEL></ACTIONS></RULE>"
	})
	add("select-lists", asiDocument(names, drugs, "", "", ""))

	// Drug comments on long SCORE FROM rules: the matches of every item are collected.
	commented := func(size int) (string, string) {
		var defs strings.Builder
		for c := range 8 {
			fmt.Fprintf(&defs, `<COMMENT_STRING id="C%d"><TEXT>comment %d</TEXT></COMMENT_STRING>`, c, c)
		}
		return defs.String(), `<COMMENT ref="C0"/><COMMENT ref="C1"/><COMMENT ref="C2"/><COMMENT ref="C3"/><COMMENT ref="C4"/><COMMENT ref="C5"/><COMMENT ref="C6"/><COMMENT ref="C7"/>`
	}
	defs, refs := commented(size)
	names, drugs = drugsOf(size, func(int) string {
		return "<RULE><CONDITION>" + scoreItems + "</CONDITION><ACTIONS><SCORERANGE><USE_GLOBALRANGE/></SCORERANGE>" + refs + "</ACTIONS></RULE>"
	})
	add("score-lists-with-comments", asiDocument(names, drugs, defs, "", ""))

	// Many mutation comments: many rules, many comments, placeholders in every text.
	var cdefs, rules strings.Builder
	for c := 0; cdefs.Len() < size/2; c++ {
		fmt.Fprintf(&cdefs, `<COMMENT_STRING id="M%d"><TEXT>%s</TEXT></COMMENT_STRING>`, c, conditionOf(2000, " ", func(i int) string { return "$listMutsIn{" + rtResidue(c+i) + "}" }))
	}
	nComments := strings.Count(cdefs.String(), "<COMMENT_STRING")
	for r := 0; rules.Len() < size/2; r++ {
		fmt.Fprintf(&rules, `<RULE><CONDITION>%s</CONDITION><ACTIONS><COMMENT ref="M%d"/></ACTIONS></RULE>`, rtResidue(r), r%nComments)
	}
	add("mutation-comments", asiDocument([]string{"D0"}, `<DRUG><NAME>D0</NAME><RULE><CONDITION>1L</CONDITION><ACTIONS><LEVEL>2</LEVEL></ACTIONS></RULE></DRUG>`, cdefs.String(), rules.String(), ""))

	// Many result comments on drug levels.
	names, drugs = drugsOf(size/4, func(int) string { return `<RULE><CONDITION>41L</CONDITION><ACTIONS><LEVEL>2</LEVEL></ACTIONS></RULE>` })
	var results strings.Builder
	for r := 0; results.Len() < size*3/4; r++ {
		fmt.Fprintf(&results, `<RESULT_COMMENT_RULE><DRUG_LEVEL_CONDITIONS><DRUG_LEVEL_CONDITION><DRUG_NAME>%s</DRUG_NAME><GTE>1</GTE></DRUG_LEVEL_CONDITION><DRUG_LEVEL_CONDITION><DRUG_NAME>%s</DRUG_NAME><GTE>1</GTE></DRUG_LEVEL_CONDITION></DRUG_LEVEL_CONDITIONS><LEVEL_ACTION><COMMENT ref="R%d"/></LEVEL_ACTION></RESULT_COMMENT_RULE>`, names[r%len(names)], names[(r+1)%len(names)], r%64)
	}
	var rdefs strings.Builder
	for c := range 64 {
		fmt.Fprintf(&rdefs, `<COMMENT_STRING id="R%d"><TEXT>result comment %d</TEXT></COMMENT_STRING>`, c, c)
	}
	add("result-comments", asiDocument(names, drugs, rdefs.String(), "", results.String()))
	return shapes
}

// worstSample is the mutation list every shape does the most work for: every RT position
// mutated to L (which every rule names) and M.
func worstSample() [][]string {
	rt := make([]string, 560)
	for p := range rt {
		rt[p] = fmt.Sprintf("%dLM", p+1)
	}
	return [][]string{nil, rt, nil}
}
