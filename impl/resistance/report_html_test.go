package resistance

import (
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/sitelib/sitesvc/impl/fasta"
)

// htmlInputs: the shared hypermutated sequence (PR+RT, D30N), an integrase sequence with
// INSTI resistance and a sequence that fails.
func htmlInputs(t *testing.T) []*fasta.Record {
	return []*fasta.Record{
		sharedSequence(t, "PROBLEM_SEQUENCES_APOBEC"),
		sharedSequence(t, "JUST_IN_FJ538976"),
		fasta.Parse(">too short <b>\nACGTACGT\n")[0],
	}
}

// checkSelfContained fails when an HTML report could make a request of its own: no scripts,
// stylesheets, images, frames, fonts or URLs, and a Content-Security-Policy that forbids
// them anyway.
func checkSelfContained(t *testing.T, rep string) {
	t.Helper()
	if !strings.HasPrefix(rep, "<!DOCTYPE html>\n<html lang=\"en\">") || !strings.HasSuffix(rep, "</html>\n") {
		t.Errorf("not a whole HTML document: %.80q … %q", rep, rep[max(0, len(rep)-40):])
	}
	if !strings.Contains(rep, `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`) {
		t.Error("no Content-Security-Policy forbidding outside requests")
	}
	for _, bad := range []string{"<script", "<link", "<img", "<iframe", "<object", "src=", "url(", "@import", "http://", "https://", "//"} {
		if strings.Contains(strings.ToLower(rep), bad) {
			t.Errorf("the report holds %q: it must not reach outside itself", bad)
		}
	}
	// every element the report opens it closes, in order (the tokenizer sees the markup as
	// written; html.Parse would repair it silently)
	var stack []string
	z := html.NewTokenizer(strings.NewReader(rep))
	void := map[string]bool{"meta": true, "br": true}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			if !errors.Is(z.Err(), io.EOF) {
				t.Fatalf("tokenizing: %v", z.Err())
			}
			break
		}
		name, _ := z.TagName()
		switch tt {
		case html.StartTagToken:
			if !void[string(name)] {
				stack = append(stack, string(name))
			}
		case html.EndTagToken:
			if len(stack) == 0 || stack[len(stack)-1] != string(name) {
				t.Fatalf("</%s> closes %v", name, stack)
			}
			stack = stack[:len(stack)-1]
		}
	}
	if len(stack) != 0 {
		t.Errorf("unclosed elements: %v", stack)
	}
}

