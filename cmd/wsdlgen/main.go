// Command wsdlgen generates Go code for an rpc/encoded SOAP 1.1 service from
// its WSDL: the operation interface (one method per overload), typed request
// and response structs, and the dispatch table that impl/soap's codec runs.
//
//	wsdlgen -wsdl ../../wsdl/SiteAlgorithm.wsdl -pkg soapapi -o soapapi.gen.go [-embed name=path …]
//
// The WSDL is read with gowsdl's WSDL types (github.com/hooklift/gowsdl).
// gowsdl's own generator cannot be used: it emits no server, and it cannot
// express soapenc arrays or overloaded operations. The WSDL text itself (and
// any -embed files, such as the report XSD) is embedded in the output so the
// service publishes exactly the contract it was generated from.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

type embedFlags []string

func (e *embedFlags) String() string     { return strings.Join(*e, ",") }
func (e *embedFlags) Set(v string) error { *e = append(*e, v); return nil }

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "wsdlgen:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("wsdlgen", flag.ContinueOnError)
	wsdlPath := fs.String("wsdl", "", "WSDL file to read")
	pkg := fs.String("pkg", "", "Go package name of the output")
	out := fs.String("o", "", "output file (*.gen.go)")
	var embeds embedFlags
	fs.Var(&embeds, "embed", "name=path: embed a file, served by the generated Document(name) (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *wsdlPath == "" || *pkg == "" || *out == "" {
		return fmt.Errorf("-wsdl, -pkg and -o are required")
	}
	raw, err := os.ReadFile(*wsdlPath)
	if err != nil {
		return fmt.Errorf("reading the WSDL: %w", err)
	}
	svc, err := parseService(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", *wsdlPath, err)
	}
	docs := []embeddedDoc{{Name: "wsdl", Text: string(raw)}}
	for _, e := range embeds {
		name, path, ok := strings.Cut(e, "=")
		if !ok || name == "" || path == "" {
			return fmt.Errorf("-embed %q: want name=path", e)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("-embed %s: %w", name, err)
		}
		docs = append(docs, embeddedDoc{Name: name, Text: string(b)})
	}
	src, err := generate(svc, *pkg, baseName(*wsdlPath), docs)
	if err != nil {
		return err
	}
	// Write only when the content changed, so that re-running the
	// generator leaves the file (and its mtime) alone.
	if old, err := os.ReadFile(*out); err == nil && string(old) == string(src) {
		return nil
	}
	return os.WriteFile(*out, src, 0o644)
}

func baseName(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
