package resistance

import (
	"os"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// benchLists are realistic treatment-experienced samples (PR, RT, IN) and a few sparse ones.
var benchLists = [][][]string{
	{{"L10I", "M46I", "I54V", "V82A", "L90M"}, {"M41L", "D67N", "T69D", "K70R", "M184V", "L210W", "T215Y", "K219Q", "K103N", "Y181C"}, {"G140S", "Q148H"}},
	{nil, {"M41L", "M184V", "T215Y"}, nil},
	{{"I50L", "N88S"}, {"K65R", "M184I", "E138K", "Y181C", "G190A"}, {"N155H", "E92Q"}},
	{{"V32I", "I47V", "I54L", "L76V", "I84V"}, {"T69S_SS", "L74V", "Y115F", "M184V", "L100I", "K103N"}, {"E138K", "G140A", "Q148R", "S147G"}},
	{nil, {"K103N"}, nil},
	{{"D30N", "N88D"}, {"Q151M", "A62V", "V75I", "F77L", "F116Y", "V106M", "Y188L"}, {"Y143R", "T97A"}},
	{{"WT"}, {"WT"}, {"R263K"}},
	{{"L33F", "I54M", "V82F", "I84V", "L90M"}, {"D67d", "T69G", "K70R", "L210W", "T215F", "K219E", "V179D", "Y181I"}, {"G118R", "E138K"}},
}

// BenchmarkMutationLists measures mutation lists evaluated per second on one core under
// HIVDB 10.2 (all drugs of the sequenced genes, comments included): "evaluate" is parsing and
// interpretation, the report-* runs add rendering; each reports lists/s, and the report runs
// also their cost relative to evaluate as measured in the same run (x-evaluate).
func BenchmarkMutationLists(b *testing.B) {
	e := testEngine(b)
	s := hivdbSettings(b, e)
	var evalNsPerList float64
	b.Run("evaluate", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			smp := e.evaluate(s, 1, benchLists[i%len(benchLists)])
			if smp.Err != "" {
				b.Fatal(smp.Err)
			}
		}
		evalNsPerList = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lists/s")
	})
	for _, rt := range []struct {
		name string
		typ  ReportType
	}{{"report-simple", ReportSimple}, {"report-detailed", ReportDetailed}, {"report-2009", Report2009}, {"report-text", ReportText}, {"report-html", ReportHTML}} {
		b.Run(rt.name, func(b *testing.B) {
			b.ReportAllocs()
			opts := Options{Algorithm: AlgorithmHIVDB, ReportType: rt.typ, ReportDate: "2026-05-01"}
			benchReports(b, e, opts, evalNsPerList)
		})
	}
	// the text report again, with HIVDB 10.2 submitted as a user algorithm on every call:
	// after the first call it comes from the cache
	b.Run("report-text-user-algorithm", func(b *testing.B) {
		data, err := os.ReadFile(testkit.HIVDBDir(b, "algorithms", "HIVDB_10.2.xml"))
		if err != nil {
			b.Fatal(err)
		}
		opts := Options{Algorithm: 9, UserAlgorithm: string(data), ReportType: ReportText, ReportDate: "2026-05-01"}
		b.ReportAllocs()
		benchReports(b, e, opts, evalNsPerList)
	})
}

// benchReports measures reports of one of benchLists at a time under opts: lists/s and, when
// evaluate was measured first (evalNsPerList > 0), the cost relative to it.
func benchReports(b *testing.B, e *Engine, opts Options, evalNsPerList float64) {
	for i := 0; b.Loop(); i++ {
		if _, err := e.MutationListReport(benchLists[i%len(benchLists):i%len(benchLists)+1], opts); err != nil {
			b.Fatal(err)
		}
	}
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lists/s")
	if evalNsPerList > 0 {
		b.ReportMetric(ns/evalNsPerList, "x-evaluate")
	}
}
