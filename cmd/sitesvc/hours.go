package main

import "github.com/sitelib/sitesvc/impl/server"

// newHoursService builds the Hours service from the serve configuration.
func newHoursService(c *serveConfig) (server.Service, error) {
	return server.NotImplemented("hours", "the Hours service is not implemented yet"), nil
}
