package testkit

import (
	"testing"
	"time"
)

// WaitUntil polls cond until it holds, ending the test when it has not after limit: for
// what another goroutine or process does in its own time, never as a measure of speed
// (limit is generous, for a loaded machine).
func WaitUntil(t testing.TB, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
