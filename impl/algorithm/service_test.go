package algorithm

import (
	"context"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hooklift/gowsdl"

	"github.com/sitelib/sitesvc/gen/soapapi"
	"github.com/sitelib/sitesvc/impl/resistance"
	"github.com/sitelib/sitesvc/impl/testkit"
)

func TestPublishedWSDL(t *testing.T) {
	t.Parallel()
	s := startService(t, func(c *Config) { c.RequestNamespace = "urn:example:algorithm" })
	code, ctype, body := get(t, s.URL+"?wsdl")
	if code != 200 || ctype != "text/xml; charset=utf-8" {
		t.Fatalf("?wsdl: %d %s", code, ctype)
	}
	var w gowsdl.WSDL
	if err := xml.Unmarshal([]byte(body), &w); err != nil {
		t.Fatal(err)
	}
	if got := w.Service[0].Ports[0].SOAPAddress.Location; got != s.URL {
		t.Errorf("soap:address %q, want %q", got, s.URL)
	}
	if w.TargetNamespace != "urn:example:algorithm" || w.Xmlns["impl"] != "urn:example:algorithm" {
		t.Errorf("target namespace %q impl=%q", w.TargetNamespace, w.Xmlns["impl"])
	}
	for _, op := range w.Binding[0].Operations {
		if op.Input.SOAPBody.Namespace != "urn:example:algorithm" || op.Output.SOAPBody.Namespace != s.URL {
			t.Errorf("%s: namespaces in %q out %q", op.Name, op.Input.SOAPBody.Namespace, op.Output.SOAPBody.Namespace)
		}
	}
	if strings.Contains(body, `"`+soapapi.Address+`"`) {
		t.Error("default address left in the published WSDL")
	}
	// The service answers in the configured namespaces.
	_, resp := soapCall(t, s.URL, `<x:getScoringMatrix xmlns:x="urn:example:algorithm"><key>`+s.Key+`</key></x:getScoringMatrix>`)
	if !strings.Contains(resp, `<ns1:getScoringMatrixResponse soapenv:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:ns1="`+s.URL+`">`) {
		t.Errorf("response wrapper not in the endpoint namespace: %.300s", resp)
	}
	_, resp = soapCall(t, s.URL, `<alg:getScoringMatrix><key>`+s.Key+`</key></alg:getScoringMatrix>`)
	if r := parseSOAP(t, resp); !strings.Contains(r.FaultString, "unknown operation {http://algorithm.sitesvc.org}getScoringMatrix") {
		t.Errorf("request in the default namespace accepted under a custom one: %+v", r)
	}

	code, _, xsd := get(t, s.URL+"?xsd=reports")
	if code != 200 || xsd != string(soapapi.Document("reports")) || !strings.Contains(xsd, "Site_Algorithm_Interpretation") {
		t.Errorf("?xsd=reports: %d %.100s", code, xsd)
	}
	if code, _, _ := get(t, s.URL+"?xsd=other"); code != 404 {
		t.Errorf("?xsd=other: %d", code)
	}
	if code, _, body := get(t, s.URL); code != 200 || !strings.Contains(body, s.URL+"?wsdl") {
		t.Errorf("GET endpoint: %d %s", code, body)
	}
	if code, _, _ := get(t, s.URL+"/elsewhere"); code != 404 {
		t.Errorf("GET below the endpoint: %d", code)
	}
}

func TestPublishedWSDLSwapsOnce(t *testing.T) {
	t.Parallel()
	doc := string(PublishedWSDL(soapapi.TargetNamespace, soapapi.Address))
	var w gowsdl.WSDL
	if err := xml.Unmarshal([]byte(doc), &w); err != nil {
		t.Fatal(err)
	}
	if w.TargetNamespace != soapapi.Address || w.Service[0].Ports[0].SOAPAddress.Location != soapapi.TargetNamespace {
		t.Errorf("namespace %q address %q", w.TargetNamespace, w.Service[0].Ports[0].SOAPAddress.Location)
	}
	if !strings.Contains(string(PublishedWSDL("http://h/x?a=1&b=2", "urn:x")), `location="http://h/x?a=1&amp;b=2"`) {
		t.Error("endpoint not escaped")
	}
}

