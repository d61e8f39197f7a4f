// Package hours is the Hours service: library opening hours as JSON:API
// documents (current API), the deprecated legacy API, and authenticated
// JSON:API writes of libraries, locations, terms, weekly schedules and
// per-date exceptions. The contract is api/hours.yaml (gen/hoursapi).
package hours

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/hours/store"
	"github.com/sitelib/sitesvc/impl/server"
)

// Authenticator checks bearer tokens (auth.Tokens is one).
type Authenticator interface {
	Authenticate(token string) (auth.Principal, bool)
}

// Config configures the service.
type Config struct {
	// BaseURL is the public base URL ({hours_base_url}); links are built
	// from it.
	BaseURL string
	// DB is the database: a SQLite file path or a postgres:// URL.
	DB string
	// SampleData fills an empty database with the sample libraries.
	SampleData bool
	// Tokens authenticates writes; nil refuses every write with 401.
	Tokens Authenticator
	// Sessions is the site's sign-in: a write without an Authorization
	// header is authorised by the browser's session (with its CSRF
	// token). Nil: bearer tokens only.
	Sessions auth.SessionReader
	// SiteURL is the site's public URL, where the sign-in's /auth/ paths
	// are (the staff editor links them). Empty: BaseURL without its last
	// path segment (the default <public-url>/hours).
	SiteURL string
	// Logger receives errors; nil discards them.
	Logger *slog.Logger
	// Now is the clock ("today", the current week); nil is time.Now.
	Now func() time.Time
	// Refresh is how long a database snapshot and the documents rendered
	// from it are reused before the database is read again (writes through
	// this process are seen at once; writes by other processes sharing a
	// PostgreSQL database within Refresh). Zero is 5 s; negative disables
	// the reuse (every read renders afresh — for benchmarks).
	Refresh time.Duration
	// MaxAge is the Cache-Control max-age of reads. Zero is 60 s.
	MaxAge time.Duration
}

// Service is the Hours service (a server.Service).
type Service struct {
	cfg   Config
	store *store.Store
	rend  renderer
	e     *echo.Echo
	http  http.Handler // e, answering HEAD too
	cache *docCache
	// readCacheControl is the Cache-Control value of reads.
	readCacheControl []string
	// nowKey is the range key of the current quarter hour (quarterKey).
	nowKey atomic.Pointer[quarterRangeKey]
}

var _ server.Service = (*Service)(nil)

// New opens the database (applying migrations), loads the sample data
// when asked and builds the HTTP handler.
func New(ctx context.Context, cfg Config) (*Service, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Refresh == 0 {
		cfg.Refresh = 5 * time.Second
	}
	if cfg.MaxAge == 0 {
		cfg.MaxAge = 60 * time.Second
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.DB == "" {
		return nil, errors.New("hours: no database configured")
	}
	st, err := store.Open(ctx, cfg.DB)
	if err != nil {
		return nil, fmt.Errorf("hours: %w", err)
	}
	if cfg.SampleData {
		if err := st.Seed(ctx, cfg.Now()); err != nil {
			st.Close()
			return nil, fmt.Errorf("hours: %w", err)
		}
	}
	s := &Service{cfg: cfg, store: st, rend: renderer{base: cfg.BaseURL}, cache: newDocCache(st, cfg.Refresh),
		readCacheControl: []string{fmt.Sprintf("public, max-age=%d", int(cfg.MaxAge.Seconds()))}}
	if s.e, err = s.echo(); err != nil {
		st.Close()
		return nil, err
	}
	s.http = s.withEditor(s.e)
	return s, nil
}

// Name is "hours".
func (s *Service) Name() string { return "hours" }

// Handler serves the API (paths relative to the base URL); every GET
// answers HEAD too.
func (s *Service) Handler() http.Handler { return s.http }

// Ready checks the database and, for SQLite, that its directory and file
// can be written (SQLite writes its journal beside the file).
func (s *Service) Ready(ctx context.Context) error {
	if err := s.store.Ping(ctx); err != nil {
		return err
	}
	if s.store.Dialect() != store.SQLite {
		return nil
	}
	if err := server.Writable(filepath.Dir(s.cfg.DB)); err != nil {
		return fmt.Errorf("hours database: %w", err)
	}
	f, err := os.OpenFile(s.cfg.DB, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("hours database: not ready for writes: %w", err)
	}
	return f.Close()
}

// Close closes the database.
func (s *Service) Close() error { return s.store.Close() }

// Store is the service's repository (for the admin commands and tests).
func (s *Service) Store() *store.Store { return s.store }

// IndexLinks lists the contract and example queries on the index page.
func (s *Service) IndexLinks() []server.Link {
	return []server.Link{
		{Title: "Hours: OpenAPI document", URL: s.cfg.BaseURL + "/openapi.yaml"},
		{Title: "Hours: this week, every library", URL: s.cfg.BaseURL + "/libraries.json"},
		{Title: "Hours: Green Library", URL: s.cfg.BaseURL + "/libraries/green.json"},
		{Title: "Hours: legacy API, Law Library today", URL: s.cfg.BaseURL + "/api/v1/library/law/location/main/hours/for/today"},
	}
}

// rendered is a response body ready to send, with its validator.
type rendered struct {
	body        []byte
	etag        string
	contentType string
	// The same as header values, prepared once: a cached document is
	// served without formatting or allocating them per request.
	header struct{ etag, contentType, length []string }
	// read is the document as a read serves it (with the reads'
	// Cache-Control), prepared by Service.read before the cache shares it.
	read *apiserve.Content
}

func newRendered(doc any, contentType string) (*rendered, error) {
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("hours: encoding document: %w", err)
	}
	return renderedBytes(body, contentType), nil
}

