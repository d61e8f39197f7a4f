package apiserve

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"
)

// seen is what the handlers of newPolicyItems saw of the last request.
type seen struct {
	method, received, contentType string
}

func newPolicyItems(t *testing.T) (*echo.Echo, *seen) {
	t.Helper()
	spec := itemsSpec(t)
	e, err := New(Options{
		Spec: spec,
		Auth: func(ctx context.Context, in *openapi3filter.AuthenticationInput) error {
			if in.RequestValidationInput.Request.Header.Get("Authorization") != "Bearer good" {
				return echo.NewHTTPError(http.StatusUnauthorized, "a bearer token is required")
			}
			return nil
		},
		Policy: &Policy{
			CrossOrigin:      func(op string) bool { return op == "getItem" },
			ExposeHeaders:    "ETag",
			PreflightHeaders: "If-None-Match",
			BodyLimit:        64,
			NotFound:         func(path string) string { return "not found: no " + path + " here" },
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	var s seen
	record := func(c echo.Context) {
		r := c.Request()
		s = seen{method: r.Method, contentType: r.Header.Get("Content-Type")}
		if rec := Received(r.Context()); rec != nil {
			s.received = rec.Method
		}
	}
	r := Routes(e)
	r.GET("/items/:id", func(c echo.Context) error { record(c); return c.JSON(200, map[string]string{"id": c.Param("id")}) })
	r.PUT("/items/:id", func(c echo.Context) error { record(c); return c.NoContent(204) })
	r.GET("/notes/:id.xml", func(c echo.Context) error { record(c); return c.Blob(200, "application/xml", []byte("<note/>")) })
	r.PUT("/notes/:id.xml", func(c echo.Context) error { record(c); return c.NoContent(204) })
	return e, &s
}

func serve(e *echo.Echo, method, path, body string, hdr ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body == "" {
		req.Body = http.NoBody
		req.ContentLength = 0
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, req)
	return rec
}

// TestPolicyOptions: OPTIONS is answered from the document; a preflight
// only for a path whose GET the policy makes cross-origin.
func TestPolicyOptions(t *testing.T) {
	t.Parallel()
	e, _ := newPolicyItems(t)
	rec := serve(e, http.MethodOptions, "/items/abc", "")
	if rec.Code != 204 || rec.Header().Get("Allow") != "GET, HEAD, PUT, OPTIONS" || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("OPTIONS /items/abc: %d %v", rec.Code, rec.Header())
	}
	rec = serve(e, http.MethodOptions, "/items/abc", "", "Origin", "https://x.example", "Access-Control-Request-Method", "GET")
	h := rec.Header()
	if rec.Code != 204 || h.Get("Access-Control-Allow-Origin") != "*" || h.Get("Access-Control-Allow-Methods") != "GET, HEAD" ||
		h.Get("Access-Control-Allow-Headers") != "If-None-Match" || h.Get("Access-Control-Max-Age") == "" {
		t.Errorf("preflight /items/abc: %d %v", rec.Code, h)
	}
	// getNote is not cross-origin: no preflight answer, Allow still.
	rec = serve(e, http.MethodOptions, "/notes/abc.xml", "", "Origin", "https://x.example", "Access-Control-Request-Method", "GET")
	if rec.Code != 204 || rec.Header().Get("Allow") != "GET, HEAD, PUT, OPTIONS" || rec.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight /notes/abc.xml: %d %v", rec.Code, rec.Header())
	}
	rec = serve(e, http.MethodOptions, "/openapi.json", "")
	if rec.Code != 204 || rec.Header().Get("Allow") != "GET, HEAD, OPTIONS" {
		t.Errorf("OPTIONS /openapi.json: %d %v", rec.Code, rec.Header())
	}
	rec = serve(e, http.MethodOptions, "/nothing", "")
	if rec.Code != 404 || !strings.Contains(rec.Body.String(), "not found: no /nothing here") {
		t.Errorf("OPTIONS /nothing: %d %s", rec.Code, rec.Body)
	}
}

// TestPolicyMethods: a method the path lacks is 405 with the document's
// Allow before validation (no credentials asked for); a path the
// document lacks is 404 with the policy's message, for reads and writes.
func TestPolicyMethods(t *testing.T) {
	t.Parallel()
	e, _ := newPolicyItems(t)
	for _, c := range []struct{ method, path, allow string }{
		{http.MethodDelete, "/items/abc", "GET, HEAD, PUT, OPTIONS"},
		{http.MethodPost, "/notes/abc.xml", "GET, HEAD, PUT, OPTIONS"},
		{http.MethodPost, "/openapi.json", "GET, HEAD"},
	} {
		rec := serve(e, c.method, c.path, "")
		if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow %q %s", c.method, c.path, rec.Code, rec.Header().Get("Allow"), rec.Body)
		}
	}
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost} {
		rec := serve(e, m, "/nothing/here", "")
		if rec.Code != 404 || (m != http.MethodHead && !strings.Contains(rec.Body.String(), "not found: no /nothing/here here")) {
			t.Errorf("%s /nothing/here: %d %s", m, rec.Code, rec.Body)
		}
	}
}

