package resistance

import (
	"bytes"
	"encoding/xml"
	"fmt"
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
	var out []string
	for _, m := range ms {
		found := false
		if g != nil {
			for _, mut := range g.Mutations {
				if mut.Pos == m.Pos {
					out = append(out, mut.String())
					found = true
					break
				}
			}
		}
		if !found {
			out = append(out, strconv.Itoa(m.Pos)+m.AAs.String())
		}
	}
	return out
}

// drugType is the drug's class as the algorithm names it.
func drugType(d *asi.Drug) string { return d.Class }

type xmlGeneList struct {
	Name  string `xml:"name,attr"`
	Value string `xml:",chardata"`
}

type xmlMutationList struct {
	Index int           `xml:"index,attr"`
	Genes []xmlGeneList `xml:"gene"`
}

func mutationListXML(smp *sample, raw [][]string) *xmlMutationList {
	ml := &xmlMutationList{Index: smp.Index}
	for i, gene := range geneOrder {
		if i < len(raw) {
			var parts []string
			for _, s := range raw[i] {
				if s = strings.TrimSpace(s); s != "" {
					parts = append(parts, s)
				}
			}
			if len(parts) > 0 {
				ml.Genes = append(ml.Genes, xmlGeneList{Name: gene, Value: strings.Join(parts, ", ")})
			}
		}
	}
	return ml
}

type siteMutation struct {
	Classification string `xml:"classification,attr"`
	Type           string `xml:"type,attr"`
	Value          string `xml:",chardata"`
}

type siteGeneMutations struct {
	Mutations []siteMutation `xml:"mutation"`
}

type sitePartial struct {
	Mutation string `xml:"mutation"`
	Score    string `xml:"score"`
}

type siteDrug struct {
	Code        string        `xml:"code"`
	GenericName string        `xml:"genericName"`
	Type        string        `xml:"type"`
	Score       string        `xml:"score,omitempty"`
	Level       int           `xml:"level"`
	LevelSIR    string        `xml:"levelSIR"`
	LevelText   string        `xml:"levelText"`
	Partials    []sitePartial `xml:"partialScore"`
}

type siteComment struct {
	ID   string `xml:"id,attr"`
	Type string `xml:"type,attr"`
	Gene string `xml:"gene,attr,omitempty"`
	Text string `xml:",chardata"`
}

type siteInput struct {
	XMLName      xml.Name
	MutationList *xmlMutationList   `xml:"mutationList"`
	ErrorMessage string             `xml:"errorMessage,omitempty"`
	PR           *siteGeneMutations `xml:"PR_mutations"`
	RT           *siteGeneMutations `xml:"RT_mutations"`
	IN           *siteGeneMutations `xml:"IN_mutations"`
	DrugScores   *struct {
		Drugs []siteDrug `xml:"drug"`
	} `xml:"drugScores"`
	Comments *struct {
		Comments []siteComment `xml:"comment"`
	} `xml:"comments"`
}

type siteReport struct {
	XMLName           xml.Name    `xml:"Site_Algorithm_Interpretation"`
	AlgorithmVersion  string      `xml:"algorithmVersion,omitempty"`
	WebServiceVersion string      `xml:"webServiceVersion"`
	AlgorithmName     string      `xml:"algorithmName,omitempty"`
	AlgorithmDate     string      `xml:"algorithmDate,omitempty"`
	ReportName        string      `xml:"reportName,omitempty"`
	MethodName        string      `xml:"methodName,omitempty"`
	ReportDate        string      `xml:"reportDate,omitempty"`
	Inputs            []siteInput `xml:",any"`
}

func marshal(v any) (string, error) {
	var b bytes.Buffer
	b.WriteString(xml.Header)
	enc := xml.NewEncoder(&b)
	enc.Indent("", "  ")
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("rendering report: %w", err)
	}
	b.WriteByte('\n')
	return b.String(), nil
}

