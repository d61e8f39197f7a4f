// Package resistance turns HIV-1 mutation lists into drug-resistance reports: it parses the
// mutation strings, evaluates an ASI algorithm (HIVDB 10.2 by default, HIVDB 9.8, ANRS 34,
// Rega 10.0 or a user-submitted one) per gene and drug class, and renders the report types
// 0–3 and the default algorithm's scoring matrix. It knows nothing of SOAP or HTTP.
package resistance

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/align"
	"github.com/sitelib/sitesvc/impl/asi"
)

// WebServiceVersion is reported in every report header.
const WebServiceVersion = "1.0"

// SchemaVersion is the version of the "XML 2009" report schema (wsdl/reports.xsd).
const SchemaVersion = "2009.1"

// AlgorithmSelector is the SOAP `algorithm` part (and Options.Algorithm): 0 ANRS, 1 HIVDB,
// 2 Rega; any other value means the ASI XML in Options.UserAlgorithm. The one declaration of
// these codes for the whole project.
type AlgorithmSelector int

// Algorithm selectors.
const (
	AlgorithmANRS  AlgorithmSelector = 0
	AlgorithmHIVDB AlgorithmSelector = 1
	AlgorithmRega  AlgorithmSelector = 2
)

// ReportType is the SOAP `reportTypeInt` (and Options.ReportType). The one declaration of
// these codes for the whole project.
type ReportType int

// Report types.
const (
	ReportSimple   ReportType = 0 // simple XML (Site_Algorithm_Interpretation)
	ReportDetailed ReportType = 1 // detailed XML: simple plus partial scores
	Report2009     ReportType = 2 // "XML 2009" (DrugResistance_Interpretation)
	ReportText     ReportType = 3 // tab-separated batch text
	ReportHTML     ReportType = 4 // HTML for people: a summary table, then one printable page per input
)

// String names the report type as reportOptions' type= does.
func (t ReportType) String() string {
	switch t {
	case ReportSimple:
		return "simple"
	case ReportDetailed:
		return "detailed"
	case Report2009:
		return "xml2009"
	case ReportText:
		return "text"
	case ReportHTML:
		return "html"
	}
	return "ReportType(" + strconv.Itoa(int(t)) + ")"
}

var (
	// ErrUnknownReportType is returned for a report type other than 0–3.
	ErrUnknownReportType = errors.New("unknown report type (0 simple XML, 1 detailed XML, 2 XML 2009, 3 tab-separated text, 4 HTML)")
	// ErrBadOptions is wrapped by errors in reportOptions or the algorithm selection.
	ErrBadOptions = errors.New("bad report options")
)

// Options select the algorithm and shape the report.
type Options struct {
	Algorithm     AlgorithmSelector // 0 ANRS, 1 HIVDB (10.2, the default), 2 Rega, other: UserAlgorithm
	UserAlgorithm string            // ASI XML, used when Algorithm is not 0, 1 or 2
	ReportType    ReportType        // 0 simple XML, 1 detailed XML, 2 "XML 2009", 3 tab-separated text, 4 HTML
	ReportOptions string            // see docs/algorithm-reports.md: "type=2; comments=no; partialScores=yes; algorithm=HIVDB_9.8"
	MethodName    string            // carried into the report header
	ReportName    string            // carried into the report header (submissionName in XML 2009)
	ReportDate    string            // carried into the report header; the report time when empty
	// MaxReportBytes bounds the report (the sum of the reports of MutationListReports and
	// SequenceReports; the parts a Batch writes); 0 means DefaultMaxReportBytes. Over it the
	// report fails with ErrReportTooLarge.
	MaxReportBytes int
	// Admit, when set, is called with the algorithm's Weight once the algorithm is known and
	// before any sample is evaluated or sequence aligned: an error refuses the report
	// (returned as is), and release is called when the report is done (budget.go).
	Admit func(weight int64) (release func(), err error)
}

