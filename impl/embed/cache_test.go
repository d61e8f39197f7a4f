package embed

import (
	"testing"
	"time"
)

// The object cache's byte count is the sum of its entries' sizes through
// stores, replacements, growth, removals and evictions.
func TestObjectCacheCountsBytes(t *testing.T) {
	t.Parallel()
	c := newObjectCache(3, 1000)
	check := func(when string) {
		t.Helper()
		var sum int64
		for _, e := range c.lru.Values() {
			sum += e.size
		}
		if c.bytes != sum || c.bytes > c.maxBytes && c.lru.Len() > 1 {
			t.Errorf("%s: %d bytes counted, entries sum to %d (%d entries)", when, c.bytes, sum, c.lru.Len())
		}
	}
	now := time.Now()
	c.put(&entry{druid: "a", expires: now.Add(time.Hour)}, 100)
	c.put(&entry{druid: "b"}, 200)
	check("two stored")
	c.put(&entry{druid: "a", expires: now.Add(time.Hour)}, 300) // replaced
	check("replaced")
	if e, fresh := c.get("a", now); e == nil || !fresh || e.size != 300 {
		t.Errorf("replaced entry: %+v fresh %v", e, fresh)
	}
	if _, fresh := c.get("b", now); fresh {
		t.Error("an entry without expiry is fresh")
	}
	c.put(&entry{druid: "c"}, 100)
	c.put(&entry{druid: "d"}, 100) // past 3 entries: the least recent goes
	check("past the entry bound")
	if e, _ := c.get("a", now); e != nil {
		t.Error("the least recently used entry (a) was kept")
	}
	d, _ := c.get("d", now)
	c.grew(d, 900) // past the byte bound: the others go, never d
	check("grown past the byte bound")
	if e, _ := c.get("d", now); e == nil || c.len() != 1 {
		t.Errorf("after growth past the bound: %d entries, d kept %v", c.len(), e != nil)
	}
	c.grew(&entry{druid: "d"}, 50) // a replaced or evicted entry counts nothing
	check("growth of an entry no longer cached")
	c.remove("d")
	check("removed")
	if c.bytes != 0 || c.len() != 0 {
		t.Errorf("empty cache counts %d bytes, %d entries", c.bytes, c.len())
	}
}
