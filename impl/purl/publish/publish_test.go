package publish

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/store"
	"github.com/sitelib/sitesvc/impl/testkit"
)

const samples = "../../../samples/purl"

func TestTreeSamples(t *testing.T) {
	t.Parallel()
	s, err := store.OpenFS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Tree(context.Background(), s, samples)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := s.List(context.Background())
	if err != nil || len(ids) != len(objs) || len(objs) < 11 {
		t.Fatalf("published %d objects, store lists %d (%v)", len(objs), len(ids), err)
	}
}

// copyDir copies a sample object so a test can spoil it.
func copyDir(t *testing.T, id string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), id)
	testkit.CopyPURLSample(t, id, dir, id)
	return dir
}

func TestLoadRefuses(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		spoil func(dir string)
		says  string
	}{
		"missing file": {func(d string) { os.Remove(filepath.Join(d, "reading-room-south.png")) }, "reading-room-south.png"},
		// Not MODS: a Dublin Core record (a <mods/> in no namespace is
		// MODS written without its namespace, and is read as MODS).
		"bad mods": {func(d string) {
			os.WriteFile(filepath.Join(d, "mods.xml"), []byte(`<dc xmlns="http://purl.org/dc/elements/1.1/"/>`), 0o644)
		}, "mods.xml"},
		"mods in another namespace": {func(d string) {
			os.WriteFile(filepath.Join(d, "mods.xml"), []byte(`<mods xmlns="urn:not-mods"/>`), 0o644)
		}, "mods.xml"},
		"bad record": {func(d string) { os.WriteFile(filepath.Join(d, "public.xml"), []byte("<publicObject>"), 0o644) }, "public.xml"},
	}
	for name, c := range cases {
		dir := copyDir(t, "bb000kk0000")
		c.spoil(dir)
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: err = %v, want mention of %q", name, err, c.says)
		}
	}
}

// TestLoadWarns: what the record says of a file that differs from the
// file is reported; the file's own size is served.
func TestLoadWarns(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		spoil func(dir string)
		says  string
	}{
		"wrong size": {func(d string) { os.WriteFile(filepath.Join(d, "reading-room-south.png"), []byte("x"), 0o644) }, "not the file's size: 1 is served"},
		"wrong dimensions": {func(d string) {
			// Same byte count, other picture: swap the two images.
			a, _ := os.ReadFile(filepath.Join(d, "reading-room-north.png"))
			pub, _ := os.ReadFile(filepath.Join(d, "public.xml"))
			os.WriteFile(filepath.Join(d, "reading-room-south.png"), a, 0o644)
			fixed := strings.Replace(string(pub), `id="reading-room-south.png" mimetype="image/png" size="2284"`, `id="reading-room-south.png" mimetype="image/png" size="2076"`, 1)
			os.WriteFile(filepath.Join(d, "public.xml"), []byte(fixed), 0o644)
		}, "640x480"},
	}
	for name, c := range cases {
		dir := copyDir(t, "bb000kk0000")
		c.spoil(dir)
		obj, err := Load(dir)
		if err != nil {
			t.Errorf("%s: refused: %v", name, err)
		} else if !strings.Contains(strings.Join(obj.Warnings, "\n"), c.says) {
			t.Errorf("%s: warnings %q, want mention of %q", name, obj.Warnings, c.says)
		}
	}
}

// Tree writes nothing when one object of several is bad.
func TestTreeAllOrNothing(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	good := copyDir(t, "bd111gh1111")
	bad := copyDir(t, "bb000kk0000")
	os.Remove(filepath.Join(bad, "reading-room-north.png"))
	os.Rename(good, filepath.Join(root, "a"))
	os.Rename(bad, filepath.Join(root, "b"))
	s, _ := store.OpenFS(t.TempDir())
	if _, err := Tree(context.Background(), s, root); err == nil {
		t.Fatal("Tree published a tree with a bad object")
	}
	if empty, _ := s.Empty(context.Background()); !empty {
		t.Error("Tree wrote objects although one was bad")
	}
}
