package algorithm

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limiters hands out one token bucket per name (an API key's hash, or a
// client address for invalid keys). The map is bounded: when it holds
// maxEntries buckets, buckets idle for a full refill are dropped (they are
// indistinguishable from new ones); if none is idle, the map is cleared,
// which at worst grants a burst early.
type limiters struct {
	limit      rate.Limit
	burst      int
	maxEntries int

	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	lim  *rate.Limiter
	used time.Time
}

func newLimiters(limit rate.Limit, burst, maxEntries int) *limiters {
	return &limiters{limit: limit, burst: burst, maxEntries: maxEntries, buckets: map[string]*bucket{}}
}

// allow takes one token from name's bucket; retryAfter is how long until
// one is available when it returns false.
func (l *limiters) allow(name string, now time.Time) (ok bool, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, found := l.buckets[name]
	if !found {
		if len(l.buckets) >= l.maxEntries {
			l.evict(now)
		}
		b = &bucket{lim: rate.NewLimiter(l.limit, l.burst)}
		l.buckets[name] = b
	}
	b.used = now
	r := b.lim.ReserveN(now, 1)
	if !r.OK() {
		return false, time.Minute
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

func (l *limiters) evict(now time.Time) {
	full := time.Duration(float64(l.burst) / float64(l.limit) * float64(time.Second))
	for name, b := range l.buckets {
		if now.Sub(b.used) > full {
			delete(l.buckets, name)
		}
	}
	if len(l.buckets) >= l.maxEntries {
		clear(l.buckets)
	}
}
