package purl

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/purl/store"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// versionObject writes object bb000kk0000 labelled "Version <letter>" whose two big files
// a.bin and b.bin hold only that letter, with sizes that differ between versions.
func versionObject(t *testing.T, dir string, letter byte, size int) string {
	t.Helper()
	obj := copySample(t, "bb000kk0000", dir)
	pub, err := os.ReadFile(filepath.Join(obj, "public.xml"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(pub), "Two views of the reading room", "Version "+string(letter))
	files := fmt.Sprintf(`<file id="a.bin" mimetype="application/octet-stream" size="%d"/></resource>`+
		`<resource id="bb000kk0000_3" sequence="3" type="file"><label>b</label><file id="b.bin" mimetype="application/octet-stream" size="%d"/>`, size, size+1)
	i := strings.Index(s, `<file id="reading-room-south.png"`)
	j := strings.Index(s[i:], "</file>") + i + len("</file>")
	s = s[:i] + files + s[j:]
	if err := os.WriteFile(filepath.Join(obj, "public.xml"), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(obj, "reading-room-south.png"))
	for name, n := range map[string]int{"a.bin": size, "b.bin": size + 1} {
		if err := os.WriteFile(filepath.Join(obj, name), bytes.Repeat([]byte{letter}, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkOneVersion reads the record and both files as a client would and fails unless all
// of them belong to one version.
func checkOneVersion(t *testing.T, srv *testkit.Server, when string) byte {
	t.Helper()
	resp, rec := srv.Get(t, "/purl/bb000kk0000.xml")
	if resp.StatusCode != 200 {
		t.Fatalf("%s: record %d", when, resp.StatusCode)
	}
	var letter byte
	switch {
	case bytes.Contains(rec, []byte("<objectLabel>Version A<")):
		letter = 'A'
	case bytes.Contains(rec, []byte("<objectLabel>Version B<")):
		letter = 'B'
	case bytes.Contains(rec, []byte("Two views of the reading room")):
		return 0 // the samples: never published over yet
	default:
		t.Fatalf("%s: a record of no version:\n%s", when, rec)
	}
	for _, name := range []string{"a.bin", "b.bin"} {
		resp, body := srv.Get(t, "/purl/bb000kk0000/file/"+name)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: record of version %c, %s: %d", when, letter, name, resp.StatusCode)
		}
		if bytes.Count(body, []byte{letter}) != len(body) || !bytes.Contains(rec, fmt.Appendf(nil, `id="%s" mimetype="application/octet-stream" size="%d"`, name, len(body))) {
			t.Fatalf("%s: record of version %c, but %s has %d bytes starting %q", when, letter, name, len(body), body[:min(8, len(body))])
		}
	}
	return letter
}

// Killing `sitesvc purl publish` (kill -9) at random points of a large publish, while the
// server serves the object, never leaves a mixture: after each kill the record and every
// byte of every file belong to one version, and the next start of the store removes what
// the killed publish left behind.
func TestPublishKilledLeavesOneVersion(t *testing.T) {
	t.Parallel()
	srv := testkit.StartServer(t)
	const size = 24 << 20
	a := versionObject(t, filepath.Join(t.TempDir(), "a"), 'A', size)
	b := versionObject(t, filepath.Join(t.TempDir(), "b"), 'B', size+7)
	// One whole publish to measure how long one takes.
	start := time.Now()
	if out, err := runPublish(t, srv.DataDir, a); err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	full := time.Since(start)
	time.Sleep(1100 * time.Millisecond) // the server looks at the store again after 1 s
	if got := checkOneVersion(t, srv, "after a whole publish"); got != 'A' {
		t.Fatalf("after publishing A: version %c", got)
	}
	bin := testkit.Binary(t)
	rng := rand.New(rand.NewPCG(testkit.Seed(t), 11))
	for i := range 8 {
		dir := []string{a, b}[i%2]
		cmd := publishCmd(bin, srv.DataDir, "--mods-schema", "", dir)
		cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		after := time.Duration(rng.Int64N(int64(full) + 1))
		time.Sleep(after)
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		time.Sleep(1100 * time.Millisecond)
		checkOneVersion(t, srv, fmt.Sprintf("kill %d at %v of %v", i+1, after, full))
	}
	// The next publish opens the store, which removes leftovers of the killed ones.
	if out, err := runPublish(t, srv.DataDir, b); err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	time.Sleep(1100 * time.Millisecond)
	if got := checkOneVersion(t, srv, "after the last publish"); got != 'B' {
		t.Fatalf("after publishing B: version %c", got)
	}
	entries, _ := os.ReadDir(filepath.Join(srv.DataDir, "purl", "bb", "000", "kk", "0000"))
	for _, e := range entries {
		if store.Leftover(e.Name()) {
			t.Errorf("left behind by a killed publish: %s", e.Name())
		}
	}
}

// Killing the server (kill -9) during PUTs leaves the record it had or the one PUT, whole,
// and a restarted server serves one version and removes the leftovers.
func TestPutKilledLeavesOneVersion(t *testing.T) {
	t.Parallel()
	srv := testkit.StartServer(t)
	data := srv.DataDir
	a := versionObject(t, filepath.Join(t.TempDir(), "a"), 'A', 4<<20)
	if out, err := runPublish(t, data, a); err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	token := testkit.AddToken(t, data, "publisher", "killer")
	pub, err := os.ReadFile(filepath.Join(a, "bb000kk0000", "public.xml"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(testkit.Seed(t), 12))
	for i := range 4 {
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			client := &http.Client{Timeout: 5 * time.Second}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				// the same version A with another published date: a whole new record
				body := strings.Replace(string(pub), `published="2026-01-15T10:00:00Z"`, fmt.Sprintf(`published="2026-02-%02dT10:00:00Z"`, n%28+1), 1)
				req, _ := http.NewRequest(http.MethodPut, srv.URL+"/purl/bb000kk0000.xml", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/xml")
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				resp.Body.Close()
			}
		}()
		time.Sleep(time.Duration(50+rng.IntN(400)) * time.Millisecond)
		_ = srv.Signal(os.Kill)
		<-srv.Done()
		close(stop)
		<-done
		srv = testkit.StartServer(t, "--data", data)
		if got := checkOneVersion(t, srv, fmt.Sprintf("restart %d", i+1)); got != 'A' {
			t.Fatalf("restart %d: version %c", i+1, got)
		}
		entries, _ := os.ReadDir(filepath.Join(data, "purl", "bb", "000", "kk", "0000"))
		for _, e := range entries {
			if store.Leftover(e.Name()) {
				t.Errorf("restart %d: left behind by the killed server: %s", i+1, e.Name())
			}
		}
	}
}
