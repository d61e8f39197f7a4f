package resistance

import (
	"errors"
	"regexp"
	"strconv"
	"testing"

	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// A report stops as soon as it passes the report limit: samples after that are never
// evaluated, and the error says where it stopped. Admit sees the algorithm's weight before
// anything is evaluated and can refuse the report.
func TestReportLimitAndAdmit(t *testing.T) {
	e := testEngine(t)
	lists := make([][][]string, 100)
	for i := range lists {
		lists[i] = benchLists[i%len(benchLists)]
	}
	opts := Options{Algorithm: AlgorithmHIVDB, ReportType: ReportDetailed}
	checkLimitAndAdmit(t, e, opts, "per-sample",
		func(o Options) (string, error) { return e.MutationListReport(lists, o) },
		func(o Options) ([]string, error) { return e.MutationListReports(lists, o) })
	if _, err := e.MutationListReport(lists, opts); err != nil {
		t.Errorf("under the default limit: %v", err)
	}
}

// Sequence reports follow the same rules as mutation-list reports: Admit sees the
// algorithm's weight before any sequence is aligned and can refuse; a report stops at its
// limit (sequences analysed a window at a time, never all first), the per-sequence reports
// count together, and a Batch (sitesvc analyze) stops at its limit too.
func TestSequenceReportLimitAndAdmit(t *testing.T) {
	e := testEngine(t)
	example := fasta.Parse(testkit.ExampleFASTA(t))[0]
	recs := make([]*fasta.Record, 100)
	for i := range recs {
		recs[i] = example
	}
	opts := Options{Algorithm: AlgorithmHIVDB, ReportType: Report2009}
	checkLimitAndAdmit(t, e, opts, "per-sequence",
		func(o Options) (string, error) { return e.SequenceReport(recs, o) },
		func(o Options) ([]string, error) { return e.SequenceReports(recs, o) })
	opts.ReportDate = "2026-05-01"
	reps, err := e.SequenceReports(recs[:20], opts)
	if err != nil || len(reps) != 20 {
		t.Fatalf("under the default limit: %d reports, %v", len(reps), err)
	}
	one, err := e.SequenceReport(recs[:1], opts)
	if err != nil || reps[0] != one {
		t.Errorf("the first per-sequence report differs from the report of that sequence alone (%d, %d bytes): %v", len(reps[0]), len(one), err)
	}

	b, err := e.NewBatch(Options{Algorithm: AlgorithmHIVDB, ReportType: Report2009, MaxReportBytes: 60_000})
	if err != nil {
		t.Fatal(err)
	}
	total := len(b.Header())
	// the parts are analysed in any order (last first here, as workers may finish) and taken
	// in input order: what fits is the report's prefix
	parts := make([]string, 100)
	for i := len(parts); i >= 1; i-- {
		part, ok := b.Sample(i, example)
		if !ok {
			t.Fatalf("batch sample %d failed", i)
		}
		parts[i-1] = part
	}
	for i, part := range parts {
		if err := b.Take(i+1, part); err != nil {
			if !errors.Is(err, ErrReportTooLarge) || total+len(part) <= 60_000 || i == 0 {
				t.Fatalf("batch part %d after %d bytes: %v (part %d bytes)", i+1, total, err, len(part))
			}
			if err := b.Take(i+2, ""); !errors.Is(err, ErrReportTooLarge) {
				t.Errorf("a Take after the report passed its limit: %v", err)
			}
			return
		}
		total += len(part)
	}
	t.Fatalf("a batch wrote %d bytes past its limit of 60000", total)
}

// AlignmentWork charges the nucleotides of the sequences that will be aligned.
func TestAlignmentWork(t *testing.T) {
	recs := []*fasta.Record{{Length: 1300}, {Length: MinSequenceLength - 1}, {Length: MaxSequenceLength + 1}, {Length: 2800}}
	if got, want := AlignmentWork(recs), int64(4100*NucleotideWork); got != want {
		t.Errorf("AlignmentWork = %d, want %d", got, want)
	}
}

// checkLimitAndAdmit checks one report of 100 samples (report) and their reports one by
// one (reports) under opts: with a limit of 60,000 bytes the report stops early after Admit
// saw the algorithm's weight (and is released), the reports one by one stop at their sum, a
// refusing Admit refuses both.
func checkLimitAndAdmit(t *testing.T, e *Engine, opts Options, each string, report func(Options) (string, error), reports func(Options) ([]string, error)) {
	t.Helper()
	var admitted int64
	released := false
	limited := opts
	limited.MaxReportBytes = 60_000
	limited.Admit = func(w int64) (func(), error) { admitted = w; return func() { released = true }, nil }
	_, err := report(limited)
	checkStoppedEarly(t, err)
	if admitted != bundledWeight(e.Default()) || !released {
		t.Errorf("Admit saw weight %d (want %d), released %v", admitted, bundledWeight(e.Default()), released)
	}
	if _, err := reports(limited); !errors.Is(err, ErrReportTooLarge) {
		t.Errorf("%s reports: %v, want ErrReportTooLarge over the sum", each, err)
	}
	refuse := errors.New("over budget")
	limited.Admit = func(int64) (func(), error) { return nil, refuse }
	if _, err := report(limited); !errors.Is(err, refuse) {
		t.Errorf("a refusing Admit: %v", err)
	}
	if _, err := reports(limited); !errors.Is(err, refuse) {
		t.Errorf("a refusing Admit, %s reports: %v", each, err)
	}
}

// checkStoppedEarly asserts that a 100-sample report failed with ErrReportTooLarge, that the
// error says at which sample it stopped, and that this was within the first ten.
func checkStoppedEarly(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrReportTooLarge) {
		t.Fatalf("err = %v, want ErrReportTooLarge", err)
	}
	m := regexp.MustCompile(`at sample (\d+) of 100`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("the error does not say where it stopped: %v", err)
	}
	if n, _ := strconv.Atoi(m[1]); n > 10 {
		t.Errorf("stopped at sample %d: the report went on long past the limit", n)
	}
}
