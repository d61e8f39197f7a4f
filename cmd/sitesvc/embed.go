package main

import (
	"io/fs"
	"net/http"
	"slices"

	"github.com/sitelib/sitesvc/bundled/mirador"

	"github.com/sitelib/sitesvc/impl/embed"
	"github.com/sitelib/sitesvc/impl/server"
)

// embedExamples are sample objects (one per viewer kind) whose oEmbed and
// viewer links the index page shows when the samples are loaded.
var embedExamples = []string{"bb000kk0000", "bg333mn3333", "bh444pq4444", "bj555rs5555", "bm777wx7777"}

// newEmbedService builds the Embed service from the serve configuration.
func newEmbedService(c *serveConfig) (server.Service, error) {
	var examples []string
	if fsys, _ := sampleObjects(c.PurlSamplesDir); fsys != nil {
		for _, id := range embedExamples {
			if _, err := fs.Stat(fsys, id); err == nil {
				examples = append(examples, c.PurlBaseURL+"/"+id)
			}
		}
	}
	cfg := embed.Config{
		BaseURL:      c.EmbedBaseURL,
		PurlBaseURL:  c.PurlBaseURL,
		ProviderName: c.ProviderName,
		ViewerDir:    c.ViewerDir,
		Logger:       c.Logger,
		Examples:     examples,
	}
	switch {
	case c.EmbedPurlURL != "":
		cfg.PurlFetchURL = c.EmbedPurlURL
	case slices.Contains(c.Services, "purl"):
		// One process: read the PURL service directly, whatever the public
		// hostname resolves to from here.
		doer, err := embed.InProcessPurl(c.PurlBaseURL, func() http.Handler {
			if h := c.localPurl.Load(); h != nil {
				return *h
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		cfg.PurlClient = doer
	}
	if c.ViewerDir == "" {
		// Without it, Embed warns at start and serves 503 for the bundle.
		cfg.MiradorBundle, _ = mirador.Bundle()
	}
	svc, err := embed.New(cfg)
	if err != nil {
		return nil, err
	}
	c.changes().add(svc)
	return svc, nil
}
