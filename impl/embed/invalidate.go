package embed

// ObjectChanged drops the object druid (bare, "bb000kk0000") from the
// cache at once. The PURL service of the same process calls it (through
// cmd/sitesvc) after every write and withdrawal, so a deleted or darkened
// object is never shown again by this process's oEmbed answers or viewer:
// the next request loads it anew and answers 404. A load already under way
// when the change happens serves its own caller but is not cached
// (objectCache.generation), and later callers do not join it.
//
// Embed services in other processes learn of changes by revalidating with
// the record's ETag once CacheTTL has passed (default 30 s, docs/embed.md).
func (s *Service) ObjectChanged(druid string) {
	s.cache.invalidate(druid)
	s.loads.Forget(druid)
}