// Engine evaluates mutation lists. It is safe for concurrent use: the bundled algorithms and
// tables are immutable; the only state is a bounded cache of parsed user-submitted algorithms.
type Engine struct {
	ref        *reference
	aligner    *align.Aligner
	algorithms map[string]*asi.Algorithm // by file stem: HIVDB_10.2, HIVDB_9.8, ANRS_34, Rega_10.0
	userAlgs   *algorithmCache           // recently used user-submitted algorithms
	matrix     string                    // the default algorithm's scoring matrix, rendered once
	now        func() time.Time
}

// algorithmFiles are the bundled algorithms; the first is the default.
var algorithmFiles = []string{"HIVDB_10.2", "HIVDB_9.8", "ANRS_34", "Rega_10.0"}

// Load reads the algorithms and the reference tables from an hivdb data set (algorithms/*.xml,
// reference/*): the bundled one (bundled/hivdb.FS()) or a directory (os.DirFS(--hivdb-dir)).
func Load(fsys fs.FS) (*Engine, error) {
	refFS, err := fs.Sub(fsys, "reference")
	if err != nil {
		return nil, fmt.Errorf("resistance: %w", err)
	}
	ref, err := loadReference(refFS)
	if err != nil {
		return nil, fmt.Errorf("resistance: %w", err)
	}
	aligner, err := align.NewAligner(refFS)
	if err != nil {
		return nil, fmt.Errorf("resistance: %w", err)
	}
	e := &Engine{ref: ref, aligner: aligner, algorithms: map[string]*asi.Algorithm{}, userAlgs: newAlgorithmCache(userAlgorithmCacheBytes), now: time.Now}
	for _, stem := range algorithmFiles {
		name := "algorithms/" + stem + ".xml"
		f, err := fsys.Open(name)
		if err != nil {
			return nil, fmt.Errorf("resistance: %w", err)
		}
		alg, err := asi.Read(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("resistance: %s: %w", name, err)
		}
		e.algorithms[stem] = alg
	}
	e.matrix = e.scoringMatrix(e.Default())
	return e, nil
}

// WithClock returns a copy of the engine whose report times come from now (for tests).
func (e *Engine) WithClock(now func() time.Time) *Engine {
	c := *e
	c.now = now
	return &c
}

// Algorithm returns a bundled algorithm by name (HIVDB_10.2, HIVDB_9.8, ANRS_34, Rega_10.0).
func (e *Engine) Algorithm(name string) (*asi.Algorithm, bool) {
	a, ok := e.algorithms[name]
	return a, ok
}

// Default is the default algorithm (HIVDB 10.2).
func (e *Engine) Default() *asi.Algorithm { return e.algorithms[algorithmFiles[0]] }

// settings are Options resolved: the algorithm and the parsed report options.
type settings struct {
	alg           *asi.Algorithm
	reportType    ReportType
	comments      bool
	quality       bool // sequence-quality counts and validation (QA ANALYSIS)
	partialScores bool
	sequences     bool // the inputs are nucleotide sequences (the text report's columns differ)
	opts          Options
	date          string
	maxBytes      int  // report size limit (budget.go)
	user          bool // alg is user-submitted (weighed by the worst case: budget.go)
}

