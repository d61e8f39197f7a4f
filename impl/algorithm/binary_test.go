package algorithm

import (
	"encoding/xml"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hooklift/gowsdl"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// binaryServer is the real sitesvc binary serving the SOAP service alone on
// a fresh data directory, with the development key its first start made.
type binaryServer struct {
	*testkit.Server
	Endpoint string
	Key      string
}

func startBinary(t *testing.T, extraArgs ...string) *binaryServer {
	t.Helper()
	s := testkit.StartServer(t, append([]string{"--services", "soap"}, extraArgs...)...)
	raw, err := os.ReadFile(filepath.Join(s.DataDir, "dev-key.txt"))
	if err != nil {
		t.Fatalf("the embedded default made no development key: %v\n%s", err, s.Logs())
	}
	return &binaryServer{Server: s, Endpoint: s.URL + "/soap/SiteAlgorithm", Key: strings.TrimSpace(string(raw))}
}

// rfc3339 matches the report time the engine writes when the request gives
// no reportDate.
var rfc3339 = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

// atReportTime puts the test engine's fixed report time in place of the
// real binary's clock, so that its reports compare byte for byte with the
// bare engine's.
func atReportTime(report string) string {
	return rfc3339.ReplaceAllLiteralString(report, reportTime.Format(time.RFC3339))
}

// quickStart returns the shell command of docs/algorithm.md's quick start
// and the SOAP envelope inside it.
func quickStart(t *testing.T) (command, envelope string) {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(testkit.RepoRoot(t), "docs", "algorithm.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "## Quick start\n")
	if !ok {
		t.Fatal("docs/algorithm.md has no Quick start section")
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("the Quick start has no sh block")
	}
	command, _, _ = strings.Cut(block, "```\n")
	_, env, ok := strings.Cut(command, "<<EOF\n")
	if !ok {
		t.Fatal("the Quick start command has no here-document")
	}
	envelope, _, ok = strings.Cut(env, "\nEOF\n")
	if !ok {
		t.Fatal("the Quick start here-document does not end with EOF")
	}
	return command, envelope
}

// TestBinaryQuickStart runs the quick start of docs/algorithm.md (the
// README's SOAP example) against the real binary with its development key:
// an HIVDB 10.2 report for RT M41L, M184V, T215Y, equal to the bare
// engine's and valid against the report XSD. With curl installed the
// documented shell command itself runs (from a directory whose data/ is the
// server's); without it the same envelope is posted from Go.
func TestBinaryQuickStart(t *testing.T) {
	s := startBinary(t)
	command, envelope := quickStart(t)
	if !strings.Contains(command, "http://localhost:8080/soap/SiteAlgorithm") || !strings.Contains(envelope, "<key>$KEY</key>") {
		t.Fatalf("the Quick start does not post to the default endpoint with $KEY:\n%s", command)
	}

	var body []byte
	if _, err := exec.LookPath("curl"); err == nil {
		dir := t.TempDir()
		if err := os.Symlink(s.DataDir, filepath.Join(dir, "data")); err != nil {
			t.Fatal(err)
		}
		script := strings.ReplaceAll(command, "http://localhost:8080", s.URL)
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = dir
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("the Quick start command failed: %v\n%s", err, out)
		}
		body = out
	} else {
		resp, err := http.Post(s.Endpoint, "text/xml; charset=utf-8", strings.NewReader(strings.Replace(envelope, "$KEY", s.Key, 1)))
		if err != nil {
			t.Fatal(err)
		}
		body, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("status %d\n%s", resp.StatusCode, body)
		}
	}
	var env struct {
		Report string `xml:"Body>processMutationListsResponse>processMutationListsReturn"`
	}
	if err := xml.Unmarshal(body, &env); err != nil || env.Report == "" {
		t.Fatalf("not a processMutationLists response (%v):\n%.500s", err, body)
	}
	for _, want := range []string{"<algorithmName>HIVDB</algorithmName>", "<algorithmVersion>10.2</algorithmVersion>", ">M41L<", ">M184V<", ">T215Y<"} {
		if !strings.Contains(env.Report, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	want, err := testEngine(t).MutationListReport([][][]string{{nil, {"M41L", "M184V", "T215Y"}, nil}}, ReportOptions{Algorithm: AlgorithmHIVDB, ReportType: 0})
	if err != nil {
		t.Fatal(err)
	}
	if got := atReportTime(env.Report); got != want {
		t.Errorf("the Quick start report differs from the bare engine's\n got %.600s\nwant %.600s", got, want)
	}
	validateReport(t, env.Report)
}

// TestBinaryDevKey: the real binary's first start creates the development
// key (hash in keys.txt, key in dev-key.txt) and logs it; a restart on the
// same data directory shows the same key again, and it still works.
func TestBinaryDevKey(t *testing.T) {
	s := startBinary(t)
	if !strings.Contains(s.Logs(), "created a development SOAP API key") || !strings.Contains(s.Logs(), s.Key) {
		t.Errorf("first start does not show the development key:\n%s", s.Logs())
	}
	keys, err := os.ReadFile(filepath.Join(s.DataDir, "keys.txt"))
	if err != nil || !strings.Contains(string(keys), HashKey(s.Key)) || strings.Contains(string(keys), s.Key) {
		t.Errorf("keys.txt %q (%v)", keys, err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}

	again := testkit.StartServer(t, "--services", "soap", "--data", s.DataDir)
	if !strings.Contains(again.Logs(), "development SOAP API key") || !strings.Contains(again.Logs(), s.Key) {
		t.Errorf("restart does not show the development key:\n%s", again.Logs())
	}
	if strings.Contains(again.Logs(), "created a development") {
		t.Errorf("restart made a new key:\n%s", again.Logs())
	}
	code, resp := soapCall(t, again.URL+"/soap/SiteAlgorithm", `<alg:getScoringMatrix><key>`+s.Key+`</key></alg:getScoringMatrix>`)
	if r := parseSOAP(t, resp); code != 200 || !strings.HasPrefix(r.Part, "# HIVDB 10.2") {
		t.Errorf("the development key after a restart: %d %+v", code, r)
	}
}

// TestBinaryContractAndFaults: the real binary publishes the WSDL with its
// endpoint and answers every kind of bad request with HTTP 500 and the
// right fault code, and an invalid key with the error report (logged).
func TestBinaryContractAndFaults(t *testing.T) {
	s := startBinary(t)

	resp, body := s.Get(t, "/soap/SiteAlgorithm?wsdl")
	var w gowsdl.WSDL
	if err := xml.Unmarshal(body, &w); err != nil || resp.StatusCode != 200 {
		t.Fatalf("?wsdl: %d %v", resp.StatusCode, err)
	}
	if got := w.Service[0].Ports[0].SOAPAddress.Location; got != s.Endpoint {
		t.Errorf("soap:address %q, want %q", got, s.Endpoint)
	}
	for _, op := range w.Binding[0].Operations {
		if op.Output.SOAPBody.Namespace != s.Endpoint {
			t.Errorf("%s: response namespace %q", op.Name, op.Output.SOAPBody.Namespace)
		}
	}
	if resp, body := s.Get(t, "/soap/SiteAlgorithm?xsd=reports"); resp.StatusCode != 200 || !strings.Contains(string(body), "Site_Algorithm_Interpretation") {
		t.Errorf("?xsd=reports: %d", resp.StatusCode)
	}

	lists := `<mutationsList><s><g/><g><m>M41L</m></g></s></mutationsList>`
	cases := []struct{ name, body, code, contains string }{
		{"malformed XML", "<soapenv:Envelope", "soapenv:Client", "malformed XML"},
		{"unknown operation", `<alg:deleteAll><key>` + s.Key + `</key></alg:deleteAll>`, "soapenv:Client", `unknown operation "deleteAll"`},
		{"no overload", `<alg:processSequences><key>` + s.Key + `</key></alg:processSequences>`, "soapenv:Client", "no overload of processSequences"},
		{"wrong part type", `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>zero</reportTypeInt>` + lists + `</alg:processMutationLists>`, "soapenv:Client", "is not an xsd:int"},
		{"unknown report type", `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>4</reportTypeInt>` + lists + `</alg:processMutationLists>`, "soapenv:Client", "unknown report type"},
		{"sequence operation", `<alg:processSequence><key>` + s.Key + `</key><sequence>ACGT</sequence></alg:processSequence>`, "soapenv:Server", "sequence analysis is not implemented yet"},
	}
	for _, c := range cases {
		code, resp := soapCall(t, s.Endpoint, c.body)
		if r := parseSOAP(t, resp); code != 500 || r.FaultCode != c.code || !strings.Contains(r.FaultString, c.contains) {
			t.Errorf("%s: %d %s %q, want 500 %s containing %q", c.name, code, r.FaultCode, r.FaultString, c.code, c.contains)
		}
	}

	// Over the 8 MiB request limit (the server's own limit is larger), by
	// less than what net/http drains of an unread body (256 KiB), so the
	// client reads the fault instead of a reset connection.
	big := `<alg:getScoringMatrix><key>` + strings.Repeat("k", 8<<20+64<<10) + `</key></alg:getScoringMatrix>`
	if code, resp := soapCall(t, s.Endpoint, big); code != 500 || !strings.Contains(parseSOAP(t, resp).FaultString, "request larger than") {
		t.Errorf("oversize request: %d %.300s", code, resp)
	}

	code, answer := soapCall(t, s.Endpoint, `<alg:processMutationLists><key>not-a-key</key><reportTypeInt>0</reportTypeInt>`+lists+`</alg:processMutationLists>`)
	if r := parseSOAP(t, answer); code != 200 || r.Part != InvalidKeyReport {
		t.Errorf("invalid key: %d %+v", code, r)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(s.Logs(), "SOAP request with an invalid API key") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(s.Logs(), "SOAP request with an invalid API key") {
		t.Errorf("invalid key not logged:\n%s", s.Logs())
	}
}
