package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/druid"
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
