package purl

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitelib/sitesvc/impl/heldbytes"
	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
)

// The image service's work queue and disk cache in /metrics (issue 23.4):
// the Service is a prometheus.Collector that cmd/sitesvc registers on the
// server's registry; every value is read from the Tiler when scraped.

var _ prometheus.Collector = (*Service)(nil)

type iiifMetric struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(iiifimage.Stats) float64
}

func iiifDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("sitesvc_iiif_"+name, help, nil, nil)
}

var iiifMetrics = []iiifMetric{
	{iiifDesc("builds_running", "vips builds (pyramids and derived images) running now."), prometheus.GaugeValue, func(st iiifimage.Stats) float64 { return float64(st.Running) }},
	{iiifDesc("builds_waiting", "Builds waiting for a slot."), prometheus.GaugeValue, func(st iiifimage.Stats) float64 { return float64(st.Waiting) }},
	{iiifDesc("builds_max", "Most builds running at once (--iiif-max-builds)."), prometheus.GaugeValue, func(st iiifimage.Stats) float64 { return float64(st.MaxBuilds) }},
	{iiifDesc("build_queue_max", "Most builds waiting (--iiif-build-queue); past it 503."), prometheus.GaugeValue, func(st iiifimage.Stats) float64 { return float64(st.MaxQueue) }},
	{iiifDesc("builds_rejected_total", "Builds refused with 503 because the queue was full."), prometheus.CounterValue, func(st iiifimage.Stats) float64 { return float64(st.Rejected) }},
	{iiifDesc("pyramid_builds_total", "Pyramid builds started."), prometheus.CounterValue, func(st iiifimage.Stats) float64 { return float64(st.Builds) }},
	{iiifDesc("pyramid_build_failures_total", "Pyramid builds that failed (remembered per file version)."), prometheus.CounterValue, func(st iiifimage.Stats) float64 { return float64(st.BuildFailures) }},
	{iiifDesc("header_refusals_total", "Images refused from their header (over the pixel limit or unreadable) before decoding."), prometheus.CounterValue, func(st iiifimage.Stats) float64 { return float64(st.HeaderRefusals) }},
	{iiifDesc("derived_images_total", "Images made on request (regions, sizes, rotations, qualities and formats beyond the tiles)."), prometheus.CounterValue, func(st iiifimage.Stats) float64 { return float64(st.Derivations) }},
	{iiifDesc("cache_bytes", "Bytes of pyramids and derived images on disk."), prometheus.GaugeValue, func(st iiifimage.Stats) float64 { return float64(st.CacheBytes) }},
	{iiifDesc("cache_max_bytes", "Bound of the image cache on disk (--iiif-cache-max-bytes)."), prometheus.GaugeValue, func(st iiifimage.Stats) float64 { return float64(st.MaxCacheBytes) }},
	{iiifDesc("cache_pyramids", "Pyramids on disk."), prometheus.GaugeValue, func(st iiifimage.Stats) float64 { return float64(st.Pyramids) }},
	{iiifDesc("cache_evictions_total", "Pyramids removed, least recently used first, to stay within the bound."), prometheus.CounterValue, func(st iiifimage.Stats) float64 { return float64(st.Evictions) }},
}

// The bytes held in memory (impl/heldbytes), labelled kind="files" (the
// small files anyone may read, heldfiles.go) and kind="tiles" (the image
// service's tiles and sizes, iiifimage/held.go).
type heldMetric struct {
	desc  *prometheus.Desc
	kind  prometheus.ValueType
	value func(heldbytes.Stats) float64
}

func heldDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("sitesvc_purl_held_"+name, help, []string{"kind"}, nil)
}

var heldMetrics = []heldMetric{
	{heldDesc("items", "Files held in memory for serving."), prometheus.GaugeValue, func(st heldbytes.Stats) float64 { return float64(st.Items) }},
	{heldDesc("bytes", "Bytes of the files held in memory."), prometheus.GaugeValue, func(st heldbytes.Stats) float64 { return float64(st.Bytes) }},
	{heldDesc("max_bytes", "Bound of the bytes held in memory."), prometheus.GaugeValue, func(st heldbytes.Stats) float64 { return float64(st.Limits.Bytes) }},
	{heldDesc("max_items", "Bound of the files held in memory."), prometheus.GaugeValue, func(st heldbytes.Stats) float64 { return float64(st.Limits.Items) }},
	{heldDesc("evictions_total", "Files let go, least recently used first, to stay within the bounds."), prometheus.CounterValue, func(st heldbytes.Stats) float64 { return float64(st.Evictions) }},
}

// Describe implements prometheus.Collector.
func (s *Service) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range iiifMetrics {
		ch <- m.desc
	}
	for _, m := range heldMetrics {
		ch <- m.desc
	}
}

// Collect implements prometheus.Collector.
func (s *Service) Collect(ch chan<- prometheus.Metric) {
	st := s.tiler.Stats()
	for _, m := range iiifMetrics {
		ch <- prometheus.MustNewConstMetric(m.desc, m.kind, m.value(st))
	}
	var files heldbytes.Stats // zero when no files are held
	if s.heldFiles != nil {
		files = s.heldFiles.Stats()
	}
	tiles := s.tiler.HeldStats()
	for _, m := range heldMetrics {
		ch <- prometheus.MustNewConstMetric(m.desc, m.kind, m.value(files), "files")
		ch <- prometheus.MustNewConstMetric(m.desc, m.kind, m.value(tiles), "tiles")
	}
}
