package embed

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestBuiltInMiradorBundle: a bundle passed in (built into the binary) is
// served when no viewer directory is given, compressed once; a viewer
// directory overrides it, even one without the bundle.
func TestBuiltInMiradorBundle(t *testing.T) {
	t.Parallel()
	body := bytes.Repeat([]byte("window.Mirador={};"), 1000)
	a, err := newAssets("", body)
	if err != nil {
		t.Fatal(err)
	}
	if a.miradorMissing() {
		t.Error("built-in bundle reported missing")
	}
	got, err := a.miradorBundle()
	if err != nil || !bytes.Equal(got.body, body) || len(got.gzipped) == 0 || len(got.gzipped) >= len(body) {
		t.Fatalf("built-in bundle: %v", err)
	}

	dir := t.TempDir()
	over, err := newAssets(dir, body)
	if err != nil {
		t.Fatal(err)
	}
	if !over.miradorMissing() {
		t.Error("an empty --viewer-dir did not override the built-in bundle")
	}
	if _, err := over.miradorBundle(); !errors.Is(err, errMiradorMissing) {
		t.Errorf("empty viewer dir: %v", err)
	}
	other := []byte("window.Mirador={other:1};")
	if err := os.WriteFile(filepath.Join(dir, miradorFile), other, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := over.miradorBundle(); err != nil || !bytes.Equal(got.body, other) {
		t.Errorf("viewer dir bundle: %v", err)
	}

	none, err := newAssets("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !none.miradorMissing() {
		t.Error("no bundle and no directory is not missing")
	}
}
