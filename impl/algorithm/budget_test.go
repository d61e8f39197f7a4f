package algorithm

import (
	"context"
	"encoding/xml"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/resistance"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// heavyAlgorithm is a valid ASI document of about size bytes defining one scored drug per
// 150 bytes: the shape of the request that took 20 s and 3.8 GB before the work budget.
func heavyAlgorithm(size int) string {
	var names []string
	var drugs strings.Builder
	for i := 0; drugs.Len() < size; i++ {
		n := fmt.Sprintf("D%d", i)
		names = append(names, n)
		fmt.Fprintf(&drugs, "<DRUG><NAME>%s</NAME><RULE><CONDITION>SCORE FROM (41L => 10, 184V => 5)</CONDITION><ACTIONS><SCORERANGE><USE_GLOBALRANGE/></SCORERANGE></ACTIONS></RULE></DRUG>", n)
	}
	return `<ALGORITHM><ALGNAME>X</ALGNAME><ALGVERSION>1</ALGVERSION><DEFINITIONS><GENE_DEFINITION><NAME>RT</NAME><DRUGCLASSLIST>NRTI</DRUGCLASSLIST></GENE_DEFINITION>` +
		`<LEVEL_DEFINITION><ORDER>1</ORDER><ORIGINAL>S</ORIGINAL><SIR>S</SIR></LEVEL_DEFINITION><LEVEL_DEFINITION><ORDER>2</ORDER><ORIGINAL>R</ORIGINAL><SIR>R</SIR></LEVEL_DEFINITION>` +
		`<DRUGCLASS><NAME>NRTI</NAME><DRUGLIST>` + strings.Join(names, ",") + `</DRUGLIST></DRUGCLASS><GLOBALRANGE>(-INF TO 9 => 1, 10 TO INF => 2)</GLOBALRANGE></DEFINITIONS>` + drugs.String() + `</ALGORITHM>`
}

// samplesXML is n samples of RT mutations as an rpc/encoded array.
func samplesXML(element string, n int) string {
	return sampleArrayXML(element, [][]string{{"L90M"}, {"M41L", "M184V", "T215Y"}, nil}, n)
}

// sampleArrayXML is n copies of one sample (its mutations by gene) as an rpc/encoded array.
func sampleArrayXML(element string, sample [][]string, n int) string {
	var b strings.Builder
	b.WriteString("<" + element + ">")
	for range n {
		b.WriteString("<s>")
		for _, gene := range sample {
			b.WriteString("<g>")
			for _, m := range gene {
				b.WriteString("<m>" + m + "</m>")
			}
			b.WriteString("</g>")
		}
		b.WriteString("</s>")
	}
	b.WriteString("</" + element + ">")
	return b.String()
}

func userAlgorithmCall(key string, reportType int, alg string, samples int) string {
	var esc strings.Builder
	_ = xml.EscapeText(&esc, []byte(alg))
	return fmt.Sprintf(`<alg:processSequences><key>%s</key><inAlgorithmInterface>%d</inAlgorithmInterface><algorithm>9</algorithm><userSubmittedAlgorithm>%s</userSubmittedAlgorithm><reportOptions/><methodName/><reportName/><reportDate>x</reportDate>%s</alg:processSequences>`,
		key, reportType, esc.String(), samplesXML("inputData", samples))
}

// A large valid user algorithm with a few hundred samples is refused up front with a Client
// fault naming the work budget, before any evaluation; the same algorithm with few samples
// is served.
func TestWorkBudgetRefusedUpFront(t *testing.T) {
	t.Parallel()
	s := startService(t, nil)
	alg := heavyAlgorithm(3 << 20)
	start := time.Now()
	_, resp := soapCall(t, s.URL, userAlgorithmCall(s.Key, 3, alg, 300))
	r := parseSOAP(t, resp)
	if r.FaultCode != "soapenv:Client" || !strings.Contains(r.FaultString, "work budget") || !strings.Contains(r.FaultString, fmt.Sprint(DefaultMaxWork)) {
		t.Fatalf("300 samples under a 3 MiB algorithm: want a Client fault naming the work budget, got %q %q", r.FaultCode, clip(r.FaultString))
	}
	t.Logf("refused in %v: %s", time.Since(start), r.FaultString)
	_, resp = soapCall(t, s.URL, userAlgorithmCall(s.Key, 3, alg, 2))
	if r := parseSOAP(t, resp); r.FaultCode != "" || !strings.Contains(r.Part, "D19000 score") {
		t.Fatalf("2 samples: want a report, got %q %q", r.FaultCode, clip(r.FaultString+r.Part))
	}
	// The same rule for the bundled algorithm and processMutationLists: the allowed 10,000
	// samples fit.
	status, resp := soapCall(t, s.URL, `<alg:processMutationLists><key>`+s.Key+`</key><reportTypeInt>3</reportTypeInt>`+samplesXML("mutationsList", 10_000)+`</alg:processMutationLists>`)
	if r := parseSOAP(t, resp); status != 200 || strings.Count(r.Part, "\tsuccess\t") != 10_000 {
		t.Fatalf("10,000 samples under HIVDB as text: status %d, fault %q", status, r.FaultString)
	}
}

// A report over the report limit is a Client fault naming it (processMutationLists and
// both processSequences overloads with mutation lists), not a 50 MB response.
func TestReportSizeLimit(t *testing.T) {
	t.Parallel()
	s := startService(t, nil)
	for _, call := range []string{
		`<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>2</reportTypeInt>` + samplesXML("mutationsList", 4000) + `</alg:processMutationLists>`,
		`<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>1</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><reportOptions/><methodName/><reportName/><reportDate/>` + samplesXML("inputData", 4000) + `</alg:processSequences>`,
		`<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>2</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><methodName/><reportName/><reportDate/>` + samplesXML("inputData", 4000) + `</alg:processSequences>`,
	} {
		status, resp := soapCall(t, s.URL, call)
		r := parseSOAP(t, resp)
		if status != 500 || r.FaultCode != "soapenv:Client" || !strings.Contains(r.FaultString, "report too large") || !strings.Contains(r.FaultString, "16777216 bytes") {
			t.Errorf("%s…: want a Client fault naming the report limit, got %d %q %q (%d bytes)", call[:40], status, r.FaultCode, clip(r.FaultString), len(resp))
		}
	}
}

// sendQueued sends request (what it is, for the messages), which must
// queue for a heavy-request slot, all of them taken: it returns once the
// request waits, and the answer arrives on the channel once a slot frees.
// A request that is answered instead ran without a slot.
func sendQueued(t *testing.T, s *testService, request, what string) <-chan string {
	t.Helper()
	var done atomic.Bool
	finished := make(chan string, 1)
	go func() {
		_, resp := soapCall(t, s.URL, request)
		done.Store(true)
		finished <- resp
	}()
	for s.waiting.Load() < 1 && !done.Load() {
		time.Sleep(10 * time.Millisecond)
	}
	if done.Load() {
		t.Fatalf("%s ran while every heavy-request slot was taken", what)
	}
	return finished
}

// Heavy requests queue for a slot (one per core) instead of running all at once: with every
// slot taken a heavy request waits, and is answered once a slot frees; light requests
// never wait.
func TestHeavyRequestsQueue(t *testing.T) {
	t.Parallel()
	s := startService(t, func(c *Config) { c.HeavySlots = 1 })
	s.heavy <- struct{}{} // another heavy request holds the only slot
	heavy := `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>3</reportTypeInt>` + samplesXML("mutationsList", 1000) + `</alg:processMutationLists>`
	light := `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>3</reportTypeInt>` + samplesXML("mutationsList", 1) + `</alg:processMutationLists>`
	finished := sendQueued(t, s, heavy, "a heavy request")
	// A light request does not wait behind the queued heavy one.
	if _, resp := soapCall(t, s.URL, light); parseSOAP(t, resp).FaultCode != "" {
		t.Fatalf("light request: %s", clip(resp))
	}
	<-s.heavy
	if r := parseSOAP(t, <-finished); r.FaultCode != "" || strings.Count(r.Part, "\tsuccess\t") != 1000 {
		t.Fatalf("queued heavy request: fault %q", r.FaultString)
	}
	// At most twice as many as the slots wait; more are told the server is busy.
	s.heavy <- struct{}{}
	waiters := make(chan string, 2)
	for range 2 {
		go func() { _, resp := soapCall(t, s.URL, heavy); waiters <- resp }()
	}
	for s.waiting.Load() < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	if _, resp := soapCall(t, s.URL, heavy); !strings.Contains(parseSOAP(t, resp).FaultString, "the server is busy") {
		t.Errorf("a third waiting heavy request: %s", clip(resp))
	}
	<-s.heavy
	for range 2 {
		if r := parseSOAP(t, <-waiters); r.FaultCode != "" {
			t.Errorf("a waiting heavy request: fault %q", r.FaultString)
		}
	}

	// A waiting request whose client goes away leaves the queue.
	s.heavy <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	env := `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:alg="http://algorithm.sitesvc.org"><soapenv:Body>` + heavy + `</soapenv:Body></soapenv:Envelope>`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, strings.NewReader(env))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("a heavy request was answered (%d) while the slot was held", resp.StatusCode)
	}
	<-s.heavy
}

