package algorithm

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/gen/soap"
	"github.com/sitelib/sitesvc/gen/soapapi"
	"github.com/sitelib/sitesvc/impl/fasta"
	"github.com/sitelib/sitesvc/impl/resistance"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// realClients are the SOAP clients the service must work with: PHP's
// SoapClient (Debian php-cli, php-soap), Perl's SOAP::Lite (Debian
// libsoap-lite-perl), Python's zeep (Debian python3-zeep), which loads the
// WSDL and its schema strictly, and Python's suds (Debian python3-suds).
// Each runs a script from testdata
// against the published WSDL and prints JSON.
var realClients = []struct {
	name, interpreter, script string
	// overload3Algorithm is the algorithm selector the script passes to
	// processSequences overload 3.
	overload3Algorithm resistance.AlgorithmSelector
	method             string // methodName/reportName prefix the script uses
	reportDate         string
	// allOverloads: the client can call every processSequences overload.
	// zeep and suds keep one operation per name (the WSDL's last overload,
	// 3), so their scripts call neither overload 1 nor 2.
	allOverloads bool
}{
	{"php", "php", "testdata/client.php", resistance.AlgorithmRega, "php", "2026-01-02", true},
	{"perl", "perl", "testdata/client.pl", resistance.AlgorithmANRS, "perl", "2026-01-03", true},
	{"zeep", "python3", "testdata/client_zeep.py", resistance.AlgorithmHIVDB, "zeep", "2026-01-04", false},
	{"suds", "python3", "testdata/client_suds.py", resistance.AlgorithmHIVDB, "suds", "2026-01-05", false},
}

// pythonModules are the Python modules each Python client script imports.
var pythonModules = map[string]string{
	"testdata/client_zeep.py": "zeep", // Debian python3-zeep
	"testdata/client_suds.py": "suds", // Debian python3-suds
}

func runClient(t *testing.T, interpreter, script, wsdlURL, key, mode string, files ...string) map[string]json.RawMessage {
	t.Helper()
	var path string
	switch interpreter {
	case "php":
		path = testkit.RequireTool(t, interpreter) // Debian php-cli, php-soap
		if out, err := exec.Command(path, "-r", "exit(class_exists('SoapClient') ? 0 : 1);").CombinedOutput(); err != nil {
			testkit.Missing(t, "PHP's SOAP extension (php-soap), which this PHP lacks: %s", out)
		}
	case "perl":
		path = testkit.RequireTool(t, interpreter) // Debian perl, libsoap-lite-perl
		if out, err := exec.Command(path, "-MSOAP::Lite", "-MJSON::PP", "-e", "1").CombinedOutput(); err != nil {
			testkit.Missing(t, "Perl's SOAP::Lite (libsoap-lite-perl), which this Perl lacks: %s", out)
		}
	case "python3":
		// Debian's python3 first: the modules are its packages, which a
		// python3 earlier on the PATH (a virtualenv, pyenv) may not see.
		path = "/usr/bin/python3"
		if _, err := os.Stat(path); err != nil {
			path = testkit.RequireTool(t, interpreter)
		}
		module := pythonModules[script]
		if out, err := exec.Command(path, "-c", "import "+module).CombinedOutput(); err != nil {
			testkit.Missing(t, "Python's %s (python3-%s), which %s lacks: %s", module, module, path, out)
		}
	default:
		t.Fatalf("no way to run %s clients", interpreter)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append([]string{script, wsdlURL, key, mode}, files...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s\n%s", interpreter, script, err, out, stderr.String())
	}
	var res map[string]json.RawMessage
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%s output is not JSON: %v\n%s\n%s", interpreter, err, out, stderr.String())
	}
	return res
}

func str(t *testing.T, res map[string]json.RawMessage, name string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(res[name], &s); err != nil {
		t.Fatalf("%s: not a string: %s", name, res[name])
	}
	return s
}

