package algorithm

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestAddKeyConcurrently adds keys from many goroutines at once (as several
// `sitesvc keys add` processes would): every key's hash ends up in the file.
func TestAddKeyConcurrently(t *testing.T) {
	t.Parallel()
	keysFile := filepath.Join(t.TempDir(), "keys.txt")
	const n = 16
	keys := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key, err := AddKey(keysFile, "lab")
			if err != nil {
				t.Error(err)
				return
			}
			keys[i] = key
		}()
	}
	wg.Wait()
	data, err := os.ReadFile(keysFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k == "" || !strings.Contains(string(data), HashKey(k)) {
			t.Errorf("key %q lost from the key file", k)
		}
	}
}
