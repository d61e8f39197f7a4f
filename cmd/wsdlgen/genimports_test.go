package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestGenImportsOnlyLibraries checks that no generated package imports
// hand-written code of this module (impl/, cmd/): generated code runs on
// libraries and on other generated packages only (gen/soapapi on the
// runtime wsdlgen emits into gen/soap).
func TestGenImportsOnlyLibraries(t *testing.T) {
	const module = "github.com/sitelib/sitesvc/"
	root := "../../gen"
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return err
			}
			if rest, ok := strings.CutPrefix(p, module); ok && !strings.HasPrefix(rest, "gen/") {
				t.Errorf("%s imports %s: generated code may import only libraries and gen/ packages", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 5 {
		t.Fatalf("checked only %d files under gen/", checked)
	}
}

// TestRuntimeCopyIsFresh checks that gen/soap is what -emit-runtime makes
// of cmd/wsdlgen/runtime (the copy the generated code runs on is the code
// tested here).
func TestRuntimeCopyIsFresh(t *testing.T) {
	files, err := runtimeFiles("soap")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("../../gen/soap", name))
		if err != nil {
			t.Errorf("gen/soap/%s: %v (run go generate ./gen/soap/)", name, err)
			continue
		}
		if string(got) != string(want) {
			t.Errorf("gen/soap/%s is stale: run go generate ./gen/soap/", name)
		}
	}
	onDisk, err := filepath.Glob("../../gen/soap/*.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if len(onDisk) != len(files) {
		t.Errorf("gen/soap has %d generated files, the runtime %d", len(onDisk), len(files))
	}
}
