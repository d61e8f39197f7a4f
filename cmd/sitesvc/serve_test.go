package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestContractsPublished fetches every service's contract from the running
// binary: each OpenAPI document loads, validates and names the configured
// base URL; the WSDL's soap:address is the configured endpoint.
func TestContractsPublished(t *testing.T) {
	s := testkit.StartServer(t)
	for _, svc := range []string{"purl", "embed", "hours"} {
		for _, name := range []string{"openapi.yaml", "openapi.json"} {
			resp, body := s.Get(t, "/"+svc+"/"+name)
			if resp.StatusCode != http.StatusOK {
				t.Errorf("GET /%s/%s = %d", svc, name, resp.StatusCode)
				continue
			}
			doc, err := openapi3.NewLoader().LoadFromData(body)
			if err != nil {
				t.Errorf("/%s/%s does not load: %v", svc, name, err)
				continue
			}
			if err := doc.Validate(context.Background()); err != nil {
				t.Errorf("/%s/%s is invalid: %v", svc, name, err)
			}
			if want := s.URL + "/" + svc; len(doc.Servers) == 0 || doc.Servers[0].URL != want {
				t.Errorf("/%s/%s servers = %v, want %s", svc, name, doc.Servers, want)
			}
		}
	}
	resp, body := s.Get(t, "/soap/SiteAlgorithm?wsdl")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET ?wsdl = %d", resp.StatusCode)
	}
	var wsdl struct {
		Service struct {
			Name string `xml:"name,attr"`
			Port struct {
				Address struct {
					Location string `xml:"location,attr"`
				} `xml:"address"`
			} `xml:"port"`
		} `xml:"service"`
	}
	if err := xml.Unmarshal(body, &wsdl); err != nil {
		t.Fatalf("WSDL does not parse: %v", err)
	}
	if wsdl.Service.Name != "SiteAlgorithmService" || wsdl.Service.Port.Address.Location != s.URL+"/soap/SiteAlgorithm" {
		t.Errorf("WSDL service %q at %q, want SiteAlgorithmService at %s", wsdl.Service.Name, wsdl.Service.Port.Address.Location, s.URL+"/soap/SiteAlgorithm")
	}
}

// TestBadRequestsAnswer400 checks that the request validator guards every
// OpenAPI service of the running binary.
func TestBadRequestsAnswer400(t *testing.T) {
	s := testkit.StartServer(t)
	embedSpec, err := embedapi.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	hoursSpec, err := hoursapi.GetSpec()
	if err != nil {
		t.Fatal(err)
	}
	embed := testkit.NewValidator(t, embedSpec).Mounted("/embed").Client(t)
	hours := testkit.NewValidator(t, hoursSpec).Mounted("/hours").Client(t)
	for _, c := range []struct {
		client      *http.Client
		path, param string
	}{
		{embed, "/embed/embed", "url"},                          // url is required
		{embed, "/embed/embed?url=x&maxwidth=wide", "maxwidth"}, // maxwidth is an integer
		{hours, "/hours/libraries.json?from=tuesday", "from"},   // from is a date
	} {
		// The client checks each answer against the document: a 400 in the
		// error shape it declares.
		resp, err := c.client.Get(s.URL + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !bytes.Contains(body, []byte(c.param)) {
			t.Errorf("GET %s = %d %s, want 400 naming %s", c.path, resp.StatusCode, body, c.param)
		}
	}
}

// TestIndexLinksEveryService checks the index page names each service's
// base URL and contract.
func TestIndexLinksEveryService(t *testing.T) {
	s := testkit.StartServer(t)
	resp, body := s.Get(t, "/")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET / = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		s.URL + "/purl/openapi.yaml", s.URL + "/embed/openapi.yaml", s.URL + "/hours/openapi.yaml",
		s.URL + "/soap/SiteAlgorithm?wsdl",
	} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("index page does not link %s", want)
		}
	}
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		if resp, _ := s.Get(t, p); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d", p, resp.StatusCode)
		}
	}
}

// TestServicesFlagRunsOne runs only the Hours service under its own base URL.
func TestServicesFlagRunsOne(t *testing.T) {
	s := testkit.StartServer(t, "--services", "hours", "--hours-base-url", "http://127.0.0.1:1/opening-hours")
	if resp, _ := s.Get(t, "/purl/openapi.json"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("PURL answered %d with --services hours", resp.StatusCode)
	}
	resp, body := s.Get(t, "/opening-hours/openapi.json")
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("http://127.0.0.1:1/opening-hours")) {
		t.Errorf("hours at its own base path = %d", resp.StatusCode)
	}
}

