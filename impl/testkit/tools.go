package testkit

import (
	"os/exec"
	"testing"
)

// RequireTool returns the path of an external program a test drives
// (chromium, xmllint, php, perl). When it is missing the test is skipped on a
// developer's machine, but fails when SITESVC_REQUIRE_TOOLS is set, as CI
// sets it, so a missing install step never passes unnoticed.
func RequireTool(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	Missing(t, "%s, which is not installed (%v)", name, err)
	return ""
}
