package resistance

import (
	"runtime"
	"sync"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"github.com/sitelib/sitesvc/impl/asi"
)

const (
	// userAlgorithmCacheBytes bounds what the cache of parsed user-submitted algorithms
	// holds, by estimated bytes rather than entries: 64 MiB keeps some twenty HIVDB-sized
	// algorithms (≈ 3 MiB each as charged), or a few large ones.
	userAlgorithmCacheBytes = 64 << 20
	// parsedBytesPerByte is the charge per byte of algorithm text for its parsed form, with
	// the text itself kept as the key. Measured live heap after parsing: HIVDB 10.2 3×,
	// 20,000 one-rule drugs 4×, 64 KiB conditions naming every position 13.5× (a node per
	// residue); 16× bounds all of them.
	parsedBytesPerByte = 16
	// largeAlgorithmBytes is the size from which parsing a user algorithm takes one of the
	// cache's parse slots (one per core): a parse of a 4 MiB document allocates some 90 MB,
	// and requests must not parse many of them at once before any budget applies.
	largeAlgorithmBytes = 512 << 10
)

// algorithmCache keeps the most recently used user-submitted algorithms keyed by their text
// (the map's seeded hash is far cheaper than a cryptographic digest of 200 KB): a lab
// sending its own algorithm with every request pays the parse (about 13 ms for an
// HIVDB-sized document) once. Parse errors are cached too: the result is a pure function of
// the text. The cache is bounded by the bytes its entries are charged (cost); the least
// recently used entries leave first, and an entry charged more than a quarter of the bound
// is never kept, so one huge document cannot flush every lab's algorithm.
type algorithmCache struct {
	mu       sync.Mutex
	lru      *simplelru.LRU[string, cacheEntry]
	bytes    int64 // charged bytes of the entries held
	maxBytes int64
	parsing  chan struct{} // slots for parsing large documents
}

type cacheEntry struct {
	alg  *asi.Algorithm
	err  error
	cost int64
}

func newAlgorithmCache(maxBytes int64) *algorithmCache {
	c := &algorithmCache{maxBytes: maxBytes, parsing: make(chan struct{}, runtime.GOMAXPROCS(0))}
	// The entry count is not the bound (bytes are); it only has to be larger than any
	// number of entries the byte bound admits.
	lru, err := simplelru.NewLRU(1<<20, func(_ string, e cacheEntry) { c.bytes -= e.cost })
	if err != nil {
		panic(err) // only for a size <= 0
	}
	c.lru = lru
	return c
}

// cost is the bytes charged for keeping an algorithm parsed from text.
func cost(text string) int64 { return int64(len(text)) * (1 + parsedBytesPerByte) }

// parse returns the parsed algorithm for text, from the cache when it was seen recently.
func (c *algorithmCache) parse(text string) (*asi.Algorithm, error) {
	c.mu.Lock()
	if e, ok := c.lru.Get(text); ok {
		c.mu.Unlock()
		return e.alg, e.err
	}
	c.mu.Unlock()
	// parse outside the lock: concurrent requests with different algorithms do not wait
	if len(text) >= largeAlgorithmBytes {
		c.parsing <- struct{}{}
		defer func() { <-c.parsing }()
	}
	alg, err := asi.Parse([]byte(text))
	e := cacheEntry{alg: alg, err: err, cost: cost(text)}
	if e.cost > c.maxBytes/4 {
		return alg, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.lru.Contains(text) {
		c.lru.Add(text, e)
		c.bytes += e.cost
		for c.bytes > c.maxBytes {
			c.lru.RemoveOldest()
		}
	}
	return alg, err
}

// held is the number of entries and the bytes they are charged (for tests).
func (c *algorithmCache) held() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len(), c.bytes
}
