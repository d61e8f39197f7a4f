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

// soapSettings are the Algorithm (SOAP) service's settings (docs/algorithm.md).
type soapSettings struct {
	HivdbDir         string // empty: the built-in data (bundled/hivdb)
	RequestNamespace string
	KeysFile         string // default <data>/keys.txt
}

// registerSOAPSettings registers the Algorithm (SOAP) service's flags.
func registerSOAPSettings(ef envFlags) *soapSettings {
	s := &soapSettings{}
	ef.str(&s.HivdbDir, "hivdb-dir", "", "directory of HIV-1 algorithms/ and reference/ overriding the built-in ones (a newer HIVDB release)")
	ef.str(&s.RequestNamespace, "request-namespace", "http://algorithm.sitesvc.org", "SOAP request namespace")
	ef.str(&s.KeysFile, "keys-file", "", "SOAP API key file (default <data>/keys.txt)")
	return s
}

// check implements serviceSettings.
func (a *soapSettings) check(s *serveSettings) error {
	if a.KeysFile == "" {
		a.KeysFile = filepath.Join(s.DataDir, "keys.txt")
	}
	return nil
}

// newSOAPService builds the Algorithm (SOAP) service from its settings,
// on the built-in HIV-1 data or --hivdb-dir's, and logs which algorithms
// it runs and where they came from. In development mode (--dev) it makes
// sure a development key exists (<data>/dev-key.txt) and accepts it;
// otherwise no development key is made or accepted.
func newSOAPService(w *wiring, a *soapSettings) (server.Service, error) {
	s := w.settings
	fsys, source, err := hivdbData(a.HivdbDir)
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
	w.logger.Info("soap: HIV-1 algorithms loaded", "source", source, "algorithms", versions)
	devKeyFile := ""
	if s.Dev {
		devKeyFile = filepath.Join(s.DataDir, "dev-key.txt")
	}
	return algorithm.New(algorithm.Config{
		Endpoint:         s.BaseURLs["soap"],
		RequestNamespace: a.RequestNamespace,
		Engine:           engine,
		KeysFile:         a.KeysFile,
		DevKeyFile:       devKeyFile,
		ReportsXSD:       soapapi.Document("reports"),
		Logger:           w.logger,
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
