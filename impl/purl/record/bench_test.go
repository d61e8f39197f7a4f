package record

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sitelib/sitesvc/impl/purl/internal/variants"
)

// BenchmarkParse reads a sample record (already in the seed's shape: the
// normalisation pass finds nothing to change) and a real-world variant
// (children reordered, thumb and releaseData mapped, MODS embedded), which
// is rewritten. Records are parsed when published and when an object is
// loaded into the service's cache, not per request.
func BenchmarkParse(b *testing.B) {
	sample := read(b, filepath.Join(sampleDirs(b)[0], "public.xml"))
	b.Run("seed-shape", func(b *testing.B) {
		b.SetBytes(int64(len(sample)))
		for b.Loop() {
			if _, err := Parse(sample); err != nil {
				b.Fatal(err)
			}
		}
	})
	variant := []byte(variants.All()[1].Public)
	b.Run("variant", func(b *testing.B) {
		b.SetBytes(int64(len(variant)))
		for b.Loop() {
			if _, err := Ingest(context.Background(), variant, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
