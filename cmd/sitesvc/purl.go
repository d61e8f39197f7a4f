package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"path/filepath"
	"strings"

	"github.com/sitelib/sitesvc/impl/purl"
	"github.com/sitelib/sitesvc/impl/purl/iiifimage"
	"github.com/sitelib/sitesvc/impl/purl/publish"
	"github.com/sitelib/sitesvc/impl/purl/store"
	"github.com/sitelib/sitesvc/impl/server"
)

// purlSettings are the PURL service's settings (docs/purl.md).
type purlSettings struct {
	SamplesDir      string // sample objects loaded into an empty store: "" built in, "none", or a directory
	LargeSamplesDir string // large sample objects made by make samples-large, loaded with the samples ("" none)
	// LocationNetworks: "name=CIDR,CIDR;name2=CIDR", the client networks
	// that count as being at a location (location-restricted files).
	LocationNetworks string
	// AccessNames: "group:slug=Name;location:slug=Name", the names
	// patrons read on PURL pages for login groups and locations.
	AccessNames string
	// AccessContact: whom patrons contact about restricted files.
	AccessContact string
	// MODSSchema is the MODS 3.6 XSD published MODS records are checked
	// against (with xmllint); empty means the built-in one.
	MODSSchema string
	// IIIF image service bounds: builds running at once, builds waiting
	// (past it 503), bytes of the tile cache on disk.
	IIIFMaxBuilds     int64
	IIIFBuildQueue    int64
	IIIFCacheMaxBytes int64
	// Patron are the settings of restricted items for patrons (iiifauth.go).
	Patron patronSettings

	// What check parses the text settings into.
	locationNetworks map[string][]netip.Prefix
	accessNames      map[string]string
}

// registerPurlSettings registers the PURL service's flags.
func registerPurlSettings(ef envFlags) *purlSettings {
	s := &purlSettings{}
	ef.str(&s.SamplesDir, "purl-samples", "", "sample PURL objects loaded into an empty store: empty for the built-in samples, none for no samples, or a directory")
	ef.str(&s.LargeSamplesDir, "purl-large-samples", "", "directory of large sample PURL objects (24 MP image, JPEG 2000, video) that make samples-large writes to samples/large, loaded with the samples (make run passes it)")
	ef.str(&s.LocationNetworks, "purl-location-networks", "", "networks of PURL read locations: name=CIDR,CIDR;name2=CIDR")
	ef.str(&s.AccessNames, "purl-access-names", "", "names PURL pages show for login groups and locations: group:slug=Name;location:slug=Name (default: the slug)")
	ef.str(&s.AccessContact, "purl-access-contact", "", "whom PURL pages tell patrons to contact about restricted files: an e-mail address, a URL or text")
	ef.str(&s.MODSSchema, "purl-mods-schema", "", "MODS 3.6 XSD that published MODS records are checked against with xmllint (empty: the built-in one)")
	ef.size(&s.IIIFCacheMaxBytes, "iiif-cache-max-bytes", iiifimage.DefaultMaxCacheBytes, "bytes of IIIF image tiles and derived images kept on disk; least recently used images are removed past it")
	ef.size(&s.IIIFMaxBuilds, "iiif-max-builds", int64(iiifimage.DefaultMaxBuilds()), "IIIF image builds (vips processes) running at once (a count)")
	ef.size(&s.IIIFBuildQueue, "iiif-build-queue", iiifimage.DefaultMaxQueue, "IIIF image builds waiting for a slot (a count); past it 503 with Retry-After")
	s.Patron.register(ef)
	return s
}

// maxIIIFCount bounds the IIIF counts (builds, queue).
const maxIIIFCount = 1 << 20

// check implements serviceSettings.
func (p *purlSettings) check(s *serveSettings) error {
	for _, v := range []struct {
		name  string
		value int64
		count bool
	}{{"--iiif-max-builds", p.IIIFMaxBuilds, true}, {"--iiif-build-queue", p.IIIFBuildQueue, true}, {"--iiif-cache-max-bytes", p.IIIFCacheMaxBytes, false}} {
		if v.value <= 0 || (v.count && v.value > maxIIIFCount) {
			return fmt.Errorf("%s %d must be more than 0 (and, for a count, at most %d)", v.name, v.value, maxIIIFCount)
		}
	}
	var err error
	if p.locationNetworks, err = parseLocationNetworks(p.LocationNetworks); err != nil {
		return fmt.Errorf("--purl-location-networks: %w", err)
	}
	if p.accessNames, err = parseAccessNames(p.AccessNames); err != nil {
		return fmt.Errorf("--purl-access-names: %w", err)
	}
	return p.Patron.check(s)
}