// Sequence input passes through the same budget, report limit and queue as mutation lists:
// a heavy user algorithm with a few hundred sequences is refused up front with a Client
// fault naming the work budget (and served with two); sequences over the report limit are a
// Client fault naming it; and a request whose alignment work makes it heavy (20 sequences
// under HIVDB: light by the algorithm's weight alone) waits for a heavy-request slot.
func TestSequenceWorkBudget(t *testing.T) {
	t.Parallel()
	example := testkit.ExampleFASTA(t)
	fastaOf := func(n int) string { return xmlText(strings.Repeat(example, n)) }
	s := startService(t, func(c *Config) { c.HeavySlots = 1 })
	alg := heavyAlgorithm(3 << 20)
	_, resp := soapCall(t, s.URL, userAlgorithmSequences(s.Key, 3, alg, fastaOf(300)))
	r := parseSOAP(t, resp)
	if r.FaultCode != "soapenv:Client" || !strings.Contains(r.FaultString, "work budget") || !strings.Contains(r.FaultString, "× 300 samples") {
		t.Fatalf("300 sequences under a 3 MiB algorithm: want a Client fault naming the work budget, got %q %q", r.FaultCode, clip(r.FaultString))
	}
	_, resp = soapCall(t, s.URL, userAlgorithmSequences(s.Key, 3, alg, fastaOf(2)))
	if r := parseSOAP(t, resp); r.FaultCode != "" || !strings.Contains(r.Part, "D19000 score") || strings.Count(r.Part, "\tsuccess\t") != 2 {
		t.Fatalf("2 sequences: want a report, got %q %q", r.FaultCode, clip(r.FaultString+r.Part))
	}

	status, resp := soapCall(t, s.URL, `<alg:processSequencesInFasta><key>`+s.Key+`</key><reportTypeInt>2</reportTypeInt><sequencesInFasta>`+fastaOf(800)+`</sequencesInFasta></alg:processSequencesInFasta>`)
	if r := parseSOAP(t, resp); status != 500 || r.FaultCode != "soapenv:Client" || !strings.Contains(r.FaultString, "report too large") || !strings.Contains(r.FaultString, "16777216 bytes") {
		t.Errorf("800 sequences as XML 2009: want a Client fault naming the report limit, got %d %q %q (%d bytes)", status, r.FaultCode, clip(r.FaultString), len(resp))
	}

	s.heavy <- struct{}{} // another heavy request holds the only slot
	heavy := `<alg:processSequencesInFasta><key>` + s.Key + `</key><reportTypeInt>3</reportTypeInt><sequencesInFasta>` + fastaOf(20) + `</sequencesInFasta></alg:processSequencesInFasta>`
	finished := sendQueued(t, s, heavy, "a request of 20 sequences")
	<-s.heavy
	if r := parseSOAP(t, <-finished); r.FaultCode != "" || strings.Count(r.Part, "\tsuccess\t") != 20 {
		t.Fatalf("queued sequence request: fault %q", r.FaultString)
	}
}

