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

	"github.com/sitelib/sitesvc/impl/resistance"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// binaryServer is the real sitesvc binary serving the Algorithm (SOAP) service alone on
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

// runDocumented runs a documented shell command against the server: through sh, its
// default endpoint replaced by the server's, from a directory where data/ is the server's
// data directory and links (name → target) are made. It returns what the command writes;
// its failure ends the test.
func (s *binaryServer) runDocumented(t *testing.T, command string, links ...[2]string) []byte {
	t.Helper()
	dir := t.TempDir()
	for _, l := range append([][2]string{{"data", s.DataDir}}, links...) {
		if err := os.Symlink(l[1], filepath.Join(dir, l[0])); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("sh", "-c", strings.ReplaceAll(command, "http://localhost:8080", s.URL))
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the command failed: %v\n%s\n%s", err, out, command)
	}
	return out
}

// analyze runs `sitesvc analyze` of fastaText with --report report and returns what it
// writes and what it says on stderr; its failure ends the test.
func analyze(t *testing.T, fastaText, report string) (out, stderr string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "input.fasta")
	if err := os.WriteFile(file, []byte(fastaText), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testkit.Binary(t), "analyze", file, "--report", report)
	var errs strings.Builder
	cmd.Stderr = &errs
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("analyze --report %s: %v\n%s", report, err, errs.String())
	}
	return string(b), errs.String()
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

// runExample runs a documented curl command (posting a here-document
// envelope to the default endpoint, with the key from data/dev-key.txt)
// against the real binary and returns the processMutationLists report it
// yields. With curl installed the command itself runs through sh, from a
// directory whose data/ is the server's; without curl the here-document is
// posted from Go with the key filled in (and a pipe into xmllint is
// replaced by reading the report part in Go).
func runExample(t *testing.T, s *binaryServer, command string) string {
	t.Helper()
	if !strings.Contains(command, "http://localhost:8080/soap/SiteAlgorithm") {
		t.Fatalf("the command does not post to the default endpoint:\n%s", command)
	}
	var out []byte
	if _, err := exec.LookPath("curl"); err == nil {
		if strings.Contains(command, "xmllint") {
			testkit.RequireTool(t, "xmllint")
		}
		out = s.runDocumented(t, command)
		if strings.Contains(command, "xmllint") {
			return strings.TrimSpace(string(out))
		}
	} else {
		// The here-document starts on the line after <<EOF (which may go
		// on with a pipe) and ends at a line holding EOF.
		_, env, ok := strings.Cut(command, "<<EOF")
		if ok {
			_, env, ok = strings.Cut(env, "\n")
		}
		if ok {
			env, _, ok = strings.Cut(env, "\nEOF\n")
		}
		if !ok {
			t.Fatalf("the command has no here-document ending in EOF:\n%s", command)
		}
		env = strings.NewReplacer("$(cat data/dev-key.txt)", s.Key, "$KEY", s.Key).Replace(env)
		resp, err := http.Post(s.Endpoint, "text/xml; charset=utf-8", strings.NewReader(env))
		if err != nil {
			t.Fatal(err)
		}
		out, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	var env struct {
		Report string `xml:"Body>processMutationListsResponse>processMutationListsReturn"`
	}
	if err := xml.Unmarshal(out, &env); err != nil || env.Report == "" {
		t.Fatalf("not a processMutationLists response (%v):\n%.500s", err, out)
	}
	return env.Report
}

// quickStartWant is the bare engine's report for the documented request.
func quickStartWant(t *testing.T) string {
	t.Helper()
	want, err := testEngine(t).MutationListReport([][][]string{{nil, {"M41L", "M184V", "T215Y"}, nil}}, ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: 0})
	if err != nil {
		t.Fatal(err)
	}
	return want
}

