package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"strconv"
	"strings"
)

// A direct wrapper is oapi-codegen's ServerInterfaceWrapper method of an
// operation with its parameter binding shortened where the contract
// decides it: a path parameter of type string is the router's value
// (unescaped when the path was escaped), without reflection; optional
// query parameters are not looked for in a request without a query (the
// generated code parses the query and allocates a value for each one
// even then). Everything else is oapi-codegen's code as it generated it.

// directRoute is one registration of RegisterHandlers.
type directRoute struct{ method, path, op string }

// readDirect rewrites the wrapper methods of f (see above) and reads the
// routes of RegisterHandlersWithOptions. It returns the rewritten methods'
// bodies by operation (only those it changed) and the routes.
func readDirect(fset *token.FileSet, f *ast.File) (map[string]string, []directRoute, error) {
	aliases := map[string]string{} // type X = Y
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			if id, ok := ts.Type.(*ast.Ident); ok && ts.Assign.IsValid() {
				aliases[ts.Name.Name] = id.Name
			}
		}
	}
	isString := func(name string) bool {
		for range 8 {
			if name == "string" {
				return true
			}
			next, ok := aliases[name]
			if !ok {
				return false
			}
			name = next
		}
		return false
	}
	bodies := map[string]string{}
	var routes []directRoute
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		if fd.Recv == nil && fd.Name.Name == "RegisterHandlersWithOptions" {
			r, err := readRoutes(fd)
			if err != nil {
				return nil, nil, err
			}
			routes = r
			continue
		}
		if fd.Recv == nil || len(fd.Recv.List) != 1 || exprText(fset, fd.Recv.List[0].Type) != "*ServerInterfaceWrapper" {
			continue
		}
		if rewriteBinding(fset, fd.Body, isString) {
			var b bytes.Buffer
			if err := printer.Fprint(&b, fset, fd.Body); err != nil {
				return nil, nil, err
			}
			bodies[fd.Name.Name] = b.String()
		}
	}
	return bodies, routes, nil
}

// rewriteBinding applies the three shortcuts to the statements of body and
// reports whether it changed any.
func rewriteBinding(fset *token.FileSet, body *ast.BlockStmt, isString func(string) bool) bool {
	declared := map[string]string{} // var x T in this body
	ast.Inspect(body, func(n ast.Node) bool {
		if ds, ok := n.(*ast.DeclStmt); ok {
			if gd, ok := ds.Decl.(*ast.GenDecl); ok && gd.Tok == token.VAR {
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					if id, ok := vs.Type.(*ast.Ident); ok {
						for _, name := range vs.Names {
							declared[name.Name] = id.Name
						}
					}
				}
			}
		}
		return true
	})
	changed := false
	wrapped := map[ast.Stmt]bool{} // statements already put under the query test
	ast.Inspect(body, func(n ast.Node) bool {
		block, ok := n.(*ast.BlockStmt)
		if !ok {
			return true
		}
		for i, st := range block.List {
			call := bindCall(st)
			if call == nil || wrapped[st] {
				continue
			}
			switch exprText(fset, call.Fun) {
			case "runtime.BindStyledParameterWithOptions":
				if len(call.Args) != 5 || exprText(fset, call.Args[0]) != `"simple"` {
					continue
				}
				dest, ok := call.Args[3].(*ast.UnaryExpr)
				id, isIdent := dest.X.(*ast.Ident)
				if !ok || dest.Op != token.AND || !isIdent || !isString(declared[id.Name]) {
					continue
				}
				opts := options(fset, call.Args[4])
				if opts["ParamLocation"] == "runtime.ParamLocationHeader" {
					// An optional header of type string: headers are not
					// unescaped, a string has no Binder or TextUnmarshaler,
					// and BindStringToObjectWithOptions sets it as sent.
					if opts["Explode"] != "false" || opts["Required"] != "false" ||
						opts["Type"] != `"string"` || opts["Format"] != `""` || len(opts) != 5 {
						continue
					}
					call.Fun = ast.NewIdent("bindHeaderString")
					call.Args = []ast.Expr{call.Args[2], call.Args[3]}
					changed = true
					continue
				}
				if opts["ParamLocation"] != "runtime.ParamLocationPath" || opts["Explode"] != "false" || opts["Required"] != "true" ||
					opts["Type"] != `"string"` || opts["Format"] != `""` || opts["ValueIsUnescaped"] == "" || len(opts) != 6 {
					continue
				}
				unescaped, err := parser.ParseExpr(opts["ValueIsUnescaped"])
				if err != nil {
					continue
				}
				call.Fun = ast.NewIdent("bindPathString")
				call.Args = []ast.Expr{call.Args[1], call.Args[2], call.Args[3], unescaped}
				changed = true
			case "runtime.BindQueryParameterWithOptions":
				if len(call.Args) != 7 || exprText(fset, call.Args[0]) != `"form"` || exprText(fset, call.Args[2]) != "false" {
					continue // a required parameter is looked for, to be refused when absent
				}
				cond, err := parser.ParseExpr(`ctx.Request().URL.RawQuery != ""`)
				if err != nil {
					continue
				}
				block.List[i] = &ast.IfStmt{Cond: cond, Body: &ast.BlockStmt{List: []ast.Stmt{st}}}
				wrapped[st] = true
				changed = true
			}
		}
		return true
	})
	return changed
}

