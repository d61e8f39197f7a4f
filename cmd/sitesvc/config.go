package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
	"github.com/sitelib/sitesvc/impl/server"
)

// serveConfig is everything `sitesvc serve` is configured with. Each field
// has a flag and a SITESVC_* environment variable (flag wins).
type serveConfig struct {
	// objectChanges connects PURL's change notifications to Embed
	// (changes.go); not a flag.
	objectChanges *objectChanges

	Addr      string
	PublicURL string
	DataDir   string
	Services  []string

	PurlBaseURL  string
	EmbedBaseURL string
	HoursBaseURL string
	SOAPEndpoint string

	// Dev is development mode (--dev, `make run`): the Algorithm (SOAP) service creates
	// and accepts a development key kept in <data>/dev-key.txt.
	Dev bool

	// PURL
	PurlSamplesDir      string // sample objects loaded into an empty store: "" built in, "none", or a directory
	PurlLargeSamplesDir string // large sample objects made by make samples-large, loaded with the samples ("" none)
	// PurlLocationNetworks: "name=CIDR,CIDR;name2=CIDR", the client networks
	// that count as being at a location (location-restricted files).
	PurlLocationNetworks string
	// PurlAccessNames: "group:slug=Name;location:slug=Name", the names
	// patrons read on PURL pages for login groups and locations.
	PurlAccessNames string
	// PurlAccessContact: whom patrons contact about restricted files.
	PurlAccessContact string
	// PurlMODSSchema is the MODS 3.6 XSD published MODS records are checked
	// against (with xmllint); empty means the built-in one.
	PurlMODSSchema string
	// IIIF image service bounds: builds running at once, builds waiting
	// (past it 503), bytes of the tile cache on disk (0: the defaults).
	IIIFMaxBuilds     int64
	IIIFBuildQueue    int64
	IIIFCacheMaxBytes int64

	// Embed
	// EmbedPurlURL is where Embed fetches PURL records when the PURL service
	// runs in another process: an internal URL of it. Empty: in one process
	// Embed reads the PURL service directly, else through PurlBaseURL.
	EmbedPurlURL string
	// localPurl is the PURL service of this process, once built (Embed
	// reads it directly); not a flag.
	localPurl    atomic.Pointer[http.Handler]
	ProviderName string
	ViewerDir    string // directory holding Mirador's mirador.min.js; empty: the built-in bundle

	// Hours
	HoursDB string // "" = SQLite under DataDir; postgres://… = PostgreSQL

	// Algorithm (SOAP)
	HivdbDir         string // empty: the built-in data (bundled/hivdb)
	RequestNamespace string
	KeysFile         string

	// Process-wide
	TokensFile      string
	ReadTimeout     time.Duration
	WriteTimeout    time.Duration
	IdleTimeout     time.Duration
	ShutdownTimeout time.Duration
	MaxBodyBytes    int64
	LogFormat       string // "json" or "text"

	Logger *slog.Logger
	// envErrs are SITESVC_* values that could not be parsed; finish
	// reports them, so a typo in the environment is never silently a default.
	envErrs []error
	// Tokens authorises write operations (PURL publishing, setting hours).
	Tokens *auth.Tokens
	// SignIn are the staff sign-in's settings (signin.go); Sessions is
	// the sign-in the services read sessions from.
	SignIn   signinSettings
	Sessions auth.SessionReader
	// Patron are the settings of restricted items for patrons
	// (iiifauth.go); extraMounts are mounts services add (the IIIF
	// Authorization Flow's).
	Patron      patronSettings
	extraMounts []server.Mount
	// hoursService is the Hours service once made (locationhours.go).
	hoursService server.Service
	// exits run when serve ends (temporary files of built-in data).
	exits []func() error
}

// onExit has f run when serve ends.
func (c *serveConfig) onExit(f func() error) { c.exits = append(c.exits, f) }

// runExits runs the onExit functions, logging what fails.
func (c *serveConfig) runExits() {
	for _, f := range c.exits {
		if err := f(); err != nil && c.Logger != nil {
			c.Logger.Warn("cleaning up", "err", err)
		}
	}
}

var allServices = []string{"purl", "embed", "hours", "soap"}

// envFlags registers flags whose defaults come from their SITESVC_*
// environment variables; a value there that does not parse is collected
// in errs, which finish reports (never a silent default).
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

