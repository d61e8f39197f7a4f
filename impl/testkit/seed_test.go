package testkit

import (
	"strconv"
	"testing"
)

// A seed given in SITESVC_TEST_SEED is the one the test gets.
func TestSeedReplays(t *testing.T) {
	t.Setenv(SeedEnv, strconv.FormatUint(12345678901234, 10))
	if got := Seed(t); got != 12345678901234 {
		t.Fatalf("Seed = %d", got)
	}
}

// Without it, two tests get different seeds (from the clock).
func TestSeedFresh(t *testing.T) {
	t.Setenv(SeedEnv, "")
	if a, b := Seed(t), Seed(t); a == b {
		t.Fatalf("two fresh seeds are equal: %d", a)
	}
}
