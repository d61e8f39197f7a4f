package embed

import (
	"strconv"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/sitelib/sitesvc/impl/embed/objectview"
)

// entry is a cached object: its parsed record, the ETag to revalidate it
// with, and the responses already rendered from it (oEmbed JSON/XML and
// iframe documents for the parameter combinations seen), so that a cache
// hit is a map lookup and a write.
type entry struct {
	druid   string
	object  *objectview.Object
	etag    string
	expires time.Time
	// validated is when the PURL service last confirmed the record (sent
	// it or answered 304).
	validated time.Time
	// size is what the entry counts against the cache's byte bound: the
	// record's size (standing for the parsed object) plus the renderings
	// kept. Guarded by the cache's mutex.
	size int64

	mu       sync.Mutex
	rendered map[renderKey]rendering
}

// rendering is one finished answer body with its Content-Length value, so
// that serving it from the cache formats nothing.
type rendering struct {
	body   []byte
	length string
}

func newRendering(body []byte) rendering {
	return rendering{body: body, length: strconv.Itoa(len(body))}
}

// renderKey is one distinct rendering of an object.
type renderKey struct {
	kind      byte // 'j' oEmbed JSON, 'x' oEmbed XML, 'i' iframe document
	maxHeight int32
	maxWidth  int32
	hideTitle bool
}

// maxRenderings bounds the renderings kept per object: maxheight/maxwidth
// can take many values, and a client cycling through them must not grow
// the cache without bound. Past the bound, renderings are computed per
// request.
const maxRenderings = 32

// renderedAnswer returns the rendering k of e, rendering it (and keeping
// it, within maxRenderings) when it is not there yet. kept reports whether
// the rendering is held by the entry. A newly kept rendering is counted
// against the cache's byte bound through added.
func (e *entry) renderedAnswer(k renderKey, render func() ([]byte, error), added func(e *entry, n int)) (r rendering, kept bool, err error) {
	if r, ok := e.lookup(k); ok {
		return r, true, nil
	}
	b, err := render()
	if err != nil {
		return rendering{}, false, err
	}
	r = newRendering(b)
	e.mu.Lock()
	if prev, ok := e.rendered[k]; ok {
		e.mu.Unlock()
		return prev, true, nil // rendered concurrently: keep one copy
	}
	if len(e.rendered) < maxRenderings {
		e.rendered[k] = r
		kept = true
	}
	e.mu.Unlock()
	if kept {
		added(e, len(b))
	}
	return r, kept, nil
}

// lookup returns the kept rendering k of e.
func (e *entry) lookup(k renderKey) (rendering, bool) {
	e.mu.Lock()
	r, ok := e.rendered[k]
	e.mu.Unlock()
	return r, ok
}

// objectCache is an LRU of entries (hashicorp/golang-lru's simplelru,
// under the cache's mutex) with a time to live, bounded both in entries
// and in bytes (records and renderings: one object with thousands of files
// renders to large documents). An expired entry is not dropped: it is
// handed back as stale so that the caller can revalidate it with its ETag.
type objectCache struct {
	mu       sync.Mutex
	maxBytes int64
	bytes    int64
	lru      *simplelru.LRU[string, *entry]
	// generation counts invalidations: a load that started before one
	// (and may hold the record from before the change) is not cached.
	generation uint64
}

func newObjectCache(max int, maxBytes int64) *objectCache {
	c := &objectCache{maxBytes: maxBytes}
	// Evicted or replaced entries stop counting against the byte bound.
	lru, err := simplelru.NewLRU[string, *entry](max, func(_ string, e *entry) { c.bytes -= e.size })
	if err != nil {
		// Only a size below 1, which New never passes.
		panic("embed: object cache: " + err.Error())
	}
	c.lru = lru
	return c
}

// evictBytes drops least recently used entries while the byte bound is
// passed, never the most recent one (the entry just stored or grown, which
// is in use).
func (c *objectCache) evictBytes() {
	for c.bytes > c.maxBytes && c.lru.Len() > 1 {
		c.lru.RemoveOldest()
	}
}

// get returns the entry for druid and whether it is still fresh at now.
func (c *objectCache) get(druid string, now time.Time) (*entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.lru.Get(druid)
	if !ok {
		return nil, false
	}
	return e, now.Before(e.expires)
}

// put stores e, whose size is its record's, evicting least recently used
// entries past the bounds.
func (c *objectCache) put(e *entry, recordSize int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.size = int64(recordSize)
	// Add keeps a replaced value without the eviction callback: removing
	// it first uncounts its bytes.
	c.lru.Remove(e.druid)
	c.lru.Add(e.druid, e)
	c.bytes += e.size
	c.evictBytes()
}

// grew counts n more bytes (a kept rendering) for e, if e is still cached;
// e becomes the most recently used entry (it was just used).
func (c *objectCache) grew(e *entry, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.lru.Get(e.druid); !ok || cur != e {
		return // replaced or evicted meanwhile: nothing counts it
	}
	e.size += int64(n)
	c.bytes += int64(n)
	c.evictBytes()
}

// touch sets e's expiry and the time it was last confirmed.
func (c *objectCache) touch(e *entry, expires, validated time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.expires, e.validated = expires, validated
}

// gen is the current invalidation generation (see putIfCurrent).
func (c *objectCache) gen() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.generation
}

// invalidate drops druid because it changed upstream; loads under way are
// not cached afterwards.
func (c *objectCache) invalidate(druid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.generation++
	c.lru.Remove(druid)
}

// putIfCurrent is put, unless an invalidation happened since gen was read
// (the record may be from before it).
func (c *objectCache) putIfCurrent(e *entry, recordSize int, gen uint64) {
	c.mu.Lock()
	current := c.generation == gen
	c.mu.Unlock()
	if current {
		c.put(e, recordSize)
	}
}

// remove drops druid (the object disappeared upstream).
func (c *objectCache) remove(druid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Remove(druid)
}

func (c *objectCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