// newServeFlags registers the serve flags on fs, with defaults taken from
// the SITESVC_* environment variables.
func newServeFlags(fs *flag.FlagSet, env func(string) string, c *serveConfig) *string {
	ef := envFlags{fs: fs, env: env, errs: &c.envErrs}
	str, dur := ef.str, ef.dur
	size := func(p *int64, name string, def int64, help string) {
		v := def
		if e := env(envName(name)); e != "" {
			n, err := strconv.ParseInt(e, 10, 64)
			if err != nil {
				c.envErrs = append(c.envErrs, fmt.Errorf("%s=%q is not a whole number of bytes", envName(name), e))
			} else {
				v = n
			}
		}
		fs.Int64Var(p, name, v, help+" (env "+envName(name)+")")
	}
	boolean := func(p *bool, name string, def bool, help string) {
		v := def
		if e := env(envName(name)); e != "" {
			b, err := strconv.ParseBool(e)
			if err != nil {
				c.envErrs = append(c.envErrs, fmt.Errorf("%s=%q is not true or false", envName(name), e))
			} else {
				v = b
			}
		}
		fs.BoolVar(p, name, v, help+" (env "+envName(name)+")")
	}
	services := new(string)
	str(&c.Addr, "addr", ":8080", "listen address")
	str(&c.PublicURL, "public-url", "http://localhost:8080", "public URL the base URLs default under")
	str(&c.DataDir, "data", "./data", "directory for what the embedded defaults write")
	str(services, "services", strings.Join(allServices, ","), "comma-separated services to run")
	str(&c.PurlBaseURL, "purl-base-url", "", "PURL base URL (default <public-url>/purl)")
	str(&c.EmbedBaseURL, "embed-base-url", "", "Embed base URL (default <public-url>/embed)")
	str(&c.HoursBaseURL, "hours-base-url", "", "Hours base URL (default <public-url>/hours)")
	str(&c.SOAPEndpoint, "soap-endpoint", "", "Algorithm (SOAP) endpoint URL (default <public-url>/soap/SiteAlgorithm)")
	boolean(&c.Dev, "dev", false, "development mode: create and accept a development SOAP key (<data>/dev-key.txt); never in production")
	str(&c.PurlSamplesDir, "purl-samples", "", "sample PURL objects loaded into an empty store: empty for the built-in samples, none for no samples, or a directory")
	str(&c.PurlLargeSamplesDir, "purl-large-samples", "", "directory of large sample PURL objects (24 MP image, JPEG 2000, video) that make samples-large writes to samples/large, loaded with the samples (make run passes it)")
	str(&c.PurlLocationNetworks, "purl-location-networks", "", "networks of PURL read locations: name=CIDR,CIDR;name2=CIDR")
	str(&c.PurlAccessNames, "purl-access-names", "", "names PURL pages show for login groups and locations: group:slug=Name;location:slug=Name (default: the slug)")
	str(&c.PurlAccessContact, "purl-access-contact", "", "whom PURL pages tell patrons to contact about restricted files: an e-mail address, a URL or text")
	str(&c.PurlMODSSchema, "purl-mods-schema", "", "MODS 3.6 XSD that published MODS records are checked against with xmllint (empty: the built-in one)")
	str(&c.EmbedPurlURL, "embed-purl-url", "", "where Embed fetches PURL records when the PURL service runs in another process (an internal URL of its base, like http://purl.internal:8080/purl); empty: directly in one process, else the PURL base URL")
	str(&c.ProviderName, "provider-name", "sitesvc digital library", "oEmbed provider_name")
	str(&c.ViewerDir, "viewer-dir", "", "directory holding Mirador's mirador.min.js, overriding the built-in bundle")
	str(&c.HoursDB, "hours-db", "", "hours database: empty for SQLite under --data, or a postgres:// URL")
	str(&c.HivdbDir, "hivdb-dir", "", "directory of HIV-1 algorithms/ and reference/ overriding the built-in ones (a newer HIVDB release)")
	str(&c.RequestNamespace, "request-namespace", "http://algorithm.sitesvc.org", "SOAP request namespace")
	str(&c.KeysFile, "keys-file", "", "SOAP API key file (default <data>/keys.txt)")
	str(&c.TokensFile, "tokens-file", "", "bearer token file (default <data>/tokens.json)")
	str(&c.LogFormat, "log-format", "json", "log format: json or text")
	dur(&c.ReadTimeout, "read-timeout", 30*time.Second, "HTTP read timeout")
	dur(&c.WriteTimeout, "write-timeout", 60*time.Second, "HTTP write timeout")
	dur(&c.IdleTimeout, "idle-timeout", 120*time.Second, "HTTP idle timeout")
	dur(&c.ShutdownTimeout, "shutdown-timeout", 30*time.Second, "how long shutdown waits for in-flight requests")
	size(&c.MaxBodyBytes, "max-body-bytes", 32<<20, "largest request body accepted (larger ones get 413)")
	newSigninFlags(fs, env, c)
	newPatronFlags(fs, env, c)
	size(&c.IIIFCacheMaxBytes, "iiif-cache-max-bytes", iiifimage.DefaultMaxCacheBytes, "bytes of IIIF image tiles and derived images kept on disk; least recently used images are removed past it")
	size(&c.IIIFMaxBuilds, "iiif-max-builds", int64(iiifimage.DefaultMaxBuilds()), "IIIF image builds (vips processes) running at once (a count)")
	size(&c.IIIFBuildQueue, "iiif-build-queue", iiifimage.DefaultMaxQueue, "IIIF image builds waiting for a slot (a count); past it 503 with Retry-After")
	return services
}

