package iiifimage

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sitelib/sitesvc/impl/heldbytes"
)

// pyramidFiles is the paths of the tiles and sizes of p, sorted.
func pyramidFiles(p *Pyramid) []string {
	var out []string
	for key := range p.files {
		out = append(out, filepath.Join(p.dir, filepath.FromSlash(key), "0", "default.jpg"))
	}
	slices.Sort(out)
	return out
}

// TestHeld: a pyramid file is read once and then served from memory with
// the bytes, ETag and Last-Modified of the file on disk; an evicted
// pyramid's files are not served from memory, and a pyramid made again in
// the same directory is read again; files over HeldLimits.ItemBytes are left to
// the disk; past the byte bound the least recently used file is let go,
// and the count of held bytes says so.
func TestHeld(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	src := dir.sources(2)
	tl := dir.tiler(Options{MaxCacheBytes: dir.pyramidBytes(src[0]) * 3 / 2}) // room for one
	a, err := tl.Pyramid(context.Background(), src[0])
	if err != nil {
		t.Fatal(err)
	}
	files := pyramidFiles(a)
	if len(files) < 3 {
		t.Fatalf("%d files in the pyramid", len(files))
	}
	file := files[0]
	disk, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(file)
	c, err := tl.Held(a, file)
	if err != nil || c == nil {
		t.Fatalf("Held: %v %v", c, err)
	}
	if !bytes.Equal(c.Body(), disk) || c.ETag() != a.FileETag(info.Size(), info.ModTime()) {
		t.Fatalf("held %d bytes, ETag %s; the file has %d bytes", len(c.Body()), c.ETag(), len(disk))
	}
	if again, _ := tl.Held(a, file); again != c {
		t.Error("the second request read the file again")
	}
	if got := tl.HeldBytes(); got != int64(len(disk)) {
		t.Errorf("HeldBytes %d, want %d", got, len(disk))
	}
	// Served as http.ServeContent would serve the file.
	rec := httptest.NewRecorder()
	c.Serve(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if rec.Code != 200 || !bytes.Equal(rec.Body.Bytes(), disk) || rec.Header().Get("Last-Modified") != info.ModTime().UTC().Format(http.TimeFormat) {
		t.Errorf("served %d, %d bytes, Last-Modified %q", rec.Code, rec.Body.Len(), rec.Header().Get("Last-Modified"))
	}
	rec = httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Header.Set("Range", "bytes=0-9")
	c.Serve(rec, r)
	if rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), disk[:10]) {
		t.Errorf("a range: %d %q", rec.Code, rec.Body.Bytes())
	}

	// Over HeldLimits.ItemBytes: left to the disk.
	big := dir.path("big.jpg")
	if err := os.WriteFile(big, make([]byte, HeldLimits.ItemBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := tl.Held(a, big); c != nil || err != nil {
		t.Errorf("a file over HeldLimits.ItemBytes: %v %v", c, err)
	}
	// Past the byte bound: the least recently used file is let go.
	disk1, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	full := tl.held
	if tl.held, err = newHeld(heldbytes.Limits{ItemBytes: HeldLimits.ItemBytes, Bytes: int64(len(disk) + len(disk1) - 1), Items: HeldLimits.Items}); err != nil {
		t.Fatal(err)
	}
	if c, err := tl.Held(a, file); c == nil || err != nil {
		t.Fatalf("Held in a new store: %v %v", c, err)
	}
	if c, err := tl.Held(a, files[1]); c == nil || err != nil || !bytes.Equal(c.Body(), disk1) {
		t.Fatalf("Held past the bound: %v %v", c, err)
	}
	if st := tl.HeldStats(); st.Bytes != int64(len(disk1)) || st.Items != 1 || st.Evictions != 1 {
		t.Errorf("past the bound: %+v, want the second file alone (%d bytes) after one eviction", st, len(disk1))
	}
	tl.held = full

	// b takes a's place in the cache: a's files are not served from memory.
	if _, err := tl.Pyramid(context.Background(), src[1]); err != nil {
		t.Fatal(err)
	}
	if !a.Evicted() {
		t.Fatal("a was not evicted")
	}
	if c, err := tl.Held(a, file); c != nil || err != nil {
		t.Errorf("a file of an evicted pyramid: %v %v", c, err)
	}
	if got := tl.HeldBytes(); got != 0 {
		t.Errorf("HeldBytes %d after the eviction, want 0", got)
	}
	// a is made again in the same directory: read again.
	a2, err := tl.Pyramid(context.Background(), src[0])
	if err != nil {
		t.Fatal(err)
	}
	c2, err := tl.Held(a2, file)
	if err != nil || c2 == nil || c2 == c {
		t.Fatalf("Held after a new build: %v %v (the old one: %v)", c2, err, c2 == c)
	}
	if info2, _ := os.Stat(file); c2.ETag() != a2.FileETag(info2.Size(), info2.ModTime()) {
		t.Errorf("ETag %s after a new build, the file's is %s", c2.ETag(), a2.FileETag(info2.Size(), info2.ModTime()))
	}
}

// TestTouchFront: touching the pyramid already in front changes nothing;
// touching another moves it in front, so the other is evicted first.
func TestTouchFront(t *testing.T) {
	t.Parallel()
	dir := newVipsDir(t)
	src := dir.sources(3)
	tl := dir.tiler(Options{MaxCacheBytes: dir.pyramidBytes(src[0])*5/2 + 1}) // room for two
	a, _ := tl.Pyramid(context.Background(), src[0])
	b, _ := tl.Pyramid(context.Background(), src[1])
	tl.Touch(b) // in front already
	tl.Touch(a)
	tl.Touch(a) // in front already
	if _, err := tl.Pyramid(context.Background(), src[2]); err != nil {
		t.Fatal(err)
	}
	if !b.Evicted() || a.Evicted() {
		t.Errorf("evicted: a %v b %v, want b", a.Evicted(), b.Evicted())
	}
}
