package apiserve

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

// itemsSpec loads testdata/items.yaml, the contract most of the edge's
// tests serve.
func itemsSpec(t testing.TB) *openapi3.T {
	t.Helper()
	spec, err := openapi3.NewLoader().LoadFromFile("testdata/items.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// newItemsEcho is the edge over testdata/items.yaml with no other option
// (no authorisation, no logging), with its verdict memo.
func newItemsEcho(t testing.TB) (*echo.Echo, *verdictMemo) {
	t.Helper()
	e, memo, err := newEcho(Options{Spec: itemsSpec(t)})
	if err != nil {
		t.Fatal(err)
	}
	return e, memo
}

// itemsContract is the contract of testdata/items.yaml.
func itemsContract(t testing.TB) *Contract {
	t.Helper()
	c, err := NewContract(itemsSpec(t))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
