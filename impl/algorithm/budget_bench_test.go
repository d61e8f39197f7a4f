package algorithm

import (
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkWorstAcceptedRequest measures the heaviest requests the work budget and the
// report limit admit, through the service's handler: the largest user algorithm (4 MiB of
// scored drugs) with as many samples as the budget allows, as text (the work bound) and as
// a detailed report (the report-size bound), and 10,000 samples under HIVDB 10.2. Each
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
	cases := []struct{ name, body string }{
		{"user-4MiB-text", userAlgorithmCall(s.Key, 3, alg, maxSamples)},
		{"user-4MiB-detailed", userAlgorithmCall(s.Key, 1, alg, 1)},
		{"hivdb-10000-text", `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>3</reportTypeInt>` + samplesXML("mutationsList", 10_000) + `</alg:processMutationLists>`},
		{"hivdb-650-xml2009", `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>2</reportTypeInt>` + samplesXML("mutationsList", 650) + `</alg:processMutationLists>`},
	}
	h := s.Handler()
	for _, c := range cases {
		env := `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:alg="http://algorithm.sitesvc.org"><soapenv:Body>` + c.body + `</soapenv:Body></soapenv:Envelope>`
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
			if strings.HasPrefix(c.name, "user-4MiB-text") {
				b.ReportMetric(float64(maxSamples), "samples")
			}
		})
	}
}
