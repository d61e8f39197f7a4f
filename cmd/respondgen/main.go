// Command respondgen writes, beside oapi-codegen's output in gen/<svc>api,
// what oapi-codegen leaves to hand-written code (docs/architecture.md,
// "Responses" and "Adding an endpoint"):
//
//   - Respond, one type implementing every operation's response-object
//     interface (VisitXResponse) by handing the response to a
//     Representation, with the request it answers bound by the strict
//     middleware BindRequests;
//   - for every operation the contract marks `x-sitesvc-same-as: <operationId>`
//     (one resource at a second URL), the forwarding to that operation:
//     CanonicalServerInterface is the strict interface without those
//     operations, and WithAliases turns an implementation of it into a
//     StrictServerInterface.
//
// It reads the OpenAPI document (for the annotations) and the Go file
// oapi-codegen generated from it (for the names and shapes of the
// generated types), so it runs right after oapi-codegen in the same
// generate.go:
//
//	//go:generate go run ../../cmd/respondgen -spec ../../api/hours.yaml -types hoursapi.gen.go -out respond.gen.go
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	spec := flag.String("spec", "", "the OpenAPI document (api/<svc>.yaml)")
	types := flag.String("types", "", "the Go file oapi-codegen generated from it (strict server)")
	out := flag.String("out", "", "the file to write (respond.gen.go)")
	flag.Parse()
	if *spec == "" || *types == "" || *out == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: respondgen -spec api/<svc>.yaml -types <pkg>.gen.go -out respond.gen.go")
		os.Exit(2)
	}
	if err := run(*spec, *types, *out); err != nil {
		fmt.Fprintln(os.Stderr, "respondgen:", err)
		os.Exit(1)
	}
}

func run(specPath, typesPath, outPath string) error {
	specText, err := os.ReadFile(specPath)
	if err != nil {
		return err
	}
	aliases, err := readAliases(specText)
	if err != nil {
		return fmt.Errorf("%s: %w", specPath, err)
	}
	typesText, err := os.ReadFile(typesPath)
	if err != nil {
		return err
	}
	pkg, err := readPackage(typesPath, typesText)
	if err != nil {
		return err
	}
	code, err := generate(pkg, aliases, "respondgen from "+baseName(specPath))
	if err != nil {
		return fmt.Errorf("%s: %w", specPath, err)
	}
	return os.WriteFile(outPath, code, 0o644)
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
