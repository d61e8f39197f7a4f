package algorithm

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/resistance"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// userAlgorithmSequences is overload 2 with a user algorithm and sequences (FASTA, escaped).
func userAlgorithmSequences(key string, reportType int, alg, fastaXML string) string {
	var esc strings.Builder
	_ = xml.EscapeText(&esc, []byte(alg))
	return fmt.Sprintf(`<alg:processSequences><key>%s</key><inAlgorithmInterface>%d</inAlgorithmInterface><algorithm>9</algorithm><userSubmittedAlgorithm>%s</userSubmittedAlgorithm><reportOptions/><methodName/><reportName/><reportDate>x</reportDate><inputData>%s</inputData></alg:processSequences>`,
		key, reportType, esc.String(), fastaXML)
}

// BenchmarkWorstAcceptedRequest measures the heaviest requests the work budget and the
// report limit admit, through the service's handler: the largest user algorithm (4 MiB of
// scored drugs) with as many samples as the budget allows, as text (the work bound) and as
// a detailed report (the report-size bound), 10,000 samples under HIVDB 10.2, and
// sequences: the 10,000,000 nucleotides allowed per request under HIVDB 10.2 (text), as many
// sequences as fit the report limit as "XML 2009", and the heaviest user algorithm with as
// many sequences as the budget allows. Each
// reports its time per request and peak-heap-MiB, the largest heap in use sampled during
// the run (the documented bound of one request is 256 MiB).
func BenchmarkWorstAcceptedRequest(b *testing.B) {
	s := startService(b, func(c *Config) { c.KeyRate, c.KeyBurst = 1e9, 1e9 })
	alg := heavyAlgorithm(3800 << 10)
	// The text report's weight: the cases that take as many samples as the budget allows
	// are text reports.
	weight, err := s.cfg.Engine.(ResistanceEngine).AlgorithmWeight(ReportOptions{Algorithm: 9, UserAlgorithm: alg, ReportType: resistance.ReportText})
	if err != nil {
		b.Fatal(err)
	}
	maxSamples := int(DefaultMaxWork / weight)
	example := testkit.ExampleFASTA(b)
	exampleNT := fasta.Parse(example)[0].Length
	fastaOf := func(n int) string { return xmlText(strings.Repeat(example, n)) }
	maxSeqs := resistance.MaxTotalBases / exampleNT
	// Bodies are built when their case runs, so the peak of one case does not include the
	// others' (10 MB of FASTA, three copies of a 4 MiB algorithm).
	cases := []struct {
		name string
		body func() string
	}{
		{"user-4MiB-text", func() string { return userAlgorithmCall(s.Key, 3, alg, maxSamples) }},
		{"user-4MiB-detailed", func() string { return userAlgorithmCall(s.Key, 1, alg, 1) }},
		{"hivdb-10000-text", func() string {
			return `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>3</reportTypeInt>` + samplesXML("mutationsList", 10_000) + `</alg:processMutationLists>`
		}},
		{"hivdb-650-xml2009", func() string {
			return `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>2</reportTypeInt>` + samplesXML("mutationsList", 650) + `</alg:processMutationLists>`
		}},
		{"seq-hivdb-10Mnt-text", func() string {
			return `<alg:processSequencesInFasta><key>` + s.Key + `</key><reportTypeInt>3</reportTypeInt><sequencesInFasta>` + fastaOf(maxSeqs) + `</sequencesInFasta></alg:processSequencesInFasta>`
		}},
		{"seq-hivdb-650-xml2009", func() string {
			return `<alg:processSequencesInFasta><key>` + s.Key + `</key><reportTypeInt>2</reportTypeInt><sequencesInFasta>` + fastaOf(650) + `</sequencesInFasta></alg:processSequencesInFasta>`
		}},
		{"seq-user-4MiB-text", func() string { return userAlgorithmSequences(s.Key, 3, alg, fastaOf(maxSamples)) }},
	}
	h := s.Handler()
	for _, c := range cases {
		env := `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:alg="http://algorithm.sitesvc.org"><soapenv:Body>` + c.body() + `</soapenv:Body></soapenv:Envelope>`
		b.Run(c.name, func(b *testing.B) {
			runtime.GC()
			var peak uint64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				var m runtime.MemStats
				for {
					runtime.ReadMemStats(&m)
					peak = max(peak, m.HeapInuse)
					select {
					case <-stop:
						return
					case <-time.After(5 * time.Millisecond):
					}
				}
			}()
			for b.Loop() {
				rr := httptest.NewRecorder()
				h.ServeHTTP(rr, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(env)))
				if rr.Code != 200 {
					b.Fatalf("%d %s", rr.Code, clip(rr.Body.String()))
				}
			}
			close(stop)
			wg.Wait()
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MiB")
			if strings.HasSuffix(c.name, "user-4MiB-text") {
				b.ReportMetric(float64(maxSamples), "samples")
			}
		})
	}
}

