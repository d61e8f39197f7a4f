package apiserve

import (
	"net/http/httptest"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func TestContract(t *testing.T) {
	spec, err := openapi3.NewLoader().LoadFromFile("testdata/items.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewContract(spec)
	if err != nil {
		t.Fatal(err)
	}
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