// TestGracefulShutdown sends SIGTERM while a request is in flight (its body
// still arriving) and checks that the request completes and the process
// exits with status 0.
func TestGracefulShutdown(t *testing.T) {
	s := testkit.StartServer(t)
	envelope := `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:alg="http://algorithm.sitesvc.org">
<soapenv:Body><alg:getScoringMatrix><key>no-such-key</key></alg:getScoringMatrix></soapenv:Body>
</soapenv:Envelope>`
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	half := len(envelope) / 2
	fmt.Fprintf(conn, "POST /soap/SiteAlgorithm HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/xml; charset=utf-8\r\nSOAPAction: \"\"\r\nContent-Length: %d\r\n\r\n%s", len(envelope), envelope[:half])
	waitInFlight(t, s) // the server is now reading the body

	if err := s.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitDraining(t, s)
	select {
	case <-s.Done():
		t.Fatal("process exited with a request in flight")
	default:
	}
	// While it drains, new connections are refused.
	if c, err := net.DialTimeout("tcp", strings.TrimPrefix(s.URL, "http://"), time.Second); err == nil {
		c.Close()
		t.Error("a new connection was accepted after SIGTERM")
	}
	if _, err := io.WriteString(conn, envelope[half:]); err != nil {
		t.Fatalf("finishing the request body: %v", err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("reading the response of the in-flight request: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("getScoringMatrixReturn")) {
		t.Errorf("in-flight request answered %d: %s", resp.StatusCode, body)
	}
	if err := s.Wait(30 * time.Second); err != nil {
		t.Errorf("exit after SIGTERM: %v\n%s", err, s.Logs())
	}
}

func TestConfigDefaultsAndEnv(t *testing.T) {
	env := map[string]string{
		"SITESVC_PUBLIC_URL":     "https://lib.example.org/",
		"SITESVC_HOURS_BASE_URL": "https://hours.example.org",
		"SITESVC_SERVICES":       "purl, hours",
	}
	fs := newFlagSetForTest()
	c := newServeSettings(fs, func(k string) string { return env[k] })
	if err := fs.Parse([]string{"--purl-base-url", "https://purl.example.org/"}); err != nil {
		t.Fatal(err)
	}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	for got, want := range map[string]string{
		c.BaseURLs["purl"]:                         "https://purl.example.org",
		c.BaseURLs["embed"]:                        "https://lib.example.org/embed",
		c.BaseURLs["hours"]:                        "https://hours.example.org",
		c.BaseURLs["soap"]:                         "https://lib.example.org/soap/SiteAlgorithm",
		c.Service["soap"].(*soapSettings).KeysFile: filepath.Join("data", "keys.txt"),
		c.TokensFile:                               filepath.Join("data", "tokens.json"),
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if strings.Join(c.Services, ",") != "purl,hours" {
		t.Errorf("services = %v", c.Services)
	}
	if basePath(c.BaseURLs["hours"]) != "" || basePath(c.BaseURLs["soap"]) != "/soap/SiteAlgorithm" {
		t.Errorf("base paths %q %q", basePath(c.BaseURLs["hours"]), basePath(c.BaseURLs["soap"]))
	}

	for _, bad := range [][]string{{"--services", "purl,ftp"}, {"--public-url", "localhost"}, {"--services", ","},
		{"--services", "purl,purl"}, {"--public-url", "http://x.test/?a=1"}, {"--public-url", "ftp://x.test"},
		{"--hours-base-url", "https://h.test/hours#top"}, {"--log-format", "xml"}, {"--read-timeout", "-1s"}, {"--shutdown-timeout", "0s"}, {"--max-body-bytes", "0"},
		{"--gc-percent", "10"}, {"--gc-percent", "5000"}, {"--memory-limit", "1000"}, {"--memory-limit", "-1"},
		{"--iiif-cache-max-bytes", "0"}, {"--iiif-max-builds", "-1"}, {"--iiif-build-queue", "0"}} {
		fs := newFlagSetForTest()
		c := newServeSettings(fs, func(string) string { return "" })
		if err := fs.Parse(bad); err != nil {
			t.Fatal(err)
		}
		if err := c.check(); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

// A SITESVC_* value that does not parse is an error, never silently the
// default; a flag still wins over a good one.
func TestConfigBadEnvRefused(t *testing.T) {
	for _, env := range []map[string]string{
		{"SITESVC_READ_TIMEOUT": "30"},
		{"SITESVC_SHUTDOWN_TIMEOUT": "soon"},
		{"SITESVC_MAX_BODY_BYTES": "1MB"},
	} {
		fs := newFlagSetForTest()
		c := newServeSettings(fs, func(k string) string { return env[k] })
		if err := fs.Parse(nil); err != nil {
			t.Fatal(err)
		}
		err := c.check()
		if err == nil {
			t.Errorf("%v accepted", env)
			continue
		}
		for k := range env {
			if !strings.Contains(err.Error(), k) {
				t.Errorf("error %q does not name %s", err, k)
			}
		}
	}
	fs := newFlagSetForTest()
	env := map[string]string{"SITESVC_WRITE_TIMEOUT": "5s", "SITESVC_IDLE_TIMEOUT": "7s", "SITESVC_MAX_BODY_BYTES": "2048"}
	c := newServeSettings(fs, func(k string) string { return env[k] })
	if err := fs.Parse([]string{"--write-timeout", "9s"}); err != nil {
		t.Fatal(err)
	}
	if err := c.check(); err != nil {
		t.Fatal(err)
	}
	if c.WriteTimeout != 9*time.Second || c.IdleTimeout != 7*time.Second || c.ReadTimeout != 30*time.Second || c.MaxBodyBytes != 2048 {
		t.Errorf("write %v (flag 9s), idle %v (env 7s), read %v (default 30s), body %d (env 2048)", c.WriteTimeout, c.IdleTimeout, c.ReadTimeout, c.MaxBodyBytes)
	}
}

func TestTokensAdd(t *testing.T) {
	dir := t.TempDir()
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"tokens", "add", "--data", dir, "--name", "desk", "--role", "editor:green"}, func(string) string { return "" }, &out, &errOut)
	if err != nil {
		t.Fatalf("tokens add: %v (%s)", err, errOut.String())
	}
	token := strings.TrimSpace(out.String())
	toks, err := auth.Open(filepath.Join(dir, "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	p, ok := toks.Authenticate(token)
	if !ok || p.Name != "desk" || !p.CanEditLibrary("green") {
		t.Errorf("printed token authenticates as %+v, %v", p, ok)
	}
	if err := run(context.Background(), []string{"tokens", "add", "--data", dir, "--role", "superuser"}, func(string) string { return "" }, io.Discard, io.Discard); err == nil {
		t.Error("unknown role accepted")
	}
	if err := run(context.Background(), []string{"nonsense"}, func(string) string { return "" }, io.Discard, io.Discard); err == nil {
		t.Error("unknown command accepted")
	}
}

func newFlagSetForTest() *flag.FlagSet {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// startHalfRequest opens a connection to s and sends a request whose body
// never completes, so the request stays in flight.
func startHalfRequest(t *testing.T, s *testkit.Server) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	io.WriteString(conn, "POST /soap/SiteAlgorithm HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/xml\r\nContent-Length: 1000\r\n\r\n<soapenv:Envelope")
	waitInFlight(t, s)
	return conn
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting until %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitInFlight waits until s's metrics count a request in flight besides
// the scrape itself (the handler has the request and is reading its body).
func waitInFlight(t *testing.T, s *testkit.Server) {
	t.Helper()
	waitFor(t, "a request is in flight", func() bool {
		resp, body := s.Get(t, "/metrics")
		if resp.StatusCode != http.StatusOK {
			return false
		}
		for _, line := range strings.Split(string(body), "\n") {
			if v, ok := strings.CutPrefix(line, "sitesvc_http_requests_in_flight "); ok {
				n, err := strconv.ParseFloat(v, 64)
				return err == nil && n >= 2
			}
		}
		return false
	})
}

// waitDraining waits until s, signalled to stop, has begun shutting down
// (it says so in its log and refuses new connections).
func waitDraining(t *testing.T, s *testkit.Server) {
	t.Helper()
	waitFor(t, "the server drains", func() bool {
		if !strings.Contains(s.Logs(), "shutting down") {
			return false
		}
		c, err := net.DialTimeout("tcp", strings.TrimPrefix(s.URL, "http://"), time.Second)
		if err != nil {
			return true
		}
		c.Close()
		return false
	})
}

// Past --shutdown-timeout the process stops anyway, says why, and exits
// non-zero (the in-flight request was cut off).
func TestShutdownTimeoutExceeded(t *testing.T) {
	s := testkit.StartServer(t, "--shutdown-timeout", "300ms", "--services", "soap")
	startHalfRequest(t, s)
	if err := s.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := s.Wait(10 * time.Second)
	if err == nil || strings.Contains(err.Error(), "still running") {
		t.Fatalf("exit after an exceeded shutdown timeout: %v\n%s", err, s.Logs())
	}
	if !strings.Contains(s.Logs(), "did not finish within 300ms") {
		t.Errorf("the exit does not say why:\n%s", s.Logs())
	}
}

// A second signal ends a draining process at once.
func TestSecondSignalForcesExit(t *testing.T) {
	s := testkit.StartServer(t, "--services", "soap")
	startHalfRequest(t, s)
	if err := s.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitDraining(t, s)
	select {
	case <-s.Done():
		t.Fatal("exited with a request in flight after one SIGTERM")
	default:
	}
	if err := s.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := s.Wait(5 * time.Second); err == nil || strings.Contains(err.Error(), "still running") {
		t.Errorf("after a second SIGTERM: %v", err)
	}
}

// Bodies over --max-body-bytes get 413 through the real server, whether
// announced by Content-Length or streamed in chunks (then found out while
// the validator reads the body).
func TestBodyLimitThroughTheBinary(t *testing.T) {
	s := testkit.StartServer(t, "--max-body-bytes", "1024", "--services", "hours")
	// With a token that may write: a write without one is refused before
	// its body is read (401), whatever its size.
	token := testkit.AddToken(t, s.DataDir, "admin", "limits")
	big := `{"data":{"type":"libraries","attributes":{"name":"` + strings.Repeat("x", 4096) + `"}}}`
	for _, chunked := range []bool{false, true} {
		var body io.Reader = strings.NewReader(big)
		if chunked {
			body = io.MultiReader(body) // no length known: sent chunked
		}
		req, err := http.NewRequest("POST", s.URL+"/hours/libraries", body)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/vnd.api+json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		msg, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Errorf("chunked=%v: %d %s, want 413", chunked, resp.StatusCode, msg)
		}
	}
}
