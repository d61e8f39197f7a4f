package testkit

import (
	"os"
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
	if os.Getenv("SITESVC_REQUIRE_TOOLS") != "" {
		t.Fatalf("%s is required (SITESVC_REQUIRE_TOOLS is set) but not installed: %v", name, err)
	}
	t.Skipf("%s not installed: %v", name, err)
	return ""
}
