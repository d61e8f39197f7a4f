package purl

import (
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// children lists the processes whose parent is pid and whose command is
// comm, with their state (from /proc).
func children(pid int, comm string) map[int]string {
	out := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// "pid (comm) state ppid …"; comm may hold spaces, so split after ")".
		s := string(raw)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		fields := strings.Fields(s[close+1:])
		if len(fields) < 2 || s[open+1:close] != comm {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid == pid {
			out[n] = fields[0]
		}
	}
	return out
}

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	raw, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(raw)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(fields) > 0 && fields[0] != "Z" && fields[0] != "X"
}

// buildLeftovers lists the ".build-*" directories under the image cache.
func buildLeftovers(dataDir string) []string {
	var found []string
	_ = filepath.WalkDir(filepath.Join(dataDir, "iiif"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && strings.HasPrefix(d.Name(), ".build-") {
			found = append(found, p)
			return filepath.SkipDir
		}
		return nil
	})
	return found
}

// TestKilledServerLeavesNoBuilder (issue 23.5): kill -9 of the server
// during a pyramid build takes its vips process with it, and the next
// start removes the half-made pyramid. The build is seen in /metrics.
func TestKilledServerLeavesNoBuilder(t *testing.T) {
	t.Parallel()
	requireVips(t)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to see the server's child processes")
	}
	srv := testkit.StartServer(t)
	data := srv.DataDir
	objects := t.TempDir()
	imageObject(t, objects, blackPNG(t, 10000, 10000), 10000, 10000)
	if out, err := runPublish(t, data, objects); err != nil {
		t.Fatalf("publish: %v\n%s", err, out)
	}
	time.Sleep(1100 * time.Millisecond) // the server looks at the store again after 1 s
	client := &http.Client{Timeout: time.Minute}
	go func() {
		if resp, err := client.Get(srv.URL + "/purl/bb000kk0000/iiif/image/reading-room-north.png/info.json"); err == nil {
			resp.Body.Close()
		}
	}()
	var vips map[int]string
	testkit.WaitUntil(t, "a vips build in /metrics and in the process table", 60*time.Second, func() bool {
		resp, err := client.Get(srv.URL + "/metrics")
		if err != nil {
			return false
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		vips = children(srv.Pid(), "vips")
		return strings.Contains(string(body), "\nsitesvc_iiif_builds_running 1\n") && len(vips) > 0
	})
	if err := srv.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	<-srv.Done()
	testkit.WaitUntil(t, "the builder to die with the server", 60*time.Second, func() bool {
		for pid := range vips {
			if alive(pid) {
				return false
			}
		}
		return true
	})
	left := buildLeftovers(data)
	if len(left) == 0 {
		t.Fatal("the killed build left no .build-* directory: the test did not kill a build")
	}
	// A builder left running would finish its tiles and write dzsave's
	// info.json; one that died with the server never does.
	for _, dir := range left {
		if _, err := os.Stat(filepath.Join(dir, "t", "info.json")); err == nil {
			t.Errorf("the vips build went on after the server was killed (%s is complete)", dir)
		}
	}
	srv = testkit.StartServer(t, "--data", data, "--iiif-cache-max-bytes", "1000000", "--iiif-max-builds", "3", "--iiif-build-queue", "7")
	if left := buildLeftovers(data); len(left) != 0 {
		t.Errorf("left behind after a restart: %v", left)
	}
	// The bounds given on the command line are the ones in force.
	resp, body := srv.Get(t, "/metrics")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("/metrics: %d", resp.StatusCode)
	}
	for _, line := range []string{"sitesvc_iiif_cache_max_bytes 1e+06", "sitesvc_iiif_builds_max 3", "sitesvc_iiif_build_queue_max 7", "sitesvc_iiif_cache_bytes 0", "sitesvc_iiif_builds_running 0"} {
		if !strings.Contains(string(body), "\n"+line+"\n") {
			t.Errorf("/metrics lacks %q", line)
		}
	}
}
