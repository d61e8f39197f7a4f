package algorithm

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/server"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// A heavy request that runs past the server's write timeout is answered whole: it takes
// its own write deadline when it is admitted (it used to be dropped by the connection
// while the log said 200). A 100 ms write timeout is far below what 10,000 samples take
// to decode, evaluate and report.
func TestHeavyRequestOutlivesWriteTimeout(t *testing.T) {
	t.Parallel()
	s := startService(t, nil)
	srv, err := server.New(server.Config{
		Mounts:          []server.Mount{{Path: "/soap/SiteAlgorithm", Service: s.Service}},
		Logger:          slog.New(slog.DiscardHandler),
		WriteTimeout:    100 * time.Millisecond,
		ShutdownTimeout: time.Second,
		MaxBodyBytes:    32 << 20,
	})
	if err != nil {
		t.Fatal(err)
	}
	addr := testkit.ServeLoopback(t, srv.Serve)

	env := `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:alg="http://algorithm.sitesvc.org"><soapenv:Body>` +
		`<alg:processMutationLists><key>` + s.Key + `</key><reportTypeInt>3</reportTypeInt>` + samplesXML("mutationsList", 10_000) + `</alg:processMutationLists></soapenv:Body></soapenv:Envelope>`
	req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/soap/SiteAlgorithm", strings.NewReader(env))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "text/xml; charset=utf-8")
	req.Header.Set("SOAPAction", `""`)
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the heavy request lost its response: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d after %v: %v %s", resp.StatusCode, time.Since(start), err, clip(string(body)))
	}
	if r := parseSOAP(t, string(body)); r.FaultCode != "" || strings.Count(r.Part, "\n") < 10_000 {
		t.Errorf("the report of 10,000 samples: %d lines, fault %q", strings.Count(r.Part, "\n"), r.FaultString)
	}
	if elapsed := time.Since(start); elapsed < 100*time.Millisecond {
		t.Logf("the request took %v, under the write timeout: the test proves nothing on this machine", elapsed)
	}
}