// renderSite renders report types 0 (simple) and 1 (detailed: with partial scores).
func (e *Engine) renderSite(s *settings, samples []sample) (string, error) {
	rep := siteReport{
		AlgorithmVersion:  s.alg.Version,
		WebServiceVersion: WebServiceVersion,
		AlgorithmName:     s.alg.Name,
		AlgorithmDate:     s.alg.Date,
		ReportName:        strings.TrimSpace(s.opts.ReportName),
		MethodName:        strings.TrimSpace(s.opts.MethodName),
		ReportDate:        s.date,
	}
	for i := range samples {
		smp := &samples[i]
		in := siteInput{MutationList: mutationListXML(smp, smp.Raw)}
		if smp.Err != "" {
			in.XMLName.Local = "failure"
			in.ErrorMessage = smp.Err
			rep.Inputs = append(rep.Inputs, in)
			continue
		}
		in.XMLName.Local = "success"
		for _, g := range smp.Genes {
			if !g.Sequenced {
				continue
			}
			gm := &siteGeneMutations{}
			for _, m := range g.Mutations {
				gm.Mutations = append(gm.Mutations, siteMutation{Classification: e.ref.classify(g.Gene, m.Pos, m.AAs), Type: m.Kind(), Value: m.String()})
			}
			switch g.Gene {
			case "PR":
				in.PR = gm
			case "RT":
				in.RT = gm
			case "IN":
				in.IN = gm
			}
		}
		in.DrugScores = &struct {
			Drugs []siteDrug `xml:"drug"`
		}{}
		for _, d := range smp.Result.Drugs {
			sd := siteDrug{
				Code:        d.Drug.Name,
				GenericName: e.ref.genericName(d.Drug),
				Type:        drugType(d.Drug),
				Level:       d.Level.Order,
				LevelSIR:    d.Level.SIR,
				LevelText:   d.Level.Text,
			}
			if d.HasScore {
				sd.Score = formatScore(d.Score)
			}
			if s.partialScores {
				for _, p := range d.Partials {
					sd.Partials = append(sd.Partials, sitePartial{Mutation: strings.Join(smp.mutationsAt(d.Drug.Gene, p.Item.Matches(smp.gene(d.Drug.Gene).Set)), " + "), Score: formatScore(p.Score)})
				}
			}
			in.DrugScores.Drugs = append(in.DrugScores.Drugs, sd)
		}
		if s.comments && len(smp.Result.Comments) > 0 {
			in.Comments = &struct {
				Comments []siteComment `xml:"comment"`
			}{}
			for _, c := range smp.Result.Comments {
				in.Comments.Comments = append(in.Comments.Comments, siteComment{ID: c.Comment.ID, Type: c.Kind, Gene: c.Gene, Text: c.Text})
			}
		}
		rep.Inputs = append(rep.Inputs, in)
	}
	return marshal(rep)
}

type x9Mutation struct {
	Classification string `xml:"classification"`
	Type           string `xml:"type"`
	MutationString string `xml:"mutationString"`
	WildType       string `xml:"wildType"`
	Position       int    `xml:"position"`
	AminoAcids     string `xml:"aminoAcids"`
	Insertion      string `xml:"insertion,omitempty"`
}

type x9GeneData struct {
	Gene      string       `xml:"gene"`
	Present   bool         `xml:"present"`
	Consensus string       `xml:"consensus,omitempty"`
	Mutations []x9Mutation `xml:"mutation"`
}

type x9DrugScore struct {
	DrugCode                 string        `xml:"drugCode"`
	GenericName              string        `xml:"genericName"`
	Type                     string        `xml:"type"`
	Score                    string        `xml:"score,omitempty"`
	ResistanceLevel          int           `xml:"resistanceLevel"`
	ResistanceLevelText      string        `xml:"resistanceLevelText"`
	ThreeStepResistanceLevel string        `xml:"threeStepResistanceLevel"`
	Partials                 []sitePartial `xml:"partialScore"`
}

type x9Comment struct {
	ID             string `xml:"id,attr"`
	Type           string `xml:"type,attr"`
	Gene           string `xml:"gene,omitempty"`
	Position       int    `xml:"position,omitempty"`
	CommentString  string `xml:"commentString"`
	MutationString string `xml:"mutationString,omitempty"`
}

