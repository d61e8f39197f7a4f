package resistance

import (
	"errors"
	"regexp"
	"strconv"
	"testing"
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
	var admitted int64
	released := false
	opts := Options{Algorithm: AlgorithmHIVDB, ReportType: ReportDetailed, MaxReportBytes: 60_000,
		Admit: func(w int64) (func(), error) { admitted = w; return func() { released = true }, nil }}
	_, err := e.MutationListReport(lists, opts)
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
	if admitted != Weight(e.Default()) || !released {
		t.Errorf("Admit saw weight %d (want %d), released %v", admitted, Weight(e.Default()), released)
	}
	if _, err := e.MutationListReports(lists, opts); !errors.Is(err, ErrReportTooLarge) {
		t.Errorf("per-sample reports: %v, want ErrReportTooLarge over the sum", err)
	}
	refuse := errors.New("over budget")
	opts.Admit = func(int64) (func(), error) { return nil, refuse }
	if _, err := e.MutationListReport(lists, opts); !errors.Is(err, refuse) {
		t.Errorf("a refusing Admit: %v", err)
	}
	opts.Admit, opts.MaxReportBytes = nil, 0
	if _, err := e.MutationListReport(lists, opts); err != nil {
		t.Errorf("under the default limit: %v", err)
	}
}
