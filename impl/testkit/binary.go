package testkit

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Server is a running `sitesvc serve` process.
type Server struct {
	// URL is the public URL, "http://127.0.0.1:<port>", with every service
	// at its default base path under it.
	URL string
	// DataDir is the temporary --data directory.
	DataDir string

	cmd    *exec.Cmd
	logs   *LogBuffer
	done   chan struct{}
	waitMu sync.Mutex
	exit   error
}

// binary is the sitesvc binary built once per test process.
var binary struct {
	once sync.Once
	path string
	err  error
}

// Binary returns the path of a sitesvc binary: $SITESVC_TEST_BINARY when set
// (the Makefile builds it once for all packages), else one built from
// cmd/sitesvc for this test process. Under go test -short it skips the test:
// every test that runs the binary (StartServer too) comes through here, so
// -short leaves out all of them and only them.
func Binary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the sitesvc binary (go test -short skips it)")
	}
	if p := os.Getenv("SITESVC_TEST_BINARY"); p != "" {
		return p
	}
	root := RepoRoot(t)
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "sitesvc-test-bin-")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "sitesvc")
		cmd := exec.Command("go", "build", "-o", binary.path, "./cmd/sitesvc")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as make build makes it
		if out, err := cmd.CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build ./cmd/sitesvc: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatalf("testkit: %v", binary.err)
	}
	return binary.path
}

// StartServer runs `sitesvc serve --dev` on a loopback port with a fresh
// temporary --data directory, from the repository root, with extra flags
// appended (a later flag overrides an earlier one: "--dev=false" runs it as
// in production, without a development SOAP key). Development mode is the
// default here because most tests call the Algorithm (SOAP) service with
// the development key (<DataDir>/dev-key.txt). The test opens the
// listening socket itself (port 0: the kernel picks a free port) and hands
// it to the server by socket activation, so no other process can take the
// port between choosing it and serving on it. It waits until /readyz
// answers 200. The process is stopped when the test ends.
func StartServer(t testing.TB, extraArgs ...string) *Server {
	t.Helper()
	s, err := start(Binary(t), RepoRoot(t), t.TempDir(), extraArgs)
	if err != nil {
		t.Fatalf("testkit: starting sitesvc: %v", err)
	}
	t.Cleanup(func() {
		s.kill()
		if t.Failed() {
			logServerErrors(t, s.Logs())
		}
	})
	return s
}

// logServerErrors writes the server's warnings and errors (at most the last
// 40) into a failed test's output: a failure on a CI machine can then be
// read without running it again.
func logServerErrors(t testing.TB, logs string) {
	t.Helper()
	var lines []string
	for line := range strings.Lines(logs) {
		if strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") || strings.HasPrefix(line, "panic:") {
			lines = append(lines, strings.TrimRight(line, "\n"))
		}
	}
	if len(lines) == 0 {
		return
	}
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	t.Logf("the server's warnings and errors (the last %d):\n%s", len(lines), strings.Join(lines, "\n"))
}

// RequireViewer ends the test through Missing when the server has no
// Mirador bundle to serve: a binary built by a plain `go build` (as testkit
// builds it in a fresh clone) has none until `make build` puts it in
// bundled/mirador.
func (s *Server) RequireViewer(t testing.TB) {
	t.Helper()
	resp, err := http.Head(s.URL + "/embed/viewer/mirador.min.js")
	if err != nil {
		t.Fatalf("testkit: asking for the viewer bundle: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusServiceUnavailable {
		Missing(t, "the Mirador bundle in the binary (make build puts it in bundled/mirador)")
	}
}

// start listens on a new loopback port and runs the server on that socket.
func start(bin, root, dataDir string, extraArgs []string) (*Server, error) {
	addr, socket, err := listenSocket()
	if err != nil {
		return nil, err
	}
	defer socket.Close() // the server holds its own copy
	return startOn(bin, root, dataDir, addr, socket, extraArgs)
}

// Socket opens a listening socket on a loopback port the kernel chooses
// and returns its address ("127.0.0.1:port") and descriptor, for a server
// process started with SocketActivated; it is closed when the test ends.
func Socket(t testing.TB) (addr string, socket *os.File) {
	t.Helper()
	addr, socket, err := listenSocket()
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	t.Cleanup(func() { socket.Close() })
	return addr, socket
}

func listenSocket() (string, *os.File, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("listening on a loopback port: %w", err)
	}
	defer ln.Close() // the descriptor below is a copy
	socket, err := ln.(*net.TCPListener).File()
	if err != nil {
		return "", nil, fmt.Errorf("the listening socket's descriptor: %w", err)
	}
	return ln.Addr().String(), socket, nil
}