// TestPolicyHEAD: a HEAD is validated and routed as its GET; the handler
// can still tell it was a HEAD.
func TestPolicyHEAD(t *testing.T) {
	t.Parallel()
	e, s := newPolicyItems(t)
	rec := serve(e, http.MethodHead, "/items/abc", "")
	if rec.Code != 200 || s.method != http.MethodGet || s.received != http.MethodHead {
		t.Errorf("HEAD /items/abc: %d, handler saw %+v", rec.Code, *s)
	}
	if rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("HEAD /items/abc: no CORS: %v", rec.Header())
	}
	// Validated as the GET: a bad parameter is refused.
	if rec := serve(e, http.MethodHead, "/items/abc?limit=0", ""); rec.Code != 400 {
		t.Errorf("HEAD with limit=0: %d", rec.Code)
	}
	rec = serve(e, http.MethodGet, "/items/abc", "")
	if rec.Code != 200 || s.received != "" {
		t.Errorf("GET /items/abc: %d, handler saw %+v", rec.Code, *s)
	}
}

// TestPolicyCORS: the answers (errors included) of the cross-origin
// operations carry CORS headers, on the first request and on a request
// whose verdict was remembered; other operations' answers do not.
func TestPolicyCORS(t *testing.T) {
	t.Parallel()
	e, _ := newPolicyItems(t)
	for i := range 2 {
		rec := serve(e, http.MethodGet, "/items/abc", "")
		if rec.Header().Get("Access-Control-Allow-Origin") != "*" || rec.Header().Get("Access-Control-Expose-Headers") != "ETag" {
			t.Errorf("GET /items/abc #%d: %v", i, rec.Header())
		}
		rec = serve(e, http.MethodGet, "/notes/abc.xml", "")
		if rec.Code != 200 || rec.Header().Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("GET /notes/abc.xml #%d: %d %v", i, rec.Code, rec.Header())
		}
	}
	rec := serve(e, http.MethodGet, "/items/abcd", "")
	if rec.Code != 400 || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("GET /items/abcd: %d %v", rec.Code, rec.Header())
	}
	// A read with credentials is not remembered; the operation is routed.
	rec = serve(e, http.MethodGet, "/items/abc", "", "Authorization", "Bearer good")
	if rec.Code != 200 || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("GET /items/abc with credentials: %d %v", rec.Code, rec.Header())
	}
}

// TestPolicyBodies: a body over the limit is 413 before authentication
// reads it; text/xml reaches an operation declaring application/xml as
// application/xml.
func TestPolicyBodies(t *testing.T) {
	t.Parallel()
	e, s := newPolicyItems(t)
	big := fmt.Sprintf(`{"name":%q}`, strings.Repeat("x", 100))
	rec := serve(e, http.MethodPut, "/items/abc", big, "Content-Type", "application/json")
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("PUT over the limit: %d %s", rec.Code, rec.Body)
	}
	rec = serve(e, http.MethodPut, "/items/abc", `{"name":"a"}`, "Content-Type", "application/json", "Authorization", "Bearer good")
	if rec.Code != 204 {
		t.Errorf("PUT within the limit: %d %s", rec.Code, rec.Body)
	}
	rec = serve(e, http.MethodPut, "/notes/abc.xml", "<note/>", "Content-Type", "text/xml; charset=utf-8")
	if rec.Code != 204 || s.contentType != "application/xml; charset=utf-8" {
		t.Errorf("PUT text/xml: %d %s, handler saw %+v", rec.Code, rec.Body, *s)
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