// The red team's attack: a 3.8 MiB user algorithm whose rules are SCORE FROM lists of
// thousands of items, with a few hundred samples that make every item hold. The work budget
// weighed it by its text and accepted it (16.4 s of CPU); weighed by what evaluating it
// visits, it is refused up front with the Client fault naming the budget. The test asserts
// the refusal and the weights, not a time: BenchmarkWorkShapes measures the time per unit.
func TestWorkBudgetRefusesScoreListAttack(t *testing.T) {
	t.Parallel()
	s := startService(t, nil)
	var attack string
	for _, sh := range costShapes(3800 << 10) {
		if sh.name == "score-from-lists" {
			attack = sh.doc
		}
	}
	eng := s.cfg.Engine.(ResistanceEngine)
	weight, err := eng.AlgorithmWeight(ReportOptions{Algorithm: 9, UserAlgorithm: attack, ReportType: resistance.ReportText})
	if err != nil {
		t.Fatal(err)
	}
	// By its text the algorithm weighed 4.1 M units (393 samples fitted the budget); each of
	// its some 370,000 items costs about 54 ns evaluated, so it weighs at least 70 units an item.
	if weight < 25_000_000 {
		t.Errorf("the attack algorithm weighs %d units, less than its items' evaluation", weight)
	}
	for _, c := range []struct {
		reportType, samples int
	}{{3, 300}, {1, 8}, {2, 8}} {
		body := strings.Replace(userAlgorithmCall(s.Key, c.reportType, attack, 0), samplesXML("inputData", 0), sampleArrayXML("inputData", worstSample(), c.samples), 1)
		_, resp := soapCall(t, s.URL, body)
		r := parseSOAP(t, resp)
		if r.FaultCode != "soapenv:Client" || !strings.Contains(r.FaultString, "work budget") {
			t.Errorf("report type %d, %d samples: %+v", c.reportType, c.samples, clip(resp))
		}
	}
	// The same algorithm with as many samples as its weight allows is served.
	maxSamples := int(DefaultMaxWork / weight)
	if maxSamples < 1 {
		t.Fatalf("the budget admits no sample of the attack algorithm (weight %d)", weight)
	}
	_, resp := soapCall(t, s.URL, userAlgorithmCall(s.Key, 3, attack, 1))
	if r := parseSOAP(t, resp); r.FaultCode != "" {
		t.Errorf("one sample: %s", clip(resp))
	}
	t.Logf("attack algorithm: weight %d, %d samples admitted (text report)", weight, maxSamples)
}

// A heavy request that runs past the server's write timeout is answered whole: it takes
// its own write deadline when it is admitted (it used to be dropped by the connection
// while the log said 200). A 100 ms write timeout is far below what 10,000 samples take
// to decode, evaluate and report (the real binary, --write-timeout 100ms).
func TestHeavyRequestOutlivesWriteTimeout(t *testing.T) {
	t.Parallel()
	s := startBinary(t, "--write-timeout", "100ms")
	start := time.Now()
	code, body := soapCall(t, s.Endpoint, `<alg:processMutationLists><key>`+s.Key+`</key><reportTypeInt>3</reportTypeInt>`+samplesXML("mutationsList", 10_000)+`</alg:processMutationLists>`)
	if code != 200 {
		t.Fatalf("%d after %v: %s", code, time.Since(start), clip(body))
	}
	if r := parseSOAP(t, body); r.FaultCode != "" || strings.Count(r.Part, "\n") < 10_000 {
		t.Errorf("the report of 10,000 samples: %d lines, fault %q", strings.Count(r.Part, "\n"), r.FaultString)
	}
	if elapsed := time.Since(start); elapsed < 100*time.Millisecond {
		t.Logf("the request took %v, under the write timeout: the test proves nothing on this machine", elapsed)
	}
}
