package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// serveSettings are the values `sitesvc serve` runs with: each from a flag
// or its SITESVC_* environment variable (flag wins), else a default, and
// checked by check before anything starts. They hold no live dependency;
// wiring (services.go) builds those from them.
type serveSettings struct {
	Addr      string
	PublicURL string
	DataDir   string
	// Services are the services to run, by name, in --services' order.
	Services []string

	// Dev is development mode (--dev, `make run`): the Algorithm (SOAP) service creates
	// and accepts a development key kept in <data>/dev-key.txt.
	Dev bool

	TokensFile      string
	ReadTimeout     time.Duration
	WriteTimeout    time.Duration
	IdleTimeout     time.Duration
	ShutdownTimeout time.Duration
	MaxBodyBytes    int64
	LogFormat       string // "json" or "text"
	// GC is what serve asks of Go's garbage collector (gc.go).
	GC gcPolicy

	// SignIn are the staff sign-in's settings (signin.go); the sign-in is
	// the site's, not a service's.
	SignIn signinSettings

	// BaseURLs are the services' public base URLs by name: each its flag
	// (serviceDef.baseFlag), else its path under PublicURL.
	BaseURLs map[string]string
	// Service are each service's own settings by name (*purlSettings, …),
	// registered by its entry of serviceTable.
	Service map[string]serviceSettings

	// services is --services as given, baseFlags the base URL flags' values.
	services  string
	baseFlags map[string]*string
	// envErrs are SITESVC_* values that could not be parsed; check
	// reports them, so a typo in the environment is never silently a default.
	envErrs []error
}

// envFlags registers flags whose defaults come from their SITESVC_*
// environment variables; a value there that does not parse is collected
// in errs, which check reports (never a silent default).
type envFlags struct {
	fs   *flag.FlagSet
	env  func(string) string
	errs *[]error
}

// str registers a string flag.
func (f envFlags) str(p *string, name, def, help string) {
	v := def
	if e := f.env(envName(name)); e != "" {
		v = e
	}
	f.fs.StringVar(p, name, v, help+" (env "+envName(name)+")")
}

// dur registers a duration flag.
func (f envFlags) dur(p *time.Duration, name string, def time.Duration, help string) {
	v := def
	if e := f.env(envName(name)); e != "" {
		d, err := time.ParseDuration(e)
		if err != nil {
			*f.errs = append(*f.errs, fmt.Errorf("%s=%q is not a duration (like 30s, 2m or 8h)", envName(name), e))
		} else {
			v = d
		}
	}
	f.fs.DurationVar(p, name, v, help+" (env "+envName(name)+")")
}

// size registers a whole-number flag (bytes or a count).
func (f envFlags) size(p *int64, name string, def int64, help string) {
	v := def
	if e := f.env(envName(name)); e != "" {
		n, err := strconv.ParseInt(e, 10, 64)
		if err != nil {
			*f.errs = append(*f.errs, fmt.Errorf("%s=%q is not a whole number of bytes", envName(name), e))
		} else {
			v = n
		}
	}
	f.fs.Int64Var(p, name, v, help+" (env "+envName(name)+")")
}

// boolean registers a true/false flag.
func (f envFlags) boolean(p *bool, name string, def bool, help string) {
	v := def
	if e := f.env(envName(name)); e != "" {
		b, err := strconv.ParseBool(e)
		if err != nil {
			*f.errs = append(*f.errs, fmt.Errorf("%s=%q is not true or false", envName(name), e))
		} else {
			v = b
		}
	}
	f.fs.BoolVar(p, name, v, help+" (env "+envName(name)+")")
}

// newServeSettings registers the serve flags on fs, the process's and
// every service's of serviceTable, with defaults taken from the SITESVC_*
// environment variables; after fs.Parse, check completes them.
func newServeSettings(fs *flag.FlagSet, env func(string) string) *serveSettings {
	s := &serveSettings{BaseURLs: map[string]string{}, Service: map[string]serviceSettings{}, baseFlags: map[string]*string{}}
	ef := envFlags{fs: fs, env: env, errs: &s.envErrs}
	names := make([]string, len(serviceTable))
	for i, d := range serviceTable {
		names[i] = d.name
	}
	ef.str(&s.Addr, "addr", ":8080", "listen address")
	ef.str(&s.PublicURL, "public-url", "http://localhost:8080", "public URL the base URLs default under")
	ef.str(&s.DataDir, "data", "./data", "directory for what the embedded defaults write")
	ef.str(&s.services, "services", strings.Join(names, ","), "comma-separated services to run")
	ef.boolean(&s.Dev, "dev", false, "development mode: create and accept a development SOAP key (<data>/dev-key.txt); never in production")
	ef.str(&s.TokensFile, "tokens-file", "", "bearer token file (default <data>/tokens.json)")
	ef.str(&s.LogFormat, "log-format", "json", "log format: json or text")
	ef.dur(&s.ReadTimeout, "read-timeout", 30*time.Second, "HTTP read timeout")
	ef.dur(&s.WriteTimeout, "write-timeout", 60*time.Second, "HTTP write timeout")
	ef.dur(&s.IdleTimeout, "idle-timeout", 120*time.Second, "HTTP idle timeout")
	ef.dur(&s.ShutdownTimeout, "shutdown-timeout", 30*time.Second, "how long shutdown waits for in-flight requests")
	ef.size(&s.MaxBodyBytes, "max-body-bytes", 32<<20, "largest request body accepted (larger ones get 413)")
	ef.size(&s.GC.Percent, "gc-percent", defaultGCPercent, "garbage collector target, as GOGC: collect when the heap has grown by this percent of what is live (GOGC, when set, wins)")
	ef.size(&s.GC.MemoryLimit, "memory-limit", defaultMemoryLimit, "soft limit of the Go heap in bytes, as GOMEMLIMIT: the collector works harder near it; 0 for none (GOMEMLIMIT, when set, wins)")
	s.SignIn.register(ef)
	for _, d := range serviceTable {
		base := new(string)
		ef.str(base, d.baseFlag, "", d.baseHelp)
		s.baseFlags[d.name] = base
		s.Service[d.name] = d.settings(ef)
	}
	return s
}