// newPurlService builds the PURL service from its settings.
func newPurlService(w *wiring, p *purlSettings) (server.Service, error) {
	s := w.settings
	cfg := purl.Config{
		BaseURL:          s.BaseURLs["purl"],
		EmbedBaseURL:     s.BaseURLs["embed"],
		DataDir:          s.DataDir,
		Logger:           w.logger,
		LargeSamplesDir:  p.LargeSamplesDir,
		Changes:          &w.changes,
		LocationNetworks: p.locationNetworks,
		AccessNames:      p.accessNames,
		AccessContact:    p.AccessContact,
		IIIF:             iiifimage.Options{MaxBuilds: int(p.IIIFMaxBuilds), MaxQueue: int(p.IIIFBuildQueue), MaxCacheBytes: p.IIIFCacheMaxBytes},
	}
	if w.tokens != nil { // a nil *auth.Tokens would be a non-nil Authenticator
		cfg.Tokens = w.tokens
	}
	schema, err := openMODSSchema(p.MODSSchema, w.logger)
	if err != nil {
		return nil, fmt.Errorf("--purl-mods-schema: %w", err)
	}
	w.onExit(schema.Close)
	cfg.MODSSchema = schema
	// The service publishes samples from a directory; built-in ones are
	// written to a temporary one for the start and removed after it.
	if fsys, source := sampleObjects(p.SamplesDir); source == builtIn {
		tmp, err := os.MkdirTemp("", "sitesvc-samples-")
		if err != nil {
			return nil, fmt.Errorf("unpacking the sample objects: %w", err)
		}
		defer os.RemoveAll(tmp)
		if err := os.CopyFS(tmp, fsys); err != nil {
			return nil, fmt.Errorf("unpacking the sample objects: %w", err)
		}
		cfg.SamplesDir, cfg.SamplesSource = tmp, builtIn
	} else {
		cfg.SamplesDir = source
	}
	var svc *purl.Service
	if err := w.withPatronAccess(&cfg, &p.Patron, &svc); err != nil { // iiifauth.go
		return nil, err
	}
	svc, err = purl.New(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
	h := svc.Handler()
	w.localPurl.Store(&h) // Embed reads it directly (embed.go)
	return svc, nil
}

// parseAccessNames reads "group:slug=Name;location:slug=Name".
func parseAccessNames(s string) (map[string]string, error) {
	names := map[string]string{}
	for _, part := range strings.Split(s, ";") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		key, name, ok := strings.Cut(part, "=")
		key, name = strings.TrimSpace(key), strings.TrimSpace(name)
		kind, slug, kindOK := strings.Cut(key, ":")
		if !ok || !kindOK || (kind != "group" && kind != "location") || slug == "" || name == "" {
			return nil, fmt.Errorf("%q is not group:slug=Name or location:slug=Name", strings.TrimSpace(part))
		}
		if _, dup := names[key]; dup {
			return nil, fmt.Errorf("%s is named twice", key)
		}
		names[key] = name
	}
	return names, nil
}

// parseLocationNetworks reads "name=CIDR,CIDR;name2=CIDR".
func parseLocationNetworks(s string) (map[string][]netip.Prefix, error) {
	nets := map[string][]netip.Prefix{}
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, list, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, fmt.Errorf("%q is not name=CIDR,CIDR", part)
		}
		for _, cidr := range strings.Split(list, ",") {
			p, err := netip.ParsePrefix(strings.TrimSpace(cidr))
			if err != nil {
				return nil, fmt.Errorf("location %s: %w", name, err)
			}
			nets[name] = append(nets[name], p.Masked())
		}
	}
	return nets, nil
}

// runPurl is `sitesvc purl publish [--data DIR] OBJECTS`: it validates the
// objects of OBJECTS (OBJECTS itself when it holds a public.xml, else each
// directory directly in it that does; deeper ones are not searched) and,
// only when all are valid, writes them into the store under <data>/purl.
func runPurl(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	switch {
	case len(args) > 0 && args[0] == "publish":
		args = args[1:]
	case len(args) > 0 && isHelp(args[0]):
		// sitesvc purl --help: the help of its one subcommand.
	default:
		return fmt.Errorf("purl needs a subcommand: sitesvc purl publish DIR (see sitesvc purl --help)")
	}
	fs := flag.NewFlagSet("purl publish", flag.ContinueOnError)
	dataDefault := "./data"
	if v := env(envName("data")); v != "" {
		dataDefault = v
	}
	data := fs.String("data", dataDefault, "data directory of the server (the store is <data>/purl) (env "+envName("data")+")")
	schemaPath := fs.String("mods-schema", "", "MODS 3.6 XSD that mods.xml files are checked against with xmllint (empty: the built-in one)")
	if err := parseFlags(fs, args, "sitesvc purl publish [flags] DIR", `Publishes the PURL objects of DIR: DIR itself when it holds a public.xml, else every
directory directly in DIR that holds one (one level; deeper directories are not searched).
Each object is a directory with public.xml, optional mods.xml and the files its
contentMetadata lists. Nothing is published unless every object is valid.`, stdout); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("purl publish wants the directory of objects to publish (see sitesvc purl --help)")
	}
	// Flags may also follow DIR (sitesvc purl publish DIR --data D).
	dir := fs.Arg(0)
	if err := parseFlags(fs, fs.Args()[1:], "sitesvc purl publish [flags] DIR", "", stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("purl publish wants one directory of objects, got %q and %q (see sitesvc purl --help)", dir, fs.Args())
	}
	st, err := store.OpenFS(filepath.Join(*data, "purl"))
	if err != nil {
		return fmt.Errorf("PURL store: %w", err)
	}
	var opts []publish.Option
	schema, err := openMODSSchema(*schemaPath, slog.New(slog.NewTextHandler(stderr, nil)))
	if err != nil {
		return fmt.Errorf("--mods-schema: %w", err)
	}
	defer schema.Close()
	if schema != nil {
		opts = append(opts, publish.WithMODSSchema(schema))
	}
	objs, err := publish.Tree(ctx, st, dir, opts...)
	if err != nil {
		return fmt.Errorf("nothing published: %w", err)
	}
	for _, o := range objs {
		fmt.Fprintf(stdout, "published %s (%s) from %s\n", o.Record.Druid.Qualified(), o.Record.Title(), o.Dir)
		for _, w := range o.Warnings {
			fmt.Fprintf(stdout, "  warning: %s: %s\n", o.Record.Druid.Qualified(), w)
		}
	}
	return nil
}