func TestMutationListsMatchEngine(t *testing.T) {
	t.Parallel()
	s := startService(t, nil)
	eng := testEngine(t)
	lists := [][][]string{{nil, {"M41L", "M184V", "T215Y"}, nil}, {{"L90M"}, {}, {"N155H", "Q148H"}}}
	for rt := resistance.ReportSimple; rt <= resistance.ReportText; rt++ {
		body := `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>` + string(rune('0'+rt)) + `</reportTypeInt><mutationsList>` +
			`<s><g xsi:nil="true"/><g><m>M41L</m><m>M184V</m><m>T215Y</m></g></s>` +
			`<s><g><m>L90M</m></g><g/><g><m>N155H</m><m>Q148H</m></g></s></mutationsList></alg:processMutationLists>`
		code, resp := soapCall(t, s.URL, body)
		if code != 200 {
			t.Fatalf("type %d: %d %s", rt, code, resp)
		}
		got := parseSOAP(t, resp).Part
		want, err := eng.MutationListReport(lists, ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: rt})
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("report type %d differs from the bare engine's\n got %.300s\nwant %.300s", rt, got, want)
		}
		if rt < 3 {
			validateReport(t, got)
		}
	}
}

func TestOverloads(t *testing.T) {
	t.Parallel()
	s := startService(t, nil)
	eng := testEngine(t)
	input := `<inputData><s><g/><g><m>K103N</m></g><g/></s><s><g/><g><m>M184V</m></g></s></inputData>`
	lists := [][][]string{{nil, {"K103N"}, nil}, {nil, {"M184V"}}}

	// Overload 2: one report, header fields and reportOptions carried.
	_, resp := soapCall(t, s.URL, `<alg:processSequences><key>`+s.Key+`</key><inAlgorithmInterface>2</inAlgorithmInterface><algorithm>0</algorithm><userSubmittedAlgorithm/><reportOptions>comments=no</reportOptions><methodName>m1</methodName><reportName>r1</reportName><reportDate>2026-02-03</reportDate>`+input+`</alg:processSequences>`)
	want, err := eng.MutationListReport(lists, ReportOptions{Algorithm: resistance.AlgorithmANRS, ReportType: 2, ReportOptions: "comments=no", MethodName: "m1", ReportName: "r1", ReportDate: "2026-02-03"})
	if err != nil {
		t.Fatal(err)
	}
	if got := parseSOAP(t, resp).Part; got != want || !strings.Contains(got, "r1") {
		t.Errorf("overload 2\n got %.300s\nwant %.300s", got, want)
	} else {
		validateReport(t, got)
	}

	// Overload 3: one report per sample.
	_, resp = soapCall(t, s.URL, `<alg:processSequences><key>`+s.Key+`</key><inAlgorithmInterface>1</inAlgorithmInterface><algorithm>2</algorithm><userSubmittedAlgorithm/><methodName>m</methodName><reportName>r</reportName><reportDate>d</reportDate>`+input+`</alg:processSequences>`)
	wants, err := eng.MutationListReports(lists, ReportOptions{Algorithm: resistance.AlgorithmRega, ReportType: 1, MethodName: "m", ReportName: "r", ReportDate: "d"})
	if err != nil {
		t.Fatal(err)
	}
	items := parseSOAP(t, resp).Items
	if len(items) != 2 || items[0] != wants[0] || items[1] != wants[1] {
		t.Errorf("overload 3: %d items\n%.300s", len(items), resp)
	}
	for _, it := range items {
		validateReport(t, it)
	}

	// A user-submitted algorithm (here the shipped HIVDB 10.2 file).
	alg, err := os.ReadFile(testkit.HIVDBDir(t, "algorithms", "HIVDB_10.2.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var esc strings.Builder
	_ = xml.EscapeText(&esc, alg)
	_, resp = soapCall(t, s.URL, `<alg:processSequences><key>`+s.Key+`</key><inAlgorithmInterface>0</inAlgorithmInterface><algorithm>9</algorithm><userSubmittedAlgorithm>`+esc.String()+`</userSubmittedAlgorithm><methodName/><reportName/><reportDate>x</reportDate>`+input+`</alg:processSequences>`)
	items = parseSOAP(t, resp).Items
	if len(items) != 2 || !strings.Contains(items[0], "K103N") {
		t.Fatalf("user algorithm: %.400s", resp)
	}
	for _, it := range items {
		validateReport(t, it)
	}
}

func TestFaultsAndPlaceholders(t *testing.T) {
	t.Parallel()
	s := startService(t, nil)
	lists := `<mutationsList><s><g/><g><m>M41L</m></g></s></mutationsList>`
	o3 := func(alg, user, input string) string {
		return `<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>0</inAlgorithmInterface><algorithm>` + alg + `</algorithm><userSubmittedAlgorithm>` + user + `</userSubmittedAlgorithm><methodName/><reportName/><reportDate/>` + input + `</alg:processSequences>`
	}
	cases := []struct {
		name, body, code, contains string
	}{
		{"unknown report type", `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>5</reportTypeInt>` + lists + `</alg:processMutationLists>`, "soapenv:Client", "unknown report type"},
		{"unknown report type, overload 3", `<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>7</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><methodName/><reportName/><reportDate/><inputData><s><g/><g><m>M41L</m></g></s></inputData></alg:processSequences>`, "soapenv:Client", "unknown report type"},
		{"unknown report type, overload 2", `<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>-1</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><reportOptions/><methodName/><reportName/><reportDate/><inputData><s><g/><g><m>M41L</m></g></s></inputData></alg:processSequences>`, "soapenv:Client", "unknown report type"},
		{"bad reportOptions", `<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>0</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><reportOptions>colour=blue</reportOptions><methodName/><reportName/><reportDate/><inputData><s><g/><g><m>M41L</m></g></s></inputData></alg:processSequences>`, "soapenv:Client", "unknown option"},
		{"empty mutationsList", `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>0</reportTypeInt><mutationsList/></alg:processMutationLists>`, "soapenv:Client", "mutationsList is empty"},
		{"four genes", `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>0</reportTypeInt><mutationsList><s><g/><g/><g/><g/></s></mutationsList></alg:processMutationLists>`, "soapenv:Client", "at most 3"},
		{"unknown algorithm without user algorithm", o3("7", "", `<inputData><s><g/></s></inputData>`), "soapenv:Client", "userSubmittedAlgorithm is empty"},
		{"broken user algorithm", o3("7", "&lt;ALGORITHM&gt;", `<inputData><s><g/></s></inputData>`), "soapenv:Client", "asi:"},
		{"inputData missing", o3("1", "", `<inputData xsi:nil="true"/>`), "soapenv:Client", "inputData is empty"},
		{"inputData two levels", o3("1", "", `<inputData><s><m>M41L</m></s></inputData>`), "soapenv:Client", "inputData item 1, gene 1: expected an array of mutations"},
		{"inputData empty string", o3("1", "", `<inputData xsi:type="xsd:string"></inputData>`), "soapenv:Client", "inputData is an empty string"},
		{"overload 1 empty", `<alg:processSequences><key>` + s.Key + `</key><reportTypeInt>0</reportTypeInt><sequence/></alg:processSequences>`, "soapenv:Client", "sequence is empty"},
		{"overload 1 item with two records", `<alg:processSequences><key>` + s.Key + `</key><reportTypeInt>0</reportTypeInt><sequence><s>&gt;a&#10;ACGT&#10;&gt;b&#10;ACGT</s></sequence></alg:processSequences>`, "soapenv:Client", "sequence item 1 holds 2 FASTA records"},
		{"processSequence empty", `<alg:processSequence><key>` + s.Key + `</key><sequence/></alg:processSequence>`, "soapenv:Client", "sequence is empty"},
		{"processSequence two records", `<alg:processSequence><key>` + s.Key + `</key><sequence>&gt;a&#10;ACGT&#10;&gt;b&#10;ACGT</sequence></alg:processSequence>`, "soapenv:Client", "holds 2 FASTA records"},
		{"processSequencesInFasta empty", `<alg:processSequencesInFasta><key>` + s.Key + `</key><reportTypeInt>0</reportTypeInt><sequencesInFasta>  </sequencesInFasta></alg:processSequencesInFasta>`, "soapenv:Client", "no sequence given"},
		{"processSequencesString bad report type", `<alg:processSequencesString><key>` + s.Key + `</key><reportTypeInt>5</reportTypeInt><sequences>ACGT</sequences></alg:processSequencesString>`, "soapenv:Client", "unknown report type"},
		{"processSequencesInFasta too many", `<alg:processSequencesInFasta><key>` + s.Key + `</key><reportTypeInt>0</reportTypeInt><sequencesInFasta>` + strings.Repeat("&gt;s&#10;ACGT&#10;", resistance.MaxSequences+1) + `</sequencesInFasta></alg:processSequencesInFasta>`, "soapenv:Client", "at most 10000 per request"},
		{"processSequencesString too many bases", `<alg:processSequencesString><key>` + s.Key + `</key><reportTypeInt>0</reportTypeInt><sequences>` + strings.Repeat("&gt;s&#10;"+strings.Repeat("ACGTACGTAC", 1000)+"&#10;", resistance.MaxTotalBases/10_000+1) + `</sequences></alg:processSequencesString>`, "soapenv:Client", "at most 10000000 per request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, resp := soapCall(t, s.URL, c.body)
			r := parseSOAP(t, resp)
			if code != 500 || r.FaultCode != c.code || !strings.Contains(r.FaultString, c.contains) {
				t.Errorf("%d %s %q, want %s containing %q", code, r.FaultCode, r.FaultString, c.code, c.contains)
			}
		})
	}
}

func TestInvalidKey(t *testing.T) {
	t.Parallel()
	s := startService(t, func(c *Config) { c.InvalidKeyRate, c.InvalidKeyBurst = 0.001, 3 })
	ops := []string{
		`<alg:getScoringMatrix><key>wrong</key></alg:getScoringMatrix>`,
		`<alg:processMutationLists><key></key><reportTypeInt>0</reportTypeInt><mutationsList/></alg:processMutationLists>`,
		`<alg:processSequence><key>` + s.Key + `x</key><sequence>A</sequence></alg:processSequence>`,
	}
	for _, op := range ops {
		code, resp := soapCall(t, s.URL, op)
		if r := parseSOAP(t, resp); code != 200 || r.Part != InvalidKeyReport {
			t.Errorf("%d %+v", code, r)
		}
	}
	validateReport(t, InvalidKeyReport)
	// The fourth invalid key within the burst of 3 is refused.
	code, resp := soapCall(t, s.URL, `<alg:processSequences><key>k</key><inAlgorithmInterface>0</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><methodName/><reportName/><reportDate/><inputData/></alg:processSequences>`)
	if r := parseSOAP(t, resp); code != 500 || r.FaultCode != "soapenv:Client" || !strings.Contains(r.FaultString, "rate limit exceeded") {
		t.Errorf("fourth invalid key within the burst of 3 not limited: %d %+v", code, r)
	}
	if n := strings.Count(s.Logs.String(), "invalid API key"); n != 4 {
		t.Errorf("%d invalid-key log lines, want 4:\n%s", n, s.Logs.String())
	}
	// A valid key is not affected by the invalid-key limit.
	if _, resp := soapCall(t, s.URL, `<alg:getScoringMatrix><key>`+s.Key+`</key></alg:getScoringMatrix>`); !strings.HasPrefix(parseSOAP(t, resp).Part, "# HIVDB 10.2") {
		t.Errorf("valid key: %.200s", resp)
	}

	s2 := startService(t, nil)
	_, resp = soapCall(t, s2.URL, `<alg:processSequences><key>k</key><inAlgorithmInterface>0</inAlgorithmInterface><algorithm>1</algorithm><userSubmittedAlgorithm/><methodName/><reportName/><reportDate/><inputData/></alg:processSequences>`)
	if r := parseSOAP(t, resp); len(r.Items) != 1 || r.Items[0] != InvalidKeyReport {
		t.Errorf("overload 3 with an invalid key: %+v", r)
	}
}

func TestPerKeyRateLimit(t *testing.T) {
	t.Parallel()
	s := startService(t, func(c *Config) { c.KeyRate, c.KeyBurst = 0.001, 2 })
	other, err := AddKey(s.KeysFile, "other")
	if err != nil {
		t.Fatal(err)
	}
	s.keys.recheck = 0
	call := func(key string) soapResult {
		code, resp := soapCall(t, s.URL, `<alg:getScoringMatrix><key>`+key+`</key></alg:getScoringMatrix>`)
		r := parseSOAP(t, resp)
		if (r.FaultCode != "") != (code == 500) {
			t.Errorf("status %d with fault code %q", code, r.FaultCode)
		}
		return r
	}
	for i := 0; i < 2; i++ {
		if r := call(s.Key); r.FaultCode != "" {
			t.Fatalf("call %d limited: %+v", i+1, r)
		}
	}
	if r := call(s.Key); r.FaultCode != "soapenv:Client" || !strings.Contains(r.FaultString, "rate limit exceeded; retry in") {
		t.Errorf("third call within a burst of 2: %+v", r)
	}
	// Another key (added while running) has its own bucket.
	if r := call(other); r.FaultCode != "" || !strings.HasPrefix(r.Part, "# HIVDB") {
		t.Errorf("other key: %+v", r)
	}
}

func TestKeyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := filepath.Join(dir, "sub", "keys.txt")
	dev := filepath.Join(dir, "sub", "dev-key.txt")
	key, created, err := EnsureDevKey(keys, dev)
	if err != nil || !created || len(key) != 32 {
		t.Fatalf("EnsureDevKey: %q %v %v", key, created, err)
	}
	for _, p := range []string{keys, dev} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", p, st.Mode().Perm())
		}
	}
	if b, _ := os.ReadFile(dev); strings.TrimSpace(string(b)) != key {
		t.Errorf("dev-key.txt holds %q", b)
	}
	if b, _ := os.ReadFile(keys); strings.Contains(string(b), key) || !strings.HasPrefix(string(b), HashKey(key)) {
		t.Errorf("key file holds %q", b)
	}
	if _, again, err := EnsureDevKey(keys, dev); again || err != nil {
		t.Errorf("second EnsureDevKey created=%v err=%v", again, err)
	}
	second, err := AddKey(keys, "lab 2")
	if err != nil || second == key {
		t.Fatal(second, err)
	}
	ks, err := newKeyStore(keys, true)
	if err != nil {
		t.Fatal(err)
	}
	if !ks.valid(key) || !ks.valid(second) || ks.valid("nope") || ks.valid("") {
		t.Error("key store verdicts wrong")
	}
	// Outside development mode the development key's line is no key.
	prod, err := newKeyStore(keys, false)
	if err != nil {
		t.Fatal(err)
	}
	if prod.valid(key) || !prod.valid(second) {
		t.Error("production key store accepts the development key or refuses a real one")
	}
	if _, err := AddKey(keys, DevKeyLabel); err == nil {
		t.Error("keys add took the development key's label")
	}

	// Bad key files are refused with the line at fault and left unchanged.
	bad := filepath.Join(dir, "bad.txt")
	content := "# comment\n\n" + HashKey("a") + " label\nnot-a-hash\n"
	if err := os.WriteFile(bad, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := newKeyStore(bad, false); err == nil || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("bad key file: %v", err)
	}
	if _, err := AddKey(bad, ""); err == nil {
		t.Error("AddKey appended to a broken key file")
	}
	if b, _ := os.ReadFile(bad); string(b) != content {
		t.Error("broken key file changed")
	}
	if _, err := AddKey(keys, "two\nlines"); err == nil {
		t.Error("multi-line label accepted")
	}
	// A key file missing at start is no keys yet: the service runs,
	// refuses every key, and takes a key file made later.
	missing := filepath.Join(dir, "missing.txt")
	var logs testkit.LogBuffer
	svc, err := New(Config{Endpoint: "http://x/soap", RequestNamespace: "urn:x", Engine: testEngine(t), KeysFile: missing, Logger: newTestLogger(&logs)})
	if err != nil {
		t.Fatal(err)
	}
	svc.keys.recheck = 0
	if svc.keys.valid(key) || svc.Ready(context.Background()) != nil || !strings.Contains(logs.String(), "no SOAP API key file yet") {
		t.Errorf("missing key file: ready=%v\n%s", svc.Ready(context.Background()), logs.String())
	}
	later, err := AddKey(missing, "later")
	if err != nil {
		t.Fatal(err)
	}
	if !svc.keys.valid(later) {
		t.Error("a key file made after the start is not read")
	}
}