// SocketActivated is the command running `bin args…` on the listening
// socket (from Socket) as a service manager passes one: descriptor 3,
// LISTEN_FDS=1 and LISTEN_PID = the server's own pid, which a shell sets
// before it execs the server in its place. `sitesvc serve` then serves on
// that socket instead of binding --addr, so no other process can take the
// port between the test choosing it and the server using it.
func SocketActivated(bin string, args []string, socket *os.File) *exec.Cmd {
	cmd := exec.Command("/bin/sh", append([]string{"-c", `LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" "$@"`, bin}, args...)...)
	cmd.ExtraFiles = []*os.File{socket}
	return cmd
}

// startOn runs the server on the listening socket (SocketActivated); addr
// is the socket's address. A nil socket makes the server listen on addr
// itself.
func startOn(bin, root, dataDir, addr string, socket *os.File, extraArgs []string) (*Server, error) {
	url := "http://" + addr
	args := append([]string{"serve",
		"--addr", addr,
		"--public-url", url,
		"--data", dataDir,
		"--log-format", "text",
		"--dev",
	}, extraArgs...)
	// The large sample objects (make samples-large; not committed) are
	// loaded when the checkout has them, as make run does.
	if large := filepath.Join(root, "samples", "large"); !slices.Contains(extraArgs, "--purl-large-samples") {
		if _, err := os.Stat(large); err == nil {
			args = append(args, "--purl-large-samples", large)
		}
	}
	cmd := exec.Command(bin, args...)
	if socket != nil {
		cmd = SocketActivated(bin, args, socket)
	}
	cmd.Dir = root
	logs := &LogBuffer{}
	cmd.Stdout = logs
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{URL: url, DataDir: dataDir, cmd: cmd, logs: logs, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		s.waitMu.Lock()
		s.exit = err
		s.waitMu.Unlock()
		close(s.done)
	}()
	deadline := time.Now().Add(90 * time.Second)
	client := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return nil, fmt.Errorf("sitesvc exited before it was ready: %v\n%s", s.exitErr(), logs.String())
		default:
		}
		// Until this process says it listens, whatever answers on the
		// address is someone else.
		if !listening(logs.String(), addr) {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		resp, err := client.Get(url + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.kill()
	return nil, fmt.Errorf("sitesvc not ready after 90s\n%s", logs.String())
}

// AddToken runs `sitesvc tokens add` on dataDir (a running server's
// DataDir or a --data directory of its own) and returns the printed token,
// so tests make tokens the way an operator does.
func AddToken(t testing.TB, dataDir, role, name string) string {
	t.Helper()
	cmd := exec.Command(Binary(t), "tokens", "add", "--data", dataDir, "--role", role, "--name", name)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("testkit: tokens add --role %s --name %s: %v\n%s", role, name, err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// Logs returns what the process has written to stdout and stderr.
func (s *Server) Logs() string { return s.logs.String() }

// Stop sends SIGTERM and waits for the process to exit (at most 60 s). It
// returns the exit error: nil for exit status 0.
func (s *Server) Stop() error {
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-s.done:
		return s.exitErr()
	case <-time.After(60 * time.Second):
		s.kill()
		return errors.New("sitesvc did not exit within 60s of SIGTERM")
	}
}

// Signal sends sig to the process without waiting for it to exit.
func (s *Server) Signal(sig os.Signal) error { return s.cmd.Process.Signal(sig) }

// Wait waits for the process to exit (at most timeout) and returns its exit
// error: nil for exit status 0.
func (s *Server) Wait(timeout time.Duration) error {
	select {
	case <-s.done:
		return s.exitErr()
	case <-time.After(timeout):
		return fmt.Errorf("sitesvc still running after %s", timeout)
	}
}

// Done is closed when the process has exited.
func (s *Server) Done() <-chan struct{} { return s.done }

// Pid is the server process's id (for measuring its CPU time).
func (s *Server) Pid() int { return s.cmd.Process.Pid }

func (s *Server) exitErr() error {
	s.waitMu.Lock()
	defer s.waitMu.Unlock()
	return s.exit
}

func (s *Server) kill() {
	select {
	case <-s.done:
	default:
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// Get fetches path (relative to URL) and returns the response with its body read.
func (s *Server) Get(t testing.TB, path string) (*http.Response, []byte) {
	t.Helper()
	return Get(t, s.URL+path)
}

// EmbedIframe is the URL of the embed service's iframe document for the
// object druid of the server's PURL service: what the embed code of the
// object's page opens.
func (s *Server) EmbedIframe(druid string) string {
	return s.URL + "/embed/iframe?url=" + url.QueryEscape(s.URL+"/purl/"+druid)
}

// listening reports whether the server's log (text or JSON) says it
// listens on addr.
func listening(logs, addr string) bool {
	return strings.Contains(logs, "msg=listening addr="+addr+"\n") ||
		strings.Contains(logs, `"msg":"listening","addr":"`+addr+`"`)
}

// LogBuffer is a bytes.Buffer safe for concurrent writes (a process's
// output, a logger) and the test's reads.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
