package purl

import (
	"github.com/prometheus/client_golang/prometheus"

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

// Describe implements prometheus.Collector.
func (s *Service) Describe(ch chan<- *prometheus.Desc) {
	for _, m := range iiifMetrics {
		ch <- m.desc
	}
}

// Collect implements prometheus.Collector.
func (s *Service) Collect(ch chan<- prometheus.Metric) {
	st := s.tiler.Stats()
	for _, m := range iiifMetrics {
		ch <- prometheus.MustNewConstMetric(m.desc, m.kind, m.value(st))
	}
}