func (e *Engine) resolve(opts Options) (*settings, error) {
	s := &settings{reportType: opts.ReportType, comments: true, quality: true, opts: opts, maxBytes: opts.MaxReportBytes}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMaxReportBytes
	}
	partial := ""
	algName := ""
	// The earlier service's vocabulary: words joined by "|" (XMLVER1|QA ANALYSIS). A piece
	// holding "=" is the project's key=value list; both may be mixed.
	var words []string
	var pairs []string
	for _, piece := range strings.Split(opts.ReportOptions, "|") {
		if strings.Contains(piece, "=") {
			pairs = append(pairs, piece)
		} else if w := strings.Join(strings.Fields(piece), " "); w != "" {
			words = append(words, w)
		}
	}
	if len(words) > 0 {
		// With the earlier vocabulary the report is the detailed one unless a word names
		// another, and its optional sections are off unless a word switches them on.
		s.reportType, s.comments, s.quality, partial = ReportDetailed, false, false, "no"
		typeWord := ""
		for _, w := range words {
			switch strings.ToUpper(w) {
			case "XMLVER1":
				s.reportType = Report2009
			case "SIMPLEREPORT":
				s.reportType = ReportSimple
			case "BATCHTEXT":
				s.reportType = ReportText
			case "HTML":
				s.reportType = ReportHTML
			case "QA ANALYSIS":
				s.quality = true
				continue
			case "MUTATION SCORES":
				partial = "yes"
				continue
			case "MUTATION COMMENTS":
				s.comments = true
				continue
			default:
				return nil, fmt.Errorf("%w: reportOptions word %q: known words are XMLVER1, SIMPLEREPORT, BATCHTEXT, HTML, QA ANALYSIS, MUTATION SCORES, MUTATION COMMENTS (joined by |), or key=value options", ErrBadOptions, w)
			}
			if typeWord != "" && !strings.EqualFold(typeWord, w) {
				return nil, fmt.Errorf("%w: reportOptions names two report types, %s and %s", ErrBadOptions, typeWord, w)
			}
			typeWord = w
		}
	}
	for _, field := range strings.FieldsFunc(strings.Join(pairs, ";"), func(r rune) bool {
		return r == ';' || r == ',' || r == '&' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	}) {
		key, value, ok := strings.Cut(field, "=")
		if !ok {
			return nil, fmt.Errorf("%w: reportOptions %q: expected key=value", ErrBadOptions, field)
		}
		switch strings.ToLower(key) {
		case "type", "reporttype":
			t, ok := reportTypeNames[strings.ToLower(value)]
			if !ok {
				return nil, fmt.Errorf("%w: reportOptions type=%q: %w", ErrBadOptions, value, ErrUnknownReportType)
			}
			s.reportType = t
		case "comments":
			b, err := yesNo(value)
			if err != nil {
				return nil, fmt.Errorf("%w: reportOptions comments: %w", ErrBadOptions, err)
			}
			s.comments = b
		case "quality":
			b, err := yesNo(value)
			if err != nil {
				return nil, fmt.Errorf("%w: reportOptions quality: %w", ErrBadOptions, err)
			}
			s.quality = b
		case "partialscores":
			if _, err := yesNo(value); err != nil {
				return nil, fmt.Errorf("%w: reportOptions partialScores: %w", ErrBadOptions, err)
			}
			partial = value
		case "algorithm":
			algName = value
		default:
			return nil, fmt.Errorf("%w: reportOptions: unknown option %q (known: type, comments, quality, partialScores, algorithm; or the words XMLVER1, SIMPLEREPORT, BATCHTEXT, HTML, QA ANALYSIS, MUTATION SCORES, MUTATION COMMENTS joined by |)", ErrBadOptions, key)
		}
	}
	if s.reportType < ReportSimple || s.reportType > ReportHTML {
		return nil, fmt.Errorf("report type %d: %w", s.reportType, ErrUnknownReportType)
	}
	s.partialScores = s.reportType != ReportSimple
	if partial != "" {
		s.partialScores, _ = yesNo(partial)
	}
	switch {
	case algName != "":
		alg, ok := e.algorithmByName(algName)
		if !ok {
			return nil, fmt.Errorf("%w: reportOptions algorithm=%q: known algorithms are %s", ErrBadOptions, algName, strings.Join(algorithmFiles, ", "))
		}
		s.alg = alg
	case opts.Algorithm == AlgorithmANRS:
		s.alg = e.algorithms["ANRS_34"]
	case opts.Algorithm == AlgorithmHIVDB:
		s.alg = e.Default()
	case opts.Algorithm == AlgorithmRega:
		s.alg = e.algorithms["Rega_10.0"]
	default:
		if strings.TrimSpace(opts.UserAlgorithm) == "" {
			return nil, fmt.Errorf("%w: algorithm %d is not 0 (ANRS), 1 (HIVDB) or 2 (Rega) and no user-submitted algorithm was given", ErrBadOptions, opts.Algorithm)
		}
		alg, err := e.userAlgs.parse(opts.UserAlgorithm)
		if err != nil {
			return nil, fmt.Errorf("user-submitted algorithm: %w", err)
		}
		s.alg, s.user = alg, true
	}
	s.date = strings.TrimSpace(opts.ReportDate)
	if s.date == "" {
		s.date = e.now().UTC().Format(time.RFC3339)
	}
	return s, nil
}

