package purl

import (
	"net/http"
	"testing"
)

// The prepared objects are bounded by Config.CacheSize; an object that
// fell out is read again from the store and served alike.
func TestObjectCacheBounded(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *Config) { c.CacheSize = 2 })
	ids := []string{"bb000kk0000", "bc000df0001", "bd111gh1111"}
	first := map[string]string{}
	for _, id := range ids {
		resp, body := f.get(t, "/"+id+".xml")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s", id, resp.StatusCode, body)
		}
		first[id] = resp.Header.Get("ETag")
		if n := f.svc.cache.Len(); n > 2 {
			t.Fatalf("after %s: %d objects cached, bound 2", id, n)
		}
	}
	if f.svc.cache.Contains("bb000kk0000") {
		t.Error("the least recently read object is still cached")
	}
	resp, _ := f.get(t, "/bb000kk0000.xml")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != first["bb000kk0000"] {
		t.Errorf("evicted object read again: %d, ETag %q (was %q)", resp.StatusCode, resp.Header.Get("ETag"), first["bb000kk0000"])
	}
}
