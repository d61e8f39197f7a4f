package main

import (
	"context"
	"flag"
	"io"
)

// runServe is `sitesvc serve`.
func runServe(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c serveConfig
	services := newServeFlags(fs, env, &c)
	if err := fs.Parse(args); err != nil {
		return err
	}
	return c.finish(*services)
}
