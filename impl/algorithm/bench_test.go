package algorithm

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/resistance"
)

// BenchmarkSOAPOverhead measures, side by side in one run, one mutation
// list (RT M41L, M184V, T215Y; simple XML report under HIVDB 10.2):
//
//	engine:     the bare engine call
//	handler:    the whole SOAP request through the service's handler, in
//	            process (parse, key check, rate limit, decode, engine,
//	            encode)
//	http:       the same over loopback HTTP with a keep-alive client
//
// handler and http report x-engine: their time per request divided by the
// engine's, the SOAP overhead as a ratio. On a busy machine those ratios
// drift with the load between sub-benchmarks, so interleaved runs all three
// in every iteration, one after the other, and reports each one's µs/op
// and the two ratios from the same iterations.
func BenchmarkSOAPOverhead(b *testing.B) {
	s := startService(b, func(c *Config) { c.KeyRate, c.KeyBurst = 1e9, 1e9 })
	eng := testEngine(b)
	lists := [][][]string{{nil, {"M41L", "M184V", "T215Y"}, nil}}
	opts := ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: 0}
	envelope := `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:alg="http://algorithm.sitesvc.org"><soapenv:Body><alg:processMutationLists><key>` + s.Key +
		`</key><reportTypeInt>0</reportTypeInt><mutationsList><s><g/><g><m>M41L</m><m>M184V</m><m>T215Y</m></g><g/></s></mutationsList></alg:processMutationLists></soapenv:Body></soapenv:Envelope>`

	var engineNs float64
	perOp := func(b *testing.B) float64 { return float64(b.Elapsed().Nanoseconds()) / float64(b.N) }

	b.Run("engine", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := eng.MutationListReport(lists, opts); err != nil {
				b.Fatal(err)
			}
		}
		engineNs = perOp(b)
	})
	b.Run("handler", func(b *testing.B) {
		b.ReportAllocs()
		h := s.Handler()
		for b.Loop() {
			rr := httptest.NewRecorder()
			h.ServeHTTP(rr, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(envelope)))
			if rr.Code != 200 {
				b.Fatalf("%d %s", rr.Code, rr.Body)
			}
		}
		if engineNs > 0 {
			b.ReportMetric(perOp(b)/engineNs, "x-engine")
		}
	})
	client := &http.Client{Timeout: 10 * time.Second}
	overHTTP := func(b *testing.B) {
		resp, err := client.Post(s.URL, "text/xml; charset=utf-8", strings.NewReader(envelope))
		if err != nil {
			b.Fatal(err)
		}
		var buf [32 << 10]byte
		for {
			if _, err := resp.Body.Read(buf[:]); err != nil {
				break
			}
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.Run("http", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			overHTTP(b)
		}
		if engineNs > 0 {
			b.ReportMetric(perOp(b)/engineNs, "x-engine")
		}
	})
	b.Run("interleaved", func(b *testing.B) {
		h := s.Handler()
		var engineT, handlerT, httpT time.Duration
		for b.Loop() {
			t0 := time.Now()
			if _, err := eng.MutationListReport(lists, opts); err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			rr := httptest.NewRecorder()
			h.ServeHTTP(rr, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(envelope)))
			if rr.Code != 200 {
				b.Fatalf("%d %s", rr.Code, rr.Body)
			}
			t2 := time.Now()
			overHTTP(b)
			t3 := time.Now()
			engineT, handlerT, httpT = engineT+t1.Sub(t0), handlerT+t2.Sub(t1), httpT+t3.Sub(t2)
		}
		n := float64(b.N)
		b.ReportMetric(float64(engineT.Microseconds())/n, "engine-µs/op")
		b.ReportMetric(float64(handlerT.Microseconds())/n, "handler-µs/op")
		b.ReportMetric(float64(httpT.Microseconds())/n, "http-µs/op")
		b.ReportMetric(float64(handlerT)/float64(engineT), "handler-x-engine")
		b.ReportMetric(float64(httpT)/float64(engineT), "http-x-engine")
	})
}

// BenchmarkBatch100 is one in-process processMutationLists request of 100
// samples (tab-separated report): throughput of a batch client.
func BenchmarkBatch100(b *testing.B) {
	s := startService(b, nil)
	var sb strings.Builder
	sb.WriteString(`<?xml version="1.0"?><e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/" xmlns:a="http://algorithm.sitesvc.org"><e:Body><a:processMutationLists><key>` + s.Key + `</key><reportTypeInt>3</reportTypeInt><mutationsList>`)
	for i := 0; i < 100; i++ {
		sb.WriteString(`<s><g><m>L90M</m></g><g><m>M41L</m><m>M184V</m><m>T215Y</m></g><g><m>N155H</m></g></s>`)
	}
	sb.WriteString(`</mutationsList></a:processMutationLists></e:Body></e:Envelope>`)
	body := sb.String()
	h := s.Handler()
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		rr := httptest.NewRecorder()
		h.ServeHTTP(rr, httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)))
		if rr.Code != 200 {
			b.Fatal(rr.Code)
		}
	}
}
