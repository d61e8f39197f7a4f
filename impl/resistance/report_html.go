package resistance

import (
	"html"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/sitelib/sitesvc/impl/asi"
)

// The HTML report (type 4, reportOptions type=html or the word HTML; sitesvc analyze
// --report html) is the report a clinician reads: one self-contained document (inline
// styles, no scripts, fonts, images or links outside it; a Content-Security-Policy forbids
// any request), a summary table of the batch first, then one printable page per input in the
// order of Stanford's HIVdb report: sequence summary (genes and codon ranges, subtype,
// quality findings), drug resistance by drug class (levels in words, a colour and a level
// meter beside them), mutations by class, comments. docs/algorithm-reports.md shows it.

// htmlStyle is the report's whole stylesheet, screen and print.
const htmlStyle = `
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: #1a1a1a; background: #fff; margin: 0 auto; max-width: 62rem; padding: 1rem 1.5rem 3rem; line-height: 1.4; }
h1 { font-size: 1.6rem; margin: .5rem 0; }
h2 { font-size: 1.35rem; margin: 0 0 .6rem; border-bottom: 2px solid #1a1a1a; padding-bottom: .2rem; }
h3 { font-size: 1.1rem; margin: 1.2rem 0 .4rem; }
h4 { font-size: 1rem; margin: .8rem 0 .3rem; }
table { border-collapse: collapse; width: 100%; margin: .3rem 0 .8rem; font-size: .95rem; }
caption { text-align: left; font-weight: 600; padding: .2rem 0; }
th, td { border: 1px solid #8a8a8a; padding: .25rem .45rem; text-align: left; vertical-align: top; }
thead th { background: #ececec; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; margin: .3rem 0 1rem; }
dl.meta dt { font-weight: 600; }
dl.meta dd { margin: 0; }
section.batch, section.input { margin: 1.5rem 0 2.5rem; }
.level { display: inline-block; padding: .05rem .4rem; border-radius: .2rem; border-left: .45rem solid; font-weight: 600; white-space: nowrap; }
.meter { letter-spacing: .05rem; margin-right: .3rem; font-weight: 400; }
.lv0 { background: #e3f2e6; border-color: #1d6b32; }
.lv1 { background: #eef5d6; border-color: #5c7a12; }
.lv2 { background: #fff2bf; border-color: #8a6d00; }
.lv3 { background: #ffdcae; border-color: #a34b00; }
.lv4 { background: #ffd0d0; border-color: #a4001d; }
.finding { margin: .2rem 0; }
.finding .badge { min-width: 8.5rem; }
.batch caption { font-weight: 400; }
.badge { display: inline-block; font-weight: 700; padding: 0 .35rem; margin-right: .4rem; border: 1px solid; border-radius: .2rem; }
.badge-note { background: #e8f0fb; border-color: #2a5597; }
.badge-warning { background: #fff2bf; border-color: #8a6d00; }
.badge-severe { background: #ffd0d0; border-color: #a4001d; }
.tag { font-size: .85em; font-style: italic; color: #3d3d3d; }
.drm { font-weight: 700; }
.failure { background: #ffd0d0; border: 1px solid #a4001d; padding: .4rem .6rem; }
.muted { color: #4a4a4a; }
ul.plain { padding-left: 1.2rem; margin: .2rem 0; }
a { color: #0b4f9c; }
@media print {
  body { max-width: none; padding: 0; font-size: 10pt; }
  section.input { break-before: page; page-break-before: always; margin: 0; }
  tr, .finding, li { break-inside: avoid; page-break-inside: avoid; }
  a { color: inherit; text-decoration: none; }
  .level, .badge, thead th { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
@page { margin: 14mm 12mm; }
`

// esc escapes text for HTML element content and attribute values.
func esc(s string) string { return html.EscapeString(s) }

