package main

import (
	"log/slog"
	"net/http"
	"sync/atomic"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/server"
)

// serviceTable is every service `sitesvc serve` can run, in the order
// --services lists them by default. Adding a service is one entry here:
// its name, its base URL flag, its settings (registered as flags), its
// constructor and the contract documents its mount links. Its readiness
// is the constructed server.Service's Ready, which /readyz asks.
var serviceTable = []serviceDef{
	defineService(serviceDef{
		name: "purl", baseFlag: "purl-base-url", basePath: "/purl",
		baseHelp:  "PURL base URL (default <public-url>/purl)",
		contracts: openAPILinks,
	}, registerPurlSettings, newPurlService),
	defineService(serviceDef{
		name: "embed", baseFlag: "embed-base-url", basePath: "/embed",
		baseHelp:  "Embed base URL (default <public-url>/embed)",
		contracts: openAPILinks,
	}, registerEmbedSettings, newEmbedService),
	defineService(serviceDef{
		name: "hours", baseFlag: "hours-base-url", basePath: "/hours",
		baseHelp:  "Hours base URL (default <public-url>/hours)",
		contracts: openAPILinks,
	}, registerHoursSettings, newHoursService),
	defineService(serviceDef{
		name: "soap", baseFlag: "soap-endpoint", basePath: "/soap/SiteAlgorithm",
		baseHelp:  "Algorithm (SOAP) endpoint URL (default <public-url>/soap/SiteAlgorithm)",
		contracts: func(base string) []server.Link { return []server.Link{{Title: "WSDL", URL: base + "?wsdl"}} },
	}, registerSOAPSettings, newSOAPService),
}

// serviceDef is one entry of serviceTable.
type serviceDef struct {
	// name is the service's --services name and the "service" field of
	// its log lines.
	name string
	// baseFlag is the flag of the service's public base URL (mounted at
	// its path), basePath its default under --public-url, baseHelp the
	// flag's help.
	baseFlag, basePath, baseHelp string
	// settings registers the service's own flags and returns their values.
	settings func(envFlags) serviceSettings
	// build makes the live service from its settings and the process's
	// wiring.
	build func(*wiring, serviceSettings) (server.Service, error)
	// contracts are the documents the index page links for the service at
	// base.
	contracts func(base string) []server.Link
}

// serviceSettings are one service's own settings: values only.
type serviceSettings interface {
	// check fills derived defaults and reports the first wrong value,
	// naming its flag; s are the process-wide settings, already checked.
	check(s *serveSettings) error
}

// defineService completes d with its typed settings registration and
// constructor, so each service's code sees its own settings type.
func defineService[S serviceSettings](d serviceDef, register func(envFlags) S, build func(*wiring, S) (server.Service, error)) serviceDef {
	d.settings = func(ef envFlags) serviceSettings { return register(ef) }
	d.build = func(w *wiring, s serviceSettings) (server.Service, error) { return build(w, s.(S)) }
	return d
}

// openAPILinks are the documents an OpenAPI service publishes.
func openAPILinks(base string) []server.Link {
	return []server.Link{
		{Title: "OpenAPI (YAML)", URL: base + "/openapi.yaml"},
		{Title: "OpenAPI (JSON)", URL: base + "/openapi.json"},
		{Title: "API documentation", URL: base + "/docs"},
	}
}

// wiring is what serve builds from the settings and the services share:
// live dependencies, never settings of their own.
type wiring struct {
	settings *serveSettings
	logger   *slog.Logger
	// tokens authorise writes (PURL publishing, setting hours).
	tokens *auth.Tokens
	// sessions is the site's sign-in, which the services read sessions from.
	sessions auth.SessionReader
	// changes passes PURL's change notifications to Embed (changes.go).
	changes objectChanges
	// localPurl is the PURL service's handler once built: Embed in the
	// same process reads it directly (embed.go).
	localPurl atomic.Pointer[http.Handler]
	// hours is the Hours service once built: PURL's location messages
	// read today's hours from it (locationhours.go).
	hours server.Service
	// extraMounts are mounts services add (the IIIF Authorization Flow's).
	extraMounts []server.Mount
	// exits run when serve ends (temporary files of built-in data).
	exits []func() error
}

// onExit has f run when serve ends.
func (w *wiring) onExit(f func() error) { w.exits = append(w.exits, f) }

// runExits runs the onExit functions, logging what fails.
func (w *wiring) runExits() {
	for _, f := range w.exits {
		if err := f(); err != nil {
			w.logger.Warn("cleaning up", "err", err)
		}
	}
}

// service is the entry of serviceTable named name.
func service(name string) (serviceDef, bool) {
	for _, d := range serviceTable {
		if d.name == name {
			return d, true
		}
	}
	return serviceDef{}, false
}
