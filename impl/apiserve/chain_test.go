package apiserve

import (
	"net/http"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
)

// TestMemoRoutesEachURLOnce: a URL's hits take the route remembered in its
// memo entry, so each URL still reaches its own handler with its own
// parameters (a suffixed path too, and a HEAD routed as its GET), however
// the requests interleave.
func TestMemoRoutesEachURLOnce(t *testing.T) {
	t.Parallel()
	e, memo, err := newEcho(Options{Spec: itemsSpec(t), Policy: &Policy{}})
	if err != nil {
		t.Fatal(err)
	}
	r := Routes(e)
	r.GET("/items/:id", func(c echo.Context) error { return c.String(200, "item "+c.Param("id")+" "+c.Path()) })
	r.GET("/notes/:id.xml", func(c echo.Context) error { return c.String(200, "note "+c.Param("id")) })
	want := map[string]string{
		"/items/abc":     "item abc /items/:id",
		"/items/xyz":     "item xyz /items/:id",
		"/notes/abc.xml": "note abc",
	}
	for round := range 3 {
		for _, path := range []string{"/items/abc", "/notes/abc.xml", "/items/xyz"} {
			if rec := serve(e, http.MethodGet, path, ""); rec.Code != 200 || rec.Body.String() != want[path] {
				t.Errorf("round %d: GET %s: %d %q, want %q", round, path, rec.Code, rec.Body, want[path])
			}
			if rec := serve(e, http.MethodHead, path, ""); rec.Code != 200 {
				t.Errorf("round %d: HEAD %s: %d", round, path, rec.Code)
			}
		}
	}
	if memo.hits.Load() == 0 {
		t.Error("no request was a hit: the remembered routes were not used")
	}
	// A path the contract refuses is never remembered, valid ones before
	// it or not.
	if rec := serve(e, http.MethodGet, "/items/toolong", ""); rec.Code != 400 {
		t.Errorf("GET /items/toolong: %d", rec.Code)
	}
}

// TestPreRunsOnEveryRequest: Options.Pre run in order after the edge (a
// HEAD reaches them as its GET) on every request, hits of the memo too,
// and may answer themselves.
func TestPreRunsOnEveryRequest(t *testing.T) {
	t.Parallel()
	var seen []string
	mark := func(name string) echo.MiddlewareFunc {
		return func(next echo.HandlerFunc) echo.HandlerFunc {
			return func(c echo.Context) error {
				seen = append(seen, name+" "+c.Request().Method)
				if c.Request().Header.Get("X-Stop") == name {
					return c.String(http.StatusTeapot, "stopped by "+name)
				}
				return next(c)
			}
		}
	}
	e, _, err := newEcho(Options{Spec: itemsSpec(t), Policy: &Policy{}, Pre: []echo.MiddlewareFunc{mark("first"), mark("second")}})
	if err != nil {
		t.Fatal(err)
	}
	Routes(e).GET("/items/:id", func(c echo.Context) error { seen = append(seen, "handler"); return c.NoContent(204) })
	for range 2 {
		serve(e, http.MethodGet, "/items/abc", "")
	}
	serve(e, http.MethodHead, "/items/abc", "")
	if got, want := strings.Join(seen, ", "), strings.Repeat("first GET, second GET, handler, ", 3); got+", " != want {
		t.Errorf("ran %q, want %q", got, want)
	}
	if rec := serve(e, http.MethodGet, "/items/abc", "", "X-Stop", "second"); rec.Code != http.StatusTeapot || rec.Body.String() != "stopped by second" {
		t.Errorf("a Pre answering: %d %q", rec.Code, rec.Body)
	}
}