// TestHTMLReport: the summary table comes first, one row per input linking to its page;
// each page holds, in Stanford's order, the sequence summary (genes with codon ranges,
// subtype, quality findings with their levels), drug resistance by class (levels in words
// beside their colour), mutations by class, comments; a failed input has its own page.
func TestHTMLReport(t *testing.T) {
	e := testEngine(t)
	rep, err := e.SequenceReport(htmlInputs(t), Options{Algorithm: AlgorithmHIVDB, ReportType: ReportHTML, ReportName: "Clinic <A> & B", ReportDate: "2026-05-01"})
	if err != nil {
		t.Fatal(err)
	}
	checkSelfContained(t, rep)
	summary := strings.Index(rep, `<h2 id="summary">Summary of 3 sequences</h2>`)
	pages := []int{strings.Index(rep, `<section class="input" id="input-1"`), strings.Index(rep, `<section class="input" id="input-2"`), strings.Index(rep, `<section class="input" id="input-3"`)}
	if summary < 0 || pages[0] < summary || pages[1] < pages[0] || pages[2] < pages[1] {
		t.Fatalf("summary at %d, pages at %v", summary, pages)
	}
	table := rep[summary:pages[0]]
	// the subtype as the resistance result prints it (subtypeLabel): "B (…%)"
	if !regexp.MustCompile(`<a href="#input-1">1</a></td><td>APOBEC</td><td>PR 1–99, RT 1–268</td><td>B \([0-9.]+%\)</td><td><span class="badge badge-warning">WARNING</span>3 findings</td>`).MatchString(table) {
		t.Errorf("summary row 1:\n%s", table)
	}
	for _, want := range []string{
		`<strong>High-Level Resistance:</strong> ATV/r, FPV/r, IDV/r, LPV/r, NFV, SQV/r, ABC, AZT, D4T, DDI, FTC, 3TC, ISL`,
		`<a href="#input-2">2</a></td><td>FJ538976</td><td>IN 1–288</td>`,
		`<strong>High-Level Resistance:</strong> CAB, EVG, RAL; <strong>Intermediate Resistance:</strong> BIC, DTG`,
		`<a href="#input-3">3</a></td><td>too short &lt;b&gt;</td><td colspan="4"><strong>Analysis failed:</strong> Sequence too short: 8 nucleotides`,
	} {
		if !strings.Contains(table, want) {
			t.Errorf("summary table: no %q in\n%s", want, table)
		}
	}
	if !strings.Contains(rep, "<title>Clinic &lt;A&gt; &amp; B — HIV-1 drug resistance report</title>") || !strings.Contains(rep, "<dt>Report</dt><dd>Clinic &lt;A&gt; &amp; B</dd>") {
		t.Error("the report name is not in the title and header, escaped")
	}

	page := rep[pages[0]:pages[1]]
	headings := regexp.MustCompile(`<h[34]>([^<]*)</h[34]>`).FindAllStringSubmatch(page, -1)
	var order []string
	for _, h := range headings {
		order = append(order, h[1])
	}
	if got := strings.Join(order, " | "); got != "Sequence summary | Sequence quality | Drug resistance interpretation | Mutations | Comments | PR | RT | Other comments" {
		t.Errorf("page sections: %s", got)
	}
	for _, want := range []string{
		`<h2 id="input-1-h">Sequence 1: APOBEC</h2>`,
		`<tr><th scope="row">PR</th><td>1–99</td><td>1–297</td><td>80.81%</td><td>none</td></tr>`,
		`<tr><th scope="row">RT</th><td>1–268</td>`,
		`<tr><th scope="row">IN</th><td colspan="4"><span class="muted">not sequenced</span></td></tr>`,
		`<span class="badge badge-warning">WARNING</span>3 APOBEC signature mutations (G-to-A hypermutation): PR: W6*, D29N, G48R. 1 drug-resistance mutation may be caused by APOBEC hypermutation rather than drug selection: PR: D30N</li>`,
		`<span class="badge badge-note">NOTE</span>There is 1 stop codon in PR: W6*</li>`,
		"<caption>Protease Inhibitors (PI)</caption>",
		"<caption>Nucleoside Reverse Transcriptase Inhibitors (NRTI)</caption>",
		`<tr><th scope="row">nelfinavir (NFV)</th><td><span class="level lv4"><span class="meter" aria-hidden="true">●●●●●</span>High-Level Resistance</span></td><td>R</td>`,
		`<span class="level lv3"><span class="meter" aria-hidden="true">●●●●○</span>Intermediate Resistance</span>`,
		`<span class="drm">D30N</span> <span class="tag">(possibly APOBEC-induced)</span>`,
		`<span class="drm">M184V</span>`,
		`G48R <span class="tag">(APOBEC signature mutation)</span>`,
		`W6* <span class="tag">(unusual, APOBEC signature mutation)</span>`,
		`<tr><th scope="row">PR</th><td>PI major</td><td>`,
		`<tr><th scope="row">RT</th><td>NNRTI</td><td>none</td></tr>`,
		"M184V (60)",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page 1: no %q", want)
		}
	}
	if !regexp.MustCompile(`<dt>Subtype</dt><dd>B \([0-9.]+%\)</dd>`).MatchString(page) {
		t.Error("page 1: no subtype B")
	}
	if strings.Contains(page, "CA</th>") || strings.Contains(page, "Integrase") {
		t.Error("page 1 shows genes the sequence does not cover")
	}
	failed := rep[pages[2]:]
	if !strings.Contains(failed, `<h2 id="input-3-h">Sequence 3: too short &lt;b&gt;</h2>`) || !strings.Contains(failed, `<p class="failure"><strong>Analysis failed:</strong> Sequence too short: 8 nucleotides; at least 30 are needed</p>`) {
		t.Errorf("failure page:\n%s", failed)
	}
	// printing: a page per input, colours kept
	for _, want := range []string{"@media print", "section.input { break-before: page; page-break-before: always;", "print-color-adjust: exact"} {
		if !strings.Contains(rep, want) {
			t.Errorf("print stylesheet: no %q", want)
		}
	}
}

