package hours_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestPreflightAllowsConditionalReads: a page of another origin may send
// every request header a read of Hours evaluates. The preflight lists the
// contract's declared headers (If-None-Match) and the conditional fields
// every read answers (If-Match: 412 when it names another tag), decided
// once by apiserve's edge; a conditional GET from another origin is then
// answered and readable.
func TestPreflightAllowsConditionalReads(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetestSQLite(t), testNow)
	want := []string{"Accept", "If-None-Match", "If-Match", "If-Modified-Since", "If-Unmodified-Since"}
	for _, path := range []string{
		"/libraries.json",
		"/libraries/green.json",
		"/libraries/green/locations/stacks.json",
		"/api/v1/library/green/location/stacks/hours/for/today",
	} {
		resp, _ := e.do(t, req{method: http.MethodOptions, outsideSpec: true, path: path, headers: []string{
			"Origin", "https://x.example", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "if-match"}})
		var got []string
		for _, name := range strings.Split(resp.Header.Get("Access-Control-Allow-Headers"), ",") {
			got = append(got, strings.TrimSpace(name))
		}
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" || !slices.Equal(got, want) {
			t.Errorf("preflight %s: %d, Allow-Headers %q, want %q", path, resp.StatusCode, got, want)
		}

		ok := e.get(t, path, http.StatusOK, nil)
		etag := ok.Header.Get("ETag")
		r1, b1 := e.do(t, req{path: path, headers: []string{"Origin", "https://x.example", "If-Match", `"another"`}})
		if r1.StatusCode != http.StatusPreconditionFailed || len(b1) != 0 || r1.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s If-Match another tag: %d %q %v", path, r1.StatusCode, b1, r1.Header)
		}
		r2, b2 := e.do(t, req{path: path, headers: []string{"Origin", "https://x.example", "If-Match", etag}})
		if r2.StatusCode != http.StatusOK || len(b2) == 0 || r2.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s If-Match its tag: %d %v", path, r2.StatusCode, r2.Header)
		}
	}
}
