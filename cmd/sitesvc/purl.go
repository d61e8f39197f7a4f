package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sitelib/sitesvc/impl/server"
)

// newPurlService builds the PURL service from the serve configuration.
func newPurlService(c *serveConfig) (server.Service, error) {
	return server.NotImplemented("purl", "the PURL service is not implemented yet"), nil
}

// runPurl is `sitesvc purl …` (publishing objects).
func runPurl(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	return fmt.Errorf("purl: not implemented yet")
}
