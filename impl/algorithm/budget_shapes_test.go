package algorithm

import (
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/resistance"
)

// worstSamplesXML is n worst-case samples (worstSample) as an rpc/encoded array.
func worstSamplesXML(element string, n int) string {
	var b strings.Builder
	b.WriteString("<" + element + ">")
	one := worstSample()
	for range n {
		b.WriteString("<s>")
		for _, gene := range one {
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
		body := strings.Replace(userAlgorithmCall(s.Key, c.reportType, attack, 0), samplesXML("inputData", 0), worstSamplesXML("inputData", c.samples), 1)
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