// finish fills the derived defaults and checks the configuration.
func (c *serveConfig) finish(services string) error {
	if len(c.envErrs) > 0 {
		return errors.Join(c.envErrs...)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"read-timeout", c.ReadTimeout}, {"write-timeout", c.WriteTimeout}, {"idle-timeout", c.IdleTimeout}, {"shutdown-timeout", c.ShutdownTimeout}} {
		if d.v < 0 {
			return fmt.Errorf("--%s %s is negative", d.name, d.v)
		}
	}
	if c.ShutdownTimeout == 0 {
		return fmt.Errorf("--shutdown-timeout must be more than 0")
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		return fmt.Errorf("--log-format %q: json or text", c.LogFormat)
	}
	if c.MaxBodyBytes <= 0 {
		return fmt.Errorf("--max-body-bytes %d must be more than 0", c.MaxBodyBytes)
	}
	for name, v := range map[string]int64{"--iiif-max-builds": c.IIIFMaxBuilds, "--iiif-build-queue": c.IIIFBuildQueue, "--iiif-cache-max-bytes": c.IIIFCacheMaxBytes} {
		if v <= 0 || (v > 1<<20 && name != "--iiif-cache-max-bytes") {
			return fmt.Errorf("%s %d must be more than 0 (and, for a count, at most %d)", name, v, 1<<20)
		}
	}
	if err := checkAddr(c.Addr); err != nil {
		return fmt.Errorf("--addr: %w", err)
	}
	if err := checkHoursDB(c.HoursDB); err != nil {
		return fmt.Errorf("--hours-db: %w", err)
	}
	if err := checkBaseURL(c.PublicURL); err != nil {
		return fmt.Errorf("--public-url: %w", err)
	}
	base := strings.TrimRight(c.PublicURL, "/")
	def := func(p *string, suffix string) {
		if *p == "" {
			*p = base + suffix
		}
		*p = strings.TrimRight(*p, "/")
	}
	def(&c.PurlBaseURL, "/purl")
	def(&c.EmbedBaseURL, "/embed")
	def(&c.HoursBaseURL, "/hours")
	def(&c.SOAPEndpoint, "/soap/SiteAlgorithm")
	for _, u := range []string{c.PurlBaseURL, c.EmbedBaseURL, c.HoursBaseURL, c.SOAPEndpoint} {
		if err := checkBaseURL(u); err != nil {
			return fmt.Errorf("base URL: %w", err)
		}
	}
	if c.EmbedPurlURL != "" {
		c.EmbedPurlURL = strings.TrimRight(c.EmbedPurlURL, "/")
		if err := checkBaseURL(c.EmbedPurlURL); err != nil {
			return fmt.Errorf("--embed-purl-url: %w", err)
		}
	}
	if c.KeysFile == "" {
		c.KeysFile = filepath.Join(c.DataDir, "keys.txt")
	}
	if c.TokensFile == "" {
		c.TokensFile = filepath.Join(c.DataDir, "tokens.json")
	}
	c.Services = nil
	for _, s := range strings.Split(services, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		known := false
		for _, a := range allServices {
			known = known || a == s
		}
		if !known {
			return fmt.Errorf("--services: unknown service %q (known: %s)", s, strings.Join(allServices, ", "))
		}
		if slices.Contains(c.Services, s) {
			return fmt.Errorf("--services: %q named twice", s)
		}
		c.Services = append(c.Services, s)
	}
	if len(c.Services) == 0 {
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