// TestRealClientsReports: PHP, Perl, zeep and suds call getScoringMatrix,
// processMutationLists and processSequences overloads 2 (not zeep, suds) and 3 through the
// WSDL the real binary publishes, against that running server, with the
// development key its first start made. Every answer must equal what the
// bare engine writes for the same input (report times are put on the test
// engine's fixed clock) and XML reports must validate against the report
// XSD.
func TestRealClientsReports(t *testing.T) {
	t.Parallel()
	s := startBinary(t)
	eng := testEngine(t)
	lists := [][][]string{
		{nil, {"M41L", "M184V", "T215Y"}, nil},
		{{"L90M"}, nil, {"N155H"}},
	}
	for _, c := range realClients {
		t.Run(c.name, func(t *testing.T) {
			res := runClient(t, c.interpreter, c.script, s.Endpoint+"?wsdl", s.Key, "reports")

			if got := str(t, res, "getScoringMatrix"); got != eng.ScoringMatrix() {
				t.Errorf("getScoringMatrix differs from the engine's: %.200s", got)
			}

			want, err := eng.MutationListReport(lists, ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: 0})
			if err != nil {
				t.Fatal(err)
			}
			got := atReportTime(str(t, res, "processMutationLists"))
			if got != want {
				t.Errorf("processMutationLists\n got %.400s\nwant %.400s", got, want)
			}
			validateReport(t, got)

			if c.name == "php" {
				want, err := eng.MutationListReport(lists, ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: 3})
				if err != nil {
					t.Fatal(err)
				}
				if got := atReportTime(str(t, res, "processMutationLists3")); got != want {
					t.Errorf("processMutationLists, tab-separated\n got %.400s\nwant %.400s", got, want)
				}
			}

			if c.allOverloads {
				want, err := eng.MutationListReport(lists, ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: 2, MethodName: c.method + "-method", ReportName: c.method + "-report", ReportDate: c.reportDate})
				if err != nil {
					t.Fatal(err)
				}
				got := str(t, res, "overload2")
				if got != want {
					t.Errorf("processSequences overload 2\n got %.400s\nwant %.400s", got, want)
				}
				validateReport(t, got)
			}

			wants, err := eng.MutationListReports(lists, ReportOptions{Algorithm: c.overload3Algorithm, ReportType: 0, MethodName: c.method + "-method", ReportName: c.method + "-report", ReportDate: c.reportDate})
			if err != nil {
				t.Fatal(err)
			}
			var items []string
			if err := json.Unmarshal(res["overload3"], &items); err != nil {
				t.Fatalf("overload 3 did not return an array: %s", res["overload3"])
			}
			if !reflect.DeepEqual(items, wants) {
				t.Errorf("processSequences overload 3: %d reports\n got %.400v\nwant %.400v", len(items), items, wants)
			}
			for _, it := range items {
				validateReport(t, it)
			}

			if c.name == "php" {
				// The named recipe (non-WSDL client, one SoapParam per
				// part) selects the overloads by their part names.
				if got := str(t, res, "overload2Named"); got != str(t, res, "overload2") {
					t.Errorf("overload 2 called by part names\n got %.400s\nwant the positional call's answer", got)
				}
				var named []string
				if err := json.Unmarshal(res["overload3Named"], &named); err != nil || !reflect.DeepEqual(named, wants) {
					t.Errorf("overload 3 called by part names: %.400s", res["overload3Named"])
				}
			}

			if got := str(t, res, "badKey"); got != InvalidKeyReport {
				t.Errorf("invalid key: %q", got)
			}
			if got := str(t, res, "badReportType"); !strings.HasPrefix(got, "fault: ") || !strings.Contains(got, "Client") || !strings.Contains(got, "unknown report type") {
				t.Errorf("unknown report type: %q", got)
			}
		})
	}
}

