package auth

import (
	"path/filepath"
	"sync"
	"testing"
)

// Two processes adding tokens at once (two handles here, each with its own
// in-process lock) must not lose either's token.
func TestConcurrentAddsFromTwoHandlesKeepEveryToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data", "tokens.json")
	var handles [2]*Tokens
	for i := range handles {
		h, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		handles[i] = h
	}
	const perHandle = 15
	tokens := make(chan string, 2*perHandle)
	var wg sync.WaitGroup
	for _, h := range handles {
		for range perHandle {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tok, err := h.Add("desk", []string{"publisher"})
				if err != nil {
					t.Error(err)
					return
				}
				tokens <- tok
			}()
		}
	}
	wg.Wait()
	close(tokens)
	fresh, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for tok := range tokens {
		n++
		if _, ok := fresh.Authenticate(tok); !ok {
			t.Errorf("token %d of %d lost", n, 2*perHandle)
		}
	}
	f, err := fresh.read()
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Tokens) != 2*perHandle {
		t.Errorf("token file holds %d tokens, want %d", len(f.Tokens), 2*perHandle)
	}
}
