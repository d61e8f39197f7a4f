package purl

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// copySample copies sample object id into dir/id.
func copySample(t *testing.T, id, dir string) string {
	t.Helper()
	dst := filepath.Join(dir, id)
	testkit.CopyPURLSample(t, id, dst, id)
	return dst
}

// runPublish runs the real `sitesvc purl publish --data data dir` and returns its output
// and exit error.
func runPublish(t *testing.T, data, dir string) (string, error) {
	t.Helper()
	cmd := publishCmd(testkit.Binary(t), data, "--mods-schema", "", dir)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("purl publish hung (a FIFO read?)\n%s", out.String())
	}
	return "", nil
}

// published lists the objects a store directory serves: object directories with a current
// version holding public.xml, and, in the layout before versions, a public.xml anywhere.
func published(t *testing.T, storeDir string) []string {
	t.Helper()
	var found []string
	_ = filepath.WalkDir(storeDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "current" {
			rel, _ := filepath.Rel(storeDir, p)
			found = append(found, rel)
		}
		return nil
	})
	return found
}

// `sitesvc purl publish` never follows a link or reads a special file: a file listed in
// contentMetadata, public.xml or mods.xml that is a symbolic link (to a file of the right
// size outside the object, or to one inside it), a FIFO or a device stops the publish with
// an error naming the file, and nothing of any object in the tree is published.
func TestPublishRefusesLinksAndSpecialFiles(t *testing.T) {
	t.Parallel()
	secret := filepath.Join(t.TempDir(), "secret")
	// the size contentMetadata lists for reading-room-south.png
	if err := os.WriteFile(secret, bytes.Repeat([]byte("S"), 2284), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, file, says string
		make             func(t *testing.T, path string)
	}{
		{"file links outside", "reading-room-south.png", "symbolic link", func(t *testing.T, p string) { mustSymlink(t, secret, p) }},
		{"file links inside", "reading-room-south.png", "symbolic link", func(t *testing.T, p string) {
			data, _ := os.ReadFile(p)
			other := filepath.Join(filepath.Dir(p), "copy.bin")
			_ = os.WriteFile(other, data, 0o644)
			mustSymlink(t, "copy.bin", p)
		}},
		{"public.xml links", "public.xml", "symbolic link", func(t *testing.T, p string) {
			data, _ := os.ReadFile(p)
			outside := filepath.Join(t.TempDir(), "public.xml")
			_ = os.WriteFile(outside, data, 0o644)
			mustSymlink(t, outside, p)
		}},
		{"mods.xml links to /proc", "mods.xml", "symbolic link", func(t *testing.T, p string) { mustSymlink(t, "/proc/self/environ", p) }},
		{"file is a FIFO", "reading-room-south.png", "FIFO", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}},
		{"file links to a device", "reading-room-north.png", "symbolic link", func(t *testing.T, p string) { mustSymlink(t, "/dev/zero", p) }},
		{"file is a device", "reading-room-north.png", "device", func(t *testing.T, p string) {
			if err := syscall.Mknod(p, syscall.S_IFCHR|0o644, 1<<8|5); err != nil { // /dev/zero's numbers
				t.Skipf("mknod: %v", err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tree := t.TempDir()
			copySample(t, "bc000df0001", tree) // a valid object beside it
			obj := copySample(t, "bb000kk0000", tree)
			p := filepath.Join(obj, c.file)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			c.make(t, p)
			data := t.TempDir()
			out, err := runPublish(t, data, tree)
			if err == nil {
				t.Fatalf("publish succeeded:\n%s", out)
			}
			if !strings.Contains(out, `"`+c.file+`"`) || !strings.Contains(out, c.says) || !strings.Contains(out, "nothing published") {
				t.Errorf("error does not name %q as a %s:\n%s", c.file, c.says, out)
			}
			if got := published(t, filepath.Join(data, "purl")); len(got) != 0 {
				t.Errorf("published despite the refusal: %v", got)
			}
		})
	}
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