type x9Result struct {
	Success           bool             `xml:"success"`
	InputMutationList *xmlMutationList `xml:"inputMutationList"`
	ErrorMessage      string           `xml:"errorMessage,omitempty"`
	GeneData          []x9GeneData     `xml:"geneData"`
	DrugScores        []x9DrugScore    `xml:"drugScore"`
	Comments          []x9Comment      `xml:"comment"`
}

type x9Report struct {
	XMLName           xml.Name   `xml:"DrugResistance_Interpretation"`
	AlgorithmName     string     `xml:"algorithmName,omitempty"`
	AlgorithmVersion  string     `xml:"algorithmVersion,omitempty"`
	WebServiceVersion string     `xml:"webServiceVersion"`
	SchemaVersion     string     `xml:"schemaVersion"`
	SubmissionName    string     `xml:"submissionName"`
	DateTime          string     `xml:"dateTime"`
	AlgorithmDate     string     `xml:"algorithmDate,omitempty"`
	MethodName        string     `xml:"methodName,omitempty"`
	Results           []x9Result `xml:"result"`
}

// render2009 renders report type 2, the "XML 2009" report.
func (e *Engine) render2009(s *settings, samples []sample) (string, error) {
	rep := x9Report{
		AlgorithmName:     s.alg.Name,
		AlgorithmVersion:  s.alg.Version,
		WebServiceVersion: WebServiceVersion,
		SchemaVersion:     SchemaVersion,
		SubmissionName:    s.submissionName(),
		DateTime:          s.date,
		AlgorithmDate:     s.alg.Date,
		MethodName:        strings.TrimSpace(s.opts.MethodName),
	}
	for i := range samples {
		smp := &samples[i]
		res := x9Result{Success: smp.Err == "", InputMutationList: mutationListXML(smp, smp.Raw), ErrorMessage: smp.Err}
		if smp.Err != "" {
			rep.Results = append(rep.Results, res)
			continue
		}
		for _, g := range smp.Genes {
			gd := x9GeneData{Gene: g.Gene, Present: g.Sequenced}
			if g.Sequenced {
				gd.Consensus = e.ref.consensus[g.Gene]
			}
			for _, m := range g.Mutations {
				gd.Mutations = append(gd.Mutations, x9Mutation{
					Classification: e.ref.classify(g.Gene, m.Pos, m.AAs),
					Type:           m.Kind(),
					MutationString: m.String(),
					WildType:       string(m.Consensus),
					Position:       m.Pos,
					AminoAcids:     m.AAs.String(),
					Insertion:      m.Inserted,
				})
			}
			res.GeneData = append(res.GeneData, gd)
		}
		for _, d := range smp.Result.Drugs {
			ds := x9DrugScore{
				DrugCode:                 d.Drug.Name,
				GenericName:              e.ref.genericName(d.Drug),
				Type:                     drugType(d.Drug),
				ResistanceLevel:          d.Level.Order,
				ResistanceLevelText:      d.Level.Text,
				ThreeStepResistanceLevel: d.Level.SIR,
			}
			if d.HasScore {
				ds.Score = formatScore(d.Score)
			}
			if s.partialScores {
				for _, p := range d.Partials {
					ds.Partials = append(ds.Partials, sitePartial{Mutation: strings.Join(smp.mutationsAt(d.Drug.Gene, p.Item.Matches(smp.gene(d.Drug.Gene).Set)), " + "), Score: formatScore(p.Score)})
				}
			}
			res.DrugScores = append(res.DrugScores, ds)
		}
		if s.comments {
			for _, c := range smp.Result.Comments {
				xc := x9Comment{ID: c.Comment.ID, Type: c.Kind, Gene: c.Gene, CommentString: c.Text}
				if len(c.Matches) > 0 {
					xc.Position = c.Matches[0].Pos
					xc.MutationString = strings.Join(smp.mutationsAt(c.Gene, c.Matches), ", ")
				}
				res.Comments = append(res.Comments, xc)
			}
		}
		rep.Results = append(rep.Results, res)
	}
	return marshal(rep)
}

// submissionName is reportName, or methodName when no reportName was given.
func (s *settings) submissionName() string {
	if n := strings.TrimSpace(s.opts.ReportName); n != "" {
		return n
	}
	return strings.TrimSpace(s.opts.MethodName)
}
