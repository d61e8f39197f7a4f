package main

import (
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
)

// The garbage collector's settings for serve. sitesvc keeps about 25 MB of
// data live (the HIV-1 tables and aligner, four contracts, templates,
// caches), so with Go's default (GOGC=100: collect whenever the heap has
// grown by as much as is live) each collection marks those 25 MB again
// after only 25 MB of requests' garbage: about 8 % of the CPU of a small
// GET (docs/edge-performance.md). A larger percent collects less often;
// the soft memory limit (GOMEMLIMIT's) bounds what that costs in memory:
// the heap's target is the smaller of the two, so a server whose live data
// grows (full caches) collects more often instead of growing past it.
const (
	defaultGCPercent   = 400
	defaultMemoryLimit = 512 << 20
	// The bounds check accepts: below 50 the collector runs almost
	// continuously; above 2000 the percent alone would let the heap grow to
	// more than twenty times what is live.
	minGCPercent, maxGCPercent = 50, 2000
	minMemoryLimit             = 64 << 20
)

// gcPolicy is what serve asks of the collector: Percent is GOGC's and
// MemoryLimit GOMEMLIMIT's (0: none). The environment's GOGC and
// GOMEMLIMIT, which the Go runtime itself reads, are the operator's own
// choice and win: the policy then leaves that setting as the runtime has it.
type gcPolicy struct {
	Percent     int64
	MemoryLimit int64
}

func (p gcPolicy) check() error {
	if p.Percent < minGCPercent || p.Percent > maxGCPercent {
		return fmt.Errorf("--gc-percent %d: want %d to %d", p.Percent, minGCPercent, maxGCPercent)
	}
	if p.MemoryLimit != 0 && p.MemoryLimit < minMemoryLimit {
		return fmt.Errorf("--memory-limit %d: want 0 (none) or at least %d bytes", p.MemoryLimit, minMemoryLimit)
	}
	return nil
}

// apply sets the collector unless env sets GOGC or GOMEMLIMIT, logs what
// the collector runs with, and returns the function that restores the
// previous settings (serve runs in tests' processes too).
func (p gcPolicy) apply(env func(string) string, logger *slog.Logger) (restore func()) {
	var undo []func()
	percent := fmt.Sprint(p.Percent)
	if v := env("GOGC"); v != "" {
		percent += " (GOGC=" + v + " wins)"
	} else {
		prev := debug.SetGCPercent(int(p.Percent))
		undo = append(undo, func() { debug.SetGCPercent(prev) })
	}
	if env("GOMEMLIMIT") == "" {
		limit := p.MemoryLimit
		if limit == 0 {
			limit = math.MaxInt64 // the runtime's "no limit"
		}
		prev := debug.SetMemoryLimit(limit)
		undo = append(undo, func() { debug.SetMemoryLimit(prev) })
	}
	// A negative limit reads the one in force without changing it.
	logger.Info("garbage collector", "gc_percent", percent, "memory_limit_bytes", debug.SetMemoryLimit(-1))
	return func() {
		for _, u := range undo {
			u()
		}
	}
}
