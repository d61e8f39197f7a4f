package algorithm

import (
	"encoding/xml"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/gen/soapapi"
	"github.com/sitelib/sitesvc/impl/resistance"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// reportTime is the fixed clock of the engine under test, so that reports
// from the service and from the bare engine can be compared byte for byte.
var reportTime = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)

// engine is the engine of ../shared/data/hivdb, loaded once per test binary.
var engine testkit.Once[*resistance.Engine]

// testEngine is the engine of ../shared/data/hivdb with the fixed clock reportTime.
func testEngine(t testing.TB) ResistanceEngine {
	t.Helper()
	dir := testkit.HIVDBDir(t)
	e := engine.Get(t, func() (*resistance.Engine, error) {
		e, err := resistance.Load(os.DirFS(dir))
		if err != nil {
			return nil, err
		}
		return e.WithClock(func() time.Time { return reportTime }), nil
	})
	return ResistanceEngine{E: e}
}

// newTestLogger is the service's logger writing text to w.
func newTestLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// get sends a GET and returns the status, the content type and the body.
func get(t *testing.T, url string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, b := testkit.Do(t, nil, req)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
}

// testService is the service over the real engine with one key, served by
// an httptest server whose URL is the endpoint.
type testService struct {
	*Service
	URL      string
	Key      string
	KeysFile string
	Logs     *testkit.LogBuffer
}

func startService(t testing.TB, tweak func(*Config)) *testService {
	t.Helper()
	dir := t.TempDir()
	keysFile := filepath.Join(dir, "keys.txt")
	key, err := AddKey(keysFile, "test")
	if err != nil {
		t.Fatal(err)
	}
	logs := &testkit.LogBuffer{}
	var svc *Service
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The server mounts the service under its base path and strips it.
		r.URL.Path = strings.TrimPrefix(r.URL.Path, "/soap/SiteAlgorithm")
		svc.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	cfg := Config{
		Endpoint:         srv.URL + "/soap/SiteAlgorithm",
		RequestNamespace: "http://algorithm.sitesvc.org",
		Engine:           testEngine(t),
		KeysFile:         keysFile,
		ReportsXSD:       soapapi.Document("reports"),
		Logger:           newTestLogger(logs),
		KeyRate:          1000,
		KeyBurst:         1000,
	}
	if tweak != nil {
		tweak(&cfg)
	}
	svc, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return &testService{Service: svc, URL: cfg.Endpoint, Key: key, KeysFile: keysFile, Logs: logs}
}

// soapCall posts an envelope whose Body holds body and returns the status
// and the response.
func soapCall(t testing.TB, url, body string) (int, string) {
	t.Helper()
	env := `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:alg="http://algorithm.sitesvc.org" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Body>` + body + `</soapenv:Body></soapenv:Envelope>`
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(env))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/xml; charset=utf-8")
	resp, b := testkit.Do(t, nil, req)
	return resp.StatusCode, string(b)
}

// soapResult is the text of the first part of a response, or the fault.
type soapResult struct {
	Part        string
	Items       []string
	FaultCode   string
	FaultString string
}

func parseSOAP(t testing.TB, body string) soapResult {
	t.Helper()
	var env struct {
		Body struct {
			Inner struct {
				Part struct {
					Text  string   `xml:",chardata"`
					Items []string `xml:"item"`
				} `xml:",any"`
				FaultCode   string `xml:"faultcode"`
				FaultString string `xml:"faultstring"`
			} `xml:",any"`
		} `xml:"Body"`
	}
	if err := xml.Unmarshal([]byte(body), &env); err != nil {
		t.Fatalf("response is not XML: %v\n%s", err, body)
	}
	in := env.Body.Inner
	return soapResult{Part: in.Part.Text, Items: in.Part.Items, FaultCode: in.FaultCode, FaultString: in.FaultString}
}

// report2009 is what the tests read of an XML 2009 report.
type report2009 struct {
	Results []struct {
		Success      bool   `xml:"success"`
		Name         string `xml:"inputSequence>name"`
		ErrorMessage string `xml:"errorMessage"`
		GeneData     []struct {
			Gene            string  `xml:"gene"`
			Present         bool    `xml:"present"`
			FirstAA         int     `xml:"firstAA"`
			LastAA          int     `xml:"lastAA"`
			FirstNA         int     `xml:"firstNA"`
			LastNA          int     `xml:"lastNA"`
			MatchPercentage float64 `xml:"matchPercentage"`
			Mutations       []struct {
				Position   int    `xml:"position"`
				AminoAcids string `xml:"aminoAcids"`
				Insertion  string `xml:"insertion"`
				String     string `xml:"mutationString"`
			} `xml:"mutation"`
			Frameshifts []string `xml:"quality>frameshift"`
			Unsequenced int      `xml:"quality>unsequencedCodons"`
		} `xml:"geneData"`
		Drugs []string `xml:"drugScore>drugCode"`
	} `xml:"result"`
}

// sameAsEngine checks what the service answered (got) against the bare engine's report for
// the same input (want, or the engine's error err): equal, and valid against the report XSD.
func sameAsEngine(t testing.TB, what, got, want string, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("%s differs from the engine's\n got %.600s\nwant %.600s", what, got, want)
	}
	validateReport(t, got)
}

// validateReport checks an XML report against the published report XSD
// with xmllint.
func validateReport(t testing.TB, report string) {
	t.Helper()
	xsd := filepath.Join(t.TempDir(), "reports.xsd")
	if err := os.WriteFile(xsd, soapapi.Document("reports"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := testkit.ValidateXMLDoc(t, xsd, []byte(report)); err != nil {
		t.Errorf("report does not validate against reports.xsd: %v\n%s", err, clip(report))
	}
}
