// Command sitesvc runs the library site services (PURL, Embed, Hours and the
// SiteAlgorithm SOAP service) and their administration commands.
//
//	sitesvc serve [flags]          run the services
//	sitesvc tokens add --role R    create a bearer token for write operations
//	sitesvc keys add               create an API key for the SOAP service
//	sitesvc purl publish DIR       publish PURL objects from a directory
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// command is one subcommand of sitesvc. It reads its flags from args and the
// SITESVC_* variables from env; it writes its results to stdout.
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
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return fmt.Errorf("no command given")
		}
		return nil
	}
	cmd, ok := commands[args[0]]
	if !ok {
		usage(stderr)
		return fmt.Errorf("unknown command %q", args[0])
	}
	return cmd(ctx, args[1:], env, stdout, stderr)
}

func usage(w io.Writer) {
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: sitesvc <command> [flags]")
	fmt.Fprintln(w, "commands:")
	for _, name := range names {
		fmt.Fprintln(w, "  "+name)
	}
	fmt.Fprintln(w, "run 'sitesvc <command> -h' for the flags of a command")
}