// TestBinaryQuickStart runs the quick start of docs/algorithm.md against
// the real binary with its development key: an HIVDB 10.2 report for RT
// M41L, M184V, T215Y, equal to the bare engine's and valid against the
// report XSD.
func TestBinaryQuickStart(t *testing.T) {
	t.Parallel()
	s := startBinary(t)
	report := runExample(t, s, testkit.MarkdownBlock(t, "docs/algorithm.md", "sh", "## Quick start\n", "processMutationLists", "$KEY"))
	for _, want := range []string{"<algorithmName>HIVDB</algorithmName>", "<algorithmVersion>10.2</algorithmVersion>", ">M41L<", ">M184V<", ">T215Y<"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %s", want)
		}
	}
	if got, want := atReportTime(report), quickStartWant(t); got != want {
		t.Errorf("the Quick start report differs from the bare engine's\n got %.600s\nwant %.600s", got, want)
	}
	validateReport(t, report)
}

// TestBinaryREADMEExample runs the README's SOAP example the same way: the
// same report, with the scores the README quotes.
func TestBinaryREADMEExample(t *testing.T) {
	t.Parallel()
	s := startBinary(t)
	command := testkit.MarkdownBlock(t, "README.md", "sh", "**Algorithm (SOAP).**", "/soap/SiteAlgorithm", "processMutationLists")
	report := runExample(t, s, command)
	if got, want := atReportTime(report), strings.TrimSpace(quickStartWant(t)); strings.TrimSpace(got) != want {
		t.Errorf("the README's command yields\n%.600s\nwant the engine's report\n%.600s", got, want)
	}
	readme := testkit.RepoFile(t, "README.md")
	// "The report scores 3TC and FTC 60 (high-level resistance) and AZT 75".
	for _, claim := range regexp.MustCompile(`\b(3TC|FTC|AZT|ABC|TDF|DDI|D4T)((?: and (?:3TC|FTC|AZT|ABC|TDF|DDI|D4T))*) (\d+)\b`).FindAllStringSubmatch(string(readme), -1) {
		drugs := append([]string{claim[1]}, strings.Fields(strings.ReplaceAll(claim[2], "and", ""))...)
		for _, drug := range drugs {
			if !regexp.MustCompile(`<code>` + drug + `</code>\s*<genericName>[^<]*</genericName>\s*<type>[^<]*</type>\s*<score>` + claim[3] + `</score>`).MatchString(report) {
				t.Errorf("the README says %s scores %s; the report does not", drug, claim[3])
			}
		}
	}
}

