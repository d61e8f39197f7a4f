package atomicfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

func TestWriteReplacesWholeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "state.txt")
	if err := Write(path, []byte("one\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, []byte("two\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "two\n" {
		t.Fatalf("read %q, %v", got, err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// TestLockSerialisesReadModifyWrite appends from many goroutines, each with
// its own lock file handle (as separate processes have): no line is lost.
func TestLockSerialisesReadModifyWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "list.txt")
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			unlock, err := Lock(path)
			if err != nil {
				t.Error(err)
				return
			}
			defer unlock()
			old, _ := os.ReadFile(path)
			if err := Write(path, append(old, fmt.Sprintf("line %d\n", i)...), 0o600); err != nil {
				t.Error(err)
			}
		}(i)
	}
	wg.Wait()
	got, _ := os.ReadFile(path)
	if n := strings.Count(string(got), "\n"); n != 20 {
		t.Errorf("%d lines after 20 locked appends, want 20:\n%s", n, got)
	}
}

// TestLockExcludesOtherProcesses holds the lock and checks that flock(1)
// from another process cannot take it.
func TestLockExcludesOtherProcesses(t *testing.T) {
	flock := testkit.RequireTool(t, "flock")
	path := filepath.Join(t.TempDir(), "state.txt")
	unlock, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := exec.Command(flock, "--nonblock", path+".lock", "true").Run(); err == nil {
		t.Error("another process took the lock while it was held")
	}
	unlock()
	if err := exec.Command(flock, "--nonblock", path+".lock", "true").Run(); err != nil {
		t.Errorf("lock not released: %v", err)
	}
}