// bindCall is the call of "err = runtime.Bind…(…)".
func bindCall(st ast.Stmt) *ast.CallExpr {
	as, ok := st.(*ast.AssignStmt)
	if !ok || len(as.Lhs) != 1 || len(as.Rhs) != 1 || as.Tok != token.ASSIGN {
		return nil
	}
	if id, ok := as.Lhs[0].(*ast.Ident); !ok || id.Name != "err" {
		return nil
	}
	call, _ := as.Rhs[0].(*ast.CallExpr)
	return call
}

// options reads a composite literal's keyed fields as source text.
func options(fset *token.FileSet, e ast.Expr) map[string]string {
	out := map[string]string{}
	cl, ok := e.(*ast.CompositeLit)
	if !ok {
		return out
	}
	for _, elt := range cl.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			out[exprText(fset, kv.Key)] = exprText(fset, kv.Value)
		}
	}
	return out
}

// readRoutes reads router.METHOD(options.BaseURL+"/path", wrapper.Op, …)
// statements.
func readRoutes(fd *ast.FuncDecl) ([]directRoute, error) {
	var routes []directRoute
	for _, st := range fd.Body.List {
		es, ok := st.(*ast.ExprStmt)
		if !ok {
			continue
		}
		call, ok := es.X.(*ast.CallExpr)
		if !ok || len(call.Args) < 2 {
			continue
		}
		fun, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			continue
		}
		bin, ok := call.Args[0].(*ast.BinaryExpr)
		h, hok := call.Args[1].(*ast.SelectorExpr)
		if !ok || !hok {
			return nil, fmt.Errorf("RegisterHandlersWithOptions: a registration of an unknown shape")
		}
		lit, ok := bin.Y.(*ast.BasicLit)
		if !ok {
			return nil, fmt.Errorf("RegisterHandlersWithOptions: a path of an unknown shape")
		}
		path, err := strconv.Unquote(lit.Value)
		if err != nil {
			return nil, err
		}
		routes = append(routes, directRoute{method: fun.Sel.Name, path: path, op: h.Sel.Name})
	}
	if len(routes) == 0 {
		return nil, fmt.Errorf("RegisterHandlersWithOptions registers nothing")
	}
	return routes, nil
}

func exprText(fset *token.FileSet, n ast.Node) string {
	var b bytes.Buffer
	_ = printer.Fprint(&b, fset, n)
	return b.String()
}

// writeDirectWrappers writes RegisterDirectHandlers, directWrapper and its
// methods.
func writeDirectWrappers(b *bytes.Buffer, pkg *goPackage) {
	if len(pkg.wrappers) == 0 {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p(`
// RegisterDirectHandlers registers NewDirectHandler(ssi) on router as
// RegisterHandlers does, where the binding of an operation's parameters is
// shortened as the contract allows (respondgen's direct wrappers): a path
// parameter of type string is the router's value and an optional header
// parameter of type string the value sent, without reflection, and
// optional query parameters are not looked for in a request without a
// query. Other operations use oapi-codegen's wrapper.
func RegisterDirectHandlers(router EchoRouter, ssi StrictServerInterface) {
	si := NewDirectHandler(ssi)
	direct := directWrapper{Handler: si}
`)
	for _, r := range pkg.routes {
		if _, ok := pkg.wrappers[r.op]; !ok {
			p("\twrapper := ServerInterfaceWrapper{Handler: si}\n")
			break
		}
	}
	for _, r := range pkg.routes {
		recv := "wrapper"
		if _, ok := pkg.wrappers[r.op]; ok {
			recv = "direct"
		}
		p("\trouter.%s(%q, %s.%s)\n", r.method, r.path, recv, r.op)
	}
	p(`}

// directWrapper is ServerInterfaceWrapper with the direct bindings.
type directWrapper struct {
	Handler ServerInterface
}

// bindPathString binds a required path parameter of type string, as
// runtime.BindStyledParameterWithOptions does for it (style simple, not
// exploded): the value, unescaped unless the router already did.
func bindPathString(name, value string, dest *string, unescaped bool) error {
	if value == "" {
		return fmt.Errorf("parameter '%%s' is empty, can't bind its value", name)
	}
	if !unescaped {
		v, err := url.PathUnescape(value)
		if err != nil {
			return fmt.Errorf("error unescaping path parameter '%%s': %%w", name, err)
		}
		value = v
	}
	*dest = value
	return nil
}
`)
	for _, body := range pkg.wrappers {
		if strings.Contains(body, "bindHeaderString(") {
			p(`
// bindHeaderString binds an optional header parameter of type string, as
// runtime.BindStyledParameterWithOptions does for it (style simple, not
// exploded): the value as sent (headers are not unescaped).
func bindHeaderString(value string, dest *string) error {
	*dest = value
	return nil
}
`)
			break
		}
	}
	for _, op := range sortedKeys(pkg.wrappers) {
		p("\n// %s is ServerInterfaceWrapper.%s with the direct bindings.\n", op, op)
		p("func (w *directWrapper) %s(ctx echo.Context) error %s\n", op, pkg.wrappers[op])
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	return keys
}

// directImports are the packages the direct wrappers use beside echo and
// net/http.
func directImports(pkg *goPackage) []string {
	if len(pkg.wrappers) == 0 {
		return nil
	}
	imports := []string{"fmt", "net/url"}
	for _, body := range pkg.wrappers {
		if strings.Contains(body, "runtime.") {
			return append(imports, "github.com/oapi-codegen/runtime")
		}
	}
	return imports
}
