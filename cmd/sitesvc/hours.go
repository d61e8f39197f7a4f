package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sitelib/sitesvc/impl/hours"
	"github.com/sitelib/sitesvc/impl/server"
)

// hoursSettings are the Hours service's settings (docs/hours.md).
type hoursSettings struct {
	// DB is the database: "" SQLite under --data, postgres://… PostgreSQL,
	// else a SQLite file. The staff sign-in keeps its sessions there too.
	DB string
}

// registerHoursSettings registers the Hours service's flags.
func registerHoursSettings(ef envFlags) *hoursSettings {
	s := &hoursSettings{}
	ef.str(&s.DB, "hours-db", "", "hours database: empty for SQLite under --data, or a postgres:// URL")
	return s
}

// check implements serviceSettings.
func (h *hoursSettings) check(*serveSettings) error {
	if err := checkHoursDB(h.DB); err != nil {
		return fmt.Errorf("--hours-db: %w", err)
	}
	return nil
}

// newHoursService builds the Hours service from its settings:
// PostgreSQL when --hours-db is a postgres:// URL, else the embedded
// SQLite database <data>/hours.db, which is filled with the sample
// libraries when empty.
func newHoursService(w *wiring, h *hoursSettings) (server.Service, error) {
	s := w.settings
	cfg := hours.Config{
		BaseURL: s.BaseURLs["hours"],
		// The sign-in's /auth/ paths are at the site's root, whatever
		// base URL Hours has.
		SiteURL:  s.PublicURL,
		DB:       h.DB,
		Logger:   w.logger,
		Sessions: w.sessions,
	}
	if w.tokens != nil { // a nil *auth.Tokens would be a non-nil Authenticator
		cfg.Tokens = w.tokens
	}
	if cfg.DB == "" {
		if err := os.MkdirAll(s.DataDir, 0o755); err != nil {
			return nil, fmt.Errorf("hours: creating %s: %w", s.DataDir, err)
		}
		cfg.DB = filepath.Join(s.DataDir, "hours.db")
		cfg.SampleData = true
	}
	svc, err := hours.New(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	w.hours = svc // PURL's location messages read today's hours from it (locationhours.go)
	return svc, nil
}
