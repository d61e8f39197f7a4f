package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestDockerfileRecipe checks the container recipe's logic without a
// Docker engine (none runs here): the build stage uses the Go release
// go.mod pins and builds with `make build`, whose static binary
// TestBinaryRunsAnywhere runs alone from an empty directory; the run stage
// copies that binary, runs it as an unprivileged user, has what the binary
// executes (xmllint for MODS checks, curl for the health check), and checks
// /readyz on the port it listens on.
func TestDockerfileRecipe(t *testing.T) {
	root := testkit.RepoRoot(t)
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// Continuation lines joined, comments dropped: one instruction a line.
	var instrs []string
	for _, line := range strings.Split(strings.ReplaceAll(read("Dockerfile"), "\\\n", " "), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			instrs = append(instrs, line)
		}
	}
	var stages [][]string
	for _, in := range instrs {
		if strings.HasPrefix(in, "FROM ") {
			stages = append(stages, nil)
		}
		if len(stages) == 0 {
			t.Fatalf("instruction before FROM: %s", in)
		}
		stages[len(stages)-1] = append(stages[len(stages)-1], in)
	}
	if len(stages) != 2 {
		t.Fatalf("want a build and a run stage, got %d stages", len(stages))
	}
	has := func(stage []string, re string) string {
		t.Helper()
		r := regexp.MustCompile(re)
		for _, in := range stage {
			if m := r.FindString(in); m != "" {
				return in
			}
		}
		t.Errorf("no instruction matching %q in\n%s", re, strings.Join(stage, "\n"))
		return ""
	}

	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindStringSubmatch(read("go.mod"))
	if goVersion == nil {
		t.Fatal("go.mod has no go line")
	}
	build, runStage := stages[0], stages[1]
	has(build, `^FROM golang:`+regexp.QuoteMeta(goVersion[1])+`-\S+ AS build$`)
	has(build, `^RUN make build\b`)
	if !regexp.MustCompile(`(?m)^export CGO_ENABLED := 0$`).MatchString(read("Makefile")) {
		t.Error("the Makefile no longer builds a static binary (export CGO_ENABLED := 0)")
	}

	has(runStage, `^COPY --from=build /src/bin/sitesvc /usr/local/bin/sitesvc$`)
	user := has(runStage, `^USER \S+`)
	if f := strings.Fields(user); len(f) < 2 || strings.HasPrefix(f[1], "0") || strings.HasPrefix(f[1], "root") {
		t.Errorf("the image runs as root: %q", user)
	}
	apt := has(runStage, `apt-get install`)
	for _, pkg := range []string{"libxml2-utils", "curl"} {
		if !strings.Contains(apt, " "+pkg) {
			t.Errorf("the run stage does not install %s", pkg)
		}
	}
	expose := has(runStage, `^EXPOSE \d+$`)
	port := strings.Fields(expose)[1]
	has(runStage, `SITESVC_ADDR=:`+port+`\b`)
	has(runStage, `^HEALTHCHECK .*CMD curl -fsS .*http://127\.0\.0\.1:`+port+`/readyz`)
	has(runStage, `^ENTRYPOINT \["/usr/local/bin/sitesvc"\]$`)
	has(runStage, `^CMD \["serve"\]$`)
	// --dev never appears in the image: production has no development key.
	if strings.Contains(strings.Join(instrs, "\n"), "--dev") || strings.Contains(strings.Join(instrs, "\n"), "SITESVC_DEV") {
		t.Error("the image turns on development mode")
	}

	ignore := read(".dockerignore")
	for _, p := range []string{"**/node_modules/", "data/", "bin/"} {
		if !strings.Contains(ignore, "\n"+p+"\n") {
			t.Errorf(".dockerignore lacks %s", p)
		}
	}
}
