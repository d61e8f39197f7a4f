package resistance

import (
	"container/list"
	"sync"

	"github.com/sitelib/sitesvc/impl/asi"
)

// userAlgorithmCacheSize bounds the parsed user-submitted algorithms kept (each HIVDB-sized
// algorithm holds well under 1 MB once parsed).
const userAlgorithmCacheSize = 16

// algorithmCache keeps the most recently used user-submitted algorithms keyed by their text
// (the map's seeded hash is far cheaper than a cryptographic digest of 200 KB, and the texts
// kept are bounded: 16 × 4 MiB at worst): a lab sending its own algorithm with every request
// pays the parse (about 13 ms for an HIVDB-sized document, some 250 evaluations) once. Parse
// errors are cached too: the result is a pure function of the text.
type algorithmCache struct {
	mu    sync.Mutex
	order *list.List // front = most recently used; values are *cacheEntry
	byKey map[string]*list.Element
}

type cacheEntry struct {
	key string
	alg *asi.Algorithm
	err error
}

func newAlgorithmCache() *algorithmCache {
	return &algorithmCache{order: list.New(), byKey: map[string]*list.Element{}}
}

// parse returns the parsed algorithm for text, from the cache when it was seen recently.
func (c *algorithmCache) parse(text string) (*asi.Algorithm, error) {
	key := text
	c.mu.Lock()
	if el, ok := c.byKey[key]; ok {
		c.order.MoveToFront(el)
		e := el.Value.(*cacheEntry)
		c.mu.Unlock()
		return e.alg, e.err
	}
	c.mu.Unlock()
	// parse outside the lock: concurrent requests with different algorithms do not wait
	alg, err := asi.Parse([]byte(text))
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; !ok {
		c.byKey[key] = c.order.PushFront(&cacheEntry{key: key, alg: alg, err: err})
		for c.order.Len() > userAlgorithmCacheSize {
			last := c.order.Back()
			delete(c.byKey, last.Value.(*cacheEntry).key)
			c.order.Remove(last)
		}
	}
	return alg, err
}
