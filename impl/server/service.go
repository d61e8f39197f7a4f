// Package server is the process-wide HTTP layer of sitesvc: it mounts each
// service under the path of its base URL and adds what every request gets
// (request id, structured log line, metrics, panic recovery, body limit),
// plus /healthz, /readyz, /metrics and the index page.
package server

import (
	"context"
	"net/http"
)

// Service is one of the four services (PURL, Embed, Hours, Algorithm).
//
// The server strips the service's base path before calling Handler, so a
// service sees paths relative to its own base URL ("/bb000kk0000.xml", not
// "/purl/bb000kk0000.xml"). A service builds absolute links from the public
// base URL it was configured with, never from the request.
type Service interface {
	// Name is a short, stable name: "purl", "embed", "hours" or "soap".
	Name() string
	// Handler serves the service's requests.
	Handler() http.Handler
	// Ready reports whether the service can answer requests (store
	// readable, database reachable). It is called by /readyz.
	Ready(ctx context.Context) error
	// Close releases what the service holds (database handles, caches).
	Close() error
}

// Link is an entry of the index page at "/".
type Link struct {
	Title string
	URL   string
}

// Indexer is implemented by services that list links on the index page
// (their contract, sample objects, example queries).
type Indexer interface {
	IndexLinks() []Link
}
