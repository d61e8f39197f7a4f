package embed

import (
	"net/http"
	"testing"
	"time"
)

// Withdrawn means withdrawn (issue 11.10). Across processes: with the
// default TTL, a withdrawal upstream shows within DefaultCacheTTL (30 s).
// In one process: ObjectChanged shows it at once.
func TestWithdrawalShowsWithinBound(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *Config) { c.CacheTTL = 0 }) // the default
	embedURL := "/embed?" + q("url", e.purl(imageDruid))
	iframeURL := "/iframe?" + q("url", e.purl(imageDruid))
	for _, u := range []string{embedURL, iframeURL, embedURL} {
		if resp, _ := e.get(t, u); resp.StatusCode != 200 {
			t.Fatalf("%s: %d", u, resp.StatusCode)
		}
	}
	e.stub.setStatus(http.StatusNotFound) // deleted (or made dark) by another process
	e.clock.advance(DefaultCacheTTL - time.Second)
	if resp, _ := e.get(t, embedURL); resp.StatusCode != 200 {
		t.Fatalf("within the TTL the cached copy answers: %d", resp.StatusCode)
	}
	e.clock.advance(time.Second)
	for _, u := range []string{embedURL, iframeURL} {
		if resp, _ := e.get(t, u); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s %v after the withdrawal: %d, want 404", u, DefaultCacheTTL, resp.StatusCode)
		}
	}

	// The same process: at once.
	e.stub.setStatus(0)
	docDruid := ""
	for d, f := range fixtures {
		if d != imageDruid && f.discover != "<none/>" {
			docDruid = d
			break
		}
	}
	u := "/iframe?" + q("url", e.purl(docDruid))
	if resp, _ := e.get(t, u); resp.StatusCode != 200 {
		t.Fatalf("%s: %d", docDruid, resp.StatusCode)
	}
	e.stub.setStatus(http.StatusNotFound)
	e.svc.ObjectChanged(docDruid)
	if resp, _ := e.get(t, u); resp.StatusCode != http.StatusNotFound {
		t.Errorf("after ObjectChanged: %d, want 404", resp.StatusCode)
	}
}

// A load that was under way when the object changed is not cached: its
// record may be from before the change.
func TestLoadBeforeInvalidationNotCached(t *testing.T) {
	t.Parallel()
	c := newObjectCache(4, 1<<20)
	gen := c.gen()
	c.invalidate("bb000kk0000")
	c.putIfCurrent(&entry{druid: "bb000kk0000", rendered: map[renderKey]rendering{}}, 10, gen)
	if e, _ := c.get("bb000kk0000", time.Now()); e != nil {
		t.Error("a load from before the invalidation was cached")
	}
	c.putIfCurrent(&entry{druid: "bb000kk0000", rendered: map[renderKey]rendering{}}, 10, c.gen())
	if e, _ := c.get("bb000kk0000", time.Now()); e == nil {
		t.Error("a load after the invalidation was not cached")
	}
}
