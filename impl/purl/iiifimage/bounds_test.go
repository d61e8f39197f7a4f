package iiifimage

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// sources writes n copies of one PNG under distinct names (pyramids of
// equal size, distinct keys).
func (d vipsDir) sources(n int) []Source {
	d.t.Helper()
	first := d.quadrants("s0.png", 900, 600)
	data, err := os.ReadFile(first.Path)
	if err != nil {
		d.t.Fatal(err)
	}
	out := []Source{first}
	for i := 1; i < n; i++ {
		path := d.path("s" + itoa(i) + ".png")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			d.t.Fatal(err)
		}
		out = append(out, sourceOf(d.t, path))
	}
	return out
}

// TestBuildQueue (issue 23.4): with one build slot and a queue of one, a
// third distinct build is refused at once with ErrBusy (not remembered:
// it is made once there is room), and the counts say so.
func TestBuildQueue(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	src := dir.sources(2)
	tl := dir.tiler(Options{MaxBuilds: 1, MaxQueue: 1})
	// The one slot is taken (as by a long build).
	release, err := tl.queue.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	queued := make(chan error, 1)
	go func() {
		_, err := tl.Pyramid(context.Background(), src[0])
		queued <- err
	}()
	testkit.WaitUntil(t, "a build waiting", 30*time.Second, func() bool { return tl.Stats().Waiting == 1 })
	if _, err := tl.Pyramid(context.Background(), src[1]); !errors.Is(err, ErrBusy) {
		t.Fatalf("a build past the queue: %v, want ErrBusy", err)
	}
	st := tl.Stats()
	if st.Rejected != 1 || st.Running != 1 || st.Builds != 0 || st.MaxBuilds != 1 || st.MaxQueue != 1 {
		t.Errorf("stats %+v", st)
	}
	release()
	if err := <-queued; err != nil {
		t.Fatalf("the queued build: %v", err)
	}
	if _, err := tl.Pyramid(context.Background(), src[1]); err != nil {
		t.Fatalf("the refused build, with room again: %v", err)
	}
	if st := tl.Stats(); st.Builds != 2 || st.Running != 0 || st.Waiting != 0 {
		t.Errorf("stats after %+v", st)
	}
}

// TestCacheBound (issue 23.4): the pyramids on disk stay within
// MaxCacheBytes, least recently used out first (a tile served counts as
// a use), and a restart with a smaller bound trims at once.
func TestCacheBound(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	src := dir.sources(3)
	root := dir.path("cache")
	size := dir.pyramidBytes(src[0])
	limit := size*5/2 + 1 // room for two pyramids
	tl, err := New(root, Options{MaxCacheBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	a, err := tl.Pyramid(context.Background(), src[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := tl.Pyramid(context.Background(), src[1])
	if err != nil {
		t.Fatal(err)
	}
	tl.Touch(a) // a tile of a: b is now the least recently used
	c, err := tl.Pyramid(context.Background(), src[2])
	if err != nil {
		t.Fatal(err)
	}
	if !b.Evicted() || a.Evicted() || c.Evicted() {
		t.Fatalf("evicted: a %v b %v c %v, want b only", a.Evicted(), b.Evicted(), c.Evicted())
	}
	if _, err := os.Stat(b.dir); !os.IsNotExist(err) {
		t.Errorf("the evicted pyramid is still on disk: %v", err)
	}
	for _, p := range []*Pyramid{a, c} {
		if _, err := os.Stat(p.dir); err != nil {
			t.Errorf("a kept pyramid is gone: %v", err)
		}
	}
	st := tl.Stats()
	if st.CacheBytes > limit || st.CacheBytes != 2*size || st.Pyramids != 2 || st.Evictions != 1 || st.MaxCacheBytes != limit {
		t.Errorf("stats %+v (pyramid %d bytes, limit %d)", st, size, limit)
	}
	if got := treeBytes(root); got > limit {
		t.Errorf("%d bytes on disk, limit %d", got, limit)
	}
	// b is asked for again: made again, and a (least recently used) goes.
	if b2, err := tl.Pyramid(context.Background(), src[1]); err != nil || b2.Evicted() {
		t.Fatalf("b again: %v", err)
	}
	if !a.Evicted() || c.Evicted() {
		t.Errorf("after b again: a evicted %v, c evicted %v", a.Evicted(), c.Evicted())
	}
	// A restart counts what is on disk and trims to a smaller bound.
	tl2, err := New(root, Options{MaxCacheBytes: size + size/2})
	if err != nil {
		t.Fatal(err)
	}
	if st := tl2.Stats(); st.Pyramids != 1 || st.CacheBytes != size {
		t.Errorf("after a restart with room for one: %+v", st)
	}
	if got := treeBytes(root); got > size+size/2 {
		t.Errorf("%d bytes on disk after the restart", got)
	}
}

// TestLeftoversRemovedAtStart (issue 23.5): what a killed build leaves
// (".build-*", ".evict-*", a derived image half written) is removed when
// a Tiler opens the cache.
func TestLeftoversRemovedAtStart(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	parent := filepath.Join(root, "bb000kk0000", "0123456789abcdef")
	var left []string
	for _, name := range []string{".build-123", ".evict-abc-1"} {
		d := filepath.Join(parent, name, "0,0,512,512", "512,", "0")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "default.jpg"), []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
		left = append(left, filepath.Join(parent, name))
	}
	derived := filepath.Join(parent, "fedcba9876543210", derivedDir)
	if err := os.MkdirAll(derived, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "fedcba9876543210", metaName), []byte(`{"width":1,"height":1,"sizes":[{"width":1,"height":1}],"bytes":10}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(derived, ".derive-1.jpg"), []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	left = append(left, filepath.Join(derived, ".derive-1.jpg"))
	tl, err := New(root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range left {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s left: %v", p, err)
		}
	}
	if st := tl.Stats(); st.Pyramids != 1 || st.CacheBytes != 10 {
		t.Errorf("the finished pyramid is not counted: %+v", st)
	}
}