// TestHTMLReportSelection: the HTML report through every way of asking for it, and the
// options that shape it.
func TestHTMLReportSelection(t *testing.T) {
	e := testEngine(t)
	recs := htmlInputs(t)[:1]
	base := Options{Algorithm: AlgorithmHIVDB, ReportDate: "2026-05-01"}
	want, err := e.SequenceReport(recs, Options{Algorithm: AlgorithmHIVDB, ReportDate: "2026-05-01", ReportType: ReportHTML})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{"type=html", "type=4", "reportType=HTML"} {
		opts := base
		opts.ReportOptions = o
		got, err := e.SequenceReport(recs, opts)
		if err != nil || got != want {
			t.Errorf("reportOptions %q: %v, same report: %v", o, err, got == want)
		}
	}
	// the earlier vocabulary: its sections are off unless named
	opts := base
	opts.ReportOptions = "HTML"
	bare, err := e.SequenceReport(recs, opts)
	if err != nil || !strings.HasPrefix(bare, "<!DOCTYPE html>") || strings.Contains(bare, "<h3>Comments</h3>") || strings.Contains(bare, "<h4>Sequence quality</h4>") || strings.Contains(bare, "Mutation scores") {
		t.Errorf("word HTML alone: %v\n%.300s", err, bare)
	}
	opts.ReportOptions = "html|QA ANALYSIS|MUTATION COMMENTS|MUTATION SCORES"
	if full, err := e.SequenceReport(recs, opts); err != nil || full != want {
		t.Errorf("HTML with every section named differs from type=html: %v", err)
	}
	opts.ReportOptions = "XMLVER1|HTML"
	if _, err := e.SequenceReport(recs, opts); !errors.Is(err, ErrBadOptions) {
		t.Errorf("two report types: %v", err)
	}
	if _, err := e.SequenceReport(recs, Options{Algorithm: AlgorithmHIVDB, ReportType: 5}); !errors.Is(err, ErrUnknownReportType) || !strings.Contains(err.Error(), "4 HTML") {
		t.Errorf("report type 5: %v", err)
	}
	opts.ReportOptions = "type=html; comments=no; quality=no; partialScores=no"
	if r, err := e.SequenceReport(recs, opts); err != nil || strings.Contains(r, "<h3>Comments</h3>") || strings.Contains(r, "Sequence quality") || strings.Contains(r, "Mutation scores") || !strings.Contains(r, "not requested") {
		t.Errorf("sections switched off: %v", err)
	}
	opts.ReportOptions = "type=html; algorithm=ANRS"
	if r, err := e.SequenceReport(recs, opts); err != nil || !strings.Contains(r, "<dd>ANRS") || !strings.Contains(r, "Resistance level") {
		t.Errorf("ANRS: %v", err)
	}
}

