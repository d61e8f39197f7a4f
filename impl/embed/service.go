// Package embed is the Embed service: oEmbed responses (JSON and XML) for
// repository objects, and an embeddable iframe document whose viewer shows
// the object (Mirador for images, HTML5 players for media, the browser's
// PDF viewer, a file list otherwise, or why access is restricted).
//
// Object information comes from the PURL service over HTTP, from the
// configured PURL base only, and is kept in a bounded cache with a time to
// live and ETag revalidation.
package embed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"golang.org/x/sync/singleflight"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/gen/purlapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/embed/objectview"
	"github.com/sitelib/sitesvc/impl/embed/purlref"
	"github.com/sitelib/sitesvc/impl/server"
)

// Config configures the Embed service.
type Config struct {
	// BaseURL is the service's public base URL ("http://localhost:8080/embed").
	BaseURL string
	// PurlBaseURL is the PURL service's public base URL; the only place
	// object information is fetched from.
	PurlBaseURL string
	// ProviderName is the oEmbed provider_name.
	ProviderName string
	// ViewerDir is the directory holding Mirador's mirador.min.js
	// (scripts/build-viewer.sh installs it). When the bundle is missing,
	// /viewer/mirador.min.js answers 503 and everything else works.
	ViewerDir string
	// MiradorBundle is mirador.min.js built into the binary; it is served
	// when ViewerDir is empty (a ViewerDir overrides it).
	MiradorBundle []byte
	// Logger receives errors and warnings. Nil discards them.
	Logger *slog.Logger

	// PurlFetchURL is where object records are fetched from when that is
	// not PurlBaseURL: an internal address of the PURL service when the two
	// are deployed apart (--embed-purl-url). Empty: PurlBaseURL. PURLs are
	// still recognised by PurlBaseURL.
	PurlFetchURL string
	// PurlClient sends the requests to the PURL service (InProcessPurl when
	// both run in one process). Nil uses a client with FetchTimeout that
	// follows no redirect off the fetch base.
	PurlClient purlapi.HttpRequestDoer
	// FetchTimeout bounds one request to the PURL service. Default 10s.
	FetchTimeout time.Duration
	// CacheTTL is how long a fetched object is used without revalidation,
	// and so how late a withdrawal made by another process shows (one in
	// this process shows at once: ObjectChanged). Default 30 seconds; a
	// revalidation is a conditional GET, mostly answered 304.
	CacheTTL time.Duration
	// CacheSize is the most objects the cache holds. Default 1024.
	CacheSize int
	// CacheBytes bounds the cache's records and rendered answers, in
	// bytes. Default 64 MiB.
	CacheBytes int64
	// Examples are PURLs whose oEmbed and viewer links the index page shows.
	Examples []string
	// Now is the clock (embargo dates, cache expiry). Default time.Now.
	Now func() time.Time
}

// DefaultCacheTTL is the bound on how late Embed shows a withdrawal made
// by another process (docs/embed.md).
const DefaultCacheTTL = 30 * time.Second

// maxRememberedAnswers bounds the query strings remembered per path for
// the fast path (fastpath.go).
const maxRememberedAnswers = 4096

// Service is the Embed service; it implements server.Service.
type Service struct {
	cfg       Config
	embedBase string
	purl      purlref.Base
	fetchBase purlref.Base // where records are fetched from (PurlFetchURL or the PURL base)
	fetch     *fetcher
	ownClient *http.Client // closed on Close when the service made it
	cache     *objectCache
	loads     singleflight.Group // concurrent loads of one object share one upstream request
	answers   *answerMemo
	assets    *assets
	handler   http.Handler
	log       *slog.Logger
}

var _ server.Service = (*Service)(nil)
var _ server.Indexer = (*Service)(nil)