// TestBinaryDevKey: the real binary in development mode creates the
// development key (hash in keys.txt, key in dev-key.txt) and logs it once;
// a restart on the same data directory accepts it without showing it; the
// same binary and data directory without --dev refuse it, and a fresh
// production start makes no development key at all.
func TestBinaryDevKey(t *testing.T) {
	t.Parallel()
	s := startBinary(t)
	if !strings.Contains(s.Logs(), "created a development SOAP API key") || strings.Count(s.Logs(), s.Key) != 1 {
		t.Errorf("first start does not show the development key once:\n%s", s.Logs())
	}
	keys, err := os.ReadFile(filepath.Join(s.DataDir, "keys.txt"))
	if err != nil || !strings.Contains(string(keys), HashKey(s.Key)) || strings.Contains(string(keys), s.Key) {
		t.Errorf("keys.txt %q (%v)", keys, err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	matrix := `<alg:getScoringMatrix><key>` + s.Key + `</key></alg:getScoringMatrix>`

	again := testkit.StartServer(t, "--services", "soap", "--data", s.DataDir)
	if strings.Contains(again.Logs(), s.Key) || strings.Contains(again.Logs(), "created a development") {
		t.Errorf("restart shows the key or made a new one:\n%s", again.Logs())
	}
	code, resp := soapCall(t, again.URL+"/soap/SiteAlgorithm", matrix)
	if r := parseSOAP(t, resp); code != 200 || !strings.HasPrefix(r.Part, "# HIVDB 10.2") {
		t.Errorf("the development key after a restart: %d %+v", code, r)
	}
	if err := again.Stop(); err != nil {
		t.Fatal(err)
	}

	prod := testkit.StartServer(t, "--services", "soap", "--data", s.DataDir, "--dev=false")
	code, resp = soapCall(t, prod.URL+"/soap/SiteAlgorithm", matrix)
	if r := parseSOAP(t, resp); code != 200 || r.Part != InvalidKeyReport || strings.Contains(prod.Logs(), s.Key) {
		t.Errorf("production accepts the development key: %d %+v\n%s", code, r, prod.Logs())
	}

	fresh := testkit.StartServer(t, "--services", "soap", "--dev=false")
	for _, f := range []string{"dev-key.txt", "keys.txt"} {
		if _, err := os.Stat(filepath.Join(fresh.DataDir, f)); err == nil {
			t.Errorf("a production start made %s", f)
		}
	}
	if strings.Contains(fresh.Logs(), "development") {
		t.Errorf("a production start speaks of a development key:\n%s", fresh.Logs())
	}
}

// TestBinaryContractAndFaults: the real binary publishes the WSDL with its
// endpoint and answers every kind of bad request with HTTP 500 and the
// right fault code, and an invalid key with the error report (logged).
func TestBinaryContractAndFaults(t *testing.T) {
	t.Parallel()
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
	// The SOAP encoding types the WSDL's schema imports are the service's
	// own copy, at the address the import names (zeep loads every imported
	// schema; schemas.xmlsoap.org may be out of reach).
	if _, wsdlBody := s.Get(t, "/soap/SiteAlgorithm?wsdl"); !strings.Contains(string(wsdlBody),
		`<import namespace="http://schemas.xmlsoap.org/soap/encoding/" schemaLocation="`+s.Endpoint+`?xsd=soapenc"/>`) {
		t.Errorf("the WSDL does not import the SOAP encoding types from %s?xsd=soapenc", s.Endpoint)
	}
	if resp, body := s.Get(t, "/soap/SiteAlgorithm?xsd=soapenc"); resp.StatusCode != 200 ||
		!strings.Contains(string(body), `targetNamespace="http://schemas.xmlsoap.org/soap/encoding/"`) || !strings.Contains(string(body), `<complexType name="Array">`) {
		t.Errorf("?xsd=soapenc: %d %.200s", resp.StatusCode, body)
	}

	lists := `<mutationsList><s><g/><g><m>M41L</m></g></s></mutationsList>`
	cases := []struct{ name, body, code, contains string }{
		{"malformed XML", "<soapenv:Envelope", "soapenv:Client", "malformed XML"},
		{"unknown operation", `<alg:deleteAll><key>` + s.Key + `</key></alg:deleteAll>`, "soapenv:Client", `unknown operation "deleteAll"`},
		{"no overload", `<alg:processSequences><key>` + s.Key + `</key></alg:processSequences>`, "soapenv:Client", "no overload of processSequences"},
		{"wrong part type", `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>zero</reportTypeInt>` + lists + `</alg:processMutationLists>`, "soapenv:Client", "is not an xsd:int"},
		{"unknown report type", `<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>5</reportTypeInt>` + lists + `</alg:processMutationLists>`, "soapenv:Client", "unknown report type"},
		{"empty sequence", `<alg:processSequence><key>` + s.Key + `</key><sequence/></alg:processSequence>`, "soapenv:Client", "sequence is empty"},
	}
	for _, c := range cases {
		code, resp := soapCall(t, s.Endpoint, c.body)
		if r := parseSOAP(t, resp); code != 500 || r.FaultCode != c.code || !strings.Contains(r.FaultString, c.contains) {
			t.Errorf("%s: %d %s %q, want 500 %s containing %q", c.name, code, r.FaultCode, r.FaultString, c.code, c.contains)
		}
	}

	// Over the 16 MiB request limit (the server's own limit is larger), by
	// less than what net/http drains of an unread body (256 KiB), so the
	// client reads the fault instead of a reset connection.
	big := `<alg:getScoringMatrix><key>` + strings.Repeat("k", DefaultMaxRequestBytes+64<<10) + `</key></alg:getScoringMatrix>`
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
