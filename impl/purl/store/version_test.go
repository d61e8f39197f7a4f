package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/testkit"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// storeWithV1 opens a store in a fresh directory holding one object,
// bb000kk0000, whose public.xml is "v1".
func storeWithV1(t *testing.T) (*FS, string, druid.Druid) {
	t.Helper()
	root := t.TempDir()
	s := openFS(t, root)
	id, _ := druid.Parse("bb000kk0000")
	if _, err := s.Write(context.Background(), id, PublicXML, strings.NewReader("v1")); err != nil {
		t.Fatal(err)
	}
	return s, root, id
}

// Opening the store (another process starting, or `purl publish`) while a version is
// being written leaves that version alone; a version whose writer died is removed.
func TestOpenLeavesLiveWritersAndRemovesDeadOnes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, root, id := storeWithV1(t)
	live, err := s.Begin(ctx, id, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := live.Write(PublicXML, strings.NewReader("v2")); err != nil {
		t.Fatal(err)
	}
	dead, err := s.Begin(ctx, id, true)
	if err != nil {
		t.Fatal(err)
	}
	dead.(*fsVersion).lock.Close() // its process died: the lock is released, nothing cleaned up
	openFS(t, root)                // opening recovers what a dead process left
	obj := s.objectDir(id)
	if _, err := os.Stat(dead.(*fsVersion).dir); !os.IsNotExist(err) {
		t.Errorf("the dead writer's version is still there: %v (%v)", err, entries(t, obj))
	}
	if _, err := live.Commit(); err != nil {
		t.Fatalf("the live writer's commit after another open: %v", err)
	}
	data, _, err := ReadAll(ctx, s, id, PublicXML)
	if err != nil || string(data) != "v2" {
		t.Fatalf("after the commit: %q %v", data, err)
	}
	for _, name := range entries(t, obj) {
		if Leftover(name) {
			t.Errorf("left over: %s", name)
		}
	}
	if _, err := os.Stat(filepath.Join(obj, "current", lockName)); !os.IsNotExist(err) {
		t.Errorf("the lock file stayed in the current version: %v", err)
	}
}