func (e *Engine) algorithmByName(name string) (*asi.Algorithm, bool) {
	n := strings.ToUpper(strings.NewReplacer(" ", "_", "-", "_").Replace(strings.TrimSpace(name)))
	switch n {
	case "HIVDB":
		n = "HIVDB_10.2"
	case "ANRS":
		n = "ANRS_34"
	case "REGA":
		n = "REGA_10.0"
	}
	for _, stem := range algorithmFiles {
		if strings.ToUpper(stem) == n {
			return e.algorithms[stem], true
		}
	}
	return nil, false
}

var reportTypeNames = map[string]ReportType{
	"0": ReportSimple, "simple": ReportSimple,
	"1": ReportDetailed, "detailed": ReportDetailed,
	"2": Report2009, "xml2009": Report2009, "2009": Report2009,
	"3": ReportText, "text": ReportText, "tsv": ReportText,
	"4": ReportHTML, "html": ReportHTML,
}

func yesNo(v string) (bool, error) {
	switch strings.ToLower(v) {
	case "yes", "true", "1", "on":
		return true, nil
	case "no", "false", "0", "off":
		return false, nil
	}
	return false, fmt.Errorf("%q is not yes or no", v)
}

// sample is one input's outcome: its mutation lists, or its sequence (Seq) with the genes
// the alignment found; the renderers treat every input part as optional.
type sample struct {
	Index  int        // 1-based position in the request
	Raw    [][]string // the mutation lists as given
	Genes  []geneInput
	Extra  []geneInput    // genes beyond PR, RT, IN that a sequence covered (CA)
	Seq    *sequenceInput // set when the input was a nucleotide sequence
	Err    string         // per-input failure; empty on success
	Result *asi.Result
}

// evaluate parses and evaluates one sample's mutation lists.
func (e *Engine) evaluate(s *settings, index int, lists [][]string) sample {
	out := sample{Index: index, Raw: lists}
	if len(lists) > len(geneOrder) {
		for _, extra := range lists[len(geneOrder):] {
			for _, m := range extra {
				if strings.TrimSpace(m) != "" {
					out.Err = fmt.Sprintf("mutation lists have %d genes; the order is PR, RT, IN", len(lists))
					return out
				}
			}
		}
	}
	in := asi.Input{Genes: map[string]*asi.Mutations{}}
	sequenced := false
	for i, gene := range geneOrder {
		var list []string
		if i < len(lists) {
			list = lists[i]
		}
		gi, err := e.ref.parseGene(gene, list)
		if err != nil {
			out.Err = err.Error()
			out.Genes = nil
			return out
		}
		out.Genes = append(out.Genes, gi)
		if gi.Sequenced {
			sequenced = true
			in.Genes[gene] = gi.Set
		}
	}
	if !sequenced {
		out.Err = "no PR, RT or IN mutations given (a gene list with only \"WT\" means sequenced without mutations)"
		return out
	}
	in.Format = func(gene string, m asi.Match) string {
		return Mutation{Gene: gene, Pos: m.Pos, Consensus: e.ref.consensusAt(gene, m.Pos), AAs: m.AAs}.String()
	}
	out.Result = s.alg.Evaluate(in)
	sortComments(out.Result.Comments)
	return out
}

