package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sitelib/sitesvc/impl/auth"
)

// runTokens is `sitesvc tokens add --name N --role R [--role R2]`: it creates
// a bearer token for write operations and prints it once.
func runTokens(ctx context.Context, args []string, env func(string) string, stdout, stderr io.Writer) error {
	switch {
	case len(args) > 0 && args[0] == "add":
		args = args[1:]
	case len(args) > 0 && isHelp(args[0]):
		// sitesvc tokens --help: the help of its one subcommand.
	default:
		return fmt.Errorf("tokens needs a subcommand: sitesvc tokens add --name NAME --role ROLE (see sitesvc tokens --help)")
	}
	fs := flag.NewFlagSet("tokens add", flag.ContinueOnError)
	var roles roleList
	data := fs.String("data", envOr(env, "SITESVC_DATA", "./data"), "data directory holding tokens.json (env SITESVC_DATA)")
	file := fs.String("tokens-file", env("SITESVC_TOKENS_FILE"), "token file (default <data>/tokens.json; env SITESVC_TOKENS_FILE)")
	name := fs.String("name", "", "who the token is for (recorded in audit logs)")
	fs.Var(&roles, "role", "`ROLE`: admin, publisher, editor:<library>, group:<name> or location:<name> (repeatable, comma-separated allowed)")
	if err := parseFlags(fs, args, "sitesvc tokens add --name NAME --role ROLE [--role ROLE…] [flags]",
		"Creates a bearer token for write operations, stores its SHA-256 hash in the token file\nand prints the token once (alone on stdout).", stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("tokens add takes flags only, not %q (see sitesvc tokens --help)", fs.Args())
	}
	if *file == "" {
		*file = filepath.Join(*data, "tokens.json")
	}
	if *name == "" {
		*name = strings.Join(roles, "+")
	}
	toks, err := auth.Open(*file)
	if err != nil {
		return err
	}
	token, err := toks.Add(*name, roles)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, token)
	fmt.Fprintf(stderr, "token for %q with roles %s added to %s; it is shown only now\n", *name, strings.Join(roles, ","), *file)
	return nil
}

type roleList []string

func (r *roleList) String() string { return strings.Join(*r, ",") }
func (r *roleList) Set(v string) error {
	for _, role := range strings.Split(v, ",") {
		if role = strings.TrimSpace(role); role != "" {
			*r = append(*r, role)
		}
	}
	return nil
}

func envOr(env func(string) string, name, def string) string {
	if v := env(name); v != "" {
		return v
	}
	return def
}
