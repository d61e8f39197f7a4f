package store

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/druid"
)

func TestFS(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	root := filepath.Join(t.TempDir(), "store")
	s := openFS(t, root)
	id, _ := druid.Parse("druid:bc123df4567")
	if empty, err := s.Empty(ctx); err != nil || !empty {
		t.Fatalf("new store: empty=%v %v", empty, err)
	}
	created, err := s.Write(ctx, id, PublicXML, strings.NewReader("<a/>"))
	if err != nil || !created {
		t.Fatalf("first write: created=%v %v", created, err)
	}
	created, err = s.Write(ctx, id, PublicXML, strings.NewReader("<b/>"))
	if err != nil || created {
		t.Fatalf("second write: created=%v %v", created, err)
	}
	if _, err := os.Stat(filepath.Join(root, "bc", "123", "df", "4567", "current", PublicXML)); err != nil {
		t.Fatalf("not in the druid tree: %v", err)
	}
	data, info, err := ReadAll(ctx, s, id, PublicXML)
	if err != nil || string(data) != "<b/>" || info.Size() != 4 {
		t.Fatalf("read back %q %v", data, err)
	}
	if _, err := s.Write(ctx, id, "image.png", bytes.NewReader([]byte{1, 2, 3})); err != nil {
		t.Fatal(err)
	}
	ids, err := s.List(ctx)
	if err != nil || len(ids) != 1 || ids[0] != id {
		t.Fatalf("List = %v, %v", ids, err)
	}
	for _, name := range []string{"../../../../x", "..", ".", "a/../../b", "/a", "a//b", "a/", "a/.b", "a/./b", `a\b`, "", ".hidden", "nul\x00", "x\n"} {
		if _, err := s.Write(ctx, id, name, strings.NewReader("x")); !errors.Is(err, ErrNotFound) {
			t.Errorf("Write(%q) = %v, want refusal", name, err)
		}
		if _, err := s.Open(ctx, id, name); !errors.Is(err, ErrNotFound) {
			t.Errorf("Open(%q) = %v, want ErrNotFound", name, err)
		}
	}
	if _, err := s.Open(ctx, "", PublicXML); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty druid: %v", err)
	}
	// Files in folders: written, read, and kept by a write of one document.
	if _, err := s.Write(ctx, id, "maps/sheets/1.txt", strings.NewReader("one")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, id, PublicXML, strings.NewReader("<x/>")); err != nil {
		t.Fatal(err)
	}
	if data, _, err := ReadAll(ctx, s, id, "maps/sheets/1.txt"); err != nil || string(data) != "one" {
		t.Errorf("a file in a folder after another write: %q %v", data, err)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "bc", "123", "df", "4567"))
	// current, the current version, the one it replaced and the object's
	// lock; no temporary files
	if len(entries) != 4 {
		t.Errorf("object directory holds %d entries, want 4 (current, two versions, .lock)", len(entries))
	}
	for _, e := range entries {
		if Leftover(e.Name()) {
			t.Errorf("left over: %s", e.Name())
		}
	}
	if err := s.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Open(ctx, id, PublicXML); !errors.Is(err, ErrNotFound) {
		t.Errorf("after Delete: %v", err)
	}
	if err := s.Delete(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete: %v", err)
	}
	top, _ := os.ReadDir(root)
	for _, e := range top {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left over: %s", e.Name())
		}
	}
}

// A failing reader leaves the previous version in place.
func TestWriteFailureKeepsPrevious(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := openFS(t, t.TempDir())
	id, _ := druid.Parse("bb000kk0000")
	if _, err := s.Write(ctx, id, PublicXML, strings.NewReader("old")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, id, PublicXML, io.MultiReader(strings.NewReader("new, partly"), failing{})); err == nil {
		t.Fatal("write from a failing reader succeeded")
	}
	data, _, err := ReadAll(ctx, s, id, PublicXML)
	if err != nil || string(data) != "old" {
		t.Fatalf("after a failed write: %q %v", data, err)
	}
}

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

// openFS opens the store at root; an error ends the test.
func openFS(t *testing.T, root string) *FS {
	t.Helper()
	s, err := OpenFS(root)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
