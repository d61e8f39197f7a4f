// Command sitesvc runs the library site services (PURL, Embed, Hours and the
// Algorithm (SOAP) service) and their administration commands. `sitesvc
// help` lists every command and flag; `sitesvc --version` the version and
// the built-in data.
//
//	sitesvc serve [flags]          run the services
//	sitesvc tokens add --role R    create a bearer token for write operations
//	sitesvc keys add               create an API key for the Algorithm (SOAP) service
//	sitesvc purl publish DIR       publish PURL objects from a directory
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// command is one subcommand of sitesvc. It reads its flags from args and the
// SITESVC_* variables from env; it writes its results to stdout. Given
// --help it prints its usage and returns flag.ErrHelp (what a flag.FlagSet
// does by itself), which exits 0; `sitesvc help` shows every command's.
// Its one-line description is in summaries (help.go).
type command func(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error

var commands = map[string]command{
	"serve":   runServe,
	"tokens":  runTokens,
	"keys":    runKeys,
	"purl":    runPurl,
	"analyze": runAnalyze,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	// The first signal starts a graceful shutdown; the default action is
	// restored then, so a second one ends the process at once.
	go func() {
		<-ctx.Done()
		stop()
	}()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sitesvc:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || isHelp(args[0]) {
		if len(args) > 1 {
			// sitesvc help CMD is sitesvc CMD --help.
			return run(ctx, []string{args[1], "--help"}, env, stdout, stderr)
		}
		printHelp(ctx, stdout, env)
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		return printVersion(stdout)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		return fmt.Errorf("unknown command %q: run 'sitesvc help' for the commands", args[0])
	}
	err := cmd(ctx, args[1:], env, stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}