// headerHTML begins the HTML report: the document head and the report's header.
func (e *Engine) headerHTML(s *settings) string {
	var b strings.Builder
	title := "HIV-1 drug resistance report"
	b.WriteString(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>`)
	if n := strings.TrimSpace(s.opts.ReportName); n != "" {
		b.WriteString(esc(n) + " — ")
	}
	b.WriteString(title + "</title>\n<style>" + htmlStyle + "</style>\n</head>\n<body>\n<header>\n<h1>" + title + "</h1>\n<dl class=\"meta\">\n")
	alg := s.alg.Name + " " + s.alg.Version
	if s.alg.Date != "" {
		alg += " (" + s.alg.Date + ")"
	}
	meta := func(k, v string) {
		if v = strings.TrimSpace(v); v != "" {
			b.WriteString("<dt>" + k + "</dt><dd>" + esc(v) + "</dd>\n")
		}
	}
	meta("Report", s.opts.ReportName)
	meta("Method", s.opts.MethodName)
	meta("Algorithm", alg)
	meta("Date", s.date)
	b.WriteString("</dl>\n</header>\n<main>\n")
	return b.String()
}

// footerHTML ends the HTML report.
func footerHTML() string {
	return "</main>\n</body>\n</html>\n"
}

// summaryHTML is the batch summary table: one row per input (summaryRowHTML).
func summaryHTML(s *settings, rows []string) string {
	var b strings.Builder
	what := "mutation lists"
	if s.sequences {
		what = "sequences"
	}
	n := strconv.Itoa(len(rows))
	if len(rows) == 1 {
		what = strings.TrimSuffix(what, "s")
	}
	b.WriteString(`<section class="batch" aria-labelledby="summary">
<h2 id="summary">Summary of ` + n + " " + what + `</h2>
<table>
<caption>Each row links to the input's page below. Resistance lists the drugs with low-level resistance or more (intermediate or resistant in three steps).</caption>
<thead><tr><th scope="col">#</th><th scope="col">Input</th><th scope="col">Genes (codons)</th>`)
	if s.sequences {
		b.WriteString(`<th scope="col">Subtype</th><th scope="col">Quality</th>`)
	}
	b.WriteString(`<th scope="col">Resistance</th></tr></thead>
<tbody>
`)
	for _, r := range rows {
		b.WriteString(r)
	}
	b.WriteString("</tbody>\n</table>\n</section>\n")
	return b.String()
}

// inputName is how the HTML report names an input.
func (smp *sample) inputName() string {
	if smp.Seq != nil {
		if smp.Seq.Name != "" {
			return smp.Seq.Name
		}
		return "unnamed sequence"
	}
	return "mutation list " + strconv.Itoa(smp.Index)
}

// geneRanges names the genes of an input: "PR 1–99, RT 1–240" for a sequence, "PR, RT"
// for mutation lists.
func (smp *sample) geneRanges() string {
	var parts []string
	for _, g := range smp.allGenes() {
		if !g.Sequenced {
			continue
		}
		if smp.Seq != nil {
			if ag := smp.Seq.Genes[g.Gene]; ag != nil {
				parts = append(parts, g.Gene+" "+strconv.Itoa(ag.FirstAA)+"–"+strconv.Itoa(ag.LastAA))
				continue
			}
		}
		parts = append(parts, g.Gene)
	}
	return strings.Join(parts, ", ")
}

// summaryRowHTML is one input's row of the batch summary.
func (e *Engine) summaryRowHTML(s *settings, smp *sample) string {
	var b strings.Builder
	id := "input-" + strconv.Itoa(smp.Index)
	b.WriteString(`<tr><td><a href="#` + id + `">` + strconv.Itoa(smp.Index) + "</a></td><td>" + esc(smp.inputName()) + "</td>")
	if smp.Err != "" {
		cols := 2
		if s.sequences {
			cols = 4
		}
		b.WriteString(`<td colspan="` + strconv.Itoa(cols) + `"><strong>Analysis failed:</strong> ` + esc(smp.Err) + "</td></tr>\n")
		return b.String()
	}
	b.WriteString("<td>" + esc(smp.geneRanges()) + "</td>")
	if s.sequences && smp.Seq != nil {
		b.WriteString("<td>" + esc(subtypeLabel(smp.Seq)) + "</td><td>")
		if s.quality {
			b.WriteString(findingsSummary(smp.Seq.Validation))
		} else {
			b.WriteString(`<span class="muted">not requested</span>`)
		}
		b.WriteString("</td>")
	}
	b.WriteString("<td>" + resistanceSummary(smp.Result) + "</td></tr>\n")
	return b.String()
}

// findingsSummary is a short account of the quality findings: the worst level and how
// many findings there are.
func findingsSummary(vs []Validation) string {
	worst := worstLevel(vs)
	if worst == "" {
		return "no findings"
	}
	return badge(worst) + strconv.Itoa(len(vs)) + " " + plural(len(vs), "finding", "findings")
}

// badge is a validation level written out, styled by its level.
func badge(level string) string {
	class := "badge-note"
	switch level {
	case LevelWarning:
		class = "badge-warning"
	case LevelSevereWarning:
		class = "badge-severe"
	}
	return `<span class="badge ` + class + `">` + esc(level) + "</span>"
}

// resistanceSummary lists the drugs rated I or R, grouped by level from the highest:
// "High-Level Resistance: NFV; Low-Level Resistance: ATV/r, LPV/r".
func resistanceSummary(r *asi.Result) string {
	type group struct {
		level asi.Level
		drugs []string
	}
	var groups []group
	for _, d := range drugsByGene(r.Drugs) {
		if d.Level.SIR != "I" && d.Level.SIR != "R" {
			continue
		}
		i := slices.IndexFunc(groups, func(g group) bool { return g.level.Order == d.Level.Order })
		if i < 0 {
			groups = append(groups, group{level: d.Level})
			i = len(groups) - 1
		}
		groups[i].drugs = append(groups[i].drugs, d.Drug.Name)
	}
	if len(groups) == 0 {
		return "none: no drug with low-level resistance or more"
	}
	slices.SortStableFunc(groups, func(a, b group) int { return b.level.Order - a.level.Order })
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = "<strong>" + esc(g.level.Text) + ":</strong> " + esc(strings.Join(g.drugs, ", "))
	}
	return strings.Join(parts, "; ")
}

