package server

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// pathService answers with the path it was given, or panics on /panic.
type pathService struct {
	name     string
	notReady error
}

func (p pathService) Name() string                    { return p.name }
func (p pathService) Ready(ctx context.Context) error { return p.notReady }
func (p pathService) Close() error                    { return nil }
func (p pathService) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/panic":
			panic("boom")
		case "/body":
			if _, err := io.ReadAll(r.Body); err != nil {
				http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
				return
			}
		}
		io.WriteString(w, p.name+" "+r.URL.Path)
	})
}

func (p pathService) IndexLinks() []Link {
	return []Link{
		{Title: p.name + " sample", URL: "http://example.test/" + p.name + "/sample"},
		{Title: p.name + " contract", URL: "http://example.test/" + p.name + "/openapi.yaml"},
	}
}

func newTestServer(t *testing.T, logs io.Writer, mounts ...Mount) *Server {
	t.Helper()
	s, err := New(Config{Mounts: mounts, Logger: slog.New(slog.NewJSONHandler(logs, nil)), MaxBodyBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func get(t *testing.T, h http.Handler, method, path string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, body))
	return rec
}

func TestMountsStripBasePath(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, io.Discard,
		Mount{Path: "/purl", Service: pathService{name: "purl"}},
		Mount{Path: "/soap/SiteAlgorithm", Service: pathService{name: "soap"}},
	)
	for path, want := range map[string]string{
		"/purl/bb000kk0000.xml": "purl /bb000kk0000.xml",
		"/purl":                 "purl /",
		"/purl/":                "purl /",
		"/soap/SiteAlgorithm":   "soap /",
	} {
		rec := get(t, s.Handler(), "GET", path, nil)
		if rec.Code != 200 || rec.Body.String() != want {
			t.Errorf("GET %s = %d %q, want 200 %q", path, rec.Code, rec.Body.String(), want)
		}
	}
	for _, path := range []string{"/purlx", "/soap/SiteAlgorithmX", "/nothing"} {
		if rec := get(t, s.Handler(), "GET", path, nil); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, rec.Code)
		}
	}
}

func TestRootMountLeavesProcessEndpoints(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, io.Discard, Mount{Path: "", Service: pathService{name: "purl"}})
	if rec := get(t, s.Handler(), "GET", "/bb000kk0000", nil); rec.Body.String() != "purl /bb000kk0000" {
		t.Errorf("root mount got %q", rec.Body.String())
	}
	if rec := get(t, s.Handler(), "GET", "/healthz", nil); strings.TrimSpace(rec.Body.String()) != "ok" {
		t.Errorf("/healthz under a root mount = %q", rec.Body.String())
	}
}

func TestTwoServicesAtOnePathRefused(t *testing.T) {
	t.Parallel()
	_, err := New(Config{Mounts: []Mount{
		{Path: "/x", Service: pathService{name: "a"}},
		{Path: "/x/", Service: pathService{name: "b"}},
	}})
	if err == nil {
		t.Fatal("two services at /x were accepted")
	}
}

func TestRequestIDLogAndMetrics(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := newTestServer(t, &logs, Mount{Path: "/purl", Service: pathService{name: "purl"}})
	rec := get(t, s.Handler(), "GET", "/purl/x", nil)
	id := rec.Header().Get("X-Request-Id")
	if len(id) < 8 {
		t.Fatalf("no request id header: %q", id)
	}
	if !strings.Contains(logs.String(), `"request_id":"`+id+`"`) || !strings.Contains(logs.String(), `"service":"purl"`) {
		t.Errorf("log line lacks request id or service: %s", logs.String())
	}
	if n := strings.Count(logs.String(), `"msg":"request"`); n != 1 {
		t.Errorf("%d request log lines, want 1", n)
	}

	req := httptest.NewRequest("GET", "/purl/x", nil)
	req.Header.Set("X-Request-Id", "upstream-123")
	rec = httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if got := rec.Header().Get("X-Request-Id"); got != "upstream-123" {
		t.Errorf("incoming plain request id not kept: %q", got)
	}
	req.Header.Set("X-Request-Id", "evil\"id with spaces")
	rec = httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if got := rec.Header().Get("X-Request-Id"); strings.Contains(got, " ") {
		t.Errorf("unsafe request id kept: %q", got)
	}

	wantMetric(t, s, `sitesvc_http_requests_total{code="200",method="GET",service="purl"} 3`)
}

// wantMetric fails the test unless s's /metrics has the line.
func wantMetric(t *testing.T, s *Server, line string) {
	t.Helper()
	if m := get(t, s.Handler(), "GET", "/metrics", nil).Body.String(); !strings.Contains(m, line) {
		t.Errorf("metrics lack %s:\n%s", line, m)
	}
}

func TestPanicBecomes500(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := newTestServer(t, &logs, Mount{Path: "/purl", Service: pathService{name: "purl"}})
	rec := get(t, s.Handler(), "GET", "/purl/panic", nil)
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("panic answered %d", rec.Code)
	}
	if !strings.Contains(logs.String(), "boom") {
		t.Error("panic not logged")
	}
	if rec := get(t, s.Handler(), "GET", "/purl/x", nil); rec.Code != 200 {
		t.Error("server unusable after a panic")
	}
}

func TestBodyLimit(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, io.Discard, Mount{Path: "/purl", Service: pathService{name: "purl"}})
	if rec := get(t, s.Handler(), "POST", "/purl/body", strings.NewReader(strings.Repeat("x", 2048))); rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("2 KiB body with a 1 KiB limit answered %d", rec.Code)
	}
	// Without a Content-Length the limit holds while reading.
	req := httptest.NewRequest("POST", "/purl/body", io.MultiReader(strings.NewReader(strings.Repeat("x", 2048))))
	req.ContentLength = -1
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("streamed 2 KiB body answered %d", rec.Code)
	}
	if rec := get(t, s.Handler(), "POST", "/purl/body", strings.NewReader("small")); rec.Code != 200 {
		t.Errorf("small body answered %d", rec.Code)
	}
}

func TestReadyzAndIndex(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, io.Discard,
		Mount{Path: "/purl", BaseURL: "http://example.test/purl", Service: pathService{name: "purl"},
			Contracts: []Link{{Title: "OpenAPI", URL: "http://example.test/purl/openapi.yaml"}}},
		Mount{Path: "/hours", BaseURL: "http://example.test/hours", Service: pathService{name: "hours", notReady: errors.New("database unreachable")}},
	)
	rec := get(t, s.Handler(), "GET", "/readyz", nil)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "hours: database unreachable") {
		t.Errorf("/readyz = %d %q", rec.Code, rec.Body.String())
	}
	idx := get(t, s.Handler(), "GET", "/", nil).Body.String()
	for _, want := range []string{"http://example.test/purl", "http://example.test/hours", "purl sample", "http://example.test/purl/openapi.yaml", "/healthz"} {
		if !strings.Contains(idx, want) {
			t.Errorf("index page lacks %q", want)
		}
	}
	if n := strings.Count(idx, `href="http://example.test/purl/openapi.yaml"`); n != 1 {
		t.Errorf("the contract is linked %d times, want once", n)
	}
}
