package apiserve

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"
)

// The memo reads the declared headers by their canonical names; a contract
// may spell a header parameter in any case (HTTP header names are
// case-insensitive), and the verdict must still depend on its value.
func TestMemoKeysOnHeadersDeclaredInAnyCase(t *testing.T) {
	t.Parallel()
	spec := itemsSpec(t)
	for _, p := range spec.Paths.Find("/items/{id}").Get.Parameters {
		if p.Value.In == openapi3.ParameterInHeader {
			p.Value.Name = strings.ToLower(p.Value.Name)
		}
	}
	e, memo, err := newEcho(Options{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	e.GET("/items/:id", func(c echo.Context) error { return c.NoContent(200) })
	for range 2 {
		if code, _, body := do(t, e, "GET", "/items/abc?limit=4", "", "X-Trace", "ok"); code != 200 {
			t.Fatalf("valid GET = %d %s", code, body)
		}
	}
	if memo.hits.Load() != 1 {
		t.Fatalf("memo hits after 2 identical GETs = %d, want 1", memo.hits.Load())
	}
	for range 2 {
		if code, _, body := do(t, e, "GET", "/items/abc?limit=4", "", "X-Trace", "BAD!"); code != 400 {
			t.Errorf("GET with a bad x-trace after valid ones = %d %s, want 400", code, body)
		}
		if code, _, body := do(t, e, "GET", "/items/abc?limit=4", "", "X-Trace", "ok", "X-Mode", "warp"); code != 400 {
			t.Errorf("GET with x-mode outside its enum after valid ones = %d %s, want 400", code, body)
		}
	}
	// The default validation writes for the absent x-mode is replayed on a
	// hit, under the header's canonical name.
	var modes []string
	e.GET("/items/:id", func(c echo.Context) error {
		modes = append(modes, c.Request().Header.Get("X-Mode"))
		return c.NoContent(200)
	})
	for range 2 {
		do(t, e, "GET", "/items/def?limit=4", "")
	}
	if len(modes) != 2 || modes[0] != "fast" || modes[1] != "fast" {
		t.Errorf("X-Mode seen by the handler on a miss and a hit = %q, want the default fast twice", modes)
	}
	if memo.hits.Load() != 2 {
		t.Errorf("memo hits = %d, want 2", memo.hits.Load())
	}
}

// An operation without header parameters keeps its verdict key in its URL
// entry: each URL still has its own verdict.
func TestMemoRemembersEachURLOfAHeaderlessOperation(t *testing.T) {
	t.Parallel()
	e, memo := newItemsEcho(t)
	var seen []string
	e.GET("/notes/:file", func(c echo.Context) error {
		seen = append(seen, c.Request().URL.RequestURI())
		return c.NoContent(200)
	})
	for _, step := range []struct {
		url  string
		hits int64
	}{
		{"/notes/abc.xml", 0},
		{"/notes/abc.xml", 1},
		{"/notes/abd.xml", 1},
		{"/notes/abc.xml?v=2", 1},
		{"/notes/abd.xml", 2},
		{"/notes/abc.xml?v=2", 3},
		{"/notes/abc.xml", 4},
	} {
		if code, _, body := do(t, e, "GET", step.url, ""); code != 200 {
			t.Fatalf("GET %s = %d %s", step.url, code, body)
		}
		if got := memo.hits.Load(); got != step.hits {
			t.Errorf("after GET %s memo hits = %d, want %d", step.url, got, step.hits)
		}
	}
	if len(seen) != 7 || seen[3] != "/notes/abc.xml?v=2" || seen[4] != "/notes/abd.xml" {
		t.Errorf("handler saw %q", seen)
	}
}
