package main

import "github.com/sitelib/sitesvc/impl/server"

// newEmbedService builds the Embed service from the serve configuration.
func newEmbedService(c *serveConfig) (server.Service, error) {
	return server.NotImplemented("embed", "the Embed service is not implemented yet"), nil
}
