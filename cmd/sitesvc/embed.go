package main

import (
	"github.com/sitelib/sitesvc/impl/embed"
	"github.com/sitelib/sitesvc/impl/server"
)

// newEmbedService builds the Embed service from the serve configuration.
func newEmbedService(c *serveConfig) (server.Service, error) {
	return embed.New(embed.Config{
		BaseURL:      c.EmbedBaseURL,
		PurlBaseURL:  c.PurlBaseURL,
		ProviderName: c.ProviderName,
		ViewerDir:    c.ViewerDir,
		Logger:       c.Logger,
	})
}
