package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Mount places a service under a path.
type Mount struct {
	// Path is the path of the service's base URL ("/purl", "" for the root).
	// A path ending in a name with no trailing slash, like the SOAP
	// endpoint "/soap/SiteAlgorithm", also matches exactly.
	Path    string
	Service Service
	// BaseURL is the service's public base URL, shown on the index page.
	BaseURL string
	// Contracts link the documents the service publishes (OpenAPI, WSDL),
	// listed first on the index page.
	Contracts []Link
}

// Config configures a Server.
type Config struct {
	Addr            string
	Mounts          []Mount
	Logger          *slog.Logger
	ReadTimeout     time.Duration
	WriteTimeout    time.Duration
	IdleTimeout     time.Duration
	ShutdownTimeout time.Duration
	// MaxBodyBytes bounds every request body; a larger body gets 413.
	MaxBodyBytes int64
}

// Server runs the mounted services on one listener.
type Server struct {
	cfg      Config
	handler  http.Handler
	registry *prometheus.Registry
	metrics  *httpMetrics
}

// New builds a Server. It does not listen yet.
func New(cfg Config) (*Server, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = 32 << 20
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 30 * time.Second
	}
	seen := map[string]bool{}
	for _, m := range cfg.Mounts {
		p := strings.TrimRight(m.Path, "/")
		if seen[p] {
			return nil, fmt.Errorf("server: two services mounted at %q", m.Path)
		}
		seen[p] = true
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s := &Server{cfg: cfg, registry: reg, metrics: newHTTPMetrics(reg)}
	s.handler = s.routes()
	return s, nil
}

// Handler is the whole server as an http.Handler (for tests).
func (s *Server) Handler() http.Handler { return s.handler }

// Registry is the Prometheus registry served at /metrics; services may
// register their own collectors on it.
func (s *Server) Registry() *prometheus.Registry { return s.registry }

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", s.readyz)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.registry, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /{$}", s.index)

	// Longest mount path first, so "/soap/SiteAlgorithm" is tried before a
	// service mounted at the root.
	mounts := append([]Mount(nil), s.cfg.Mounts...)
	sort.SliceStable(mounts, func(i, j int) bool { return len(mounts[i].Path) > len(mounts[j].Path) })
	type prefixed struct {
		path    string
		name    string
		handler http.Handler
	}
	var routes []prefixed
	for _, m := range mounts {
		p := strings.TrimRight(m.Path, "/")
		routes = append(routes, prefixed{path: p, name: m.Service.Name(), handler: m.Service.Handler()})
	}
	return s.middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, rt := range routes {
			rest, ok := underPrefix(r.URL.Path, rt.path)
			if !ok {
				continue
			}
			setService(r.Context(), rt.name)
			r2 := new(http.Request)
			*r2 = *r
			u := *r.URL
			u.Path = rest
			if r.URL.RawPath != "" {
				if raw, ok := underPrefix(r.URL.RawPath, rt.path); ok && raw != "/" {
					u.RawPath = raw
				} else {
					u.RawPath = ""
				}
			}
			r2.URL = &u
			rt.handler.ServeHTTP(w, r2)
			return
		}
		mux.ServeHTTP(w, r)
	}))
}

// underPrefix reports whether path lies under prefix and returns the rest,
// which always starts with "/" (the prefix itself becomes "/").
func underPrefix(path, prefix string) (string, bool) {
	if prefix == "" {
		// A service at the root takes everything the process does not
		// serve itself.
		switch path {
		case "/healthz", "/readyz", "/metrics":
			return "", false
		}
		return path, true
	}
	if path == prefix {
		return "/", true
	}
	if strings.HasPrefix(path, prefix+"/") {
		return path[len(prefix):], true
	}
	return "", false
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	var failed []string
	for _, m := range s.cfg.Mounts {
		if err := m.Service.Ready(ctx); err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", m.Service.Name(), err))
		}
	}
	if len(failed) > 0 {
		w.WriteHeader(http.StatusServiceUnavailable)
		for _, f := range failed {
			fmt.Fprintln(w, f)
		}
		return
	}
	fmt.Fprintln(w, "ready")
}

// ListenAndServe serves until ctx is done, then shuts down gracefully:
// it stops accepting connections and lets in-flight requests finish (up
// to ShutdownTimeout).
func (s *Server) ListenAndServe(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		return fmt.Errorf("server: listening on %s: %w", s.cfg.Addr, err)
	}
	return s.Serve(ctx, ln)
}

// Serve is ListenAndServe on an existing listener.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s.handler,
		ReadTimeout:       s.cfg.ReadTimeout,
		ReadHeaderTimeout: 10 * time.Second,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(s.cfg.Logger.Handler(), slog.LevelWarn),
	}
	s.cfg.Logger.Info("listening", "addr", ln.Addr().String())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("server: %w", err)
	case <-ctx.Done():
	}
	s.cfg.Logger.Info("shutting down", "timeout", s.cfg.ShutdownTimeout.String())
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("server: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("server: %w", err)
	}
	var closeErrs []error
	for _, m := range s.cfg.Mounts {
		if err := m.Service.Close(); err != nil {
			closeErrs = append(closeErrs, fmt.Errorf("closing %s: %w", m.Service.Name(), err))
		}
	}
	s.cfg.Logger.Info("stopped")
	return errors.Join(closeErrs...)
}

func newRequestID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	return hex.EncodeToString(b[:])
}
