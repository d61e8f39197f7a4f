package apiserve

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/getkin/kin-openapi/routers"
)

func TestContract(t *testing.T) {
	t.Parallel()
	c := itemsContract(t)
	item := httptest.NewRequest("PATCH", "/items/abc", nil)
	if got := c.Allow(item); got != "GET, HEAD, PUT, OPTIONS" {
		t.Errorf("Allow = %q", got)
	}
	if got := c.Declared(item); got != "GET, PUT" {
		t.Errorf("Declared = %q", got)
	}
	none := httptest.NewRequest("GET", "/nothing", nil)
	if c.Allow(none) != "" || c.Declared(none) != "" {
		t.Errorf("a path the document lacks has methods: %q %q", c.Allow(none), c.Declared(none))
	}
	if op, ok := c.Operation(httptest.NewRequest("PUT", "/items/abc", nil)); !ok || op.RequestBody == nil {
		t.Errorf("PUT /items/abc: %v %v", op, ok)
	}
	if _, ok := c.Operation(item); ok {
		t.Error("PATCH /items/abc has an operation")
	}
}

// FindRoute remembers found routes (the same route and parameters the
// second time, each caller with its own copy of the parameters) and never
// remembers a path the document lacks, so unknown paths cannot fill it.
func TestFindRouteRemembers(t *testing.T) {
	t.Parallel()
	c := itemsContract(t)
	get := func(path string) (*routers.Route, map[string]string, error) {
		return c.FindRoute(httptest.NewRequest(http.MethodGet, path, nil))
	}
	r1, p1, err := get("/items/abc")
	if err != nil {
		t.Fatal(err)
	}
	p1["id"] = "changed by the first caller"
	r2, p2, err := get("/items/abc")
	if err != nil || r2 != r1 || p2["id"] != "abc" {
		t.Fatalf("second lookup: route %p (first %p), params %v, %v", r2, r1, p2, err)
	}
	for i := range 100 {
		if _, _, err := get(fmt.Sprintf("/nowhere/%d", i)); err == nil {
			t.Fatal("an unknown path was routed")
		}
	}
	if n := c.routes[http.MethodGet].Len(); n != 1 {
		t.Fatalf("%d routes remembered, want 1 (unknown paths are not)", n)
	}
	if op, ok := c.Operation(httptest.NewRequest(http.MethodPut, "/items/abc", nil)); !ok || op.OperationID != "putItem" {
		t.Fatalf("PUT /items/abc: %v %v", op, ok)
	}
	// The same path under another method is that method's route, and a
	// method outside the standard ones is routed each time, not kept.
	if _, _, err := c.FindRoute(httptest.NewRequest(http.MethodDelete, "/items/abc", nil)); err == nil {
		t.Fatal("DELETE /items/abc was routed (the document has no such operation)")
	}
	if _, _, err := c.FindRoute(httptest.NewRequest("BREW", "/items/abc", nil)); err == nil {
		t.Fatal("BREW /items/abc was routed")
	}
	if _, ok := c.routes["BREW"]; ok {
		t.Fatal("a route memory was made for a method outside the standard ones")
	}
}