// TestRealClientsSequenceOperations: each client's calls of overload 1 (not zeep, suds) and
// of the other sequence operations reach the right operation with the
// parts decoded correctly (shown by a recording implementation behind the
// same codec and WSDL), and the real binary answers them with reports whose
// (short) sequences fail alone, inside the report.
func TestRealClientsSequenceOperations(t *testing.T) {
	t.Parallel()
	rec := &recordingService{}
	var endpoint string
	handler, err := soap.NewHandler(soap.HandlerConfig{
		Operations:        soapapi.Operations(rec),
		RequestNamespace:  soapapi.RequestNamespace,
		ResponseNamespace: "http://recording.test/soap",
	})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/xml")
			if r.URL.Query().Get("xsd") == "soapenc" {
				// The SOAP encoding types the WSDL imports, as the service serves them.
				_, _ = w.Write(soapapi.Document("soapenc"))
				return
			}
			_, _ = w.Write(PublishedWSDL(endpoint, soapapi.RequestNamespace))
			return
		}
		handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	endpoint = srv.URL + "/soap"

	want := map[string]any{
		"ProcessSequences":        &soapapi.ProcessSequencesRequest{Key: "rec-key", ReportTypeInt: 1, Sequence: []string{"ACGTACGT", "GGGCCC"}},
		"ProcessSequence":         &soapapi.ProcessSequenceRequest{Key: "rec-key", Sequence: "ACGT"},
		"ProcessSequencesInFasta": &soapapi.ProcessSequencesInFastaRequest{Key: "rec-key", ReportTypeInt: 2, SequencesInFasta: ">s1\nACGT\n>s2\nGGCC\n"},
		"ProcessSequencesString":  &soapapi.ProcessSequencesStringRequest{Key: "rec-key", ReportTypeInt: 3, Sequences: "ACGT\nGGCC"},
	}
	results := map[string]string{
		"overload1": "ProcessSequences", "processSequence": "ProcessSequence",
		"processSequencesInFasta": "ProcessSequencesInFasta", "processSequencesString": "ProcessSequencesString",
	}
	real := startBinary(t)
	for _, c := range realClients {
		t.Run(c.name, func(t *testing.T) {
			results, want := results, want
			if !c.allOverloads {
				results, want = maps.Clone(results), maps.Clone(want)
				delete(results, "overload1")
				delete(want, "ProcessSequences")
			}
			rec.reset()
			res := runClient(t, c.interpreter, c.script, srv.URL+"/soap?wsdl", "rec-key", "sequences")
			calls := rec.calls()
			for name, method := range results {
				if got := str(t, res, name); got != "recorded "+method {
					t.Errorf("%s answered %q, want the %s recording", name, got, method)
				}
				if !reflect.DeepEqual(calls[method], want[method]) {
					t.Errorf("%s decoded as %#v, want %#v", method, calls[method], want[method])
				}
			}
			if len(calls) != len(want) {
				t.Errorf("calls %v", calls)
			}

			res = runClient(t, c.interpreter, c.script, real.Endpoint+"?wsdl", real.Key, "sequences")
			for name := range results {
				got := str(t, res, name)
				if !strings.Contains(got, "Sequence too short") || strings.HasPrefix(got, "fault") {
					t.Errorf("real service, %s: %q", name, got)
				}
				if name != "processSequencesString" { // type 3 is text
					validateReport(t, got)
				}
			}
		})
	}
}

// recordingService implements soapapi.SiteAlgorithm by recording each
// decoded request and answering "recorded <Method>".
type recordingService struct {
	mu  sync.Mutex
	got map[string]any
}

func (r *recordingService) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = map[string]any{}
}

func (r *recordingService) calls() map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]any{}
	for k, v := range r.got {
		out[k] = v
	}
	return out
}

func (r *recordingService) record(method string, req any) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got[method] = req
	return "recorded " + method
}