// check fills the derived defaults and checks the settings, the
// process's and then every service's (whether it runs or not: a wrong
// value is never silently unused), naming the flag of the first wrong one.
func (s *serveSettings) check() error {
	if len(s.envErrs) > 0 {
		return errors.Join(s.envErrs...)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"read-timeout", s.ReadTimeout}, {"write-timeout", s.WriteTimeout}, {"idle-timeout", s.IdleTimeout}, {"shutdown-timeout", s.ShutdownTimeout}} {
		if d.v < 0 {
			return fmt.Errorf("--%s %s is negative", d.name, d.v)
		}
	}
	if s.ShutdownTimeout == 0 {
		return fmt.Errorf("--shutdown-timeout must be more than 0")
	}
	if s.LogFormat != "json" && s.LogFormat != "text" {
		return fmt.Errorf("--log-format %q: json or text", s.LogFormat)
	}
	if err := s.GC.check(); err != nil {
		return err
	}
	if s.MaxBodyBytes <= 0 {
		return fmt.Errorf("--max-body-bytes %d must be more than 0", s.MaxBodyBytes)
	}
	if err := checkAddr(s.Addr); err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	if err := checkBaseURL(s.PublicURL); err != nil {
		return fmt.Errorf("--public-url: %w", err)
	}
	public := strings.TrimRight(s.PublicURL, "/")
	for _, d := range serviceTable {
		u := *s.baseFlags[d.name]
		if u == "" {
			u = public + d.basePath
		}
		u = strings.TrimRight(u, "/")
		if err := checkBaseURL(u); err != nil {
			return fmt.Errorf("base URL: %w", err)
		}
		s.BaseURLs[d.name] = u
	}
	if s.TokensFile == "" {
		s.TokensFile = filepath.Join(s.DataDir, "tokens.json")
	}
	if err := s.chooseServices(); err != nil {
		return err
	}
	if err := s.SignIn.check(); err != nil {
		return err
	}
	for _, d := range serviceTable {
		if err := s.Service[d.name].check(s); err != nil {
			return err
		}
	}
	return nil
}

// chooseServices reads --services: known names, each once, at least one.
func (s *serveSettings) chooseServices() error {
	s.Services = nil
	var known []string
	for _, d := range serviceTable {
		known = append(known, d.name)
	}
	for _, name := range strings.Split(s.services, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if !slices.Contains(known, name) {
			return fmt.Errorf("--services: unknown service %q (known: %s)", name, strings.Join(known, ", "))
		}
		if slices.Contains(s.Services, name) {
			return fmt.Errorf("--services: %q named twice", name)
		}
		s.Services = append(s.Services, name)
	}
	if len(s.Services) == 0 {
		return fmt.Errorf("--services names no service")
	}
	return nil
}

// checkBaseURL accepts an absolute http(s) URL without query or fragment,
// which paths can be appended to.
func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || u.Host == "":
		return fmt.Errorf("%q is not an absolute URL", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q is not an http or https URL", raw)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return fmt.Errorf("%q has a query or fragment; a base URL is a scheme, host and path", raw)
	}
	return nil
}

// basePath is the path part of a base URL, "" for a URL at the root.
func basePath(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	// The escaped form, as the server matches mounts on the path as sent.
	return strings.TrimRight(u.EscapedPath(), "/")
}

func envName(flagName string) string {
	return "SITESVC_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// checkAddr accepts what a TCP listen address can be: host:port or :port,
// the port a number 0–65535 or a service name (http), the host a name or an
// IP address (IPv6 in brackets). A mistake is reported as what it is, not as
// a failure to listen ("is another server running there?").
func checkAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not a listen address: %v; write host:port or :port (like :8080 or 127.0.0.1:8080)", addr, strings.TrimPrefix(err.Error(), "address "+addr+": "))
	}
	if port == "" {
		return fmt.Errorf("%q has no port; write host:port or :port (like :8080)", addr)
	}
	if n, err := strconv.Atoi(port); err == nil {
		if n < 0 || n > 65535 {
			return fmt.Errorf("%q: port %d is not 0–65535", addr, n)
		}
	} else if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("%q: port %q is neither a number nor a known service name", addr, port)
	}
	if strings.ContainsAny(host, " /\\") {
		return fmt.Errorf("%q: %q is not a host name or IP address", addr, host)
	}
	return nil
}

// hoursDBScheme matches a URL scheme at the start of --hours-db.
var hoursDBScheme = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`)

// checkHoursDB accepts an empty --hours-db (SQLite under --data), a
// postgres:// or postgresql:// URL, or a SQLite file path. Any other URL
// scheme (mysql://, sqlite://, …) is refused by name: it used to be taken as
// a SQLite path and fail later with "out of memory (14)".
func checkHoursDB(dsn string) error {
	m := hoursDBScheme.FindStringSubmatch(dsn)
	if m == nil {
		return nil
	}
	switch strings.ToLower(m[1]) {
	case "postgres", "postgresql":
		if m[1] != strings.ToLower(m[1]) {
			return fmt.Errorf("write the scheme %s:// in lower case", strings.ToLower(m[1]))
		}
		return nil
	}
	return fmt.Errorf("the %s:// scheme is not supported: give a postgres:// (or postgresql://) URL for PostgreSQL, or a file path (or nothing) for SQLite", m[1])
}
