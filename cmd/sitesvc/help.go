package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/sitelib/sitesvc/bundled/hivdb"
	"github.com/sitelib/sitesvc/bundled/mirador"
)

// summaries are the one-line descriptions `sitesvc help` shows beside each
// entry of commands. A command without one is still listed and its flags
// still shown (TestEveryCommandHasHelp asks for one).
var summaries = map[string]string{
	"serve":   "run the PURL, Embed, Hours and Algorithm (SOAP) services on one listener",
	"tokens":  "tokens add: create a bearer token for writes (PURL publishing, setting hours)",
	"keys":    "keys add: create an API key for the Algorithm (SOAP) service",
	"purl":    "purl publish DIR: publish the PURL objects of a directory into the store",
	"analyze": "analyze FILE.fasta: resistance reports for HIV-1 sequences, in batch on all cores",
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

// parseFlags parses a command's flags. Help (-h, --help) prints the
// command's usage to stdout and returns flag.ErrHelp, which run turns into
// exit status 0; a bad flag is an error that says where the usage is.
// usage is the command line without flags ("sitesvc purl publish [flags] DIR").
func parseFlags(fs *flag.FlagSet, args []string, usage, summary string, stdout io.Writer) error {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		printUsage(stdout, fs, usage, summary)
		return flag.ErrHelp
	}
	if err != nil {
		return fmt.Errorf("%v (see %s --help)", err, strings.Join(strings.Fields(usage)[:min(2, len(strings.Fields(usage)))], " "))
	}
	return nil
}

// printUsage writes the usage line, the summary and one line per flag.
func printUsage(w io.Writer, fs *flag.FlagSet, usage, summary string) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", usage, summary)
	type row struct{ name, desc string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		name, help := flag.UnquoteUsage(f)
		col := "--" + f.Name
		if name != "" {
			col += " " + name
		}
		if def := f.DefValue; def != "" && def != "false" && def != "0" && def != "[]" {
			help += fmt.Sprintf(" [default %s]", def)
		}
		rows = append(rows, row{col, help})
		width = max(width, len(col))
	})
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nflags:")
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.name, r.desc)
	}
}

// printHelp is `sitesvc`, `sitesvc help` and `sitesvc --help`: every
// command with its summary, then every command's usage and flags (each
// command's own --help, so a new command is covered without more code).
func printHelp(ctx context.Context, w io.Writer, env func(string) string) {
	names := make([]string, 0, len(commands))
	width := 0
	for name := range commands {
		names = append(names, name)
		width = max(width, len(name))
	}
	sort.Strings(names)
	fmt.Fprint(w, `sitesvc runs a research library's PURL, Embed, Hours and SOAP drug-resistance
services in one binary, with their data built in, and administers them.

usage: sitesvc <command> [flags]
       sitesvc help [command]    this help, or one command's
       sitesvc --version         version, commit and the built-in data

commands:
`)
	for _, name := range names {
		fmt.Fprintf(w, "  %-*s  %s\n", width, name, summaries[name])
	}
	fmt.Fprintln(w, "\nEvery flag of serve can also be set by the SITESVC_* variable named beside it.")
	for _, name := range names {
		var buf bytes.Buffer
		_ = commands[name](ctx, []string{"--help"}, env, &buf, &buf)
		fmt.Fprintf(w, "\n%s\n", strings.Repeat("-", 72))
		w.Write(buf.Bytes())
	}
}

// version and commit are set at build time (make build: -ldflags -X);
// else what Go stamps from the repository is used, when it did.
var version, commit = "", ""

// printVersion is `sitesvc --version`.
func printVersion(w io.Writer) error {
	v, c, when, dirty, goVersion := version, commit, "", false, ""
	if info, ok := debug.ReadBuildInfo(); ok {
		goVersion = info.GoVersion
		if v == "" {
			v = info.Main.Version
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.time":
				when = s.Value
			case s.Key == "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	if c == "" {
		c = "unknown (built without version control information; make build records it)"
	}
	fmt.Fprintf(w, "sitesvc %s\ncommit %s", v, c)
	if dirty {
		fmt.Fprint(w, " (with uncommitted changes)")
	}
	if when != "" {
		fmt.Fprintf(w, " of %s", when)
	}
	fmt.Fprintln(w)
	if goVersion != "" {
		fmt.Fprintf(w, "built with %s\n", goVersion)
	}
	vs, err := hivdb.Versions(hivdb.FS())
	if err != nil {
		return fmt.Errorf("built-in HIV-1 data: %w", err)
	}
	fmt.Fprintln(w, "built-in HIV-1 algorithms (--hivdb-dir overrides):")
	for _, a := range vs {
		fmt.Fprintf(w, "  %-11s %s\n", a.File, a)
	}
	fmt.Fprintln(w, "built-in MODS schema: MODS 3.6 (--purl-mods-schema overrides)")
	if b, ok := mirador.Bundle(); ok {
		fmt.Fprintf(w, "built-in Mirador bundle: %d bytes (--viewer-dir overrides)\n", len(b))
	} else {
		fmt.Fprintln(w, "built-in Mirador bundle: none (built without it; give --viewer-dir)")
	}
	return nil
}
