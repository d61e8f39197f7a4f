package testkit

import (
	"net"
	"net/http"
	"strings"
	"testing"
)

// A server on the address the child was told to listen on must not pass
// for the child being ready, even when it answers /readyz: the child cannot
// bind the address, says so and exits.
func TestStartRefusesSomeoneElsesServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	decoy := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ready\n")) })}
	go decoy.Serve(ln)
	defer decoy.Close()
	s, err := startOn(Binary(t), RepoRoot(t), t.TempDir(), ln.Addr().String(), nil, []string{"--services", "purl"})
	if err == nil {
		s.kill()
		t.Fatal("start took the decoy on its port for the sitesvc it started")
	}
	if !strings.Contains(err.Error(), "exited before it was ready") {
		t.Errorf("start: %v", err)
	}
}

func TestListeningLine(t *testing.T) {
	t.Parallel()
	for logs, want := range map[string]bool{
		"time=x level=INFO msg=listening addr=127.0.0.1:8080\n":                 true,
		"time=x level=INFO msg=listening addr=127.0.0.1:80801\n":                false,
		`{"time":"x","level":"INFO","msg":"listening","addr":"127.0.0.1:8080"}`: true,
		"msg=serve failed addr=127.0.0.1:8080\n":                                false,
	} {
		if got := listening(logs, "127.0.0.1:8080"); got != want {
			t.Errorf("listening(%q) = %v", logs, got)
		}
	}
}

// The server serves on the socket the test opened (socket activation), on
// the port the kernel chose, and says so in its log.
func TestStartServerOnInheritedSocket(t *testing.T) {
	t.Parallel()
	s := StartServer(t, "--services", "purl")
	if !listening(s.Logs(), strings.TrimPrefix(s.URL, "http://")) {
		t.Fatalf("the log does not say it listens on %s:\n%s", s.URL, s.Logs())
	}
	resp, _ := s.Get(t, "/healthz")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/healthz: %d", resp.StatusCode)
	}
}
