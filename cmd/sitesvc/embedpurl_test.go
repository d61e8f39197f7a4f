package main

import (
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// How Embed reaches PURL (issue 23, 8b). The public URL of these servers resolves nowhere
// (.invalid), as when an instance cannot reach its own public hostname: in one process
// Embed reads the PURL service directly (it used to fetch through the public URL and answer
// 502 on every embed while /readyz said ready); deployed apart it fetches from
// --embed-purl-url; without a way to reach PURL, /readyz says so.
func TestEmbedReachesPurl(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the binary")
	}
	const public = "http://sitesvc.invalid:9"
	oembed := func(srv *testkit.Server, druid string) (int, string) {
		t.Helper()
		resp, body := srv.Get(t, "/embed/embed?url="+url.QueryEscape(public+"/purl/"+druid))
		return resp.StatusCode, string(body)
	}

	// One process: ready, and every embed answered from the PURL service directly.
	both := testkit.StartServer(t, "--public-url", public)
	if status, body := oembed(both, "bb000kk0000"); status != 200 || !strings.Contains(body, `"provider_name"`) {
		t.Fatalf("one process, public URL unreachable: %d %s", status, body)
	}
	if status, _ := oembed(both, "zz999zz9998"); status != 404 {
		t.Errorf("an unknown object in one process: %d, want 404", status)
	}

	// Apart, with the PURL service's internal URL.
	apart := testkit.StartServer(t, "--services", "embed", "--public-url", public, "--embed-purl-url", both.URL+"/purl")
	if status, body := oembed(apart, "bb000kk0000"); status != 200 || !strings.Contains(body, `"provider_name"`) {
		t.Errorf("apart, through --embed-purl-url: %d %s", status, body)
	}

	// Apart, with no way to reach PURL: /readyz says Embed cannot reach it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(testkit.Binary(t), "serve", "--services", "embed", "--addr", addr, "--public-url", public, "--data", t.TempDir(), "--log-format", "text")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	client := &http.Client{Timeout: 10 * time.Second}
	var status int
	var body string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		resp, err := client.Get("http://" + addr + "/readyz")
		if err != nil {
			continue
		}
		b := make([]byte, 4096)
		n, _ := resp.Body.Read(b)
		resp.Body.Close()
		status, body = resp.StatusCode, string(b[:n])
		break
	}
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "embed") || !strings.Contains(body, "cannot reach the PURL service at "+public+"/purl") {
		t.Errorf("/readyz of an Embed that cannot reach PURL: %d %q", status, body)
	}
}
