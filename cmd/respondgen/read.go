package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"maps"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// sameAsKey is the contract annotation of an operation that is another
// operation at a second URL.
const sameAsKey = "x-sitesvc-same-as"

// readAliases returns, for every operation annotated with sameAsKey, its
// operationId → the operationId it is the same as.
func readAliases(spec []byte) (map[string]string, error) {
	var doc struct {
		Paths map[string]map[string]yaml.Node `yaml:"paths"`
	}
	if err := yaml.Unmarshal(spec, &doc); err != nil {
		return nil, fmt.Errorf("reading the document: %w", err)
	}
	type operation struct {
		OperationID string `yaml:"operationId"`
		SameAs      string `yaml:"x-sitesvc-same-as"`
	}
	ids := map[string]bool{}
	aliases := map[string]string{}
	for path, item := range doc.Paths {
		for method, node := range item {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
			default:
				continue // parameters, summary, extensions of the path item
			}
			var op operation
			if err := node.Decode(&op); err != nil {
				return nil, fmt.Errorf("%s %s: %w", strings.ToUpper(method), path, err)
			}
			if op.OperationID == "" {
				return nil, fmt.Errorf("%s %s has no operationId", strings.ToUpper(method), path)
			}
			ids[op.OperationID] = true
			if op.SameAs != "" {
				aliases[op.OperationID] = op.SameAs
			}
		}
	}
	// Checked in a fixed order (names that name nothing first, then
	// chains), so a document with several mistakes always gets the same
	// error: map order would make it vary from run to run.
	names := slices.Sorted(maps.Keys(aliases))
	for _, alias := range names {
		if target := aliases[alias]; !ids[target] {
			return nil, fmt.Errorf("operation %s: %s names %q, which is no operationId of the document", alias, sameAsKey, target)
		}
	}
	for _, alias := range names {
		if target := aliases[alias]; aliases[target] != "" {
			return nil, fmt.Errorf("operation %s: %s names %s, which is itself the same as %s (name that one)", alias, sameAsKey, target, aliases[target])
		}
	}
	return aliases, nil
}

// field is a field of a generated request object.
type field struct{ name, typ string }

// goPackage is what respondgen needs of oapi-codegen's output.
type goPackage struct {
	name string
	// operations are the methods of StrictServerInterface (Go names,
	// "GetLibrary"), sorted.
	operations []string
	// signatures is each operation's method as declared.
	signatures map[string]string
	// visit is each operation's response-object method ("VisitGetLibraryResponse").
	visit map[string]string
	// requests is each operation's request-object fields.
	requests map[string][]field
	// direct is, for each operation whose strict wrapper does nothing but
	// copy its arguments into the request object (no request body to
	// decode), its ServerInterface method: what NewDirectHandler answers
	// without the strict wrapper.
	direct map[string]directOp
	// wrappers are the direct wrappers' bodies by operation (bind.go),
	// routes the registrations of RegisterHandlers.
	wrappers map[string]string
	routes   []directRoute
}

// directOp is an operation's ServerInterface method and how its strict
// wrapper fills the request object.
type directOp struct {
	// params are the method's parameters after the echo.Context, as
	// declared ("libraryId LibraryID").
	params []string
	// fields are the request object's fields set from them, in order
	// ("LibraryId: libraryId").
	fields []string
}

func readPackage(name string, src []byte) (*goPackage, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	pkg := &goPackage{name: f.Name.Name, signatures: map[string]string{}, visit: map[string]string{}, requests: map[string][]field{}, direct: map[string]directOp{}}
	text := func(n ast.Node) string {
		var b bytes.Buffer
		_ = printer.Fprint(&b, fset, n)
		return b.String()
	}
	var strict *ast.InterfaceType
	for _, decl := range f.Decls {
		if fd, ok := decl.(*ast.FuncDecl); ok {
			if op, ok := strictCopy(fd, text); ok {
				pkg.direct[fd.Name.Name] = op
			}
			continue
		}
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			switch t := ts.Type.(type) {
			case *ast.InterfaceType:
				if ts.Name.Name == "StrictServerInterface" {
					strict = t
				} else if op, ok := strings.CutSuffix(ts.Name.Name, "ResponseObject"); ok && len(t.Methods.List) == 1 {
					pkg.visit[op] = t.Methods.List[0].Names[0].Name
				}
			case *ast.StructType:
				if op, ok := strings.CutSuffix(ts.Name.Name, "RequestObject"); ok {
					fields := []field{}
					for _, fl := range t.Fields.List {
						for _, n := range fl.Names {
							fields = append(fields, field{name: n.Name, typ: text(fl.Type)})
						}
					}
					pkg.requests[op] = fields
				}
			}
		}
	}
	if strict == nil {
		return nil, fmt.Errorf("%s has no StrictServerInterface (generate it with strict-server: true)", name)
	}
	if pkg.wrappers, pkg.routes, err = readDirect(fset, f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, m := range strict.Methods.List {
		op := m.Names[0].Name
		if pkg.visit[op] == "" {
			return nil, fmt.Errorf("%s: operation %s has no %sResponseObject interface", name, op, op)
		}
		if _, ok := pkg.requests[op]; !ok {
			return nil, fmt.Errorf("%s: operation %s has no %sRequestObject struct", name, op, op)
		}
		pkg.operations = append(pkg.operations, op)
		pkg.signatures[op] = op + strings.TrimPrefix(text(m.Type), "func")
	}
	sort.Strings(pkg.operations)
	return pkg, nil
}

// strictCopy reads a method of oapi-codegen's strictHandler: when all it
// does before calling the strict implementation is declare the request
// object and copy its parameters into it (request.Field = param), it
// returns the parameters and those copies.
func strictCopy(fd *ast.FuncDecl, text func(ast.Node) string) (directOp, bool) {
	if fd.Recv == nil || len(fd.Recv.List) != 1 || text(fd.Recv.List[0].Type) != "*strictHandler" || fd.Body == nil {
		return directOp{}, false
	}
	var op directOp
	params := fd.Type.Params.List
	if len(params) == 0 || text(params[0].Type) != "echo.Context" {
		return directOp{}, false
	}
	for _, p := range params[1:] {
		for _, n := range p.Names {
			op.params = append(op.params, n.Name+" "+text(p.Type))
		}
	}
	stmts := fd.Body.List
	if len(stmts) == 0 || text(stmts[0]) != "var request "+fd.Name.Name+"RequestObject" {
		return directOp{}, false
	}
	for _, st := range stmts[1:] {
		as, ok := st.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
			return directOp{}, false // decoding a body, or something new
		}
		if lhs, ok := as.Lhs[0].(*ast.Ident); ok && as.Tok == token.DEFINE && lhs.Name == "handler" {
			// The call of the strict implementation: every parameter
			// went into the request object, and nothing else happened.
			return op, len(op.fields) == len(op.params)
		}
		sel, ok := as.Lhs[0].(*ast.SelectorExpr)
		arg, isIdent := as.Rhs[0].(*ast.Ident)
		if !ok || as.Tok != token.ASSIGN || text(sel.X) != "request" || !isIdent {
			return directOp{}, false
		}
		op.fields = append(op.fields, sel.Sel.Name+": "+arg.Name)
	}
	return directOp{}, false
}
