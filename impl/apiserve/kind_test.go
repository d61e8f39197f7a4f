package apiserve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"
)

// Every refusal reaches the service's renderer with its kind decided by
// apiserve from typed errors and the contract, so services never read the
// wording of the validator's messages.
func TestErrorKinds(t *testing.T) {
	t.Parallel()
	spec := itemsSpec(t)
	var got *Error
	e, err := New(Options{
		Spec:    spec,
		BaseURL: "https://api.example.test/items",
		Errors: func(c echo.Context, err *Error) error {
			got = err
			return c.NoContent(err.Status)
		},
		Auth: func(context.Context, *openapi3filter.AuthenticationInput) error { return nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	e.GET("/items/:id", func(c echo.Context) error { return c.NoContent(200) })
	e.PUT("/items/:id", func(c echo.Context) error { return c.NoContent(204) })
	for _, tc := range []struct {
		name, method, path, contentType, body string
		kind                                  Kind
		allowed                               []string
	}{
		{"enum query value", "GET", "/items/abc?sort=sideways", "", "", KindNotAllowedValue, []string{"asc", "desc"}},
		{"enum header value", "GET", "/items/abc", "", "", KindNotAllowedValue, []string{"fast", "slow"}},
		{"body in another media type", "PUT", "/items/abc", "text/plain", "name=x", KindUnsupportedMediaType, nil},
		{"body in a malformed media type", "PUT", "/items/abc", "application/", "{}", KindUnsupportedMediaType, nil},
		{"no body", "PUT", "/items/abc", "application/json", "", KindMissingBody, nil},
		{"schema violation", "PUT", "/items/abc", "application/json", `{"size":1}`, KindOther, nil},
		{"no such path", "GET", "/nothing/here", "", "", KindNoRoute, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got = nil
			req := httptest.NewRequest(tc.method, tc.path, strings.NewReader(tc.body))
			if tc.contentType != "" {
				req.Header.Set("Content-Type", tc.contentType)
			}
			if tc.name == "enum header value" {
				req.Header.Set("X-Mode", "medium")
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if got == nil {
				t.Fatalf("not refused: %d", rec.Code)
			}
			if got.Kind != tc.kind || !slices.Equal(got.Allowed, tc.allowed) {
				t.Errorf("kind %d allowed %q (status %d, %q), want kind %d allowed %q", got.Kind, got.Allowed, got.Status, got.Message, tc.kind, tc.allowed)
			}
			if got.Status < http.StatusBadRequest {
				t.Errorf("status %d", got.Status)
			}
		})
	}
}
