// Package testkit holds what the project's tests share: finding the
// repository and the shared data, validating HTTP responses against an
// OpenAPI document, and running the real sitesvc binary.
package testkit

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot is the module root (the directory holding go.mod).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("testkit: no go.mod above the working directory")
		}
		dir = parent
	}
}

// SharedDir is the absolute path of ../shared beside the module root, where
// the HIV-1 data and the schemas live.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(RepoRoot(t)), "shared")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("testkit: shared data directory: %v", err)
	}
	return dir
}

// Do sends req with client (http.DefaultClient when nil) and returns the
// response with its body read and closed; any transport or read error ends
// the test.
func Do(t testing.TB, client *http.Client, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading body: %v", req.Method, req.URL, err)
	}
	return resp, body
}
