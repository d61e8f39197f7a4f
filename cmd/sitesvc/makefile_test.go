package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestMakeRunAndInstall reads what `make run` and `make install` would do
// (make -n): run says what each step does (fetching Mirador, building,
// starting) and serves in development mode on the loopback interface only;
// install copies the binary into PREFIX/bin.
func TestMakeRunAndInstall(t *testing.T) {
	mk := testkit.RequireTool(t, "make")
	dryRun := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(mk, append([]string{"-n", "--no-print-directory"}, args...)...)
		cmd.Dir = testkit.RepoRoot(t)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("make -n %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run := dryRun("run")
	steps := []string{"make: fetching Mirador", "make: building bin/sitesvc", "make: starting bin/sitesvc serve --dev on http://127.0.0.1:8080", "./bin/sitesvc serve --dev --addr 127.0.0.1:8080"}
	at := 0
	for _, s := range steps {
		i := strings.Index(run[at:], s)
		if i < 0 {
			t.Fatalf("make run does not say %q (in this order):\n%s", s, run)
		}
		at += i
	}
	install := dryRun("install", "PREFIX=/opt/sitesvc-test")
	if !strings.Contains(install, "install -m 0755 bin/sitesvc /opt/sitesvc-test/bin/sitesvc") {
		t.Errorf("make install:\n%s", install)
	}
}
