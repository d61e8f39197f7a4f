package main

import (
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestReadyzReportsReadOnlyData runs the real binary and makes its data
// directory read-only while it runs: /readyz must answer 503 naming PURL's
// store and Hours' SQLite database as not ready for writes, and 200 again
// once the directory is writable (issue 11.11).
//
// Root writes into read-only directories, so under root the server runs
// as the unprivileged user nobody (65534), from a copy of the binary that
// user may execute, with a data directory it owns.
func TestReadyzReportsReadOnlyData(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the binary")
	}
	const nobody = 65534
	root := os.Getuid() == 0
	bin := testkit.Binary(t)
	work, err := os.MkdirTemp("", "sitesvc-readonly-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.WalkDir(work, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		os.RemoveAll(work)
	})
	if err := os.Chmod(work, 0o755); err != nil {
		t.Fatal(err)
	}
	ownBin := filepath.Join(work, "sitesvc")
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ownBin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	dataDir := filepath.Join(work, "data")
	if err := os.Mkdir(dataDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if root {
		if err := os.Chown(dataDir, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	addr, socket := testkit.Socket(t)
	url := "http://" + addr
	cmd := testkit.SocketActivated(ownBin, []string{"serve", "--addr", addr, "--public-url", url,
		"--data", dataDir, "--log-format", "text", "--dev"}, socket)
	// Its own directory, not the repository's: nobody may not enter the
	// directories above the clone (a private parent directory).
	cmd.Dir = work
	logs := &testkit.LogBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if root {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	})
	readyz := func() (int, string) {
		resp, err := (&http.Client{Timeout: 5 * time.Second}).Get(url + "/readyz")
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	waitFor := func(want int) string {
		deadline := time.Now().Add(90 * time.Second)
		for {
			status, body := readyz()
			if status == want {
				return body
			}
			if time.Now().After(deadline) {
				t.Fatalf("/readyz: %d %s, want %d\n%s", status, body, want, logs.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor(http.StatusOK)

	chmodDirs := func(mode os.FileMode) {
		err := filepath.WalkDir(dataDir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return os.Chmod(p, mode)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	chmodDirs(0o555)
	body := waitFor(http.StatusServiceUnavailable)
	for _, want := range []string{"purl: purl store: not ready for writes", "hours: hours database: not ready for writes"} {
		if !strings.Contains(body, want) {
			t.Errorf("/readyz with a read-only data directory does not say %q:\n%s", want, body)
		}
	}
	chmodDirs(0o755)
	if got := waitFor(http.StatusOK); strings.TrimSpace(got) != "ready" {
		t.Errorf("/readyz once writable again: %q", got)
	}
}
