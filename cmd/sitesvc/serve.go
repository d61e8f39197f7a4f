package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/server"
)

// runServe is `sitesvc serve`: it runs the chosen services on one listener
// until SIGINT or SIGTERM, then finishes in-flight requests and exits.
func runServe(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	settings := newServeSettings(fs, env)
	if err := parseFlags(fs, args, "sitesvc serve [flags]", `Runs the PURL, Embed, Hours and Algorithm (SOAP) services on one listener.
With no flags it serves everything at http://localhost:8080 on the built-in data,
writing under ./data (the PURL store, the Hours SQLite database, key and token
files). Development mode (--dev, which make run uses) adds a development SOAP key.`, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve takes flags only, not %q (see sitesvc serve --help)", fs.Args())
	}
	if err := settings.check(); err != nil {
		return err
	}
	w := &wiring{settings: settings, logger: newLogger(settings.LogFormat, stderr)}
	defer w.runExits()
	defer settings.GC.apply(env, w.logger)()
	// The port first: when it is taken, serve stops before any service
	// starts (or says it is ready) and before the data directory is touched.
	ln, activated, err := listen(settings.Addr)
	switch {
	case activated && err != nil:
		return err
	case err != nil:
		return listenError(settings.Addr, err)
	}
	defer ln.Close()
	srv, err := w.build()
	if err != nil {
		return err
	}
	return srv.Serve(ctx, ln)
}

// build makes the sign-in and the chosen services from the settings and
// the server that mounts them; what it made is closed again when a later
// step fails.
func (w *wiring) build() (*server.Server, error) {
	s := w.settings
	tokens, err := auth.Open(s.TokensFile)
	if err != nil {
		return nil, fmt.Errorf("tokens file: %w", err)
	}
	w.tokens = tokens
	if s.Dev {
		w.logger.Warn("development mode (--dev): a development SOAP key is made and accepted; never use --dev in production")
	}

	// The sign-in before the services, which read sessions from it.
	signIn, signInMount, err := newSignIn(w)
	if err != nil {
		return nil, err
	}
	w.sessions = signIn
	if signIn.Configured() {
		w.logger.Info("staff sign-in ready", "mode", signIn.Mode(), "base_url", signInMount.BaseURL)
	}

	var mounts []server.Mount
	all := func() []server.Mount { return append(append(mounts, w.extraMounts...), signInMount) }
	closeAll := func() {
		for _, m := range all() {
			if err := m.Service.Close(); err != nil {
				w.logger.Error("closing service", "service", m.Service.Name(), "err", err)
			}
		}
	}
	for _, name := range s.Services {
		d, _ := service(name) // check knows every name
		svc, err := d.build(w, s.Service[name])
		if err != nil {
			closeAll()
			// The service package's own prefix ("purl: …") repeats the name.
			return nil, fmt.Errorf("starting the %s service: %s", name, strings.TrimPrefix(err.Error(), name+": "))
		}
		base := s.BaseURLs[name]
		mounts = append(mounts, server.Mount{Path: basePath(base), BaseURL: base, Service: svc, Contracts: d.contracts(base)})
		w.logger.Info("service ready", "service", name, "base_url", base)
	}
	srv, err := server.New(server.Config{
		Addr:            s.Addr,
		Mounts:          all(),
		Logger:          w.logger,
		ReadTimeout:     s.ReadTimeout,
		WriteTimeout:    s.WriteTimeout,
		IdleTimeout:     s.IdleTimeout,
		ShutdownTimeout: s.ShutdownTimeout,
		MaxBodyBytes:    s.MaxBodyBytes,
	})
	if err != nil {
		closeAll()
		return nil, err
	}
	// Services with metrics of their own (the PURL image service) report
	// them in /metrics.
	for _, m := range mounts {
		if col, ok := m.Service.(prometheus.Collector); ok {
			srv.Registry().MustRegister(col)
		}
	}
	return srv, nil
}

// newLogger is the process's logger; what is logged with a request's
// context carries its request id.
func newLogger(format string, w io.Writer) *slog.Logger {
	if format == "text" {
		return slog.New(server.WithRequestIDs(slog.NewTextHandler(w, nil)))
	}
	return slog.New(server.WithRequestIDs(slog.NewJSONHandler(w, nil)))
}

// listenError says why listening on addr failed: a port in use (another
// server), no permission (a port under 1024), an address this host does not
// have or cannot resolve; each with what to do.
func listenError(addr string, err error) error {
	var dnsErr *net.DNSError
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return fmt.Errorf("cannot listen on %s: %w (is another server running there? stop it or choose another --addr)", addr, err)
	case errors.Is(err, syscall.EACCES):
		return fmt.Errorf("cannot listen on %s: %w (ports below 1024 need privileges; choose another --addr)", addr, err)
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return fmt.Errorf("cannot listen on %s: %w (the host has no such address; check the host part of --addr)", addr, err)
	case errors.As(err, &dnsErr):
		return fmt.Errorf("cannot listen on %s: the host name does not resolve: %w (check the host part of --addr)", addr, err)
	}
	return fmt.Errorf("cannot listen on %s: %w (check --addr)", addr, err)
}
