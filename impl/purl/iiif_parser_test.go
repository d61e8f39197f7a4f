package purl

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/druid"
	"github.com/sitelib/sitesvc/impl/purl/internal/variants"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// webcheckDir is where scripts/build-webcheck.sh installs the pinned npm
// packages the page and manifest checks use (@iiif/parser, axe-core).
func webcheckDir(t *testing.T, module string) string {
	t.Helper()
	dir := filepath.Join(testkit.RepoRoot(t), "impl", "purl", "webcheck")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", module, "package.json")); err != nil {
		testkit.Missing(t, "the npm package %s (scripts/build-webcheck.sh installs it; make test does)", module)
	}
	return dir
}

// parseWithIIIFParser runs impl/purl/webcheck/check-manifests.mjs
// (@iiif/parser) on the documents and fails the test for every problem.
func parseWithIIIFParser(t *testing.T, docs map[string][]byte) {
	t.Helper()
	node := testkit.RequireTool(t, "node")
	dir := webcheckDir(t, "@iiif/parser")
	tmp := t.TempDir()
	args := []string{filepath.Join(dir, "check-manifests.mjs")}
	for name, d := range docs {
		p := filepath.Join(tmp, name+".json")
		if err := os.WriteFile(p, d, 0o644); err != nil {
			t.Fatal(err)
		}
		args = append(args, p)
	}
	cmd := exec.Command(node, args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r struct {
			File     string   `json:"file"`
			Problems []string `json:"problems"`
		}
		if json.Unmarshal([]byte(line), &r) != nil {
			continue
		}
		checked++
		for _, p := range r.Problems {
			t.Errorf("%s: @iiif/parser: %s", filepath.Base(r.File), p)
		}
	}
	if checked != len(docs) {
		t.Fatalf("@iiif/parser checked %d of %d documents: %v\n%s%s", checked, len(docs), err, out, stderr.String())
	}
}

// TestManifestsWithIIIFParser reads every manifest the service serves —
// the samples', the collection's and those of every real-world record
// variant — with @iiif/parser, and checks the rule the JSON Schema cannot
// express: at least one item.
func TestManifestsWithIIIFParser(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	for _, v := range variants.All() {
		id, _ := druid.Parse(v.Druid)
		for name, data := range v.Files {
			if _, err := f.svc.store.Write(ctx, id, name, bytes.NewReader(data)); err != nil {
				t.Fatal(err)
			}
		}
		resp, body := f.do(t, http.MethodPut, "/"+v.Druid+".xml", []byte(v.Public), xmlType, bearer("pub"))
		expect(t, resp, body, http.StatusCreated, "application/json")
	}
	ids, err := f.svc.store.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{}
	for _, id := range ids {
		resp, body := f.get(t, "/"+string(id)+"/iiif/manifest")
		if resp.StatusCode == http.StatusNotFound {
			continue // dark, or nothing to paint on a canvas
		}
		expect(t, resp, body, http.StatusOK, typeManifest)
		var m struct {
			Type  string            `json:"type"`
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(body, &m); err != nil {
			t.Fatal(err)
		}
		if len(m.Items) == 0 {
			t.Errorf("%s: %s without items", id, m.Type)
		}
		if err := iiifPresentation(t).Validate(body); err != nil {
			t.Errorf("%s: IIIF JSON Schema: %v", id, err)
		}
		docs[string(id)] = body
	}
	if len(docs) < 15 {
		t.Fatalf("only %d manifests served", len(docs))
	}
	parseWithIIIFParser(t, docs)
}

// TestIIIFParserCheckFindsProblems: the @iiif/parser check reports an
// empty manifest and a canvas without size or annotation page.
func TestIIIFParserCheckFindsProblems(t *testing.T) {
	t.Parallel()
	node := testkit.RequireTool(t, "node")
	dir := webcheckDir(t, "@iiif/parser")
	p := filepath.Join(t.TempDir(), "bad.json")
	bad := `{"@context":"http://iiif.io/api/presentation/3/context.json","id":"http://x/m","type":"Manifest","label":"plain","items":[{"id":"http://x/c","type":"Canvas","items":[]}]}`
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(node, filepath.Join(dir, "check-manifests.mjs"), p).Output()
	for _, want := range []string{"language map", "neither a size nor a duration", "no annotation page"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("check output lacks %q: %s", want, out)
		}
	}
	if err == nil {
		t.Error("check exits 0 on a bad manifest")
	}
}