func (r *recordingService) ProcessSequences(_ context.Context, in *soapapi.ProcessSequencesRequest) (*soapapi.ProcessSequencesResponse, error) {
	return &soapapi.ProcessSequencesResponse{ProcessSequencesReturn: r.record("ProcessSequences", in)}, nil
}
func (r *recordingService) ProcessSequences1(_ context.Context, in *soapapi.ProcessSequencesRequest1) (*soapapi.ProcessSequencesResponse1, error) {
	return &soapapi.ProcessSequencesResponse1{ProcessSequencesReturn: r.record("ProcessSequences1", in)}, nil
}
func (r *recordingService) ProcessSequences2(_ context.Context, in *soapapi.ProcessSequencesRequest2) (*soapapi.ProcessSequencesResponse2, error) {
	return &soapapi.ProcessSequencesResponse2{ProcessSequencesReturn: []any{r.record("ProcessSequences2", in)}}, nil
}
func (r *recordingService) ProcessSequence(_ context.Context, in *soapapi.ProcessSequenceRequest) (*soapapi.ProcessSequenceResponse, error) {
	return &soapapi.ProcessSequenceResponse{ProcessSequenceReturn: r.record("ProcessSequence", in)}, nil
}
func (r *recordingService) ProcessSequencesInFasta(_ context.Context, in *soapapi.ProcessSequencesInFastaRequest) (*soapapi.ProcessSequencesInFastaResponse, error) {
	return &soapapi.ProcessSequencesInFastaResponse{ProcessSequencesInFastaReturn: r.record("ProcessSequencesInFasta", in)}, nil
}
func (r *recordingService) ProcessSequencesString(_ context.Context, in *soapapi.ProcessSequencesStringRequest) (*soapapi.ProcessSequencesStringResponse, error) {
	return &soapapi.ProcessSequencesStringResponse{ProcessSequencesStringReturn: r.record("ProcessSequencesString", in)}, nil
}
func (r *recordingService) GetScoringMatrix(_ context.Context, in *soapapi.GetScoringMatrixRequest) (*soapapi.GetScoringMatrixResponse, error) {
	return &soapapi.GetScoringMatrixResponse{GetScoringMatrixReturn: r.record("GetScoringMatrix", in)}, nil
}
func (r *recordingService) ProcessMutationLists(_ context.Context, in *soapapi.ProcessMutationListsRequest) (*soapapi.ProcessMutationListsResponse, error) {
	return &soapapi.ProcessMutationListsResponse{ProcessMutationListsReturn: r.record("ProcessMutationLists", in)}, nil
}

// TestRealClientsSequenceAnalysis: PHP, Perl, zeep and suds send real sequences through the WSDL the
// real binary publishes: processSequence (one sequence, simple report) and
// processSequencesInFasta (three sequences, XML 2009). Each answer equals the bare engine's
// report for the same text and validates against the report XSD.
func TestRealClientsSequenceAnalysis(t *testing.T) {
	t.Parallel()
	s := startBinary(t)
	eng := testEngine(t)
	dir := t.TempDir()
	one := testkit.ExampleFASTA(t)
	many := one + sharedSequences(t, "RT_INSERTIONS_69_AF096883", "JUST_IN_EU618168")
	oneFile, manyFile := filepath.Join(dir, "one.fasta"), filepath.Join(dir, "many.fasta")
	if err := os.WriteFile(oneFile, []byte(one), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manyFile, []byte(many), 0o600); err != nil {
		t.Fatal(err)
	}
	wantOne, err := eng.SequenceReport(fasta.Parse(one), ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.ReportSimple})
	if err != nil {
		t.Fatal(err)
	}
	wantMany, err := eng.SequenceReport(fasta.Parse(many), ReportOptions{Algorithm: resistance.AlgorithmHIVDB, ReportType: resistance.Report2009})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range realClients {
		t.Run(c.name, func(t *testing.T) {
			res := runClient(t, c.interpreter, c.script, s.Endpoint+"?wsdl", s.Key, "analysis", oneFile, manyFile)
			for name, want := range map[string]string{"processSequence": wantOne, "processSequencesInFasta": wantMany} {
				got := str(t, res, name)
				if atReportTime(got) != want {
					t.Errorf("%s differs from the engine's report\n got %.600s\nwant %.600s", name, got, want)
				}
				validateReport(t, got)
			}
			if got := str(t, res, "processSequencesInFasta"); strings.Count(got, "<success>true</success>") != 3 {
				t.Errorf("processSequencesInFasta: not three analysed sequences:\n%.600s", got)
			}
		})
	}
}

// sharedSequences returns sequences of ../shared/data/hivdb/sequences as FASTA, named by file.
func sharedSequences(t *testing.T, stems ...string) string {
	t.Helper()
	var b strings.Builder
	for _, stem := range stems {
		b.WriteString(testkit.ReadHIVDBSequence(t, stem).FASTA())
	}
	return b.String()
}
