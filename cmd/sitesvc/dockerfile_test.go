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
// copies that binary, runs it as an unprivileged user, installs every program
// the binary runs (runtimePackages: xmllint for MODS checks, vips for IIIF
// images; curl for the health check), and checks
// /readyz on the port it listens on.
// toolPackages are the Debian packages of the programs the server runs.
var toolPackages = map[string]string{
	"xmllint":    "libxml2-utils", // MODS schema checks (impl/purl/record)
	"vips":       "libvips-tools", // IIIF pyramids, thumbnails and derived images (impl/purl/iiifimage)
	"vipsheader": "libvips-tools", // image sizes read from the header before any decoding (impl/purl/iiifimage)
}

// runtimePackages finds the programs the server's code looks up on PATH
// (exec.LookPath("name") in impl/ and cmd/sitesvc, tests aside) and returns
// their Debian packages; a program without a package in toolPackages fails
// the test, so a new one cannot be forgotten in the image.
func runtimePackages(t *testing.T, root string) []string {
	t.Helper()
	lookPath := regexp.MustCompile(`exec\.LookPath\("([^"]+)"\)`)
	seen := map[string]bool{}
	var pkgs []string
	for _, dir := range []string{"impl", "cmd/sitesvc"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "testkit") {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, m := range lookPath.FindAllStringSubmatch(string(src), -1) {
				if seen[m[1]] {
					continue
				}
				seen[m[1]] = true
				pkg, ok := toolPackages[m[1]]
				if !ok {
					t.Errorf("%s runs %q, which no package of toolPackages provides: add it there and to the Dockerfile's run stage", path, m[1])
					continue
				}
				pkgs = append(pkgs, pkg)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range []string{"xmllint", "vips"} {
		if !seen[tool] {
			t.Errorf("no exec.LookPath(%q) found in the code: the scan is broken", tool)
		}
	}
	return pkgs
}

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
	for _, pkg := range append(runtimePackages(t, root), "curl") {
		if !strings.Contains(apt, " "+pkg+" ") {
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
