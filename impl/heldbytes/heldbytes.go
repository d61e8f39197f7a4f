// Package heldbytes holds small contents in memory, prepared for serving
// (a file, a tile), under explicit bounds: the size of one item, the
// bytes of all items and their count. Past a bound it lets go of the
// least recently used items first, so what is asked for again and again
// stays held, whatever else is read, and the memory used stays bounded
// (docs/security.md lists the bounds of each Store). It is the one
// mechanism of the PURL service's held files and the image service's held
// tiles; it knows nothing of HTTP.
//
// A hit takes no lock: items are found in a sync.Map and marked used; the
// recency list (hashicorp/golang-lru's simplelru, under the Store's mutex,
// with the byte count beside it) changes only when an item is added or let
// go. Letting go takes the least recently added or kept item, but gives
// one used since it was last looked at a second chance (moved to the
// front, its mark cleared): the least recently used first, as near as a
// lock-free hit allows.
package heldbytes

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// Limits bound a Store; each must be positive.
type Limits struct {
	// ItemBytes is the largest item held: a larger one is refused (Add,
	// Fits), and the caller serves it another way.
	ItemBytes int64
	// Bytes bounds the bytes of all items held.
	Bytes int64
	// Items bounds how many items are held (each costs some bookkeeping
	// beside its bytes).
	Items int
}

// FileLimits are the bounds of a store of small files prepared for
// serving (the PURL service's files anyone may read, the image service's
// tiles and listed sizes): files up to 512 KiB (a 512-pixel JPEG tile is
// about 10–100 KB; a larger file is served from disk), 64 MiB and 16,384
// files in all. Each store has its own bounds: two stores hold twice.
func FileLimits() Limits {
	return Limits{ItemBytes: 512 << 10, Bytes: 64 << 20, Items: 16384}
}

func (l Limits) check() error {
	if l.ItemBytes <= 0 || l.Bytes <= 0 || l.Items <= 0 {
		return fmt.Errorf("heldbytes: every limit must be positive: %+v", l)
	}
	return nil
}

// Store holds values (contents prepared from bytes) under keys of type K.
// Safe for concurrent use.
type Store[K comparable, V any] struct {
	limits Limits
	// stale, when set, tells a value that must no longer be served (its
	// source was removed): Get drops it instead of answering it.
	stale func(V) bool
	// items finds an item without the lock (a mirror of lru's).
	items sync.Map // K → *item[V]

	mu        sync.Mutex
	lru       *simplelru.LRU[K, *item[V]]
	bytes     int64
	evictions int64
}

type item[V any] struct {
	value V
	size  int64
	used  atomic.Bool // looked up since it was last moved in the list
}

// Stats is a Store's state, for /metrics.
type Stats struct {
	Items     int
	Bytes     int64
	Evictions int64 // items let go to stay within the limits
	Limits    Limits
}

// New returns an empty Store with limits. stale may be nil.
func New[K comparable, V any](limits Limits, stale func(V) bool) (*Store[K, V], error) {
	if err := limits.check(); err != nil {
		return nil, err
	}
	s := &Store[K, V]{limits: limits, stale: stale}
	// The LRU is one longer than the count bound: Add makes room itself
	// (counting evictions), so the LRU never evicts on its own.
	lru, err := simplelru.NewLRU[K, *item[V]](limits.Items+1, func(k K, it *item[V]) {
		s.bytes -= it.size
		s.items.CompareAndDelete(k, it)
	})
	if err != nil {
		return nil, fmt.Errorf("heldbytes: %w", err)
	}
	s.lru = lru
	return s, nil
}

// ErrTooLarge is Add's answer for an item over ItemBytes (or Bytes).
var ErrTooLarge = errors.New("heldbytes: item over the limit")

// Fits reports whether an item of size bytes may be held, so that a
// caller reads only what it can hold.
func (s *Store[K, V]) Fits(size int64) bool {
	return size >= 0 && size <= s.limits.ItemBytes && size <= s.limits.Bytes
}

// Get answers the value held under k and marks it used. It takes no lock
// (but to drop a stale value).
func (s *Store[K, V]) Get(k K) (V, bool) {
	v, ok := s.items.Load(k)
	if !ok {
		var zero V
		return zero, false
	}
	it := v.(*item[V])
	if s.stale != nil && s.stale(it.value) {
		s.mu.Lock()
		if cur, ok := s.lru.Peek(k); ok && cur == it {
			s.lru.Remove(k)
		}
		s.mu.Unlock()
		var zero V
		return zero, false
	}
	if !it.used.Load() {
		it.used.Store(true)
	}
	return it.value, true
}

// Add holds v, of size bytes, under k, letting go of the least recently
// used items until it fits, and returns the value now held under k: v,
// or the one another caller held first (which the caller then serves,
// so that all serve the same). An item that does not Fit is not held
// (ErrTooLarge, and v).
func (s *Store[K, V]) Add(k K, v V, size int64) (V, error) {
	if !s.Fits(size) {
		return v, ErrTooLarge
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if it, ok := s.lru.Peek(k); ok {
		if s.stale == nil || !s.stale(it.value) {
			it.used.Store(true)
			return it.value, nil
		}
		s.lru.Remove(k)
	}
	// Second chances are bounded: hits go on without the lock and could
	// otherwise mark every item again while this goes round.
	chances := s.lru.Len()
	for s.lru.Len() > 0 && (s.lru.Len() >= s.limits.Items || s.bytes+size > s.limits.Bytes) {
		oldK, oldest, _ := s.lru.GetOldest()
		if chances > 0 && oldest.used.Swap(false) {
			chances--
			s.lru.Get(oldK) // used since last looked at: a second chance, in front
			continue
		}
		s.lru.RemoveOldest()
		s.evictions++
	}
	it := &item[V]{value: v, size: size}
	s.lru.Add(k, it)
	s.items.Store(k, it)
	s.bytes += size
	return v, nil
}

// Remove lets go of the item under k, if any.
func (s *Store[K, V]) Remove(k K) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lru.Remove(k)
}

// Stats reports what s holds.
func (s *Store[K, V]) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Items: s.lru.Len(), Bytes: s.bytes, Evictions: s.evictions, Limits: s.limits}
}

// Limits reports s's limits.
func (s *Store[K, V]) Limits() Limits { return s.limits }
