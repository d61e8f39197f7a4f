package resistance

import (
	"math"
	"strconv"
	"strings"

	"github.com/sitelib/sitesvc/impl/asi"
)

// formatScore prints a score without float noise: 60, -10, 2.5, 0.25.
func formatScore(v float64) string {
	return strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

func (smp *sample) gene(name string) *geneInput {
	for i := range smp.Genes {
		if smp.Genes[i].Gene == name {
			return &smp.Genes[i]
		}
	}
	return nil
}

// mutationsAt renders the input mutations at the matched positions ("M41L + T215Y").
func (smp *sample) mutationsAt(gene string, ms []asi.Match) []string {
	g := smp.gene(gene)
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		if g != nil {
			if d, ok := g.display[m.Pos]; ok {
				out = append(out, d)
				continue
			}
		}
		out = append(out, strconv.Itoa(m.Pos)+m.AAs.String())
	}
	return out
}

// drugType is the drug's class as the algorithm names it.
func drugType(d *asi.Drug) string { return d.Class }

// writeMutationList writes the input's mutation lists as given: one gene element per gene
// with any non-blank string.
func writeMutationList(w *xmlWriter, element string, smp *sample) {
	w.open(element, "index", strconv.Itoa(smp.Index))
	for i, gene := range geneOrder {
		if i >= len(smp.Raw) {
			break
		}
		var parts []string
		for _, s := range smp.Raw[i] {
			if s = strings.TrimSpace(s); s != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) > 0 {
			w.elem("gene", strings.Join(parts, ", "), "name", gene)
		}
	}
	w.close(element)
}

// writePartials writes one partialScore per score item that added to the drug's score.
func writePartials(w *xmlWriter, smp *sample, d asi.DrugResult) {
	g := smp.gene(d.Drug.Gene)
	for _, p := range d.Partials {
		w.open("partialScore")
		label := strings.Join(smp.mutationsAt(d.Drug.Gene, p.Item.Matches(g.Set)), " + ")
		if label == "" {
			label = p.Item.Text // an item that holds by absence alone (NOT 184V => 5)
		}
		w.elem("mutation", label)
		w.elem("score", formatScore(p.Score))
		w.close("partialScore")
	}
}

// renderSite renders report types 0 (simple) and 1 (detailed: with partial scores).
func (e *Engine) renderSite(s *settings, samples *batch) (string, error) {
	w := newXMLWriter(sizeHint(32768, samples.Len()))
	w.open("Site_Algorithm_Interpretation")
	w.opt("algorithmVersion", s.alg.Version)
	w.elem("webServiceVersion", WebServiceVersion)
	w.opt("algorithmName", s.alg.Name)
	w.opt("algorithmDate", s.alg.Date)
	w.opt("reportName", strings.TrimSpace(s.opts.ReportName))
	w.opt("methodName", strings.TrimSpace(s.opts.MethodName))
	w.opt("reportDate", s.date)
	for smp := range samples.each(w.b.Len) {
		if smp.Err != "" {
			w.open("failure")
			writeMutationList(w, "mutationList", smp)
			w.elem("errorMessage", smp.Err)
			w.close("failure")
			continue
		}
		w.open("success")
		writeMutationList(w, "mutationList", smp)
		for _, g := range smp.Genes {
			if !g.Sequenced {
				continue
			}
			if len(g.Mutations) == 0 {
				w.indent()
				w.b.WriteString("<" + g.Gene + "_mutations/>")
				continue
			}
			w.open(g.Gene + "_mutations")
			for _, m := range g.Mutations {
				attrs := []string{"classification", e.ref.classify(g.Gene, m.Pos, m.AAs), "type", m.Kind()}
				drm, sdrm, unusual := e.ref.flags(m)
				if drm {
					attrs = append(attrs, "drm", "true")
				}
				if sdrm {
					attrs = append(attrs, "sdrm", "true")
				}
				if unusual {
					attrs = append(attrs, "unusual", "true")
				}
				w.elem("mutation", m.String(), attrs...)
			}
			w.close(g.Gene + "_mutations")
		}
		w.open("drugScores")
		for _, d := range smp.Result.Drugs {
			w.open("drug")
			w.elem("code", d.Drug.Name)
			w.elem("genericName", e.ref.genericName(d.Drug))
			w.elem("type", drugType(d.Drug))
			if d.HasScore {
				w.elem("score", formatScore(d.Score))
			}
			w.elem("level", strconv.Itoa(d.Level.Order))
			w.elem("levelSIR", d.Level.SIR)
			w.elem("levelText", d.Level.Text)
			if s.partialScores {
				writePartials(w, smp, d)
			}
			w.close("drug")
		}
		w.close("drugScores")
		if s.comments && len(smp.Result.Comments) > 0 {
			w.open("comments")
			for _, c := range smp.Result.Comments {
				if c.Gene != "" {
					w.elem("comment", c.Text, "id", c.Comment.ID, "type", c.Kind, "gene", c.Gene)
				} else {
					w.elem("comment", c.Text, "id", c.Comment.ID, "type", c.Kind)
				}
			}
			w.close("comments")
		}
		w.close("success")
	}
	w.close("Site_Algorithm_Interpretation")
	if samples.err != nil {
		return "", samples.err
	}
	return w.String(), nil
}

