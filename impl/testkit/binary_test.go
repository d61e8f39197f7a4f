package testkit

import (
	"fmt"
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

// logRecorder is a testing.TB that keeps what Logf writes.
type logRecorder struct {
	testing.TB
	logged []string
}

func (r *logRecorder) Helper() {}
func (r *logRecorder) Logf(format string, args ...any) {
	r.logged = append(r.logged, fmt.Sprintf(format, args...))
}

// A failed test shows the server's warnings and errors, the last 40, and
// nothing of its ordinary log.
func TestLogServerErrors(t *testing.T) {
	t.Parallel()
	var logs strings.Builder
	logs.WriteString("time=1 level=INFO msg=\"listening\"\n")
	for i := range 45 {
		fmt.Fprintf(&logs, "time=2 level=ERROR msg=\"purl: writing\" n=%d\n", i)
	}
	logs.WriteString("time=3 level=WARN msg=\"slow\"\n")
	r := &logRecorder{TB: t}
	logServerErrors(r, logs.String())
	if len(r.logged) != 1 {
		t.Fatalf("logged %d times, want once", len(r.logged))
	}
	got := r.logged[0]
	if strings.Contains(got, "listening") || strings.Contains(got, "n=4\n") || !strings.Contains(got, "n=6\n") || !strings.Contains(got, "n=44\n") || !strings.HasSuffix(got, `msg="slow"`) {
		t.Errorf("logged:\n%s", got)
	}
	r = &logRecorder{TB: t}
	logServerErrors(r, "time=1 level=INFO msg=ok\n")
	if len(r.logged) != 0 {
		t.Errorf("a log without warnings logged %q", r.logged)
	}
}
