package testkit

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// SeedEnv names the variable that replays a randomised test: its value is
// the seed a failed run logged.
const SeedEnv = "SITESVC_TEST_SEED"

// Seed is the seed of a randomised test: $SITESVC_TEST_SEED when set (to
// replay a run), else a new one from the clock. It is logged either way, so
// a failure can be replayed with the seed its log shows.
func Seed(t testing.TB) uint64 {
	t.Helper()
	if v := os.Getenv(SeedEnv); v != "" {
		seed, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("testkit: %s=%q is not a seed: %v", SeedEnv, v, err)
		}
		t.Logf("seed %d (from %s)", seed, SeedEnv)
		return seed
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d (replay: %s=%d go test -run '^%s$')", seed, SeedEnv, seed, t.Name())
	return seed
}
