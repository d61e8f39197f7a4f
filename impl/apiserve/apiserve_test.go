package apiserve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"
)

func newItems(t *testing.T) *echo.Echo {
	t.Helper()
	spec := itemsSpec(t)
	e, err := New(Options{
		Spec:    spec,
		BaseURL: "https://api.example.test/items",
		Errors: func(c echo.Context, err *Error) error {
			return c.JSON(err.Status, map[string]string{"message": err.Message, "parameter": err.Parameter, "pointer": err.Pointer})
		},
		Auth: func(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
			if in.RequestValidationInput.Request.Header.Get("Authorization") != "Bearer good" {
				return echo.NewHTTPError(http.StatusUnauthorized, "a bearer token is required")
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	e.GET("/items/:id", func(c echo.Context) error { return c.JSON(200, map[string]string{"id": c.Param("id")}) })
	e.PUT("/items/:id", func(c echo.Context) error { return c.NoContent(204) })
	return e
}

type errBody struct{ Message, Parameter, Pointer string }

func do(t *testing.T, e *echo.Echo, method, path, body string, hdr ...string) (int, errBody, string) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	var eb errBody
	_ = json.Unmarshal(rec.Body.Bytes(), &eb)
	return rec.Code, eb, rec.Body.String()
}

func TestValidRequestsReachHandlers(t *testing.T) {
	t.Parallel()
	e := newItems(t)
	if code, _, body := do(t, e, "GET", "/items/abc?limit=2", ""); code != 200 || !strings.Contains(body, `"abc"`) {
		t.Errorf("GET valid = %d %s", code, body)
	}
	if code, _, body := do(t, e, "PUT", "/items/abc", `{"name":"x"}`, "Authorization", "Bearer good"); code != 204 {
		t.Errorf("PUT valid = %d %s", code, body)
	}
}

func TestValidatorErrorsNameTheFault(t *testing.T) {
	t.Parallel()
	e := newItems(t)
	code, eb, _ := do(t, e, "GET", "/items/abc?limit=0", "")
	if code != 400 || eb.Parameter != "limit" || !strings.Contains(eb.Message, `"limit"`) {
		t.Errorf("bad query = %d %+v", code, eb)
	}
	code, eb, _ = do(t, e, "GET", "/items/ab1", "")
	if code != 400 || eb.Parameter != "id" {
		t.Errorf("bad path param = %d %+v", code, eb)
	}
	code, eb, _ = do(t, e, "PUT", "/items/abc", `{"name":"x","size":"big"}`, "Authorization", "Bearer good")
	if code != 400 || eb.Pointer != "/size" {
		t.Errorf("bad body = %d %+v", code, eb)
	}
	code, eb, _ = do(t, e, "PUT", "/items/abc", `{"size":1}`, "Authorization", "Bearer good")
	if code != 400 || !strings.Contains(eb.Message, "name") {
		t.Errorf("missing property = %d %+v", code, eb)
	}
	code, eb, _ = do(t, e, "PUT", "/items/abc", "", "Authorization", "Bearer good")
	if code != 400 || strings.Count(eb.Message, "required") != 1 {
		t.Errorf("missing body = %d %q (the reason once, not twice)", code, eb.Message)
	}
	if code, _, _ := do(t, e, "GET", "/nothing", ""); code != 404 {
		t.Errorf("unknown path = %d", code)
	}
	if code, _, _ := do(t, e, "DELETE", "/items/abc", ""); code != 405 {
		t.Errorf("unknown method = %d", code)
	}
	if code, eb, _ := do(t, e, "PUT", "/items/abc", `{"name":"x"}`); code != 401 || eb.Message != "a bearer token is required" {
		t.Errorf("no token = %d %+v", code, eb)
	}
}

func TestHandlerErrorsUseRenderer(t *testing.T) {
	t.Parallel()
	e := newItems(t)
	e.GET("/items/:id", func(c echo.Context) error {
		if c.Param("id") == "dup" {
			return &Error{Status: http.StatusConflict, Message: "taken", Parameter: "id"}
		}
		return errors.New("database on fire")
	})
	code, eb, _ := do(t, e, "GET", "/items/dup", "")
	if code != http.StatusConflict || eb.Message != "taken" || eb.Parameter != "id" {
		t.Errorf("handler *Error = %d %+v", code, eb)
	}
	code, eb, body := do(t, e, "GET", "/items/abc", "")
	if code != http.StatusInternalServerError || eb.Message != "internal server error" || strings.Contains(body, "fire") {
		t.Errorf("handler error = %d %s (internal details must not leak)", code, body)
	}
}

func TestSpecPublishedWithBaseURL(t *testing.T) {
	t.Parallel()
	e := newItems(t)
	for _, p := range []string{"/openapi.json", "/openapi.yaml"} {
		req := httptest.NewRequest("GET", p, nil)
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Fatalf("GET %s = %d", p, rec.Code)
		}
		doc, err := openapi3.NewLoader().LoadFromData(rec.Body.Bytes())
		if err != nil {
			t.Fatalf("%s does not load: %v", p, err)
		}
		if err := doc.Validate(context.Background()); err != nil {
			t.Errorf("%s invalid: %v", p, err)
		}
		if len(doc.Servers) != 1 || doc.Servers[0].URL != "https://api.example.test/items" {
			t.Errorf("%s servers = %+v", p, doc.Servers)
		}
		if doc.Paths.Find("/items/{id}") == nil {
			t.Errorf("%s lacks its paths", p)
		}
	}
}

func TestRepeatedValidGETsSkipValidation(t *testing.T) {
	t.Parallel()
	spec := itemsSpec(t)
	authCalls := 0
	e, memo, err := newEcho(Options{Spec: spec, Auth: func(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
		authCalls++
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	e.GET("/items/:id", func(c echo.Context) error { return c.String(200, c.Param("id")) })
	e.PUT("/items/:id", func(c echo.Context) error { return c.NoContent(204) })

	for i := 0; i < 3; i++ {
		if code, _, body := do(t, e, "GET", "/items/abc?limit=2", ""); code != 200 {
			t.Fatalf("valid GET #%d = %d %s", i, code, body)
		}
	}
	if got := memo.hits.Load(); got != 2 {
		t.Errorf("memo hits after 3 identical GETs = %d, want 2", got)
	}
	// The verdict depends on the operation's declared headers too: the same
	// URL with a bad header value is refused, then remembered with a good one.
	for i := 0; i < 2; i++ {
		if code, _, body := do(t, e, "GET", "/items/abc?limit=2", "", "X-Trace", "BAD!"); code != 400 || !strings.Contains(body, "X-Trace") {
			t.Errorf("bad header after valid GETs = %d %s, want 400 naming X-Trace", code, body)
		}
	}
	hits := memo.hits.Load()
	do(t, e, "GET", "/items/abc?limit=2", "", "X-Trace", "ok")
	do(t, e, "GET", "/items/abc?limit=2", "", "X-Trace", "ok")
	if memo.hits.Load() != hits+1 {
		t.Errorf("a repeated good header value was not remembered (hits %d→%d)", hits, memo.hits.Load())
	}
	// A query relying on a parameter's default is remembered as sent (the
	// validator writes the default into the request it checks).
	hits = memo.hits.Load()
	do(t, e, "GET", "/items/xyz", "")
	do(t, e, "GET", "/items/xyz", "")
	if memo.hits.Load() != hits+1 {
		t.Errorf("a request relying on defaults was not remembered (hits %d→%d)", hits, memo.hits.Load())
	}
	// A different query is validated (and refused) on its own.
	if code, _, _ := do(t, e, "GET", "/items/abc?limit=0", ""); code != 400 {
		t.Errorf("invalid GET after valid ones = %d, want 400", code)
	}
	if code, _, _ := do(t, e, "GET", "/items/abc?limit=0", ""); code != 400 {
		t.Errorf("invalid GET is never remembered: got %d", code)
	}
	// Requests with credentials, and operations with security, are never
	// remembered: their verdict depends on more than the URL.
	before := memo.hits.Load()
	for i := 0; i < 2; i++ {
		do(t, e, "GET", "/items/abc?limit=2", "", "Authorization", "Bearer x")
		do(t, e, "PUT", "/items/abc", `{"name":"x"}`, "Authorization", "Bearer good")
	}
	if memo.hits.Load() != before || authCalls != 2 {
		t.Errorf("credentialed requests used the memo (hits %d→%d) or skipped auth (%d calls)", before, memo.hits.Load(), authCalls)
	}
}

func TestVerdictMemoIsBounded(t *testing.T) {
	t.Parallel()
	e, memo := newItemsEcho(t)
	memo.entries.Resize(8)
	e.GET("/items/:id", func(c echo.Context) error { return c.NoContent(200) })
	for i := 0; i < 50; i++ {
		do(t, e, "GET", "/items/abc?limit="+strconv.Itoa(i+1), "")
	}
	if n := memo.entries.Len(); n != 8 {
		t.Errorf("memo holds %d entries, want 8", n)
	}
	r50 := httptest.NewRequest("GET", "/items/abc?limit=50", nil)
	r1 := httptest.NewRequest("GET", "/items/abc?limit=1", nil)
	_, hit50 := memo.check(r50)
	_, hit1 := memo.check(r1)
	if !hit50 || hit1 {
		t.Error("memo did not keep the most recent entries")
	}
}

func BenchmarkValidatedGET(b *testing.B) {
	e, memo := newItemsEcho(b)
	e.GET("/items/:id", func(c echo.Context) error { return c.NoContent(200) })
	run := func(b *testing.B, memoOn bool) {
		for i := 0; i < b.N; i++ {
			if !memoOn {
				memo.entries.Purge()
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, httptest.NewRequest("GET", "/items/abc?limit=2", nil))
		}
	}
	b.Run("validated", func(b *testing.B) { run(b, false) })
	b.Run("remembered", func(b *testing.B) { run(b, true) })
}
