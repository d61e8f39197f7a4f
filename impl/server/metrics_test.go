package server

import (
	"io"
	"strings"
	"testing"
)

// The metrics' label values are looked up once per service and (method,
// status): each service, method and status still has its own counter,
// and the duration histogram its own series per service, the process's
// own requests under "server".
func TestMetricsPerServiceMethodAndStatus(t *testing.T) {
	s := newTestServer(t, io.Discard,
		Mount{Path: "/purl", Service: pathService{name: "purl"}},
		Mount{Path: "/hours", Service: pathService{name: "hours"}},
	)
	for range 3 {
		get(t, s.Handler(), "GET", "/purl/x", nil)
		get(t, s.Handler(), "HEAD", "/hours/x", nil)
	}
	get(t, s.Handler(), "GET", "/purl/panic", nil)
	get(t, s.Handler(), "GET", "/healthz", nil)
	m := get(t, s.Handler(), "GET", "/metrics", nil).Body.String()
	for _, want := range []string{
		`sitesvc_http_requests_total{code="200",method="GET",service="purl"} 3`,
		`sitesvc_http_requests_total{code="200",method="HEAD",service="hours"} 3`,
		`sitesvc_http_requests_total{code="500",method="GET",service="purl"} 1`,
		`sitesvc_http_requests_total{code="200",method="GET",service="server"} 1`,
		`sitesvc_http_request_duration_seconds_count{service="purl"} 4`,
		`sitesvc_http_request_duration_seconds_count{service="hours"} 3`,
		`sitesvc_http_request_duration_seconds_count{service="server"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s:\n%s", want, m)
		}
	}
}

// An incoming X-Request-Id is kept when it is 1 to 64 of [A-Za-z0-9._-].
func TestPlainRequestID(t *testing.T) {
	for id, want := range map[string]bool{
		"":                      false,
		"a":                     true,
		"upstream-1.2_x":        true,
		strings.Repeat("a", 64): true,
		strings.Repeat("a", 65): false,
		"with space":            false,
		"quote\"":               false,
		"newline\n":             false,
		"caf\u00e9":             false,
		"slash/":                false,
		"ABCxyz019._-":          true,
	} {
		if got := plainRequestID(id); got != want {
			t.Errorf("plainRequestID(%q) = %v, want %v", id, got, want)
		}
	}
	for range 100 {
		if id := newRequestID(); len(id) != 16 || !plainRequestID(id) {
			t.Fatalf("newRequestID() = %q, want 16 hex digits", id)
		}
	}
}