// renderedBytes is a ready body with its validator and prepared header values.
func renderedBytes(body []byte, contentType string) *rendered {
	sum := sha256.Sum256(body)
	r := &rendered{body: body, etag: `"` + hex.EncodeToString(sum[:16]) + `"`, contentType: contentType}
	r.header.etag, r.header.contentType, r.header.length = []string{r.etag}, []string{contentType}, []string{strconv.Itoa(len(body))}
	return r
}

// write answers with the document: its prepared header values, then the
// bytes (the only form in which the read API's documents are served; see
// "Responses" in docs/architecture.md).
func (r *rendered) write(w http.ResponseWriter, status int) error {
	h := w.Header()
	h["Content-Type"] = r.header.contentType
	h["Content-Length"] = r.header.length
	w.WriteHeader(status)
	_, err := w.Write(r.body)
	return err
}

// docCache holds the current view of the database and the documents
// rendered from it (an LRU, golang-lru's simplelru under mu). Both are
// dropped on every write through this process and after refresh.
type docCache struct {
	st      *store.Store
	refresh time.Duration

	mu     sync.Mutex
	view   *view
	loaded time.Time
	docs   *simplelru.LRU[string, *rendered]
	bytes  int // total size of docs, kept by the LRU's eviction callback
}

// Bounds on the rendered documents kept: distinct URLs with arbitrary
// ranges (up to 18 months of every library, several megabytes each) could
// otherwise grow the cache without limit. Past a bound the least recently
// read documents go; a document bigger than maxCachedDocBytes is not kept.
const (
	maxCachedDocs     = 512
	maxCachedBytes    = 64 << 20
	maxCachedDocBytes = 8 << 20
)

func newDocCache(st *store.Store, refresh time.Duration) *docCache {
	c := &docCache{st: st, refresh: refresh}
	docs, err := simplelru.NewLRU[string, *rendered](maxCachedDocs, func(_ string, r *rendered) { c.bytes -= len(r.body) })
	if err != nil {
		// Only a size below 1, which maxCachedDocs is not.
		panic("hours: document cache: " + err.Error())
	}
	c.docs = docs
	return c
}

// current returns the view, reading the database when it is stale.
func (c *docCache) current(ctx context.Context) (*view, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fresh() {
		return c.view, nil
	}
	snap, err := c.st.Load(ctx)
	if err != nil {
		return nil, err
	}
	v, err := newView(snap)
	if err != nil {
		return nil, fmt.Errorf("hours: %w", err)
	}
	c.view, c.loaded = v, time.Now()
	c.docs.Purge()
	return v, nil
}

// fresh reports whether the view may be used without reading the
// database again (c.mu held).
func (c *docCache) fresh() bool {
	return c.view != nil && c.refresh > 0 && time.Since(c.loaded) < c.refresh
}

// invalidate forgets the view and every rendered document.
func (c *docCache) invalidate() {
	c.mu.Lock()
	c.view = nil
	c.docs.Purge()
	c.mu.Unlock()
}

// get returns the document for key, building it from the current view
// when it is not cached. The key must determine the document given the
// view (it includes the current date where "today" matters).
func (c *docCache) get(ctx context.Context, key string, build func(*view) (*rendered, error)) (*rendered, error) {
	if c.refresh > 0 {
		// Most reads: a document of the current view, under one lock.
		c.mu.Lock()
		if c.fresh() {
			if r, ok := c.docs.Get(key); ok {
				c.mu.Unlock()
				return r, nil
			}
		}
		c.mu.Unlock()
	}
	v, err := c.current(ctx)
	if err != nil {
		return nil, err
	}
	if c.refresh > 0 {
		c.mu.Lock()
		r, ok := c.docs.Get(key)
		c.mu.Unlock()
		if ok {
			return r, nil
		}
	}
	r, err := build(v)
	if err != nil || c.refresh <= 0 {
		return r, err
	}
	c.mu.Lock()
	if c.view == v && len(r.body) <= maxCachedDocBytes { // view not replaced meanwhile
		if !c.docs.Contains(key) {
			c.docs.Add(key, r) // past maxCachedDocs the least recent goes
			c.bytes += len(r.body)
			for c.bytes > maxCachedBytes && c.docs.Len() > 1 {
				c.docs.RemoveOldest()
			}
		}
	}
	c.mu.Unlock()
	return r, nil
}
