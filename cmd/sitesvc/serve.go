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

// serviceConstructors builds each service from the serve configuration; the
// constructors live in cmd/sitesvc/<service>.go.
var serviceConstructors = map[string]func(*serveConfig) (server.Service, error){
	"purl":  newPurlService,
	"embed": newEmbedService,
	"hours": newHoursService,
	"soap":  newSOAPService,
}

// runServe is `sitesvc serve`: it runs the chosen services on one listener
// until SIGINT or SIGTERM, then finishes in-flight requests and exits.
func runServe(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	var c serveConfig
	services := newServeFlags(fs, env, &c)
	if err := parseFlags(fs, args, "sitesvc serve [flags]", `Runs the PURL, Embed, Hours and Algorithm (SOAP) services on one listener.
With no flags it serves everything at http://localhost:8080 on the built-in data,
writing under ./data (the PURL store, the Hours SQLite database, key and token
files). Development mode (--dev, which make run uses) adds a development SOAP key.`, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("serve takes flags only, not %q (see sitesvc serve --help)", fs.Args())
	}
	if err := c.finish(*services); err != nil {
		return err
	}
	c.Logger = newLogger(c.LogFormat, stderr)
	defer c.runExits()
	// The port first: when it is taken, serve stops before any service
	// starts (or says it is ready) and before the data directory is touched.
	ln, activated, err := listen(c.Addr)
	switch {
	case activated && err != nil:
		return err
	case err != nil:
		return listenError(c.Addr, err)
	}
	defer ln.Close()
	tokens, err := auth.Open(c.TokensFile)
	if err != nil {
		return fmt.Errorf("tokens file: %w", err)
	}
	c.Tokens = tokens
	if c.Dev {
		c.Logger.Warn("development mode (--dev): a development SOAP key is made and accepted; never use --dev in production")
	}

	// The sign-in before the services, which read sessions from it.
	signIn, signInMount, err := newSignIn(&c)
	if err != nil {
		return err
	}
	c.Sessions = signIn
	if signIn.Configured() {
		c.Logger.Info("staff sign-in ready", "mode", signIn.Mode(), "base_url", signInMount.BaseURL)
	}

	var mounts []server.Mount
	closeAll := func() {
		for _, m := range append(append(mounts, c.extraMounts...), signInMount) {
			if err := m.Service.Close(); err != nil {
				c.Logger.Error("closing service", "service", m.Service.Name(), "err", err)
			}
		}
	}
	for _, name := range c.Services {
		svc, err := serviceConstructors[name](&c)
		if err != nil {
			closeAll()
			// The service package's own prefix ("purl: …") repeats the name.
			return fmt.Errorf("starting the %s service: %s", name, strings.TrimPrefix(err.Error(), name+": "))
		}
		if name == "purl" {
			h := svc.Handler()
			c.localPurl.Store(&h) // Embed reads it directly (embed.go)
		}
		base := c.baseURL(name)
		mounts = append(mounts, server.Mount{Path: basePath(base), BaseURL: base, Service: svc, Contracts: contractLinks(name, base)})
		c.Logger.Info("service ready", "service", name, "base_url", base)
	}
	srv, err := server.New(server.Config{
		Addr:            c.Addr,
		Mounts:          append(append(mounts, c.extraMounts...), signInMount),
		Logger:          c.Logger,
		ReadTimeout:     c.ReadTimeout,
		WriteTimeout:    c.WriteTimeout,
		IdleTimeout:     c.IdleTimeout,
		ShutdownTimeout: c.ShutdownTimeout,
		MaxBodyBytes:    c.MaxBodyBytes,
	})
	if err != nil {
		closeAll()
		return err
	}
	// Services with metrics of their own (the PURL image service) report
	// them in /metrics.
	for _, m := range mounts {
		if col, ok := m.Service.(prometheus.Collector); ok {
			srv.Registry().MustRegister(col)
		}
	}
	return srv.Serve(ctx, ln)
}

// baseURL is the public base URL of the named service.
func (c *serveConfig) baseURL(service string) string {
	switch service {
	case "purl":
		return c.PurlBaseURL
	case "embed":
		return c.EmbedBaseURL
	case "hours":
		return c.HoursBaseURL
	default:
		return c.SOAPEndpoint
	}
}

// contractLinks are the contract documents a service publishes.
func contractLinks(service, base string) []server.Link {
	if service == "soap" {
		return []server.Link{{Title: "WSDL", URL: base + "?wsdl"}}
	}
	return []server.Link{
		{Title: "OpenAPI (YAML)", URL: base + "/openapi.yaml"},
		{Title: "OpenAPI (JSON)", URL: base + "/openapi.json"},
		{Title: "API documentation", URL: base + "/docs"},
	}
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