// A store in the layout before versions (documents directly in the object directory) is
// moved into a first version at open, and served as before.
func TestOpenMigratesTheOldLayout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	obj := filepath.Join(root, "bb", "000", "kk", "0000")
	if err := os.MkdirAll(obj, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{PublicXML: "<old/>", "a.png": "png", ".tmp-a.png-123": "partial"} {
		if err := os.WriteFile(filepath.Join(obj, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := openFS(t, root)
	id, _ := druid.Parse("bb000kk0000")
	for name, want := range map[string]string{PublicXML: "<old/>", "a.png": "png"} {
		data, _, err := ReadAll(ctx, s, id, name)
		if err != nil || string(data) != want {
			t.Errorf("%s after migration: %q %v", name, data, err)
		}
	}
	if got := strings.Join(entries(t, obj), " "); got != ".lock current v1" {
		t.Errorf("object directory after migration: %s", got)
	}
	ids, err := s.List(ctx)
	if err != nil || len(ids) != 1 {
		t.Errorf("List = %v %v", ids, err)
	}
}

// A temporary link of a switch that never happened is removed at the next open when the
// process that made it is gone (the version it points at is not locked), at once rather than
// after the grace period; one whose committer is still alive is left alone.
func TestOpenRemovesStaleSwitchLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, root, id := storeWithV1(t)
	obj := s.objectDir(id)
	live, err := s.Begin(ctx, id, false)
	if err != nil {
		t.Fatal(err)
	}
	liveLink := filepath.Join(obj, tmpPrefix+currentLink+"-live")
	deadLink := filepath.Join(obj, tmpPrefix+currentLink+"-dead")
	if err := os.Symlink(filepath.Base(live.(*fsVersion).dir), liveLink); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(versionPrefix+"9", deadLink); err != nil { // its committer was killed
		t.Fatal(err)
	}
	openFS(t, root)
	if _, err := os.Lstat(deadLink); !os.IsNotExist(err) {
		t.Errorf("a dead committer's switch link is still there: %v (%v)", err, entries(t, obj))
	}
	if _, err := os.Lstat(liveLink); err != nil {
		t.Errorf("a live committer's switch link was removed: %v", err)
	}
	live.(*fsVersion).lock.Close() // now its process dies too
	openFS(t, root)
	if _, err := os.Lstat(liveLink); !os.IsNotExist(err) {
		t.Errorf("the switch link of a committer that died is still there: %v", err)
	}
}

// A writer killed between making its version directory and locking it leaves a directory
// without a lock file: the next open removes it at once when the process its name carries is
// gone, and leaves it (for the grace period) while that process lives.
func TestOpenRemovesUnlockedVersionOfDeadWriter(t *testing.T) {
	t.Parallel()
	s, root, id := storeWithV1(t)
	obj := s.objectDir(id)
	// A process id no process has: beyond the kernel's pid_max.
	dead := filepath.Join(obj, newPrefix+"2147483646-123")
	alive := filepath.Join(obj, newPrefix+strconv.Itoa(os.Getpid())+"-456")
	for _, dir := range []string{dead, alive} {
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	openFS(t, root)
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead writer's unlocked version is still there: %v", err)
	}
	if _, err := os.Stat(alive); err != nil {
		t.Errorf("a live writer's version not yet locked was removed: %v", err)
	}
}

// A serving process and `sitesvc purl publish` share one store, and every
// process that opens the store tidies it (recover). Writers, readers and
// openers running at once, as in a busy deployment: no write fails, no read
// of a published object fails, and each object ends at its last write.
func TestWritersReadersAndOpenersAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := t.TempDir()
	s := openFS(t, root)
	const objects, writes = 6, 40
	ids := make([]druid.Druid, objects)
	for i := range ids {
		ids[i], _ = druid.Parse(fmt.Sprintf("bb%03dkk%04d", i, i))
		if _, err := s.Write(ctx, ids[i], PublicXML, strings.NewReader("0")); err != nil {
			t.Fatal(err)
		}
	}
	others := testkit.NewRepeaters()
	// Other processes starting: each opens the store, which tidies it.
	for range 3 {
		others.Go(func() bool {
			_, err := OpenFS(root)
			if err != nil {
				t.Errorf("opening the store while it is written: %v", err)
			}
			return err != nil
		})
	}
	// Readers of every object; failures are counted, and the first told.
	var readFailures atomic.Int64
	var firstReadFailure atomic.Value
	others.Go(func() bool {
		for _, id := range ids {
			if _, _, err := ReadAll(ctx, s, id, PublicXML); err != nil {
				readFailures.Add(1)
				firstReadFailure.CompareAndSwap(nil, err.Error())
			}
		}
		return false
	})
	// Two writers per object (the server and a publisher), each its own handle.
	var writers sync.WaitGroup
	deadline := time.Now().Add(20 * time.Second)
	for _, id := range ids {
		for w := range 2 {
			writers.Add(1)
			go func() {
				defer writers.Done()
				ws := s
				if w == 1 {
					ws = openFS(t, root)
				}
				for n := 1; n <= writes && time.Now().Before(deadline); n++ {
					if _, err := ws.Write(ctx, id, PublicXML, strings.NewReader(fmt.Sprint(n))); err != nil {
						t.Errorf("write %d of %s: %v", n, id, err)
						return
					}
				}
			}()
		}
	}
	writers.Wait()
	others.Stop()
	if n := readFailures.Load(); n > 0 {
		t.Errorf("%d reads of a published object failed while it was written; the first: %v", n, firstReadFailure.Load())
	}
	for _, id := range ids {
		data, _, err := ReadAll(ctx, s, id, PublicXML)
		if err != nil {
			t.Errorf("%s at the end: %v", id, err)
			continue
		}
		if string(data) != fmt.Sprint(writes) {
			t.Logf("%s ends at %q (two writers; the last to switch wins)", id, data)
		}
	}
}
