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

// newSOAPService builds the Algorithm (SOAP) service from the serve configuration.
// With the key file at its default place (<data>/keys.txt) and missing, the
// service creates a development key on first start, writes it to
// <data>/dev-key.txt and logs it.
func newSOAPService(c *serveConfig) (server.Service, error) {
	engine, err := algorithm.LoadResistanceEngine(c.HivdbDir)
	if err != nil {
		return nil, err
	}
	devKeyFile := ""
	if filepath.Clean(c.KeysFile) == filepath.Join(c.DataDir, "keys.txt") {
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
// SOAP service, stores its SHA-256 hash in the key file and prints the key
// once (stdout, alone on its line, so scripts can capture it).
func runKeys(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "add" {
		return fmt.Errorf("keys: usage: sitesvc keys add [--label LABEL] [--data DIR | --keys-file FILE]")
	}
	fs := flag.NewFlagSet("keys add", flag.ContinueOnError)
	fs.SetOutput(stderr)
	data := fs.String("data", envOr(env, "SITESVC_DATA", "./data"), "data directory holding keys.txt (env SITESVC_DATA)")
	file := fs.String("keys-file", env("SITESVC_KEYS_FILE"), "key file (default <data>/keys.txt; env SITESVC_KEYS_FILE)")
	label := fs.String("label", "", "who or what the key is for (stored beside the hash)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("keys add: unexpected arguments %q", fs.Args())
	}
	if *file == "" {
		*file = filepath.Join(*data, "keys.txt")
	}
	key, err := algorithm.AddKey(*file, *label)
	if err != nil {
		return fmt.Errorf("keys: %w", err)
	}
	fmt.Fprintln(stdout, key)
	fmt.Fprintf(stderr, "SOAP API key added to %s; it is shown only now\n", *file)
	return nil
}
