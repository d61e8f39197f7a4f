package algorithm

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/resistance"
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
	weight, err := s.cfg.Engine.(ResistanceEngine).AlgorithmWeight(ReportOptions{Algorithm: 9, UserAlgorithm: alg})
	if err != nil {
		b.Fatal(err)
	}
	maxSamples := int(DefaultMaxWork / weight)
	example := exampleFASTA(b)
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
