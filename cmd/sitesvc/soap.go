package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/sitelib/sitesvc/gen/soapapi"
	"github.com/sitelib/sitesvc/impl/algorithm"
	"github.com/sitelib/sitesvc/impl/server"
)

// newSOAPService builds the Algorithm (SOAP) service from the serve
// configuration, on the built-in HIV-1 data or --hivdb-dir's, and logs
// which algorithms it runs and where they came from. In development mode
// (--dev) it makes sure a development key exists (<data>/dev-key.txt) and
// accepts it; otherwise no development key is made or accepted.
func newSOAPService(c *serveConfig) (server.Service, error) {
	fsys, source, err := hivdbData(c.HivdbDir)
	if err != nil {
		return nil, err
	}
	engine, err := algorithm.LoadResistanceEngine(fsys)
	if err != nil {
		if source == builtIn {
			return nil, fmt.Errorf("built-in HIV-1 data: %w", err)
		}
		return nil, fmt.Errorf("--hivdb-dir %s: %w (it needs algorithms/*.xml and reference/ as in a HIVDB release; leave it out to use the built-in data)", source, err)
	}
	versions, err := algorithmVersions(fsys)
	if err != nil {
		return nil, fmt.Errorf("HIV-1 data from %s: %w", source, err)
	}
	c.Logger.Info("soap: HIV-1 algorithms loaded", "source", source, "algorithms", versions)
	devKeyFile := ""
	if c.Dev {
		devKeyFile = filepath.Join(c.DataDir, "dev-key.txt")
	}
	return algorithm.New(algorithm.Config{
		Endpoint:         c.SOAPEndpoint,
		RequestNamespace: c.RequestNamespace,
		Engine:           engine,
		KeysFile:         c.KeysFile,
		DevKeyFile:       devKeyFile,
		ReportsXSD:       soapapi.Document("reports"),
		Logger:           c.Logger,
	})
}

// runKeys is `sitesvc keys add [--label L]`: it creates an API key for the
// Algorithm (SOAP) service, stores its SHA-256 hash in the key file and prints the key
// once (stdout, alone on its line, so scripts can capture it).
func runKeys(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	switch {
	case len(args) > 0 && args[0] == "add":
		args = args[1:]
	case len(args) > 0 && isHelp(args[0]):
		// sitesvc keys --help: the help of its one subcommand.
	default:
		return fmt.Errorf("keys needs a subcommand: sitesvc keys add --label LABEL (see sitesvc keys --help)")
	}
	fs := flag.NewFlagSet("keys add", flag.ContinueOnError)
	data := fs.String("data", envOr(env, "SITESVC_DATA", "./data"), "data directory holding keys.txt (env SITESVC_DATA)")
	file := fs.String("keys-file", env("SITESVC_KEYS_FILE"), "key file (default <data>/keys.txt; env SITESVC_KEYS_FILE)")
	label := fs.String("label", "", "who or what the key is for (stored beside the hash)")
	if err := parseFlags(fs, args, "sitesvc keys add [--label LABEL] [flags]",
		"Creates an API key for the Algorithm (SOAP) service, stores its SHA-256 hash in the key file\n(read again by a running server within a second) and prints the key once (alone on stdout).", stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("keys add takes flags only, not %q (see sitesvc keys --help)", fs.Args())
	}
	if *file == "" {
		*file = filepath.Join(*data, "keys.txt")
	}
	key, err := algorithm.AddKey(*file, *label)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, key)
	fmt.Fprintf(stderr, "SOAP API key added to %s; it is shown only now\n", *file)
	return nil
}
