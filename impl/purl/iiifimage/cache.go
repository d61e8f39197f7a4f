package iiifimage

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
)

// The pyramids on disk, least recently used first out once their bytes
// pass Options.MaxCacheBytes. Every pyramid under the root is an entry
// (found at start, added when made); its description (*Pyramid) is loaded
// on first use and dropped again past maxCached. Guarded by Tiler.mu.

// entry is one pyramid directory on disk.
type entry struct {
	dir     string
	bytes   int64 // tiles, sizes and derived images
	derived int64 // of which derived images
	p       *Pyramid
}

type diskCache struct {
	lru    *simplelru.LRU[string, *entry]
	bytes  int64
	max    int64
	loaded int
	// evicted counts pyramids removed to keep within max.
	evicted int64
	// front is the most recently used entry (nil: not known), so that
	// Touch of the pyramid already in front takes no lock. Written
	// under Tiler.mu by every change of the order.
	front atomic.Pointer[entry]
}

func newDiskCache(max int64) *diskCache {
	// The count is bounded by bytes, not by the LRU's size.
	lru, _ := simplelru.NewLRU[string, *entry](1<<30, nil)
	return &diskCache{lru: lru, max: max}
}

// get returns the entry of dir, marking it used.
func (c *diskCache) get(dir string) (*entry, bool) {
	e, ok := c.lru.Get(dir)
	if ok {
		c.front.Store(e)
	}
	return e, ok
}

// add records a pyramid (new, or found on disk) as the most recently used.
func (c *diskCache) add(e *entry) {
	if old, ok := c.lru.Peek(e.dir); ok {
		c.forget(old)
	}
	c.lru.Add(e.dir, e)
	c.front.Store(e)
	c.bytes += e.bytes
	if e.p != nil {
		c.loaded++
	}
}

// grow adds n bytes (a derived image) to dir's entry.
func (c *diskCache) grow(e *entry, n int64) {
	e.bytes += n
	e.derived += n
	c.bytes += n
}

// forget removes an entry from the accounting (its directory is the
// caller's to remove) and marks its description evicted.
func (c *diskCache) forget(e *entry) {
	c.lru.Remove(e.dir)
	c.front.CompareAndSwap(e, nil)
	c.bytes -= e.bytes
	if e.p != nil {
		c.loaded--
		e.p.evicted.Store(true)
	}
}

// setLoaded attaches a description to an entry, dropping the descriptions
// of the least recently used ones past maxCached (they stay on disk).
func (c *diskCache) setLoaded(e *entry, p *Pyramid) {
	if e.p == nil {
		c.loaded++
	}
	e.p = p
	if c.loaded <= maxCached {
		return
	}
	for _, k := range c.lru.Keys() {
		if c.loaded <= maxCached*3/4 {
			break
		}
		if o, ok := c.lru.Peek(k); ok && o.p != nil && o != e {
			o.p.evicted.Store(true)
			o.p = nil
			c.loaded--
		}
	}
}

// trim chooses what to remove to come back within max, least recently
// used first, never keep (the pyramid being served, which the caller has
// just used, so it is the oldest only when it is alone). When keep alone
// is over, its derived images go but spare (the one being served). It
// returns the directories to remove, already renamed out of the way (so a
// new build of the same version can take the name at once) and forgotten.
func (c *diskCache) trim(keep *entry, spare string) (remove []string) {
	for c.bytes > c.max {
		k, e, ok := c.lru.GetOldest()
		if !ok {
			break
		}
		if e == keep {
			c.dropDerived(e, spare)
			break
		}
		gone, err := moveAside(k)
		c.forget(e)
		c.evicted++
		if err == nil {
			remove = append(remove, gone)
		}
	}
	return remove
}

// dropDerived removes the derived images of e but spare.
func (c *diskCache) dropDerived(e *entry, spare string) {
	dir := filepath.Join(e.dir, derivedDir)
	files, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, f := range files {
		path := filepath.Join(dir, f.Name())
		info, err := f.Info()
		if path == spare || leftover(f.Name()) || err != nil || !info.Mode().IsRegular() {
			continue
		}
		if os.Remove(path) == nil {
			c.bytes -= info.Size()
			e.bytes -= info.Size()
			e.derived -= info.Size()
		}
	}
}

// moveAside renames dir to a hidden name beside it, removed by the caller
// or, after a crash, at the next start.
func moveAside(dir string) (string, error) {
	gone := filepath.Join(filepath.Dir(dir), ".evict-"+filepath.Base(dir)+"-"+fmt.Sprint(time.Now().UnixNano()))
	if err := os.Rename(dir, gone); err != nil {
		return "", err
	}
	return gone, nil
}

// leftover reports names a killed server or build leaves behind.
func leftover(name string) bool {
	return strings.HasPrefix(name, ".build-") || strings.HasPrefix(name, ".evict-") || strings.HasPrefix(name, ".derive-")
}

// scan finds the pyramids under root (root/<object>/<name hash>/<version>),
// removes what killed builds left (".build-*", ".evict-*", ".derive-*")
// and returns the pyramids oldest first by the time they were made.
func scan(root string) ([]*entry, []string, error) {
	type found struct {
		e    *entry
		made time.Time
	}
	var all []found
	var removed []string
	objects, err := os.ReadDir(root)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range objects {
		if !o.IsDir() {
			continue
		}
		names, err := os.ReadDir(filepath.Join(root, o.Name()))
		if err != nil {
			return nil, nil, err
		}
		for _, n := range names {
			if !n.IsDir() {
				continue
			}
			parent := filepath.Join(root, o.Name(), n.Name())
			versions, err := os.ReadDir(parent)
			if err != nil {
				return nil, nil, err
			}
			for _, v := range versions {
				dir := filepath.Join(parent, v.Name())
				if leftover(v.Name()) {
					if err := os.RemoveAll(dir); err != nil {
						return nil, nil, fmt.Errorf("removing %s: %w", dir, err)
					}
					removed = append(removed, dir)
					continue
				}
				info, err := os.Stat(filepath.Join(dir, metaName))
				if err != nil {
					continue // not a finished pyramid
				}
				e := &entry{dir: dir}
				var m meta
				if raw, err := os.ReadFile(filepath.Join(dir, metaName)); err == nil && json.Unmarshal(raw, &m) == nil && m.Bytes > 0 {
					e.bytes = m.Bytes
				} else {
					e.bytes = treeBytes(dir)
				}
				d := filepath.Join(dir, derivedDir)
				if files, err := os.ReadDir(d); err == nil {
					for _, f := range files {
						if leftover(f.Name()) {
							os.RemoveAll(filepath.Join(d, f.Name()))
							removed = append(removed, filepath.Join(d, f.Name()))
							continue
						}
						if fi, err := f.Info(); err == nil && fi.Mode().IsRegular() {
							e.derived += fi.Size()
						}
					}
				}
				e.bytes += e.derived
				all = append(all, found{e, info.ModTime()})
			}
		}
	}
	slices.SortFunc(all, func(a, b found) int { return a.made.Compare(b.made) })
	out := make([]*entry, len(all))
	for i, f := range all {
		out[i] = f.e
	}
	return out, removed, nil
}

// treeBytes is the size of the regular files under dir.
func treeBytes(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