// render2009 renders report type 2, the "XML 2009" report.
func (e *Engine) render2009(s *settings, samples *batch) (string, error) {
	w := newXMLWriter(sizeHint(40960, samples.Len()))
	w.open("DrugResistance_Interpretation")
	w.opt("algorithmName", s.alg.Name)
	w.opt("algorithmVersion", s.alg.Version)
	w.elem("webServiceVersion", WebServiceVersion)
	w.elem("schemaVersion", SchemaVersion)
	w.elem("submissionName", s.submissionName())
	w.elem("dateTime", s.date)
	w.opt("algorithmDate", s.alg.Date)
	w.opt("methodName", strings.TrimSpace(s.opts.MethodName))
	for smp := range samples.each(w.b.Len) {
		w.open("result")
		w.elem("success", strconv.FormatBool(smp.Err == ""))
		writeMutationList(w, "inputMutationList", smp)
		if smp.Err != "" {
			w.elem("errorMessage", smp.Err)
			w.close("result")
			continue
		}
		for _, g := range smp.Genes {
			w.open("geneData")
			w.elem("gene", g.Gene)
			w.elem("present", strconv.FormatBool(g.Sequenced))
			if g.Sequenced {
				w.elem("consensus", e.ref.consensus[g.Gene])
			}
			for _, m := range g.Mutations {
				w.open("mutation")
				w.elem("classification", e.ref.classify(g.Gene, m.Pos, m.AAs))
				w.elem("type", m.Kind())
				w.elem("mutationString", m.String())
				w.elem("wildType", string(m.Consensus))
				w.elem("position", strconv.Itoa(m.Pos))
				w.elem("aminoAcids", m.AAs.String())
				w.opt("insertion", m.Inserted)
				drm, sdrm, unusual := e.ref.flags(m)
				w.elem("isDRM", strconv.FormatBool(drm))
				w.elem("isSDRM", strconv.FormatBool(sdrm))
				w.elem("isUnusual", strconv.FormatBool(unusual))
				w.close("mutation")
			}
			w.close("geneData")
		}
		for _, d := range smp.Result.Drugs {
			w.open("drugScore")
			w.elem("drugCode", d.Drug.Name)
			w.elem("genericName", e.ref.genericName(d.Drug))
			w.elem("type", drugType(d.Drug))
			if d.HasScore {
				w.elem("score", formatScore(d.Score))
			}
			w.elem("resistanceLevel", strconv.Itoa(d.Level.Order))
			w.elem("resistanceLevelText", d.Level.Text)
			w.elem("threeStepResistanceLevel", d.Level.SIR)
			if s.partialScores {
				writePartials(w, smp, d)
			}
			w.close("drugScore")
		}
		if s.comments {
			for _, c := range smp.Result.Comments {
				w.open("comment", "id", c.Comment.ID, "type", c.Kind)
				w.opt("gene", c.Gene)
				if len(c.Matches) > 0 {
					w.elem("position", strconv.Itoa(c.Matches[0].Pos))
				}
				w.elem("commentString", c.Text)
				if len(c.Matches) > 0 {
					w.elem("mutationString", strings.Join(smp.mutationsAt(c.Gene, c.Matches), ", "))
				}
				w.close("comment")
			}
		}
		w.close("result")
	}
	w.close("DrugResistance_Interpretation")
	if samples.err != nil {
		return "", samples.err
	}
	return w.String(), nil
}

// submissionName is reportName, or methodName when no reportName was given.
func (s *settings) submissionName() string {
	if n := strings.TrimSpace(s.opts.ReportName); n != "" {
		return n
	}
	return strings.TrimSpace(s.opts.MethodName)
}
