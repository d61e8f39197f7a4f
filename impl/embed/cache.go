package embed

import (
	"container/list"
	"errors"
	"strconv"
	"sync"
	"time"

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

// objectCache is an LRU of entries with a time to live, bounded both in
// entries and in bytes (records and renderings: one object with thousands
// of files renders to large documents). An expired entry is not dropped: it
// is handed back as stale so that the caller can revalidate it with its
// ETag.
type objectCache struct {
	mu       sync.Mutex
	max      int
	maxBytes int64
	bytes    int64
	order    *list.List // front = most recently used; values are *entry
	index    map[string]*list.Element
}

func newObjectCache(max int, maxBytes int64) *objectCache {
	return &objectCache{max: max, maxBytes: maxBytes, order: list.New(), index: make(map[string]*list.Element)}
}

// evict drops least recently used entries past the bounds, never keep
// (the entry just stored or grown, which is in use).
func (c *objectCache) evict(keep *entry) {
	for c.order.Len() > c.max || c.bytes > c.maxBytes {
		last := c.order.Back()
		e := last.Value.(*entry)
		if e == keep {
			if c.order.Len() == 1 {
				return
			}
			last = last.Prev()
			e = last.Value.(*entry)
		}
		c.order.Remove(last)
		delete(c.index, e.druid)
		c.bytes -= e.size
	}
}

// get returns the entry for druid and whether it is still fresh at now.
func (c *objectCache) get(druid string, now time.Time) (*entry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.index[druid]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(el)
	e := el.Value.(*entry)
	return e, now.Before(e.expires)
}

// put stores e, whose size is its record's, evicting least recently used
// entries past the bounds.
func (c *objectCache) put(e *entry, recordSize int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.size = int64(recordSize)
	c.bytes += e.size
	if el, ok := c.index[e.druid]; ok {
		c.bytes -= el.Value.(*entry).size
		el.Value = e
		c.order.MoveToFront(el)
	} else {
		c.index[e.druid] = c.order.PushFront(e)
	}
	c.evict(e)
}

// grew counts n more bytes (a kept rendering) for e, if e is still cached.
func (c *objectCache) grew(e *entry, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[e.druid]; !ok || el.Value != e {
		return // replaced or evicted meanwhile: nothing counts it
	}
	e.size += int64(n)
	c.bytes += int64(n)
	c.evict(e)
}

// touch sets e's expiry and the time it was last confirmed.
func (c *objectCache) touch(e *entry, expires, validated time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.expires, e.validated = expires, validated
}

// remove drops druid (the object disappeared upstream).
func (c *objectCache) remove(druid string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.index[druid]; ok {
		c.order.Remove(el)
		delete(c.index, druid)
		c.bytes -= el.Value.(*entry).size
	}
}

func (c *objectCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// flight collapses concurrent loads of the same object into one upstream
// request.
type flight struct {
	mu    sync.Mutex
	calls map[string]*call
}

type call struct {
	done chan struct{}
	val  *entry
	err  error
}

func (f *flight) do(key string, fn func() (*entry, error)) (*entry, error) {
	f.mu.Lock()
	if f.calls == nil {
		f.calls = make(map[string]*call)
	}
	if c, ok := f.calls[key]; ok {
		f.mu.Unlock()
		<-c.done
		return c.val, c.err
	}
	// A load that panics leaves this error for the callers waiting on it.
	c := &call{done: make(chan struct{}), err: errors.New("loading " + key + " was aborted")}
	f.calls[key] = c
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.calls, key)
		f.mu.Unlock()
		close(c.done)
	}()
	c.val, c.err = fn()
	return c.val, c.err
}
