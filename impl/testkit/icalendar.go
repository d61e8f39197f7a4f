package testkit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// ICalendarReaders names the real iCalendar libraries the Hours feeds are
// read with: Debian's python3-icalendar and, from the pinned npm packages
// of scripts/hours-npm, ical.js and node-ical.
func ICalendarReaders() []string {
	return []string{"python3-icalendar", "ical.js", "node-ical"}
}

// ReadICalendar has the named reader (one of ICalendarReaders) read feed and
// returns what it printed: a "TZ" line naming the feed's VTIMEZONEs, then one
// tab-separated line per VEVENT (UID, start and end in UTC or as dates,
// summary, description; testdata/icalendar_parse.py). A reader that is not
// installed ends the test through Missing.
func ReadICalendar(t testing.TB, reader string, feed []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "feed.ics")
	if err := os.WriteFile(path, feed, 0o600); err != nil {
		t.Fatal(err)
	}
	var cmd *exec.Cmd
	switch reader {
	case "python3-icalendar":
		// Debian's python3 first: the module is its package, which a
		// python3 earlier on the PATH (a virtualenv) may not see.
		python := "/usr/bin/python3"
		if _, err := os.Stat(python); err != nil {
			python = RequireTool(t, "python3")
		}
		if err := exec.Command(python, "-c", "import icalendar").Run(); err != nil {
			Missing(t, "python3-icalendar (%v)", err)
		}
		cmd = exec.Command(python, filepath.Join(RepoRoot(t), "impl", "testkit", "testdata", "icalendar_parse.py"), path)
	case "ical.js", "node-ical":
		node := RequireTool(t, "node")
		dir := filepath.Join(RepoRoot(t), "scripts", "hours-npm")
		Installed(t, "scripts/hours-npm/node_modules/"+reader, "scripts/hours-npm.sh install")
		mode := map[string]string{"ical.js": "icaljs", "node-ical": "nodeical"}[reader]
		cmd = exec.Command(node, filepath.Join(dir, "icalread.cjs"), mode, path)
		// node-ical gives all-day events local midnight; any zone reads
		// them as the same date, UTC is the plain one.
		cmd.Env = append(os.Environ(), "TZ=UTC")
	default:
		t.Fatalf("testkit: no iCalendar reader %q", reader)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s could not read the feed: %v\n%s", reader, err, out)
	}
	return string(out)
}