// New builds the service from cfg.
func New(cfg Config) (*Service, error) {
	embedBase, err := purlref.ParseBase(cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("embed base URL: %w", err)
	}
	purl, err := purlref.ParseBase(cfg.PurlBaseURL)
	if err != nil {
		return nil, err
	}
	if cfg.ProviderName == "" {
		return nil, errors.New("embed: provider name is empty")
	}
	if cfg.FetchTimeout <= 0 {
		cfg.FetchTimeout = 10 * time.Second
	}
	if cfg.CacheTTL <= 0 {
		cfg.CacheTTL = DefaultCacheTTL
	}
	if cfg.CacheSize <= 0 {
		cfg.CacheSize = 1024
	}
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = 64 << 20
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Service{
		cfg:       cfg,
		embedBase: embedBase.String(),
		purl:      purl,
		cache:     newObjectCache(cfg.CacheSize, cfg.CacheBytes),
		log:       cfg.Logger,
	}
	s.fetchBase = purl
	if cfg.PurlFetchURL != "" {
		if s.fetchBase, err = purlref.ParseBase(cfg.PurlFetchURL); err != nil {
			return nil, fmt.Errorf("embed: PURL fetch URL: %w", err)
		}
	}
	doer := cfg.PurlClient
	if doer == nil {
		s.ownClient = newHTTPClient(s.fetchBase, cfg.FetchTimeout)
		doer = s.ownClient
	}
	if s.fetch, err = newFetcher(s.fetchBase, doer, cfg.FetchTimeout); err != nil {
		return nil, err
	}
	if s.assets, err = newAssets(cfg.ViewerDir, cfg.MiradorBundle); err != nil {
		return nil, err
	}
	if s.assets.miradorMissing() {
		s.log.Warn("Mirador bundle missing: image viewers will not load (build with `make build`, or give --viewer-dir with mirador.min.js from scripts/build-viewer.sh)",
			"viewer_dir", cfg.ViewerDir)
	}

	spec := mustSpec()
	s.answers = newAnswerMemo(spec, maxRememberedAnswers)
	e, err := apiserve.New(apiserve.Options{
		Spec:    spec,
		BaseURL: s.embedBase,
		Errors:  errorRenderer(cfg.ProviderName),
		Logger:  cfg.Logger,
		Policy:  &policy,
	})
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	embedapi.RegisterHandlers(apiserve.Routes(e), embedapi.NewStrictHandler(&handlers{s: s}, []embedapi.StrictMiddlewareFunc{s.answers.recorder}))
	s.handler = s.front(e)
	return s, nil
}

// policy is Embed's part of the edge apiserve answers from api/embed.yaml:
// the oEmbed answers (and refusals) are readable by scripts of any site,
// as the oEmbed specification expects of a provider; the viewer document
// and its assets are framed or loaded, not read. The service takes no
// request bodies (every operation is a GET).
var policy = apiserve.Policy{
	CrossOrigin: func(op string) bool { return op == "getEmbed" },
}

func mustSpec() *openapi3.T {
	spec, err := embedapi.GetSpec()
	if err != nil {
		// The document is embedded at generation time; failing to decode it
		// is a build defect, not a runtime condition.
		panic(fmt.Sprintf("embed: embedded OpenAPI document: %v", err))
	}
	return spec
}

// Name is "embed".
func (s *Service) Name() string { return "embed" }

// Handler serves the service's paths, relative to its base URL.
func (s *Service) Handler() http.Handler { return s.handler }

// Ready reports whether the PURL service answers where Embed fetches from
// (in this process, at PurlFetchURL or at the PURL base): an instance that
// cannot reach it answers 502 on every embed not in its cache, so a load
// balancer should send embeds elsewhere. Any answer but a failure counts
// (a 404 for a probe druid).
func (s *Service) Ready(ctx context.Context) error {
	if err := s.fetch.reachable(ctx); err != nil {
		return fmt.Errorf("embed: cannot reach the PURL service at %s: %w", s.fetchBase, err)
	}
	return nil
}

// Close releases the outbound connections.
func (s *Service) Close() error {
	if s.ownClient != nil {
		s.ownClient.CloseIdleConnections()
	}
	return nil
}

// IndexLinks lists, for each example PURL, its oEmbed response and viewer
// document (the server lists the contract itself).
func (s *Service) IndexLinks() []server.Link {
	var links []server.Link
	for _, purl := range s.cfg.Examples {
		q := "?url=" + url.QueryEscape(purl)
		links = append(links,
			server.Link{Title: "oEmbed for " + purl, URL: s.embedBase + "/embed" + q},
			server.Link{Title: "Viewer for " + purl, URL: s.embedBase + "/iframe" + q},
		)
	}
	return links
}