// sampleHTML is one input's page.
func (e *Engine) sampleHTML(s *settings, smp *sample) string {
	var b strings.Builder
	b.Grow(16384)
	id := "input-" + strconv.Itoa(smp.Index)
	heading := "Mutation list " + strconv.Itoa(smp.Index)
	if smp.Seq != nil {
		heading = "Sequence " + strconv.Itoa(smp.Index) + ": " + esc(smp.inputName())
	}
	b.WriteString(`<section class="input" id="` + id + `" aria-labelledby="` + id + `-h">
<h2 id="` + id + `-h">` + heading + "</h2>\n")
	if smp.Err != "" {
		b.WriteString(`<p class="failure"><strong>Analysis failed:</strong> ` + esc(smp.Err) + "</p>\n")
		if smp.Seq != nil && smp.Seq.Removed != "" {
			b.WriteString("<p>" + esc(smp.Seq.Removed) + "</p>\n")
		}
		b.WriteString("</section>\n")
		return b.String()
	}
	e.htmlInputSummary(&b, s, smp)
	e.htmlDrugResistance(&b, s, smp)
	e.htmlMutations(&b, smp)
	if s.comments {
		htmlComments(&b, smp)
	}
	b.WriteString("</section>\n")
	return b.String()
}

// htmlInputSummary writes the sequence summary: genes with their codon ranges, subtype and
// quality findings (for mutation lists: the genes and mutations as given).
func (e *Engine) htmlInputSummary(b *strings.Builder, s *settings, smp *sample) {
	title := "Sequence summary"
	if smp.Seq == nil {
		title = "Mutation list summary"
	}
	b.WriteString("<h3>" + title + "</h3>\n")
	sq := smp.Seq
	if sq == nil {
		b.WriteString("<table>\n<thead><tr><th scope=\"col\">Gene</th><th scope=\"col\">Mutations as given</th></tr></thead>\n<tbody>\n")
		for _, g := range smp.Genes {
			cell := `<span class="muted">not sequenced</span>`
			if g.Sequenced {
				cell = esc(strings.Join(g.Raw, ", "))
				if cell == "" {
					cell = "no mutations"
				}
			}
			b.WriteString(`<tr><th scope="row">` + g.Gene + "</th><td>" + cell + "</td></tr>\n")
		}
		b.WriteString("</tbody>\n</table>\n")
		return
	}
	b.WriteString(`<dl class="meta">` + "\n<dt>Subtype</dt><dd>" + esc(subtypeLabel(sq)) + "</dd>\n")
	b.WriteString("<dt>Nucleotides</dt><dd>" + strconv.Itoa(len(sq.Sequence)) + "</dd>\n<dt>MD5</dt><dd>" + esc(sq.MD5) + "</dd>\n")
	if sq.Align != nil && sq.Align.ReverseComplemented {
		b.WriteString("<dt>Orientation</dt><dd>analysed as the reverse complement of the input</dd>\n")
	}
	b.WriteString("</dl>\n")
	b.WriteString("<table>\n<caption>Genes</caption>\n<thead><tr><th scope=\"col\">Gene</th><th scope=\"col\">Codons</th><th scope=\"col\">Nucleotides of the input</th><th scope=\"col\">Match</th><th scope=\"col\">Frameshifts</th></tr></thead>\n<tbody>\n")
	for _, gene := range sequenceGenes {
		g := sq.Genes[gene]
		if g == nil {
			if gene != "CA" {
				b.WriteString(`<tr><th scope="row">` + gene + `</th><td colspan="4"><span class="muted">not sequenced</span></td></tr>` + "\n")
			}
			continue
		}
		fs := frameshiftList(g)
		if fs == "" {
			fs = "none"
		}
		b.WriteString(`<tr><th scope="row">` + gene + "</th><td>" + strconv.Itoa(g.FirstAA) + "–" + strconv.Itoa(g.LastAA) +
			"</td><td>" + strconv.Itoa(g.FirstNA) + "–" + strconv.Itoa(g.LastNA) + "</td><td>" + percent(g.MatchPercent) + "%</td><td>" + esc(fs) + "</td></tr>\n")
	}
	b.WriteString("</tbody>\n</table>\n")
	if !s.quality {
		return
	}
	b.WriteString("<h4>Sequence quality</h4>\n")
	if len(sq.Validation) == 0 {
		b.WriteString("<p>No quality findings.</p>\n")
		return
	}
	b.WriteString(`<ul class="plain">` + "\n")
	for _, v := range sq.Validation {
		b.WriteString(`<li class="finding">` + badge(v.Level) + esc(v.Message) + "</li>\n")
	}
	b.WriteString("</ul>\n")
}

