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

// newPurlService builds the PURL service from the serve configuration.
func newPurlService(c *serveConfig) (server.Service, error) {
	cfg := purl.Config{
		BaseURL:         c.PurlBaseURL,
		EmbedBaseURL:    c.EmbedBaseURL,
		DataDir:         c.DataDir,
		Logger:          c.Logger,
		LargeSamplesDir: c.PurlLargeSamplesDir,
		Changes:         c.changes(),
	}
	if c.Tokens != nil {
		cfg.Tokens = c.Tokens
	}
	schema, err := openMODSSchema(c.PurlMODSSchema, c.Logger)
	if err != nil {
		return nil, fmt.Errorf("--purl-mods-schema: %w", err)
	}
	c.onExit(schema.Close)
	cfg.MODSSchema = schema
	nets, err := parseLocationNetworks(c.PurlLocationNetworks)
	if err != nil {
		return nil, fmt.Errorf("--purl-location-networks: %w", err)
	}
	cfg.LocationNetworks = nets
	// The service publishes samples from a directory; built-in ones are
	// written to a temporary one for the start and removed after it.
	if fsys, source := sampleObjects(c.PurlSamplesDir); source == builtIn {
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
	names, err := parseAccessNames(c.PurlAccessNames)
	if err != nil {
		return nil, fmt.Errorf("--purl-access-names: %w", err)
	}
	cfg.AccessNames = names
	cfg.AccessContact = c.PurlAccessContact
	cfg.IIIF = iiifimage.Options{MaxBuilds: int(c.IIIFMaxBuilds), MaxQueue: int(c.IIIFBuildQueue), MaxCacheBytes: c.IIIFCacheMaxBytes}
	var svc *purl.Service
	if err := c.withPatronAccess(&cfg, &svc); err != nil { // iiifauth.go
		return nil, err
	}
	svc, err = purl.New(context.Background(), cfg)
	if err != nil {
		return nil, err
	}
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
