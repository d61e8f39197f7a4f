package hours

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// The document cache keeps at most maxCachedDocs documents, least
// recently read first out, with its byte count the sum of what it holds;
// invalidate empties it.
func TestDocCacheBounded(t *testing.T) {
	t.Parallel()
	c := newDocCache(nil, time.Hour)
	c.view, c.loaded = &view{}, time.Now() // current without a database
	builds := 0
	get := func(key string) *rendered {
		t.Helper()
		r, err := c.get(context.Background(), key, func(*view) (*rendered, error) {
			builds++
			return newRendered(map[string]string{"key": key}, mediaJSON)
		})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	check := func(when string) {
		t.Helper()
		sum := 0
		for _, r := range c.docs.Values() {
			sum += len(r.body)
		}
		if c.bytes != sum || c.docs.Len() > maxCachedDocs {
			t.Errorf("%s: %d bytes counted, documents sum to %d, %d documents", when, c.bytes, sum, c.docs.Len())
		}
	}
	first := get("k0")
	if again := get("k0"); again != first || builds != 1 {
		t.Errorf("a cached document was built again (%d builds)", builds)
	}
	for i := 1; i <= maxCachedDocs+10; i++ {
		get("k" + strconv.Itoa(i))
		if i == 5 {
			get("k0") // read again: the most recent
		}
	}
	check("past the bound")
	if c.docs.Len() != maxCachedDocs {
		t.Errorf("%d documents kept, want %d", c.docs.Len(), maxCachedDocs)
	}
	if !c.docs.Contains("k"+strconv.Itoa(maxCachedDocs+10)) || c.docs.Contains("k1") {
		t.Error("not the least recently read documents went")
	}
	c.invalidate()
	check("invalidated")
	if c.docs.Len() != 0 || c.bytes != 0 {
		t.Errorf("after invalidate: %d documents, %d bytes", c.docs.Len(), c.bytes)
	}
}