// TestHTMLMutationListsAndPerSampleReports: mutation lists get the same report (their summary
// is the lists as given); the per-sample form is one whole document per input.
func TestHTMLMutationListsAndPerSampleReports(t *testing.T) {
	e := testEngine(t)
	lists := [][][]string{{nil, {"M41L", "M184V", "T215Y"}, nil}, {nil, {"K41L"}, nil}, {{"WT"}, nil, nil}}
	rep, err := e.MutationListReport(lists, Options{Algorithm: AlgorithmHIVDB, ReportType: ReportHTML, ReportDate: "2026-05-01"})
	if err != nil {
		t.Fatal(err)
	}
	checkSelfContained(t, rep)
	for _, want := range []string{
		`<h2 id="summary">Summary of 3 mutation lists</h2>`,
		`<td>mutation list 1</td><td>RT</td><td>no findings</td><td><strong>High-Level Resistance:</strong> AZT, FTC, 3TC, ISL; <strong>Intermediate Resistance:</strong> ABC, D4T, DDI; <strong>Low-Level Resistance:</strong> TDF</td>`,
		`<td colspan="3"><strong>Analysis failed:</strong> RT mutation &#34;K41L&#34;: the consensus amino acid at RT 41 is M, not K</td>`,
		`<h2 id="input-1-h">Mutation list 1</h2>`,
		`<h3>Mutation list summary</h3>`, `<tr><th scope="row">RT</th><td>M41L, M184V, T215Y</td></tr>`, `<tr><th scope="row">PR</th><td><span class="muted">not sequenced</span></td></tr>`,
		`<tr><th scope="row">PR</th><td>WT</td></tr>`,
		`<h4>Mutation list quality</h4>`,
		`<td>none: no drug with low-level resistance or more</td>`,
	} {
		if !strings.Contains(rep, want) {
			t.Errorf("no %q", want)
		}
	}
	if strings.Contains(rep, "Subtype") {
		t.Error("mutation lists have no subtype")
	}
	docs, err := e.MutationListReports(lists, Options{Algorithm: AlgorithmHIVDB, ReportType: ReportHTML, ReportDate: "2026-05-01"})
	if err != nil || len(docs) != 3 {
		t.Fatalf("%d reports, %v", len(docs), err)
	}
	for i, d := range docs {
		checkSelfContained(t, d)
		if !strings.Contains(d, "Summary of 1 mutation list<") || strings.Count(d, `<section class="input"`) != 1 || !strings.Contains(d, `id="input-`+string(rune('1'+i))+`"`) {
			t.Errorf("report %d is not one whole document for its input:\n%.500s", i+1, d)
		}
	}
}

// TestHTMLBatchEqualsReport: a Batch (sitesvc analyze) written as SummaryFirst says — header,
// summary, the parts in order, footer — is the report SequenceReport writes.
func TestHTMLBatchEqualsReport(t *testing.T) {
	e := testEngine(t)
	recs := htmlInputs(t)
	opts := Options{Algorithm: AlgorithmHIVDB, ReportType: ReportHTML, ReportDate: "2026-05-01"}
	want, err := e.SequenceReport(recs, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.NewBatch(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !b.SummaryFirst() {
		t.Fatal("the HTML report begins with its summary")
	}
	parts := make([]string, len(recs))
	for i := len(recs) - 1; i >= 0; i-- { // any order: the summary is in input order
		part, ok := b.Sample(i+1, recs[i])
		if ok != (i < 2) {
			t.Fatalf("sample %d: ok %v", i+1, ok)
		}
		parts[i] = part
	}
	if got := b.Header() + b.Summary() + strings.Join(parts, "") + b.Footer(); got != want {
		t.Errorf("batch report differs from SequenceReport:\n%s\n---\n%s", got, want)
	}
	x, err := e.NewBatch(Options{Algorithm: AlgorithmHIVDB, ReportType: ReportSimple})
	if err != nil || x.SummaryFirst() || x.Summary() != "" {
		t.Errorf("the XML reports have no summary: %v", err)
	}
}

// TestHTMLFailureReport: a request-level failure in the HTML shape, escaped.
func TestHTMLFailureReport(t *testing.T) {
	rep := FailureReport(`Invalid key <"x">.`, ReportHTML)
	if !strings.HasPrefix(rep, "<!DOCTYPE html>") || !strings.Contains(rep, "<strong>The request failed:</strong> Invalid key &lt;&#34;x&#34;&gt;.</p>") || strings.Contains(rep, "<script") {
		t.Errorf("failure report:\n%s", rep)
	}
}
