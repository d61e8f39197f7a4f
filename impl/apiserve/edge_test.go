package apiserve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"
)

// A remembered verdict must hand the handler the same request a validated
// one gets: the validator writes absent query parameters' defaults into
// the request, so a memo hit has to as well.
func TestMemoHitSeesTheSameRequest(t *testing.T) {
	t.Parallel()
	e, memo := newItemsEcho(t)
	e.GET("/items/:id", func(c echo.Context) error {
		return c.String(200, c.Request().URL.RawQuery+" mode="+strings.Join(c.Request().Header.Values("X-Mode"), ","))
	})
	var seen []string
	for range 3 {
		_, _, body := do(t, e, "GET", "/items/abc?limit=2", "")
		seen = append(seen, body)
	}
	if memo.hits.Load() != 2 {
		t.Fatalf("memo hits = %d, want 2", memo.hits.Load())
	}
	for i, q := range seen {
		if q != seen[0] || !strings.Contains(q, "sort=asc") || !strings.HasSuffix(q, " mode=fast") {
			t.Errorf("request %d reached the handler with query %q (first: %q)", i, q, seen[0])
		}
	}
}

// A body over the server's limit is 413 whether the validator or the
// handler finds out, not 400 "reading failed" or 500.
func TestBodyOverLimitIs413(t *testing.T) {
	t.Parallel()
	spec := itemsSpec(t)
	e, err := New(Options{Spec: spec, Auth: func(context.Context, *openapi3filter.AuthenticationInput) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	e.PUT("/items/:id", func(c echo.Context) error { return c.NoContent(204) })
	req := httptest.NewRequest("PUT", "/items/abc", strings.NewReader(`{"name":"`+strings.Repeat("x", 100)+`"}`))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	req.Body = http.MaxBytesReader(rec, req.Body, 16)
	e.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("body over the limit = %d %s, want 413", rec.Code, rec.Body.String())
	}
}

// A declared header sent empty is not the same request as one without it:
// validation may refuse the empty value, so a remembered verdict for the
// request without it must not let it through.
func TestMemoTellsAbsentFromEmptyHeader(t *testing.T) {
	t.Parallel()
	e, _ := newItemsEcho(t)
	e.GET("/items/:id", func(c echo.Context) error { return c.NoContent(200) })
	for range 2 {
		if code, _, body := do(t, e, "GET", "/items/abc?limit=3", ""); code != 200 {
			t.Fatalf("valid GET = %d %s", code, body)
		}
	}
	for range 2 {
		if code, _, body := do(t, e, "GET", "/items/abc?limit=3", "", "X-Trace", ""); code != 400 {
			t.Errorf("GET with an empty X-Trace (pattern ^[a-z]+$) after valid ones = %d %s, want 400", code, body)
		}
		if code, _, body := do(t, e, "GET", "/items/abc?limit=3", "", "X-Mode", "warp"); code != 400 {
			t.Errorf("GET with X-Mode outside its enum after valid ones = %d %s, want 400", code, body)
		}
	}
	// HEAD is not GET: the operation has no HEAD, whatever GET's verdict.
	if code, _, _ := do(t, e, "HEAD", "/items/abc?limit=3", ""); code == 200 {
		t.Errorf("HEAD of a GET-only operation = %d after remembered GETs", code)
	}
}

func TestMethodNotAllowedNamesAllow(t *testing.T) {
	t.Parallel()
	e := newItems(t)
	req := httptest.NewRequest("PATCH", "/items/abc", nil)
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, PUT" {
		t.Errorf("PATCH = %d, Allow %q; want 405 with Allow: GET, PUT", rec.Code, rec.Header().Get("Allow"))
	}
}
