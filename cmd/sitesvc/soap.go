package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sitelib/sitesvc/impl/server"
)

// newSOAPService builds the Algorithm (SOAP) service from the serve configuration.
func newSOAPService(c *serveConfig) (server.Service, error) {
	return server.NotImplemented("soap", "the Algorithm (SOAP) service is not implemented yet"), nil
}

// runKeys is `sitesvc keys add`.
func runKeys(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	return fmt.Errorf("keys: not implemented yet")
}
