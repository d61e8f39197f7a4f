package server

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
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
	// Path is the path of the service's base URL as it appears in URLs
	// (percent-encoded), "/purl", or "" for the root.
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
	// readyTimeout bounds /readyz (5 s; shorter in tests).
	readyTimeout time.Duration
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
	// Services are told apart by path only: two base URLs that differ only
	// in host (or scheme) cannot share this process's one listener.
	seen := map[string]string{}
	for _, m := range cfg.Mounts {
		p := strings.TrimRight(m.Path, "/")
		if other, ok := seen[p]; ok {
			return nil, fmt.Errorf("server: %s and %s are both mounted at path %q (base URLs differing only in host need separate processes)", other, m.Service.Name(), m.Path)
		}
		seen[p] = m.Service.Name()
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s := &Server{cfg: cfg, registry: reg, metrics: newHTTPMetrics(reg), readyTimeout: 5 * time.Second}
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
		metrics *mountMetrics
		handler http.Handler
	}
	var routes []prefixed
	for _, m := range mounts {
		p := strings.TrimRight(m.Path, "/")
		routes = append(routes, prefixed{path: p, metrics: s.metrics.forService(m.Service.Name()), handler: m.Service.Handler()})
	}
	return s.middleware(func(w http.ResponseWriter, r *http.Request, st *requestState) {
		// Mounts are matched on the path as sent: "/purl%2Fx" is one segment
		// at the root, not "/x" under "/purl".
		escaped := decodeUnreserved(r.URL.EscapedPath())
		for _, rt := range routes {
			rawRest, ok := underPrefix(escaped, rt.path)
			if !ok {
				continue
			}
			rest, err := url.PathUnescape(rawRest)
			if err != nil {
				continue
			}
			st.info.mount = rt.metrics
			// r is the middleware's copy: its URL is replaced, not edited
			// (the caller's URL is shared with net/http's request).
			st.url = *r.URL
			st.url.Path, st.url.RawPath = rest, ""
			if st.url.EscapedPath() != rawRest {
				st.url.RawPath = rawRest
			}
			r.URL = &st.url
			rt.handler.ServeHTTP(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// decodeUnreserved decodes the percent-encoded unreserved characters of an
// escaped path (letters, digits, "-", ".", "_", "~"), which RFC 3986 makes
// equivalent to the characters themselves, and leaves every other escape
// (such as "%2F") as sent.
func decodeUnreserved(escaped string) string {
	if !strings.Contains(escaped, "%") {
		return escaped
	}
	var b strings.Builder
	for i := 0; i < len(escaped); i++ {
		if escaped[i] == '%' && i+2 < len(escaped) {
			if v, err := strconv.ParseUint(escaped[i+1:i+3], 16, 8); err == nil && isUnreserved(byte(v)) {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(escaped[i])
	}
	return b.String()
}

func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
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
	ctx, cancel := context.WithTimeout(r.Context(), s.readyTimeout)
	defer cancel()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	// The services are asked at once, and a check that ignores ctx still
	// cannot hold /readyz past the deadline: it then counts as failed.
	results := make([]chan error, len(s.cfg.Mounts))
	for i, m := range s.cfg.Mounts {
		results[i] = make(chan error, 1)
		go func() { results[i] <- m.Service.Ready(ctx) }()
	}
	var failed []string
	for i, m := range s.cfg.Mounts {
		var err error
		select {
		case err = <-results[i]:
		case <-ctx.Done():
			// An answer that came in time wins over the deadline.
			select {
			case err = <-results[i]:
			default:
				err = fmt.Errorf("no answer within the readiness deadline: %w", ctx.Err())
			}
		}
		if err != nil {
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
	// Headers get at most 10 s (slow-header clients), never more than the
	// whole read may take: net/http uses ReadHeaderTimeout instead of
	// ReadTimeout for the headers when it is set.
	headerTimeout := 10 * time.Second
	if s.cfg.ReadTimeout > 0 && s.cfg.ReadTimeout < headerTimeout {
		headerTimeout = s.cfg.ReadTimeout
	}
	hs := &http.Server{
		Handler:           s.handler,
		ReadTimeout:       s.cfg.ReadTimeout,
		ReadHeaderTimeout: headerTimeout,
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
	var closeErrs []error
	if err := hs.Shutdown(sctx); err != nil {
		// Requests still running past the timeout are cut off (their
		// connections closed), the services are still closed, and the exit
		// reports it.
		s.cfg.Logger.Error("shutdown timeout exceeded; closing the remaining connections", "timeout", s.cfg.ShutdownTimeout.String())
		hs.Close()
		closeErrs = append(closeErrs, fmt.Errorf("server: shutdown: in-flight requests did not finish within %s: %w", s.cfg.ShutdownTimeout, err))
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		closeErrs = append(closeErrs, fmt.Errorf("server: %w", err))
	}
	for _, m := range s.cfg.Mounts {
		if err := m.Service.Close(); err != nil {
			closeErrs = append(closeErrs, fmt.Errorf("closing %s: %w", m.Service.Name(), err))
		}
	}
	s.cfg.Logger.Info("stopped")
	return errors.Join(closeErrs...)
}

// newRequestID is 16 random hex digits. Ids tell requests apart in logs
// and are no secret, so they come from math/rand/v2's per-thread generator
// (seeded by the runtime from the system) rather than from the system's
// random source on every request.
func newRequestID() string {
	var raw [8]byte
	binary.BigEndian.PutUint64(raw[:], rand.Uint64())
	var b [16]byte
	hex.Encode(b[:], raw[:])
	return string(b[:])
}
