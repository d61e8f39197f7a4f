// Package testkit holds what the project's tests share: finding the
// repository and the shared data, validating HTTP responses against an
// OpenAPI document, and running the real sitesvc binary.
package testkit

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// RepoRoot is the module root (the directory holding go.mod).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testkit: no go.mod above the working directory")
		}
		dir = parent
	}
}

// SharedDir is the absolute path of ../shared beside the module root, where
// the test oracles live (HIV-1 sequences with expected results, real PURL
// records, schemas). A clone without it (a Go developer's `go test ./...`)
// skips the test with a one-line reason; with SITESVC_REQUIRE_TOOLS set, as
// CI sets it, a missing ../shared fails the test instead.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(RepoRoot(t)), "shared")
	if _, err := os.Stat(dir); err != nil {
		Missing(t, "the shared test data ../shared (%v)", err)
	}
	return dir
}

// Missing ends a test that needs something the checkout lacks (../shared,
// a built bundle, a system tool): skipped with the reason on a developer's
// machine, failed when SITESVC_REQUIRE_TOOLS is set (CI), so a missing
// install step never passes unnoticed.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	what := fmt.Sprintf(format, args...)
	if os.Getenv("SITESVC_REQUIRE_TOOLS") != "" {
		t.Fatalf("needs %s (SITESVC_REQUIRE_TOOLS is set)", what)
	}
	t.Skipf("needs %s", what)
}

// Installed returns the absolute path of rel (slash-separated, from the
// module root), a file a build step installs or builds (an npm package, a
// bundle). When it is missing the test ends through Missing, which names
// install, the step that makes it.
func Installed(t testing.TB, rel, install string) string {
	t.Helper()
	path := filepath.Join(RepoRoot(t), filepath.FromSlash(rel))
	if _, err := os.Stat(path); err != nil {
		Missing(t, "%s (from %s; make test runs it): %v", rel, install, err)
	}
	return path
}

// SameFiles fails the test unless fsys holds exactly the regular files of
// dir (below the given subdirectories and top-level names), byte for byte:
// the check that keeps built-in data from drifting from ../shared.
func SameFiles(t testing.TB, fsys fs.FS, dir string, names ...string) {
	t.Helper()
	collect := func(fsys fs.FS) map[string][]byte {
		t.Helper()
		files := map[string][]byte{}
		for _, name := range names {
			err := fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				b, err := fs.ReadFile(fsys, p)
				files[p] = b
				return err
			})
			if err != nil {
				t.Fatalf("reading %s: %v", name, err)
			}
		}
		return files
	}
	got, want := collect(fsys), collect(os.DirFS(dir))
	for name, w := range want {
		g, ok := got[name]
		switch {
		case !ok:
			t.Errorf("%s is in %s but not built in", name, dir)
		case !bytes.Equal(g, w):
			t.Errorf("%s differs from %s (built in %d bytes, there %d): copy it again", name, filepath.Join(dir, name), len(g), len(w))
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s is built in but not in %s", name, dir)
		}
	}
	if len(want) == 0 {
		t.Errorf("no files under %v in %s", names, dir)
	}
}

// Do sends req with client (http.DefaultClient when nil) and returns the
// response with its body read and closed; any transport or read error ends
// the test.
func Do(t testing.TB, client *http.Client, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", req.Method, req.URL, err)
	}
	return resp, body
}

// Get fetches url with a plain client (no validation) within 30 seconds
// and returns the response with its body read; a transport or read error
// ends the test.
func Get(t testing.TB, url string) (*http.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Do(t, nil, req)
}

// SendEndless sends method url with the given header and a body that never
// ends (spaces, 64 KiB at a time), and returns the answer and as much of its
// body as could be read. Only a server that answers without reading the
// whole body can answer at all: the check that authorisation and declared
// limits come before the body is read. The request gives up after 20 s; a
// transport error ends the test.
func SendEndless(t testing.TB, method, url string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	pr, pw := io.Pipe()
	go func() {
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		for {
			if _, err := pw.Write(chunk); err != nil {
				return
			}
		}
	}()
	// Closing the pipe stops the writer and the transport's upload.
	defer pw.CloseWithError(io.ErrClosedPipe)
	req, err := http.NewRequest(method, url, pr)
	if err != nil {
		t.Fatal(err)
	}
	for name, values := range header {
		req.Header[name] = values
	}
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	pw.CloseWithError(io.ErrClosedPipe)
	if err != nil {
		t.Fatalf("%s %s with an endless body: %v", method, url, err)
	}
	defer resp.Body.Close()
	// The server may close the connection right after its answer (it did
	// not read the body), so a read error here is not the server's fault.
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// ServeLoopback runs serve (an in-process server's Serve method) on a new
// loopback listener until the test ends, and returns the listener's
// address ("127.0.0.1:port"). At the end the context serve got is
// cancelled and its return awaited, so nothing of the server outlives the
// test.
func ServeLoopback(t testing.TB, serve func(ctx context.Context, ln net.Listener) error) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testkit: listening on a loopback port: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- serve(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ln.Addr().String()
}
