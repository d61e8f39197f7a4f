package main

import (
	"fmt"
	"io/fs"
	"net/http"
	"slices"
	"strings"

	"github.com/sitelib/sitesvc/bundled/mirador"

	"github.com/sitelib/sitesvc/impl/embed"
	"github.com/sitelib/sitesvc/impl/server"
)

// embedExamples are sample objects (one per viewer kind) whose oEmbed and
// viewer links the index page shows when the samples are loaded.
var embedExamples = []string{"bb000kk0000", "bg333mn3333", "bh444pq4444", "bj555rs5555", "bm777wx7777"}

// embedSettings are the Embed service's settings (docs/embed.md).
type embedSettings struct {
	// PurlURL is where Embed fetches PURL records when the PURL service
	// runs in another process: an internal URL of it. Empty: in one process
	// Embed reads the PURL service directly, else through its base URL.
	PurlURL      string
	ProviderName string
	ViewerDir    string // directory holding Mirador's mirador.min.js; empty: the built-in bundle
}

// registerEmbedSettings registers the Embed service's flags.
func registerEmbedSettings(ef envFlags) *embedSettings {
	s := &embedSettings{}
	ef.str(&s.PurlURL, "embed-purl-url", "", "where Embed fetches PURL records when the PURL service runs in another process (an internal URL of its base, like http://purl.internal:8080/purl); empty: directly in one process, else the PURL base URL")
	ef.str(&s.ProviderName, "provider-name", "sitesvc digital library", "oEmbed provider_name")
	ef.str(&s.ViewerDir, "viewer-dir", "", "directory holding Mirador's mirador.min.js, overriding the built-in bundle")
	return s
}

// check implements serviceSettings.
func (e *embedSettings) check(*serveSettings) error {
	if e.PurlURL != "" {
		e.PurlURL = strings.TrimRight(e.PurlURL, "/")
		if err := checkBaseURL(e.PurlURL); err != nil {
			return fmt.Errorf("--embed-purl-url: %w", err)
		}
	}
	return nil
}

// newEmbedService builds the Embed service from its settings.
func newEmbedService(w *wiring, e *embedSettings) (server.Service, error) {
	s := w.settings
	purlBase := s.BaseURLs["purl"]
	var examples []string
	if p, ok := s.Service["purl"].(*purlSettings); ok {
		if fsys, _ := sampleObjects(p.SamplesDir); fsys != nil {
			for _, id := range embedExamples {
				if _, err := fs.Stat(fsys, id); err == nil {
					examples = append(examples, purlBase+"/"+id)
				}
			}
		}
	}
	cfg := embed.Config{
		BaseURL:      s.BaseURLs["embed"],
		PurlBaseURL:  purlBase,
		ProviderName: e.ProviderName,
		ViewerDir:    e.ViewerDir,
		Logger:       w.logger,
		Examples:     examples,
	}
	switch {
	case e.PurlURL != "":
		cfg.PurlFetchURL = e.PurlURL
	case slices.Contains(s.Services, "purl"):
		// One process: read the PURL service directly, whatever the public
		// hostname resolves to from here.
		doer, err := embed.InProcessPurl(purlBase, func() http.Handler {
			if h := w.localPurl.Load(); h != nil {
				return *h
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		cfg.PurlClient = doer
	}
	if e.ViewerDir == "" {
		// Without it, Embed warns at start and serves 503 for the bundle.
		cfg.MiradorBundle, _ = mirador.Bundle()
	}
	svc, err := embed.New(cfg)
	if err != nil {
		return nil, err
	}
	w.changes.add(svc)
	return svc, nil
}
