package apiserve

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// Router is what the generated RegisterHandlers registers the operations
// on (oapi-codegen's EchoRouter), for contracts whose paths echo's router
// cannot express as they are: a path parameter followed by a literal in
// its segment, such as "/{id}.xml" or "/libraries/{library_id}.json"
// (echo ends a parameter only at "/", so "/:id.xml" would name a parameter
// "id.xml").
//
// Such an operation is registered on echo without the literal ("/:id"),
// with a dispatcher shared by every operation of that method and shape:
// the parameter's value picks the operation whose literal it ends with
// (the longest first) and is handed over without it; a value ending with
// none goes to the operation declared without a literal ("/{id}"), if the
// contract has one, else it is 404. Other paths are registered unchanged.
// Every GET route answers HEAD as well.
type Router struct {
	e      *echo.Echo
	shapes map[string]*suffixShape // by method and echo path
}

// suffixShape is the operations of one method sharing one echo route.
type suffixShape struct {
	param    string
	plain    echo.HandlerFunc // the operation without a literal, or nil
	suffixed []suffixRoute    // longest suffix first
}

type suffixRoute struct {
	suffix string
	h      echo.HandlerFunc
}

// Routes returns the router registering on e.
func Routes(e *echo.Echo) *Router {
	return &Router{e: e, shapes: map[string]*suffixShape{}}
}

// add registers one operation; a GET answers HEAD too (RFC 9110 §9.3.2:
// the same answer without the body, which net/http drops). A contract
// whose suffixed parameter is not the last of its path is refused (panics
// at registration, i.e. at start).
func (r *Router) add(method, path string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	for i := len(m) - 1; i >= 0; i-- {
		h = m[i](h)
	}
	if method == http.MethodGet {
		r.register(http.MethodHead, path, h)
	}
	return r.register(method, path, h)
}

func (r *Router) register(method, path string, h echo.HandlerFunc) *echo.Route {
	param, suffix, base := splitSuffix(path)
	key := method + " " + base
	sh, known := r.shapes[key]
	if suffix == "" && !known {
		// A plain route registered first: another operation may later
		// share it with a literal, so it goes through a shape too when it
		// ends with a parameter.
		if param == "" {
			return r.e.Add(method, path, h)
		}
	}
	if !known {
		sh = &suffixShape{param: param}
		r.shapes[key] = sh
		defer func() { r.e.Add(method, base, sh.serve) }()
	}
	if suffix == "" {
		sh.plain = h
	} else {
		i := 0
		for i < len(sh.suffixed) && len(sh.suffixed[i].suffix) >= len(suffix) {
			i++
		}
		sh.suffixed = append(sh.suffixed[:i], append([]suffixRoute{{suffix: suffix, h: h}}, sh.suffixed[i:]...)...)
	}
	return &echo.Route{Method: method, Path: path}
}

// splitSuffix finds a last segment ":name<literal>" in an echo path and
// returns the parameter, the literal and the path without it. A last
// segment that is a bare parameter gives its name and no literal; any
// other path gives no parameter.
func splitSuffix(path string) (param, suffix, base string) {
	segs := strings.Split(path, "/")
	for k, seg := range segs {
		name, ok := strings.CutPrefix(seg, ":")
		if !ok {
			continue
		}
		end := nameEnd(name)
		switch {
		case k < len(segs)-1 && end < len(name):
			panic(fmt.Sprintf("apiserve: path %q: a parameter with a literal after it must be in the last segment", path))
		case k == len(segs)-1:
			return name[:end], name[end:], strings.Join(segs[:k], "/") + "/:" + name[:end]
		}
	}
	return "", "", path
}

// nameEnd is the length of the parameter name at the start of s.
func nameEnd(s string) int {
	for j, c := range s {
		if !(c == '_' || c == '-' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return j
		}
	}
	return len(s)
}

// serve dispatches a request of the shape's route by the literal its
// parameter ends with.
func (sh *suffixShape) serve(c echo.Context) error {
	v := c.Param(sh.param)
	for _, s := range sh.suffixed {
		if strings.HasSuffix(v, s.suffix) {
			setParam(c, sh.param, v[:len(v)-len(s.suffix)])
			return s.h(c)
		}
	}
	if sh.plain != nil {
		return sh.plain(c)
	}
	return echo.ErrNotFound
}

// setParam replaces the value of the path parameter name. Echo hands out
// the context's own values (no copy per request); they are set back all
// the same, so a copy would be right too.
func setParam(c echo.Context, name, value string) {
	names := c.ParamNames()
	values := c.ParamValues()
	for i, n := range names {
		if n == name && i < len(values) {
			values[i] = value
		}
	}
	c.SetParamValues(values...)
}

// CONNECT registers an operation (oapi-codegen's EchoRouter).
func (r *Router) CONNECT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodConnect, p, h, m...)
}

// DELETE registers an operation (oapi-codegen's EchoRouter).
func (r *Router) DELETE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodDelete, p, h, m...)
}

// GET registers an operation (oapi-codegen's EchoRouter).
func (r *Router) GET(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodGet, p, h, m...)
}

// HEAD registers an operation (oapi-codegen's EchoRouter).
func (r *Router) HEAD(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodHead, p, h, m...)
}

// OPTIONS registers an operation (oapi-codegen's EchoRouter).
func (r *Router) OPTIONS(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodOptions, p, h, m...)
}

// PATCH registers an operation (oapi-codegen's EchoRouter).
func (r *Router) PATCH(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodPatch, p, h, m...)
}

// POST registers an operation (oapi-codegen's EchoRouter).
func (r *Router) POST(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodPost, p, h, m...)
}

// PUT registers an operation (oapi-codegen's EchoRouter).
func (r *Router) PUT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodPut, p, h, m...)
}

// TRACE registers an operation (oapi-codegen's EchoRouter).
func (r *Router) TRACE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return r.add(http.MethodTrace, p, h, m...)
}
