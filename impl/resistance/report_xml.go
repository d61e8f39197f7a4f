package resistance

import (
	"math"
	"strconv"
	"strings"

	"github.com/sitelib/sitesvc/impl/align"
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
	for i := range smp.Extra {
		if smp.Extra[i].Gene == name {
			return &smp.Extra[i]
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
	if g == nil || g.Set == nil {
		return // (the engine evaluates only sequenced genes; kept safe regardless)
	}
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

// headerSite begins report types 0 (simple) and 1 (detailed: with partial scores).
func (e *Engine) headerSite(s *settings) string {
	w := newXMLWriter(1024)
	w.open("Site_Algorithm_Interpretation")
	w.opt("algorithmVersion", s.alg.Version)
	w.elem("webServiceVersion", WebServiceVersion)
	w.opt("algorithmName", s.alg.Name)
	w.opt("algorithmDate", s.alg.Date)
	w.opt("reportName", strings.TrimSpace(s.opts.ReportName))
	w.opt("methodName", strings.TrimSpace(s.opts.MethodName))
	w.opt("reportDate", s.date)
	return w.b.String()
}

// writeSequence writes a sequence input's identity (simple and detailed reports).
func writeSequence(w *xmlWriter, smp *sample) {
	w.open("sequence", "index", strconv.Itoa(smp.Index))
	w.elem("name", smp.Seq.Name)
	w.elem("md5sum", smp.Seq.MD5)
	w.opt("removedCharacters", smp.Seq.Removed)
	w.close("sequence")
}

// writeInput writes what the input was: its mutation lists or its sequence's identity.
func writeInput(w *xmlWriter, element string, smp *sample) {
	if smp.Seq != nil {
		writeSequence(w, smp)
		return
	}
	writeMutationList(w, element, smp)
}

// allGenes are the sample's genes in report order: CA (sequences covering it), PR, RT, IN.
func (smp *sample) allGenes() []geneInput {
	if len(smp.Extra) == 0 {
		return smp.Genes
	}
	return append(append([]geneInput(nil), smp.Extra...), smp.Genes...)
}

// writeSubtype writes the sequence's subtype with its percent similarity.
func writeSubtype(w *xmlWriter, sq *sequenceInput) {
	w.open("subtype")
	w.elem("type", sq.Align.Subtype.Name)
	w.elem("percentSimilarity", percent(sq.Align.Subtype.PercentSimilarity))
	w.close("subtype")
}

// sampleSite renders one input of report types 0 and 1.
func (e *Engine) sampleSite(s *settings, smp *sample) string {
	w := newFragment(1, 8192)
	if smp.Err != "" {
		w.open("failure")
		writeInput(w, "mutationList", smp)
		w.elem("errorMessage", smp.Err)
		w.close("failure")
		return w.b.String()
	}
	w.open("success")
	writeInput(w, "mutationList", smp)
	if sq := smp.Seq; sq != nil {
		for _, gene := range sequenceGenes {
			g := sq.Genes[gene]
			if g == nil && gene == "CA" {
				continue
			}
			w.open("summary", "gene", gene)
			w.elem("present", strconv.FormatBool(g != nil))
			if g != nil {
				w.elem("firstAA", strconv.Itoa(g.FirstAA))
				w.elem("lastAA", strconv.Itoa(g.LastAA))
				w.elem("firstNA", strconv.Itoa(g.FirstNA))
				w.elem("lastNA", strconv.Itoa(g.LastNA))
				w.elem("matchPercentage", percent(g.MatchPercent))
				if s.reportType == ReportDetailed {
					w.elem("alignedNASequence", g.AlignedNA)
					w.elem("alignedAASequence", g.AlignedAA)
				}
				writeSubtype(w, sq)
				for _, f := range g.Frameshifts {
					w.elem("frameshift", f.String())
				}
			}
			w.close("summary")
		}
	}
	for _, g := range smp.allGenes() {
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
			apobec, apobecDRM := e.apobecFlags(m)
			if apobec {
				attrs = append(attrs, "apobec", "true")
			}
			if apobecDRM {
				attrs = append(attrs, "apobecDRM", "true")
			}
			if smp.Seq != nil {
				if c := smp.Seq.Codons[g.Gene][m.Pos]; c != nil && c.Codon+c.InsertedCodons != "" {
					attrs = append(attrs, "codon", c.Codon+c.InsertedCodons)
				}
			}
			w.elem("mutation", m.String(), attrs...)
		}
		w.close(g.Gene + "_mutations")
	}
	if s.quality {
		e.writeQualityCounts(w, "quality", smp)
	}
	w.open("drugScores")
	for _, d := range smp.Result.Drugs {
		e.writeDrugScore(w, s, smp, d, drugScoreSite)
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
	return w.b.String()
}

// drugScoreElements names the elements of one drug's score in a report format: the
// drug's element, its code's, and the three forms of its level in the order the format's
// XSD sets.
type drugScoreElements struct {
	drug, code string
	levels     [3]levelElement
}

// levelElement is one form of a level: its element and its text.
type levelElement struct {
	name string
	text func(asi.Level) string
}

func levelOrder(l asi.Level) string { return strconv.Itoa(l.Order) }
func levelSIR(l asi.Level) string   { return l.SIR }
func levelText(l asi.Level) string  { return l.Text }

var (
	// drugScoreSite is a drug's score in the simple and detailed reports.
	drugScoreSite = drugScoreElements{"drug", "code", [3]levelElement{{"level", levelOrder}, {"levelSIR", levelSIR}, {"levelText", levelText}}}
	// drugScore2009 is a drug's score in the XML 2009 report.
	drugScore2009 = drugScoreElements{"drugScore", "drugCode", [3]levelElement{{"resistanceLevel", levelOrder}, {"resistanceLevelText", levelText}, {"threeStepResistanceLevel", levelSIR}}}
)

// writeDrugScore writes one drug's score, level and (when asked for) partial scores.
func (e *Engine) writeDrugScore(w *xmlWriter, s *settings, smp *sample, d asi.DrugResult, names drugScoreElements) {
	w.open(names.drug)
	w.elem(names.code, d.Drug.Name)
	w.elem("genericName", e.ref.genericName(d.Drug))
	w.elem("type", drugType(d.Drug))
	if d.HasScore {
		w.elem("score", formatScore(d.Score))
	}
	for _, l := range names.levels {
		w.elem(l.name, l.text(d.Level))
	}
	if s.partialScores {
		writePartials(w, smp, d)
	}
	w.close(names.drug)
}

// writeQualityCounts writes a sample's quality counts, the mutations they count (stop
// codons, APOBEC signature mutations, drug-resistance mutations APOBEC can cause, unusual
// mutations; each with its gene) and the validation findings. For a mutation list the counts
// that concern nucleotides (frameshifts, ambiguous, unsequenced, removed, reverse
// complement) are 0 and false.
func (e *Engine) writeQualityCounts(w *xmlWriter, element string, smp *sample) {
	sq := smp.Seq
	f := e.findings(smp)
	var c qualityCounts
	if sq != nil {
		c = sq.Counts
	} else {
		c = qualityCounts{StopCodons: len(f.Stops), APOBEC: len(f.APOBEC), APOBECDRMs: len(f.APOBECDRMs), Unusual: len(f.Unusual)}
	}
	w.open(element)
	w.elem("stopCodons", strconv.Itoa(c.StopCodons))
	w.elem("apobecMutations", strconv.Itoa(c.APOBEC))
	w.elem("apobecDRMs", strconv.Itoa(c.APOBECDRMs))
	w.elem("unusualMutations", strconv.Itoa(c.Unusual))
	w.elem("frameshifts", strconv.Itoa(c.Frameshifts))
	w.elem("ambiguousCodons", strconv.Itoa(c.AmbiguousCodons))
	w.elem("unsequencedCodons", strconv.Itoa(c.UnsequencedCodons))
	w.elem("removedCharacters", strconv.Itoa(c.Removed))
	w.elem("reverseComplemented", strconv.FormatBool(sq != nil && sq.Align != nil && sq.Align.ReverseComplemented))
	w.elem("hypermutated", strconv.FormatBool(c.hypermutated()))
	for _, list := range []struct {
		element string
		ms      []Mutation
	}{{"stopCodon", f.Stops}, {"apobecMutation", f.APOBEC}, {"apobecDRM", f.APOBECDRMs}, {"unusualMutation", f.Unusual}} {
		for _, m := range list.ms {
			w.elem(list.element, m.String(), "gene", m.Gene)
		}
	}
	for _, v := range smp.Validation {
		w.open("validation")
		w.elem("level", v.Level)
		w.elem("message", v.Message)
		w.close("validation")
	}
	w.close(element)
}

// header2009 begins report type 2, the "XML 2009" report.
func (e *Engine) header2009(s *settings) string {
	w := newXMLWriter(1024)
	w.open("DrugResistance_Interpretation")
	w.opt("algorithmName", s.alg.Name)
	w.opt("algorithmVersion", s.alg.Version)
	w.elem("webServiceVersion", WebServiceVersion)
	w.elem("schemaVersion", SchemaVersion)
	w.elem("submissionName", s.submissionName())
	w.elem("dateTime", s.date)
	w.opt("algorithmDate", s.alg.Date)
	w.opt("methodName", strings.TrimSpace(s.opts.MethodName))
	return w.b.String()
}

// sample2009 renders one input's result of the "XML 2009" report.
func (e *Engine) sample2009(s *settings, smp *sample) string {
	w := newFragment(1, 16384)
	w.open("result")
	w.elem("success", strconv.FormatBool(smp.Err == ""))
	if sq := smp.Seq; sq != nil {
		w.open("inputSequence", "index", strconv.Itoa(smp.Index))
		w.elem("md5sum", sq.MD5)
		w.elem("name", sq.Name)
		w.elem("sequence", sq.Sequence)
		w.opt("removedCharacters", sq.Removed)
		w.close("inputSequence")
	} else {
		writeMutationList(w, "inputMutationList", smp)
	}
	if smp.Err != "" {
		w.elem("errorMessage", smp.Err)
		w.close("result")
		return w.b.String()
	}
	for _, g := range smp.allGenes() {
		w.open("geneData")
		w.elem("gene", g.Gene)
		w.elem("present", strconv.FormatBool(g.Sequenced))
		var ag *align.GeneResult
		if smp.Seq != nil {
			ag = smp.Seq.Genes[g.Gene]
		}
		if g.Sequenced {
			w.elem("consensus", e.ref.consensus[g.Gene])
		}
		if ag != nil {
			w.elem("alignedNASequence", ag.AlignedNA)
			w.elem("alignedAASequence", ag.AlignedAA)
			w.elem("firstAA", strconv.Itoa(ag.FirstAA))
			w.elem("lastAA", strconv.Itoa(ag.LastAA))
			w.elem("firstNA", strconv.Itoa(ag.FirstNA))
			w.elem("lastNA", strconv.Itoa(ag.LastNA))
			w.elem("matchPercentage", percent(ag.MatchPercent))
			writeSubtype(w, smp.Seq)
		}
		for _, m := range g.Mutations {
			w.open("mutation")
			w.elem("classification", e.ref.classify(g.Gene, m.Pos, m.AAs))
			w.elem("type", m.Kind())
			w.elem("mutationString", m.String())
			w.elem("wildType", string(m.Consensus))
			w.elem("position", strconv.Itoa(m.Pos))
			if smp.Seq != nil {
				if c := smp.Seq.Codons[g.Gene][m.Pos]; c != nil {
					w.elem("nucleicAcid", c.Codon+c.InsertedCodons)
					w.elem("translatedNA", translated(c))
				}
			}
			w.elem("aminoAcids", m.AAs.String())
			w.opt("insertion", m.Inserted)
			drm, sdrm, unusual := e.ref.flags(m)
			w.elem("isDRM", strconv.FormatBool(drm))
			w.elem("isSDRM", strconv.FormatBool(sdrm))
			w.elem("isUnusual", strconv.FormatBool(unusual))
			apobec, apobecDRM := e.apobecFlags(m)
			w.elem("isApobec", strconv.FormatBool(apobec))
			w.elem("isApobecDRM", strconv.FormatBool(apobecDRM))
			w.close("mutation")
		}
		if ag != nil {
			w.open("quality")
			w.elem("frameshifts", strconv.Itoa(len(ag.Frameshifts)))
			for _, f := range ag.Frameshifts {
				w.elem("frameshift", f.String())
			}
			w.elem("stopCodons", strconv.Itoa(ag.StopCodons))
			w.elem("ambiguousPositions", strconv.Itoa(ag.AmbiguousCodons))
			w.elem("unsequencedCodons", strconv.Itoa(ag.UnsequencedCodons))
			w.elem("leftTrimmed", strconv.Itoa(ag.LeftTrimmed))
			w.elem("rightTrimmed", strconv.Itoa(ag.RightTrimmed))
			w.close("quality")
		}
		w.close("geneData")
	}
	if s.quality {
		e.writeQualityCounts(w, "sequenceQualityCounts", smp)
	}
	for _, d := range smp.Result.Drugs {
		e.writeDrugScore(w, s, smp, d, drugScore2009)
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
	return w.b.String()
}

// translated is what a codon translates to: its amino acids ("*" stop, "X" partial or too
// many), "-" for a deleted codon, then "_" and the inserted amino acids of an insertion.
func translated(c *align.Mutation) string {
	t := c.AAs
	if c.Deletion {
		t = "-"
	}
	if c.Insertion {
		t += "_" + c.InsertedAAs
	}
	return t
}

// submissionName is reportName, or methodName when no reportName was given.
func (s *settings) submissionName() string {
	if n := strings.TrimSpace(s.opts.ReportName); n != "" {
		return n
	}
	return strings.TrimSpace(s.opts.MethodName)
}
