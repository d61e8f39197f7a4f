package hours_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/sitelib/sitesvc/impl/hours/store/storetest"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestRealJSONAPIClients drives reads and writes through three JSON:API
// client libraries from npm (jsona, devour-client, kitsu; pinned in
// scripts/hours-npm) against the real binary, on SQLite and, when
// configured, PostgreSQL. The script is scripts/hours-npm/clients.cjs.
func TestRealJSONAPIClients(t *testing.T) {
	t.Parallel()
	node := testkit.RequireTool(t, "node")
	root := testkit.RepoRoot(t)
	testkit.Installed(t, "scripts/hours-npm/node_modules/kitsu", "scripts/hours-npm.sh install")
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			args := []string{"--services", "hours"}
			if b.Name != "sqlite" {
				args = append(args, "--hours-db", b.DSN(t))
			}
			srv := testkit.StartServer(t, args...)
			token := testkit.AddToken(t, srv.DataDir, "admin", "clients")
			for _, client := range []string{"jsona", "devour", "kitsu"} {
				t.Run(client, func(t *testing.T) {
					cmd := exec.Command(node, filepath.Join(root, "scripts", "hours-npm", "clients.cjs"), client)
					cmd.Env = append(os.Environ(), "HOURS_URL="+srv.URL+"/hours", "TOKEN="+token)
					res, err := cmd.CombinedOutput()
					t.Logf("%s", res)
					if err != nil {
						t.Errorf("%s against the binary: %v\n%s\nserver log:\n%s", client, err, res, tail(srv.Logs(), 3000))
					}
				})
			}
		})
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