func TestReady(t *testing.T) {
	t.Parallel()
	s := startService(t, nil)
	if err := s.Ready(context.Background()); err != nil {
		t.Fatal(err)
	}
	s.keys.recheck = 0
	if err := os.Remove(s.KeysFile); err != nil {
		t.Fatal(err)
	}
	// Readiness reports the problem; the last good key set keeps working.
	if err := s.Ready(context.Background()); err == nil {
		t.Error("ready without a key file")
	}
	if !s.keys.valid(s.Key) {
		t.Error("key rejected after the key file vanished")
	}
	if _, err := AddKey(s.KeysFile, "again"); err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(context.Background()); err != nil {
		t.Errorf("not ready after the key file came back: %v", err)
	}
	if s.keys.valid(s.Key) {
		t.Error("a key missing from the new key file still accepted")
	}
}

func TestNewRejectsConfig(t *testing.T) {
	t.Parallel()
	eng := testEngine(t)
	keys := filepath.Join(t.TempDir(), "k")
	if _, err := AddKey(keys, ""); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]Config{
		"relative endpoint": {Endpoint: "/soap", RequestNamespace: "urn:x", Engine: eng, KeysFile: keys},
		"no namespace":      {Endpoint: "http://h/soap", Engine: eng, KeysFile: keys},
		"no engine":         {Endpoint: "http://h/soap", RequestNamespace: "urn:x", KeysFile: keys},
		"no key file":       {Endpoint: "http://h/soap", RequestNamespace: "urn:x", Engine: eng},
	} {
		if _, err := New(c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzService sends arbitrary bodies through the whole service (codec,
// key check, input interpretation, the real engine): every answer is a
// SOAP envelope, 200 with a response or 500 with a fault, and never the
// generic Server fault that stands for an unexpected error or a panic.
func FuzzService(f *testing.F) {
	s := startService(f, func(c *Config) { c.KeyRate, c.KeyBurst, c.InvalidKeyRate, c.InvalidKeyBurst = 1e9, 1e9, 1e9, 1e9 })
	wrap := func(body string) string {
		return `<e:Envelope xmlns:e="http://schemas.xmlsoap.org/soap/envelope/" xmlns:alg="http://algorithm.sitesvc.org" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><e:Body>` + body + `</e:Body></e:Envelope>`
	}
	for _, body := range []string{
		`<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>0</reportTypeInt><mutationsList><s><g/><g><m>M41L</m><m>184V</m><m>69S_SS</m></g></s></mutationsList></alg:processMutationLists>`,
		`<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>2</reportTypeInt><mutationsList><s><g><m>L90M</m></g><g/><g><m>N155H</m></g></s></mutationsList></alg:processMutationLists>`,
		`<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>3</inAlgorithmInterface><algorithm>2</algorithm><userSubmittedAlgorithm/><reportOptions>comments=no</reportOptions><methodName/><reportName/><reportDate/><inputData><s><g/><g><m>K103N</m></g></s></inputData></alg:processSequences>`,
		`<alg:processSequences><key>` + s.Key + `</key><inAlgorithmInterface>1</inAlgorithmInterface><algorithm>5</algorithm><userSubmittedAlgorithm>&lt;ALGORITHM/&gt;</userSubmittedAlgorithm><methodName/><reportName/><reportDate/><inputData><s><g/></s></inputData></alg:processSequences>`,
		`<alg:getScoringMatrix><key>nope</key></alg:getScoringMatrix>`,
	} {
		f.Add([]byte(wrap(body)))
	}
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := http.NewRequest(http.MethodPost, "/", strings.NewReader(string(body)))
		if err != nil {
			t.Fatal(err)
		}
		rr := httptest.NewRecorder()
		h.ServeHTTP(rr, req)
		if rr.Code != 200 && rr.Code != 500 {
			t.Fatalf("status %d", rr.Code)
		}
		r := parseSOAP(t, rr.Body.String())
		if rr.Code == 500 && r.FaultCode == "" {
			t.Fatalf("500 without a fault: %s", rr.Body.String())
		}
		if strings.Contains(r.FaultString, "internal error") {
			t.Fatalf("unexpected error or panic for %q", body)
		}
	})
}

// TestDevKeyShownOnce: development mode's first start creates the
// development key and logs it; later starts accept it without logging it;
// without development mode it is refused and nothing is made.
func TestDevKeyShownOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := filepath.Join(dir, "keys.txt")
	dev := filepath.Join(dir, "dev-key.txt")
	start := func(devFile string) (*Service, string) {
		t.Helper()
		var logs testkit.LogBuffer
		s, err := New(Config{Endpoint: "http://h/soap", RequestNamespace: "urn:x", Engine: testEngine(t), KeysFile: keys, DevKeyFile: devFile, Logger: newTestLogger(&logs)})
		if err != nil {
			t.Fatal(err)
		}
		return s, logs.String()
	}
	// Production on an empty directory: no key file, no development key.
	if _, logs := start(""); strings.Contains(logs, "development") {
		t.Errorf("production start mentions a development key:\n%s", logs)
	}
	for _, p := range []string{keys, dev} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("production start made %s", p)
		}
	}
	s, first := start(dev)
	raw, err := os.ReadFile(dev)
	if err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(string(raw))
	if !strings.Contains(first, "created a development SOAP API key") || strings.Count(first, key) != 1 || !s.keys.valid(key) {
		t.Errorf("first start:\n%s", first)
	}
	s, second := start(dev)
	if strings.Contains(second, key) || strings.Contains(second, "created") || !s.keys.valid(key) {
		t.Errorf("second start shows the key again or made another:\n%s", second)
	}
	if s, _ := start(""); s.keys.valid(key) {
		t.Error("production start accepts the development key")
	}
}
