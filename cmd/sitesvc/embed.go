package main

import (
	"os"
	"path/filepath"

	"github.com/sitelib/sitesvc/impl/embed"
	"github.com/sitelib/sitesvc/impl/server"
)

// embedExamples are sample objects (one per viewer kind) whose oEmbed and
// viewer links the index page shows when the samples are loaded.
var embedExamples = []string{"bb000kk0000", "bg333mn3333", "bh444pq4444", "bj555rs5555", "bm777wx7777"}

// newEmbedService builds the Embed service from the serve configuration.
func newEmbedService(c *serveConfig) (server.Service, error) {
	var examples []string
	if c.PurlSamplesDir != "" {
		for _, id := range embedExamples {
			if _, err := os.Stat(filepath.Join(c.PurlSamplesDir, id)); err == nil {
				examples = append(examples, c.PurlBaseURL+"/"+id)
			}
		}
	}
	return embed.New(embed.Config{
		BaseURL:      c.EmbedBaseURL,
		PurlBaseURL:  c.PurlBaseURL,
		ProviderName: c.ProviderName,
		ViewerDir:    c.ViewerDir,
		Logger:       c.Logger,
		Examples:     examples,
	})
}
