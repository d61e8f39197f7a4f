package apiserve

import (
	"fmt"
	"maps"
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	lru "github.com/hashicorp/golang-lru/v2"
)

// Contract answers what the OpenAPI document says about a request path
// (relative to the base URL): its operation and the methods it has. One
// per service, shared by apiserve (the verdict memo, 405's Allow) and the
// service's own rules (media types, OPTIONS), so the document is routed
// in one place.
type Contract struct {
	spec   *openapi3.T
	router routers.Router
	// routes remembers the route of each path found before, by method
	// (the standard ones; another method is routed every time): matching
	// gorilla/mux's regular expressions was a third of a cached Hours read
	// (pprof), and a path's route never changes. Keyed by the path as
	// sent, so a lookup builds no key. Bounded, and only found routes are
	// kept, so unknown paths cannot fill it.
	routes map[string]*lru.Cache[string, foundRoute]
}

// foundRoute is a remembered FindRoute answer.
type foundRoute struct {
	route  *routers.Route
	params map[string]string
}

// rememberedRoutes bounds Contract's memory of found routes per method (a
// few hundred bytes each).
const rememberedRoutes = 4096

// NewContract routes a copy of spec without servers (paths are relative to
// the base URL, which the server has already stripped).
func NewContract(spec *openapi3.T) (*Contract, error) {
	doc, err := clone(spec)
	if err != nil {
		return nil, err
	}
	doc.Servers = nil
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("apiserve: routing OpenAPI document: %w", err)
	}
	routes := map[string]*lru.Cache[string, foundRoute]{}
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions} {
		if routes[m], err = lru.New[string, foundRoute](rememberedRoutes); err != nil {
			return nil, fmt.Errorf("apiserve: route memory: %w", err)
		}
	}
	return &Contract{spec: doc, router: router, routes: routes}, nil
}

// FindRoute is the document's route of r and its path parameters, as the
// validator finds them (routers.ErrPathNotFound and the like when none).
// The parameters are the caller's own copy.
func (c *Contract) FindRoute(r *http.Request) (*routers.Route, map[string]string, error) {
	found, err := c.find(r)
	if err != nil {
		return nil, nil, err
	}
	return found.route, maps.Clone(found.params), nil
}

// find is FindRoute with the remembered parameters themselves (never to
// be changed).
func (c *Contract) find(r *http.Request) (foundRoute, error) {
	routes := c.routes[r.Method]
	path := r.URL.EscapedPath()
	if routes != nil {
		if found, ok := routes.Get(path); ok {
			return found, nil
		}
	}
	route, params, err := c.router.FindRoute(r)
	if err != nil {
		return foundRoute{}, err
	}
	found := foundRoute{route: route, params: params}
	if routes != nil {
		routes.Add(path, found)
	}
	return found, nil
}

// Operation is the document's operation of r, if it has one.
func (c *Contract) Operation(r *http.Request) (*openapi3.Operation, bool) {
	found, err := c.find(r)
	if err != nil {
		return nil, false
	}
	return found.route.Operation, true
}

// Declared lists the methods the document declares for r's path ("" when
// none): apiserve's Allow of a 405 when the service sets none.
func (c *Contract) Declared(r *http.Request) string {
	return strings.Join(c.methods(r, false), ", ")
}

// Allow is the Allow header of a service that answers HEAD for every GET
// and OPTIONS for every path: the declared methods with HEAD after GET,
// then OPTIONS; "" when the document has no operation at r's path.
func (c *Contract) Allow(r *http.Request) string {
	out := c.methods(r, true)
	if len(out) == 0 {
		return ""
	}
	return strings.Join(append(out, http.MethodOptions), ", ")
}

func (c *Contract) methods(r *http.Request, head bool) []string {
	var out []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions} {
		if head && (m == http.MethodHead || m == http.MethodOptions) {
			continue // Allow adds them
		}
		probe := r.WithContext(r.Context())
		probe.Method = m
		if _, _, err := c.router.FindRoute(probe); err == nil {
			out = append(out, m)
			if m == http.MethodGet && head {
				out = append(out, http.MethodHead)
			}
		}
	}
	return out
}

// secured reports whether the document requires credentials of op (its
// own security requirements, else the document's).
func (c *Contract) secured(op *openapi3.Operation) bool {
	if op.Security != nil {
		return len(*op.Security) > 0
	}
	return len(c.spec.Security) > 0
}