// object returns the cached entry for the PURL rawURL, loading or
// revalidating it when needed. Errors: purlref.ErrNotPURL and
// errObjectNotFound (404), errUpstream (502).
func (s *Service) object(ctx context.Context, rawURL string) (*entry, error) {
	druid, err := s.purl.Druid(rawURL)
	if err != nil {
		return nil, err
	}
	if e, fresh := s.cache.get(druid, s.cfg.Now()); fresh {
		return liveEntry(e)
	}
	// The load outlives a caller that gives up, because other callers may
	// be waiting on it; the fetcher's timeout still bounds it.
	loadCtx := context.WithoutCancel(ctx)
	v, err, _ := s.loads.Do(druid, func() (any, error) { return s.load(loadCtx, druid) })
	e, _ := v.(*entry)
	if err != nil {
		return nil, err
	}
	return liveEntry(e)
}

// liveEntry turns a cached dark object into not found.
func liveEntry(e *entry) (*entry, error) {
	if e.object.Access.Level == objectview.Dark {
		return nil, fmt.Errorf("%w: %s is dark", errObjectNotFound, e.druid)
	}
	return e, nil
}

// When the PURL service fails, a stale copy confirmed by it within maxStale
// is served rather than failing the embed (a PURL outage does not break
// pages that embed objects), and the PURL service is asked again after
// staleRetry at the earliest (or the TTL, when shorter).
const (
	maxStale   = 24 * time.Hour
	staleRetry = 30 * time.Second
)

// load fetches druid's record, revalidating a stale cached copy with its
// ETag; see maxStale for what a failure does.
func (s *Service) load(ctx context.Context, druid string) (*entry, error) {
	stale, fresh := s.cache.get(druid, s.cfg.Now())
	if stale != nil && fresh {
		return stale, nil // loaded by a caller that finished just before us
	}
	etag := ""
	if stale != nil && !stale.object.ExpiredBy(s.cfg.Now()) {
		// Conditional, unless the copy's access was read for an embargo
		// (the object's or a file's) released since: a 304 would keep it.
		etag = stale.etag
	}
	gen := s.cache.gen()
	rec, err := s.fetch.fetch(ctx, druid, etag)
	switch {
	case errors.Is(err, errObjectNotFound):
		s.cache.remove(druid)
		return nil, err
	case err != nil:
		now := s.cfg.Now()
		if stale != nil && now.Sub(stale.validated) < maxStale {
			s.log.WarnContext(ctx, "PURL fetch failed, serving stale object", "druid", druid, "err", err)
			// Try again after a while, not on every request: a hanging
			// PURL service would hold each of them for the fetch timeout.
			s.cache.touch(stale, now.Add(min(s.cfg.CacheTTL, staleRetry)), stale.validated)
			return stale, nil
		}
		s.log.ErrorContext(ctx, "PURL fetch failed", "druid", druid, "err", err)
		return nil, err
	case rec.notModified:
		now := s.cfg.Now()
		s.cache.touch(stale, now.Add(s.cfg.CacheTTL), now)
		return stale, nil
	}
	obj, err := objectview.Parse(rec.body, druid, s.cfg.Now())
	if err != nil {
		s.log.ErrorContext(ctx, "PURL record unreadable", "druid", druid, "err", err)
		return nil, fmt.Errorf("%w: %w", errUpstream, err)
	}
	if obj.ManifestUnknown {
		// Without an answer the viewer names no manifest: the object is
		// shown by its files, as when it has none.
		// The manifest also gives the sizes the PURL service read from
		// the files (thumbnail, downloads, oEmbed).
		body, has, err := s.fetch.manifest(ctx, druid)
		switch {
		case err != nil:
			s.log.WarnContext(ctx, "PURL manifest check failed: shown without a viewer of images", "druid", druid, "err", err)
		case has:
			obj.HasManifest = true
			if err := obj.SizeFromManifest(body, s.purl.ObjectURL(druid)); err != nil {
				s.log.WarnContext(ctx, "PURL manifest unreadable: images without a size stay without", "druid", druid, "err", err)
			}
		}
	}
	now := s.cfg.Now()
	e := &entry{
		druid:     druid,
		object:    obj,
		etag:      rec.etag,
		validated: now,
		expires:   now.Add(s.cfg.CacheTTL),
		rendered:  make(map[renderKey]rendering),
	}
	s.cache.putIfCurrent(e, len(rec.body), gen)
	return e, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