// cpuTime is the CPU time the process has used (user and system), which a loaded shared
// machine inflates far less than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// smallestAlgorithm is a user algorithm of one drug and one rule: what a request of many
// large samples costs beside its algorithm (parsing and listing each sample's mutations).
var smallestAlgorithm = asiDocument([]string{"D0"}, `<DRUG><NAME>D0</NAME><RULE><CONDITION>1L</CONDITION><ACTIONS><LEVEL>2</LEVEL></ACTIONS></RULE></DRUG>`, "", "", "")

// BenchmarkWorkShapes calibrates the work budget's cost model: for the worst shape of every
// construct of the ASI language (costShapes: long SCORE FROM lists, MAX groups, deep
// AND/OR, SELECT lists, many rules, many drugs, comments on rules, mutation comments,
// result comments) and every report type, it evaluates the worst-case sample and reports
// the CPU time per work unit of the algorithm's weight (cpu-ns/unit) and the CPU time the
// largest request accepted would take (worst-s: as many worst samples as the budget, the
// 10,000-sample limit, the body limit beside a 4 MiB algorithm and the report limit allow
// (the report stops at the sample that passes it), plus parsing a
// 4 MiB document, measured once). smallest-algorithm shows the samples' own cost, which
// the sample and body limits bound. The cost model's constants are chosen so
// that worst-s stays under 2 s on the shared development machine (docs/security.md).
func BenchmarkWorkShapes(b *testing.B) {
	s := startService(b, nil)
	eng := s.cfg.Engine.(ResistanceEngine)
	// Parsing is a fixed cost of every request: the largest document of each shape.
	var parse time.Duration
	for _, sh := range costShapes(3900 << 10) {
		start := cpuTime()
		if _, err := eng.AlgorithmWeight(ReportOptions{Algorithm: 9, UserAlgorithm: sh.doc}); err != nil {
			b.Fatalf("%s: %v", sh.name, err)
		}
		parse = max(parse, cpuTime()-start)
	}
	b.Logf("parsing the largest document of every shape: at most %v of CPU (in worst-s)", parse.Round(time.Millisecond))
	// The samples the largest request can hold: the budget's, at most 10,000 (maxSamples),
	// and at most what fits the body beside a 4 MiB algorithm.
	perSampleBytes := len(sampleArrayXML("x", worstSample(), 1)) - len("<x></x>")
	bodySamples := (DefaultMaxRequestBytes - 4<<20) / perSampleBytes
	// Evaluation at a size the user-algorithm cache keeps, so only evaluation is measured.
	shapes := append(costShapes(800<<10), struct{ name, doc string }{"smallest-algorithm", smallestAlgorithm})
	for _, sh := range shapes {
		for rt := range resistance.ReportHTML + 1 {
			opts := ReportOptions{Algorithm: 9, UserAlgorithm: sh.doc, ReportType: rt, MaxReportBytes: 1 << 30}
			weight, err := eng.AlgorithmWeight(opts)
			if err != nil {
				b.Fatalf("%s: %v", sh.name, err)
			}
			lists := [][][]string{worstSample()}
			b.Run(fmt.Sprintf("%s/type-%d", sh.name, rt), func(b *testing.B) {
				if _, err := eng.MutationListReport(lists, opts); err != nil { // parsed into the cache
					b.Fatal(err)
				}
				start := cpuTime()
				var reportBytes int
				for b.Loop() {
					report, err := eng.MutationListReport(lists, opts)
					if err != nil {
						b.Fatal(err)
					}
					reportBytes = len(report)
				}
				perSample := float64((cpuTime() - start).Nanoseconds()) / float64(b.N)
				perUnit := perSample / float64(weight)
				b.ReportMetric(perUnit, "cpu-ns/unit")
				b.ReportMetric(float64(weight), "weight")
				// A report stops at the sample that passes the report limit.
				samples := min(DefaultMaxWork/weight, maxSamples, int64(bodySamples), int64(resistance.DefaultMaxReportBytes/max(reportBytes, 1)+1))
				b.ReportMetric(float64(samples), "samples")
				b.ReportMetric(parse.Seconds()+perSample*float64(samples)/1e9, "worst-s")
			})
		}
	}
}
