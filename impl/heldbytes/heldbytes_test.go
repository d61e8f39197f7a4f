package heldbytes

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

func newStore[V any](t *testing.T, l Limits, stale func(V) bool) *Store[string, V] {
	t.Helper()
	s, err := New[string, V](l, stale)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func held[V any](s *Store[string, V], keys ...string) []string {
	var out []string
	for _, k := range keys {
		s.mu.Lock()
		ok := s.lru.Contains(k) // no use marked
		s.mu.Unlock()
		if ok {
			out = append(out, k)
		}
	}
	return out
}

// TestLimits: each limit must be positive.
func TestLimits(t *testing.T) {
	t.Parallel()
	for _, l := range []Limits{{}, {ItemBytes: 1, Bytes: 1}, {ItemBytes: 1, Items: 1}, {Bytes: 1, Items: 1}, {ItemBytes: -1, Bytes: 1, Items: 1}} {
		if _, err := New[string, int](l, nil); err == nil {
			t.Errorf("New(%+v) accepted", l)
		}
	}
}

// TestItemLimit: an item over ItemBytes, or over Bytes, is refused and
// changes nothing; one of exactly ItemBytes is held.
func TestItemLimit(t *testing.T) {
	t.Parallel()
	s := newStore[int](t, Limits{ItemBytes: 10, Bytes: 100, Items: 10}, nil)
	if v, err := s.Add("big", 1, 11); !errors.Is(err, ErrTooLarge) || v != 1 {
		t.Errorf("Add of 11 bytes over an item limit of 10: %v %v", v, err)
	}
	if s.Fits(11) || !s.Fits(10) || s.Fits(-1) {
		t.Error("Fits disagrees with the item limit")
	}
	if _, err := s.Add("ten", 2, 10); err != nil {
		t.Errorf("Add of exactly the item limit: %v", err)
	}
	if st := s.Stats(); st.Items != 1 || st.Bytes != 10 {
		t.Errorf("%+v after one refused and one held item", st)
	}
	small := newStore[int](t, Limits{ItemBytes: 10, Bytes: 5, Items: 10}, nil)
	if _, err := small.Add("six", 1, 6); !errors.Is(err, ErrTooLarge) || small.Fits(6) {
		t.Errorf("an item over the byte bound: %v", err)
	}
}

// TestEvictionLimits: adding past Bytes, or past Items, lets go of the
// least recently used items, as many as needed, and no more.
func TestEvictionLimits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name        string
		limits      Limits
		fill        []string // held in this order, each of fillBytes
		fillBytes   int64
		lastBytes   int64 // of "last", added after a Get of the first
		want        string
		wantBytes   int64
		wantEvicted int64
	}{
		// a is used again, so b and then c are the least recently used.
		{name: "bytes", limits: Limits{ItemBytes: 50, Bytes: 100, Items: 100}, fill: []string{"a", "b", "c", "d"}, fillBytes: 25,
			lastBytes: 40, want: "[a d last]", wantBytes: 90, wantEvicted: 2},
		{name: "items", limits: Limits{ItemBytes: 10, Bytes: 1000, Items: 3}, fill: []string{"a", "b", "c"}, fillBytes: 1,
			lastBytes: 1, want: "[a c last]", wantBytes: 3, wantEvicted: 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStore[string](t, tc.limits, nil)
			for _, k := range tc.fill {
				if _, err := s.Add(k, k, tc.fillBytes); err != nil {
					t.Fatal(err)
				}
			}
			s.Get(tc.fill[0])
			if _, err := s.Add("last", "last", tc.lastBytes); err != nil {
				t.Fatal(err)
			}
			if got := held(s, append(tc.fill, "last")...); fmt.Sprint(got) != tc.want {
				t.Errorf("held %v after adding %d bytes past %+v, want %s", got, tc.lastBytes, tc.limits, tc.want)
			}
			if st := s.Stats(); st.Bytes != tc.wantBytes || st.Items != 3 || st.Evictions != tc.wantEvicted {
				t.Errorf("%+v, want %d bytes in 3 items after %d evictions", st, tc.wantBytes, tc.wantEvicted)
			}
		})
	}
}

