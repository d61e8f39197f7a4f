package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/algorithm"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// readmeEnvelope is the README's example request (with KEY for the key):
// an HIVDB 10.2 report for RT M41L, M184V, T215Y. Item element names are
// free; gene elements are in the order PR, RT, IN.
const readmeEnvelope = `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:alg="http://algorithm.sitesvc.org">
  <soapenv:Body>
    <alg:processMutationLists>
      <key>KEY</key>
      <reportTypeInt>0</reportTypeInt>
      <mutationsList>
        <sample><PR/><RT><m>M41L</m><m>M184V</m><m>T215Y</m></RT><IN/></sample>
      </mutationsList>
    </alg:processMutationLists>
  </soapenv:Body>
</soapenv:Envelope>`

// TestSOAPDevKeyAndReadmeExample runs the real binary in development mode
// (as `make run` does) on an empty data directory: it creates and logs a
// development key, and the README's request with that key returns an
// HIVDB 10.2 report.
func TestSOAPDevKeyAndReadmeExample(t *testing.T) {
	s := testkit.StartServer(t, "--services", "soap", "--dev")
	raw, err := os.ReadFile(filepath.Join(s.DataDir, "dev-key.txt"))
	if err != nil {
		t.Fatalf("no development key: %v\n%s", err, s.Logs())
	}
	key := strings.TrimSpace(string(raw))
	if !strings.Contains(s.Logs(), key) {
		t.Errorf("development key not logged:\n%s", s.Logs())
	}
	resp, err := http.Post(s.URL+"/soap/SiteAlgorithm", "text/xml; charset=utf-8", strings.NewReader(strings.Replace(readmeEnvelope, "KEY", key, 1)))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var env struct {
		Report string `xml:"Body>processMutationListsResponse>processMutationListsReturn"`
	}
	if err := xml.Unmarshal(body, &env); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%d %v\n%s", resp.StatusCode, err, body)
	}
	for _, want := range []string{"<Site_Algorithm_Interpretation>", "<algorithmName>HIVDB</algorithmName>", "<algorithmVersion>10.2</algorithmVersion>", ">M41L<", ">M184V<", ">T215Y<", "<drugScores>"} {
		if !strings.Contains(env.Report, want) {
			t.Errorf("report lacks %s:\n%.1500s", want, env.Report)
		}
	}

	// A second start on the same data directory keeps the key.
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	keys, _ := os.ReadFile(filepath.Join(s.DataDir, "keys.txt"))
	if !strings.Contains(string(keys), algorithm.HashKey(key)) || strings.Contains(string(keys), key) {
		t.Errorf("keys.txt: %q", keys)
	}
}

func TestKeysAdd(t *testing.T) {
	dir := t.TempDir()
	env := func(string) string { return "" }
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"keys", "add", "--data", dir, "--label", "lab one"}, env, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(stdout.String())
	if len(key) != 32 || strings.Contains(key, "\n") {
		t.Fatalf("stdout %q", stdout.String())
	}
	keys, err := os.ReadFile(filepath.Join(dir, "keys.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(keys) != algorithm.HashKey(key)+" lab one\n" {
		t.Errorf("keys.txt = %q", keys)
	}
	if strings.Contains(stderr.String(), key) {
		t.Error("key printed twice")
	}

	// --keys-file and SITESVC_KEYS_FILE.
	other := filepath.Join(dir, "other.txt")
	stdout.Reset()
	envFile := func(name string) string {
		if name == "SITESVC_KEYS_FILE" {
			return other
		}
		return ""
	}
	if err := run(context.Background(), []string{"keys", "add"}, envFile, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(other); !strings.HasPrefix(string(b), algorithm.HashKey(strings.TrimSpace(stdout.String()))) {
		t.Errorf("other.txt = %q", b)
	}

	for _, args := range [][]string{{"keys"}, {"keys", "list"}, {"keys", "add", "extra"}, {"keys", "add", "--nope"}} {
		if err := run(context.Background(), args, env, io.Discard, io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}