// sortComments orders comments as reports list them: mutation comments, then drug-rule
// comments, then result comments; within each by gene (PR, RT, IN) and position.
func sortComments(cs []asi.CommentResult) {
	kind := map[string]int{"mutation": 0, "drug": 1, "result": 2}
	geneIdx := func(g string) int {
		for i, x := range geneOrder {
			if x == g {
				return i
			}
		}
		return len(geneOrder)
	}
	firstPos := func(c asi.CommentResult) int {
		if len(c.Matches) == 0 {
			return 0
		}
		return c.Matches[0].Pos
	}
	slices.SortStableFunc(cs, func(a, b asi.CommentResult) int {
		if kind[a.Kind] != kind[b.Kind] {
			return kind[a.Kind] - kind[b.Kind]
		}
		if geneIdx(a.Gene) != geneIdx(b.Gene) {
			return geneIdx(a.Gene) - geneIdx(b.Gene)
		}
		return firstPos(a) - firstPos(b)
	})
}

// FailureReport renders a report holding only an error that concerns the whole request
// (for example "Invalid key."), in the shape of the requested report type; a report type
// outside 0–4 gets the simple XML shape. The XML shapes validate against wsdl/reports.xsd.
func FailureReport(message string, reportType ReportType) string {
	switch reportType {
	case Report2009:
		w := newXMLWriter(512)
		w.open("DrugResistance_Interpretation")
		w.elem("webServiceVersion", WebServiceVersion)
		w.elem("schemaVersion", SchemaVersion)
		w.elem("submissionName", "")
		w.elem("dateTime", time.Now().UTC().Format(time.RFC3339))
		w.open("result")
		w.elem("success", "false")
		w.elem("errorMessage", message)
		w.close("result")
		w.close("DrugResistance_Interpretation")
		return w.String()
	case ReportText:
		return "# webServiceVersion\t" + WebServiceVersion + "\ninput\tstatus\terror\n\tfailure\t" + textCell(message) + "\n"
	case ReportHTML:
		return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>HIV-1 drug resistance report: failure</title></head>
<body><main><h1>HIV-1 drug resistance report</h1><p><strong>The request failed:</strong> ` + esc(message) + `</p></main></body>
</html>
`
	}
	w := newXMLWriter(256)
	w.open("Site_Algorithm_Interpretation")
	w.elem("webServiceVersion", WebServiceVersion)
	w.open("failure")
	w.elem("errorMessage", message)
	w.close("failure")
	w.close("Site_Algorithm_Interpretation")
	return w.String()
}

func (r *reference) consensusAt(gene string, pos int) byte {
	c := r.consensus[gene]
	if pos < 1 || pos > len(c) {
		return '?'
	}
	return c[pos-1]
}

// MutationListReport evaluates every sample and returns one report holding them all.
// lists is [sample][gene PR, RT, IN][mutation]; a nil or empty gene means not sequenced.
// A bad mutation string fails its sample inside the report; errors are returned only for
// bad options (ErrUnknownReportType, ErrBadOptions) or a broken user algorithm (*asi.Error).
func (e *Engine) MutationListReport(lists [][][]string, opts Options) (string, error) {
	s, err := e.resolve(opts)
	if err != nil {
		return "", err
	}
	release, err := s.admit()
	if err != nil {
		return "", err
	}
	defer release()
	return e.render(s, &batch{e: e, s: s, lists: lists, first: 1})
}

// MutationListReports is MutationListReport with one complete report per sample; the
// report limit applies to their sum.
func (e *Engine) MutationListReports(lists [][][]string, opts Options) ([]string, error) {
	s, err := e.resolve(opts)
	if err != nil {
		return nil, err
	}
	release, err := s.admit()
	if err != nil {
		return nil, err
	}
	defer release()
	return e.reports(s, &batch{e: e, s: s, lists: lists, first: 1})
}

// reports writes one complete report per sample of a batch, evaluated as they are written;
// the report limit applies to their sum.
func (e *Engine) reports(s *settings, samples *batch) ([]string, error) {
	if s.reportType < ReportSimple || s.reportType > ReportHTML {
		return nil, fmt.Errorf("report type %d: %w", s.reportType, ErrUnknownReportType)
	}
	out := make([]string, 0, samples.Len())
	header, footer := e.renderHeader(s), e.renderFooter(s)
	total := 0
	for smp := range samples.each(func() int { return total }) {
		var r string
		if s.reportType == ReportHTML {
			r = header + summaryHTML(s, []string{e.summaryRowHTML(s, smp)}) + e.renderSample(s, smp) + footer
		} else {
			r = header + e.renderSample(s, smp) + footer
		}
		out = append(out, r)
		total += len(r)
	}
	if samples.err != nil {
		return nil, samples.err
	}
	return out, nil
}

// render writes the report of a batch: its header, the part of each sample as the batch
// evaluates it (one at a time, none kept after its part is written), its end. It stops with
// ErrReportTooLarge as soon as the report passes the limit.
func (e *Engine) render(s *settings, samples *batch) (string, error) {
	if s.reportType < ReportSimple || s.reportType > ReportHTML {
		return "", fmt.Errorf("report type %d: %w", s.reportType, ErrUnknownReportType)
	}
	if s.reportType == ReportHTML {
		return e.renderHTML(s, samples)
	}
	var b strings.Builder
	b.Grow(sizeHint(s, samples.Len()))
	b.WriteString(e.renderHeader(s))
	for smp := range samples.each(b.Len) {
		b.WriteString(e.renderSample(s, smp))
	}
	if samples.err != nil {
		return "", samples.err
	}
	b.WriteString(e.renderFooter(s))
	return b.String(), nil
}

// renderHeader, renderSample and renderFooter write a report in parts: its header, one part
// per input, its end. (resolve has checked the report type.)
func (e *Engine) renderHeader(s *settings) string {
	switch s.reportType {
	case Report2009:
		return e.header2009(s)
	case ReportText:
		return e.headerText(s)
	case ReportHTML:
		return e.headerHTML(s)
	}
	return e.headerSite(s)
}

func (e *Engine) renderSample(s *settings, smp *sample) string {
	switch s.reportType {
	case Report2009:
		return e.sample2009(s, smp)
	case ReportText:
		return e.sampleText(s, smp)
	case ReportHTML:
		return e.sampleHTML(s, smp)
	}
	return e.sampleSite(s, smp)
}

func (e *Engine) renderFooter(s *settings) string {
	switch s.reportType {
	case Report2009:
		return "\n</DrugResistance_Interpretation>\n"
	case ReportText:
		return ""
	case ReportHTML:
		return footerHTML()
	}
	return "\n</Site_Algorithm_Interpretation>\n"
}

// renderHTML writes the HTML report of a batch: its summary table comes first, so the pages
// are written aside while the rows are collected, then joined (the report limit applies to
// both as they grow).
func (e *Engine) renderHTML(s *settings, samples *batch) (string, error) {
	var pages strings.Builder
	pages.Grow(sizeHint(s, samples.Len()))
	var rows []string
	rowBytes := 0
	for smp := range samples.each(func() int { return pages.Len() + rowBytes }) {
		row := e.summaryRowHTML(s, smp)
		rows = append(rows, row)
		rowBytes += len(row)
		pages.WriteString(e.sampleHTML(s, smp))
	}
	if samples.err != nil {
		return "", samples.err
	}
	return e.headerHTML(s) + summaryHTML(s, rows) + pages.String() + footerHTML(), nil
}