// TestAddKeepsTheFirst: a second Add of a key answers the value held
// first (concurrent readers of one file serve the same bytes) and counts
// its bytes once; Remove lets go of it.
func TestAddKeepsTheFirst(t *testing.T) {
	t.Parallel()
	s := newStore[string](t, Limits{ItemBytes: 10, Bytes: 100, Items: 10}, nil)
	s.Add("k", "first", 5)
	if v, err := s.Add("k", "second", 5); v != "first" || err != nil {
		t.Errorf("second Add: %q %v", v, err)
	}
	if st := s.Stats(); st.Bytes != 5 || st.Items != 1 {
		t.Errorf("%+v", st)
	}
	s.Remove("k")
	s.Remove("absent")
	if _, ok := s.Get("k"); ok {
		t.Error("held after Remove")
	}
	if st := s.Stats(); st.Bytes != 0 || st.Items != 0 || st.Evictions != 0 {
		t.Errorf("%+v after Remove", st)
	}
}

// TestStale: a value its stale function refuses is never answered: Get
// drops it and its bytes, and Add replaces it.
func TestStale(t *testing.T) {
	t.Parallel()
	type value struct {
		gone bool
		name string
	}
	s := newStore[*value](t, Limits{ItemBytes: 10, Bytes: 100, Items: 10}, func(v *value) bool { return v.gone })
	old := &value{name: "old"}
	s.Add("k", old, 7)
	old.gone = true
	if _, ok := s.Get("k"); ok {
		t.Error("a stale value answered")
	}
	if st := s.Stats(); st.Bytes != 0 || st.Items != 0 {
		t.Errorf("%+v after dropping a stale value", st)
	}
	s.Add("k", &value{name: "older", gone: true}, 3)
	if v, _ := s.Add("k", &value{name: "new"}, 4); v.name != "new" {
		t.Errorf("Add over a stale value answered %q", v.name)
	}
	if st := s.Stats(); st.Bytes != 4 || st.Items != 1 {
		t.Errorf("%+v after replacing a stale value", st)
	}
}

// TestConcurrentUse (run with -race): goroutines adding, reading and
// removing overlapping keys never take the store past its limits, its
// byte count is the sum of what it holds, and what Get finds without the
// lock is what it holds.
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	l := Limits{ItemBytes: 64, Bytes: 1000, Items: 40}
	s := newStore[[]byte](t, l, nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				k := fmt.Sprint((g*7 + i*13) % 97)
				size := int64(1 + (g+i)%64)
				switch i % 5 {
				case 0, 1:
					v, err := s.Add(k, make([]byte, size), size)
					if err != nil || v == nil {
						t.Errorf("Add: %v", err)
						return
					}
				case 2, 3:
					s.Get(k)
				case 4:
					s.Remove(k)
				}
				if st := s.Stats(); st.Bytes > l.Bytes || st.Items > l.Items || st.Bytes < 0 {
					t.Errorf("past the limits: %+v", st)
					return
				}
			}
		})
	}
	wg.Wait()
	s.mu.Lock()
	defer s.mu.Unlock()
	var sum int64
	for _, k := range s.lru.Keys() {
		it, _ := s.lru.Peek(k)
		sum += it.size
		if int64(len(it.value)) != it.size {
			t.Errorf("%s: %d bytes held as %d", k, len(it.value), it.size)
		}
	}
	if sum != s.bytes {
		t.Errorf("byte count %d, items hold %d", s.bytes, sum)
	}
	// The lock-free index holds exactly the listed items.
	found := 0
	s.items.Range(func(k, v any) bool {
		found++
		if it, ok := s.lru.Peek(k.(string)); !ok || it != v {
			t.Errorf("%s is found without being held", k)
		}
		return true
	})
	if found != s.lru.Len() {
		t.Errorf("%d items found, %d held", found, s.lru.Len())
	}
}