// levelClass places a level on the report's five-step colour scale (lv0 susceptible … lv4
// the algorithm's highest level) by its rank among the algorithm's levels.
func levelClass(alg *asi.Algorithm, l asi.Level) (class string, step int) {
	n := len(alg.Levels)
	i := slices.IndexFunc(alg.Levels, func(x asi.Level) bool { return x.Order == l.Order })
	step = 0
	if n > 1 && i > 0 {
		step = (i*4 + (n-1)/2) / (n - 1)
	}
	return "lv" + strconv.Itoa(step), step
}

// htmlLevel writes a drug's level: a meter (decorative), the level in words, its colour.
func htmlLevel(alg *asi.Algorithm, l asi.Level) string {
	class, step := levelClass(alg, l)
	meter := strings.Repeat("●", step+1) + strings.Repeat("○", 4-step)
	return `<span class="level ` + class + `"><span class="meter" aria-hidden="true">` + meter + "</span>" + esc(l.Text) + "</span>"
}

// htmlDrugResistance writes one table per drug class: drug, level in words, three-step
// level, score and (with partial scores) the mutations that scored.
func (e *Engine) htmlDrugResistance(b *strings.Builder, s *settings, smp *sample) {
	b.WriteString("<h3>Drug resistance interpretation</h3>\n")
	if len(smp.Result.Drugs) == 0 {
		b.WriteString("<p>The algorithm rates no drug for the genes given.</p>\n")
		return
	}
	drugs := drugsByGene(smp.Result.Drugs)
	var classes []string
	for _, d := range drugs {
		if !slices.Contains(classes, d.Drug.Class) {
			classes = append(classes, d.Drug.Class)
		}
	}
	for _, class := range classes {
		caption := class
		if full := e.ref.classNames[class]; full != "" {
			caption = full + "s (" + class + ")"
		}
		b.WriteString("<table>\n<caption>" + esc(caption) + "</caption>\n<thead><tr><th scope=\"col\">Drug</th><th scope=\"col\">Resistance level</th><th scope=\"col\">S/I/R</th><th scope=\"col\">Score</th>")
		if s.partialScores {
			b.WriteString(`<th scope="col">Mutation scores</th>`)
		}
		b.WriteString("</tr></thead>\n<tbody>\n")
		for _, d := range drugs {
			if d.Drug.Class != class {
				continue
			}
			name := e.ref.genericName(d.Drug)
			label := esc(name)
			if name != d.Drug.Name {
				label += " (" + esc(d.Drug.Name) + ")"
			}
			score := ""
			if d.HasScore {
				score = formatScore(d.Score)
			}
			b.WriteString(`<tr><th scope="row">` + label + "</th><td>" + htmlLevel(s.alg, d.Level) + "</td><td>" + esc(d.Level.SIR) + "</td><td>" + score + "</td>")
			if s.partialScores {
				b.WriteString("<td>" + esc(strings.Join(partialLabels(smp, d), ", ")) + "</td>")
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody>\n</table>\n")
	}
}

// drugsByGene orders drug results by their gene in genome order (CA, PR, RT, IN), as the
// report shows genes; within a gene the algorithm's order stays.
func drugsByGene(ds []asi.DrugResult) []asi.DrugResult {
	rank := func(gene string) int {
		if i := slices.Index(sequenceGenes[:], gene); i >= 0 {
			return i
		}
		return len(sequenceGenes)
	}
	out := slices.Clone(ds)
	slices.SortStableFunc(out, func(a, b asi.DrugResult) int { return rank(a.Drug.Gene) - rank(b.Drug.Gene) })
	return out
}

// partialLabels are a drug's partial scores as "M41L + T215Y (15)".
func partialLabels(smp *sample, d asi.DrugResult) []string {
	g := smp.gene(d.Drug.Gene)
	if g == nil || g.Set == nil {
		return nil
	}
	out := make([]string, 0, len(d.Partials))
	for _, p := range d.Partials {
		label := strings.Join(smp.mutationsAt(d.Drug.Gene, p.Item.Matches(g.Set)), " + ")
		if label == "" {
			label = p.Item.Text
		}
		out = append(out, label+" ("+formatScore(p.Score)+")")
	}
	return out
}

// mutationGroups are the classification groups of a gene's mutations in report order, with
// the names Stanford's report gives them.
var mutationGroups = map[string][][2]string{
	"CA": {{"Major", "CAI major"}, {"Accessory", "CAI accessory"}, {"Other", "Other"}},
	"PR": {{"Major", "PI major"}, {"Accessory", "PI accessory"}, {"Other", "Other"}},
	"RT": {{"NRTI", "NRTI"}, {"NNRTI", "NNRTI"}, {"Other", "Other"}},
	"IN": {{"Major", "INSTI major"}, {"Accessory", "INSTI accessory"}, {"Other", "Other"}},
}

// htmlMutations writes each sequenced gene's mutations grouped by class, drug-resistance
// mutations in bold, with the notes a reader needs: unusual, APOBEC signature mutation, and
// (in a hypermutated sequence) possibly APOBEC-induced.
func (e *Engine) htmlMutations(b *strings.Builder, smp *sample) {
	b.WriteString("<h3>Mutations</h3>\n")
	hyper := false
	if smp.Seq != nil {
		hyper = e.findings(smp).hypermutated()
	}
	b.WriteString(`<table>` + "\n" + `<caption>By gene and class; drug-resistance mutations in bold</caption>` + "\n" + `<thead><tr><th scope="col">Gene</th><th scope="col">Class</th><th scope="col">Mutations</th></tr></thead>` + "\n<tbody>\n")
	for _, g := range smp.allGenes() {
		if !g.Sequenced {
			continue
		}
		groups := mutationGroups[g.Gene]
		byClass := map[string][]string{}
		for _, m := range g.Mutations {
			class := e.ref.classify(g.Gene, m.Pos, m.AAs)
			if !slices.ContainsFunc(groups, func(gr [2]string) bool { return gr[0] == class }) {
				class = "Other"
			}
			text := esc(m.String())
			drm, _, unusual := e.ref.flags(m)
			if drm {
				text = `<span class="drm">` + text + "</span>"
			}
			var tags []string
			if unusual {
				tags = append(tags, "unusual")
			}
			if smp.Seq != nil {
				apobec, apobecDRM := e.apobecFlags(m)
				if apobec {
					tags = append(tags, "APOBEC signature mutation")
				}
				if apobecDRM && hyper {
					tags = append(tags, "possibly APOBEC-induced")
				}
			}
			if len(tags) > 0 {
				text += ` <span class="tag">(` + strings.Join(tags, ", ") + ")</span>"
			}
			byClass[class] = append(byClass[class], text)
		}
		for _, gr := range groups {
			b.WriteString(`<tr><th scope="row">` + g.Gene + "</th>")
			cell := strings.Join(byClass[gr[0]], ", ")
			if cell == "" {
				cell = "none"
			}
			b.WriteString("<td>" + gr[1] + "</td><td>" + cell + "</td></tr>\n")
		}
	}
	b.WriteString("</tbody>\n</table>\n")
}

// htmlComments writes the algorithm's comments by gene, then the result comments.
func htmlComments(b *strings.Builder, smp *sample) {
	b.WriteString("<h3>Comments</h3>\n")
	if len(smp.Result.Comments) == 0 {
		b.WriteString("<p>No comments.</p>\n")
		return
	}
	var order []string
	byGene := map[string][]string{}
	for _, c := range smp.Result.Comments {
		key := c.Gene
		if c.Kind == "result" || key == "" {
			key = "Other comments"
		}
		if _, ok := byGene[key]; !ok {
			order = append(order, key)
		}
		byGene[key] = append(byGene[key], c.Text)
	}
	for _, key := range order {
		b.WriteString("<h4>" + esc(key) + "</h4>\n<ul class=\"plain\">\n")
		for _, text := range byGene[key] {
			b.WriteString("<li>" + esc(text) + "</li>\n")
		}
		b.WriteString("</ul>\n")
	}
}

// summaryRows collects the HTML report's summary rows while a Batch renders its samples
// (concurrently, in any order); other report types have no summary and keep nothing.
type summaryRows struct {
	mu   sync.Mutex
	rows map[int]string // by input index
}

func (r *summaryRows) add(e *Engine, s *settings, smp *sample) {
	if s.reportType != ReportHTML {
		return
	}
	row := e.summaryRowHTML(s, smp)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rows == nil {
		r.rows = map[int]string{}
	}
	r.rows[smp.Index] = row
}

// SummaryFirst reports whether the report begins with a summary of all its inputs (the
// HTML report): the caller then writes Header, Summary, the Sample parts, Footer, and so
// has to keep the parts aside until every input is done.
func (b *Batch) SummaryFirst() bool { return b.s.reportType == ReportHTML }

// Summary is the summary table of the inputs rendered so far, in input order ("" for the
// report types without one). Its bytes are added to the report's size (a row is a few
// hundred bytes beside a page of kilobytes, so the parts' limit check bounds it too).
func (b *Batch) Summary() string {
	if !b.SummaryFirst() {
		return ""
	}
	b.rows.mu.Lock()
	indexes := make([]int, 0, len(b.rows.rows))
	for i := range b.rows.rows {
		indexes = append(indexes, i)
	}
	slices.Sort(indexes)
	rows := make([]string, len(indexes))
	for k, i := range indexes {
		rows[k] = b.rows.rows[i]
	}
	b.rows.mu.Unlock()
	out := summaryHTML(b.s, rows)
	b.written.Add(int64(len(out)))
	return out
}
