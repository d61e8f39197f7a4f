package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/small.respond.gen.go.golden")

// The output for a small contract: what it is (a golden file), that it
// compiles beside oapi-codegen's output, and that it works (the generated
// package's own test, testdata/smallapi_test.go.txt: an alias answers as
// its canonical operation, with its parameters, and a Respond written
// without BindRequests fails).
func TestSmallContract(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		testkit.Missing(t, "the go command")
	}
	// Inside the module, so that the generated package builds with its
	// dependencies; removed afterwards.
	dir, err := os.MkdirTemp("testdata", "smallapi-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, f := range []string{"small.yaml", "small.cfg.yaml"} {
		copyFile(t, filepath.Join("testdata", f), filepath.Join(dir, f))
	}
	oapi := exec.Command("go", "tool", "oapi-codegen", "-config", "small.cfg.yaml", "small.yaml")
	oapi.Dir = dir
	if out, err := oapi.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "respond.gen.go")
	if err := run(filepath.Join(dir, "small.yaml"), filepath.Join(dir, "smallapi.gen.go"), out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "small.respond.gen.go.golden")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("respond.gen.go differs from %s (go test -run TestSmallContract -update after checking it):\n%s", golden, got)
	}
	copyFile(t, filepath.Join("testdata", "smallapi_test.go.txt"), filepath.Join(dir, "smallapi_test.go"))
	test := exec.Command("go", "test", "-count=1", ".")
	test.Dir = dir
	if out, err := test.CombinedOutput(); err != nil {
		t.Fatalf("the generated package's test: %v\n%s", err, out)
	}
}

// The committed gen/<svc>api/respond.gen.go are what respondgen makes of
// the committed contracts and oapi-codegen output (make test's check-gen
// says so too, by regenerating everything).
func TestCommittedOutputIsFresh(t *testing.T) {
	root := testkit.RepoRoot(t)
	for _, svc := range []string{"purl", "embed", "hours"} {
		pkg := filepath.Join(root, "gen", svc+"api")
		out := filepath.Join(t.TempDir(), "respond.gen.go")
		if err := run(filepath.Join(root, "api", svc+".yaml"), filepath.Join(pkg, svc+"api.gen.go"), out); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(out)
		want, err := os.ReadFile(filepath.Join(pkg, "respond.gen.go"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("gen/%sapi/respond.gen.go is stale: run make generate", svc)
		}
	}
}

func TestAnnotationErrors(t *testing.T) {
	spec := func(sameAs string) []byte {
		return []byte(`paths:
  /a:
    get:
      operationId: getA
  /b:
    get:
      operationId: getB
      x-sitesvc-same-as: ` + sameAs + `
  /c:
    get:
      operationId: getC
      x-sitesvc-same-as: getB
`)
	}
	if _, err := readAliases(spec("getZ")); err == nil || !strings.Contains(err.Error(), `"getZ", which is no operationId`) {
		t.Errorf("an unknown operation: %v", err)
	}
	if _, err := readAliases(spec("getA")); err == nil || !strings.Contains(err.Error(), "getC") || !strings.Contains(err.Error(), "itself the same as getA") {
		t.Errorf("an alias of an alias: %v", err)
	}
	pkg := &goPackage{
		name:       "p",
		operations: []string{"GetA", "GetB"},
		signatures: map[string]string{"GetA": "GetA()", "GetB": "GetB()"},
		visit:      map[string]string{"GetA": "VisitGetAResponse", "GetB": "VisitGetBResponse"},
		requests: map[string][]field{
			"GetA": {{"Id", "string"}},
			"GetB": {{"Id", "string"}, {"Params", "GetBParams"}},
		},
	}
	if _, err := generate(pkg, map[string]string{"getB": "getA"}, "test"); err == nil || !strings.Contains(err.Error(), "requests differ") {
		t.Errorf("operations with different requests: %v", err)
	}
	if _, err := generate(pkg, map[string]string{"getB": "getX"}, "test"); err == nil {
		t.Error("an operation the Go code lacks: no error")
	}
}

// scripts/check-gen.sh (make test's staleness check) fails, naming the
// file, when a respond.gen.go differs from what respondgen makes; it runs
// on a copy of the repository, since it regenerates in place.
func TestCheckGenFailsWhenStale(t *testing.T) {
	if testing.Short() {
		t.Skip("regenerates every gen/ package of a copy of the repository (-short)")
	}
	root := testkit.RepoRoot(t)
	modules := filepath.Join(root, "scripts", "tsclients", "node_modules")
	if _, err := os.Stat(modules); err != nil {
		testkit.Missing(t, "the TypeScript generator's npm packages (bash scripts/tsclients.sh generate installs them)")
	}
	copyDir := t.TempDir()
	files, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		testkit.Missing(t, "git and the repository's history (%v)", err)
	}
	for _, f := range strings.Split(strings.TrimRight(string(files), "\x00"), "\x00") {
		if _, err := os.Stat(filepath.Join(root, f)); err != nil {
			continue // deleted in the work tree
		}
		if err := os.MkdirAll(filepath.Join(copyDir, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		copyFile(t, filepath.Join(root, f), filepath.Join(copyDir, f))
	}
	if err := os.Symlink(modules, filepath.Join(copyDir, "scripts", "tsclients", "node_modules")); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(copyDir, "gen", "embedapi", "respond.gen.go")
	body, err := os.ReadFile(stale)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stale, bytes.Replace(body, []byte("func (r *Respond) VisitGetEmbedResponse"), []byte("func (r *Respond) VisitGetEmbedResponseX"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	check := exec.Command("bash", "scripts/check-gen.sh")
	check.Dir = copyDir
	out, err := check.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "gen/ is stale") || !strings.Contains(string(out), "respond.gen.go") {
		t.Fatalf("check-gen.sh with a stale respond.gen.go: %v\n%s", err, out)
	}
	if fresh, _ := os.ReadFile(stale); !bytes.Equal(fresh, body) {
		t.Error("check-gen.sh did not regenerate respond.gen.go")
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, info.Mode().Perm()); err != nil {
		t.Fatal(err)
	}
}
