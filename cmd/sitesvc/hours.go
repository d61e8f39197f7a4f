package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sitelib/sitesvc/impl/hours"
	"github.com/sitelib/sitesvc/impl/server"
)

// newHoursService builds the Hours service from the serve configuration:
// PostgreSQL when --hours-db is a postgres:// URL, else the embedded
// SQLite database <data>/hours.db, which is filled with the sample
// libraries when empty.
func newHoursService(c *serveConfig) (server.Service, error) {
	cfg := hours.Config{
		BaseURL: c.HoursBaseURL,
		// The sign-in's /auth/ paths are at the site's root, whatever
		// base URL Hours has.
		SiteURL: c.PublicURL,
		DB:      c.HoursDB,
		Logger:  c.Logger,
	}
	if c.Tokens != nil {
		cfg.Tokens = c.Tokens
	}
	cfg.Sessions = c.Sessions
	if cfg.DB == "" {
		if err := os.MkdirAll(c.DataDir, 0o755); err != nil {
			return nil, fmt.Errorf("hours: creating %s: %w", c.DataDir, err)
		}
		cfg.DB = filepath.Join(c.DataDir, "hours.db")
		cfg.SampleData = true
	}
	svc, err := hours.New(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	c.hoursService = svc // PURL's location messages read today's hours from it (locationhours.go)
	return svc, nil
}
