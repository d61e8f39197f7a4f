package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sitelib/sitesvc/impl/purl"
	"github.com/sitelib/sitesvc/impl/purl/publish"
	"github.com/sitelib/sitesvc/impl/purl/record"
	"github.com/sitelib/sitesvc/impl/purl/store"
	"github.com/sitelib/sitesvc/impl/server"
)

// newPurlService builds the PURL service from the serve configuration.
func newPurlService(c *serveConfig) (server.Service, error) {
	cfg := purl.Config{
		BaseURL:         c.PurlBaseURL,
		EmbedBaseURL:    c.EmbedBaseURL,
		DataDir:         c.DataDir,
		SamplesDir:      c.PurlSamplesDir,
		LargeSamplesDir: c.PurlLargeSamplesDir,
		Logger:          c.Logger,
	}
	if c.Tokens != nil {
		cfg.Tokens = c.Tokens
	}
	schema, err := modsSchema(c.PurlMODSSchema)
	switch {
	case err != nil && errors.Is(err, exec.ErrNotFound) && c.PurlMODSSchema == defaultExisting(defaultMODSSchema):
		// The schema was found beside the repository but not asked for:
		// a machine without xmllint still runs, with structural checks.
		c.Logger.Warn("purl: MODS records are checked for structure only", "reason", err)
	case err != nil:
		return nil, fmt.Errorf("--purl-mods-schema: %w", err)
	}
	cfg.MODSSchema = schema
	nets, err := parseLocationNetworks(c.PurlLocationNetworks)
	if err != nil {
		return nil, fmt.Errorf("--purl-location-networks: %w", err)
	}
	cfg.LocationNetworks = nets
	return purl.New(context.Background(), cfg)
}

// defaultMODSSchema is where the MODS 3.6 XSD lives beside the repository.
const defaultMODSSchema = "../shared/data/schemas/mods/mods-3-6.xsd"

// modsSchema is the checker for the XSD at path; nil when path is empty.
func modsSchema(path string) (*record.MODSSchema, error) {
	if path == "" {
		return nil, nil
	}
	return record.NewMODSSchema(path)
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

// runPurl is `sitesvc purl publish [--data DIR] OBJECTS`: it validates
// every object under OBJECTS (a directory holding public.xml, mods.xml and
// the files, or a tree of such directories) and, only when all are valid,
// writes them into the store under <data>/purl.
func runPurl(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "publish" {
		fmt.Fprintln(stderr, "usage: sitesvc purl publish [--data DIR] OBJECTS_DIR")
		return fmt.Errorf("purl: unknown or missing subcommand (want publish)")
	}
	fs := flag.NewFlagSet("purl publish", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dataDefault := "./data"
	if v := env(envName("data")); v != "" {
		dataDefault = v
	}
	data := fs.String("data", dataDefault, "data directory of the server (the store is <data>/purl) (env "+envName("data")+")")
	schemaPath := fs.String("mods-schema", defaultExisting(defaultMODSSchema), "MODS 3.6 XSD that mods.xml files are checked against with xmllint (empty: structure only)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: sitesvc purl publish [--data DIR] OBJECTS_DIR")
		return fmt.Errorf("purl publish: want one directory of objects, got %d arguments", fs.NArg())
	}
	st, err := store.OpenFS(filepath.Join(*data, "purl"))
	if err != nil {
		return fmt.Errorf("purl publish: %w", err)
	}
	var opts []publish.Option
	schema, err := modsSchema(*schemaPath)
	if err != nil {
		return fmt.Errorf("purl publish: --mods-schema: %w", err)
	}
	if schema != nil {
		opts = append(opts, publish.WithMODSSchema(schema))
	}
	objs, err := publish.Tree(ctx, st, fs.Arg(0), opts...)
	if err != nil {
		return fmt.Errorf("purl publish: nothing published: %w", err)
	}
	for _, o := range objs {
		fmt.Fprintf(stdout, "published %s (%s) from %s\n", o.Record.Druid.Qualified(), o.Record.Title(), o.Dir)
	}
	return nil
}
