package hours_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

func rawGet(t *testing.T, url string, header ...string) (*http.Response, []byte) {
	t.Helper()
	r, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	return testkit.Do(t, nil, r)
}

// Every read is apiserve.Content (issue 25.3): besides If-None-Match,
// If-Match is evaluated (412, RFC 9110 §13.1.1; Hours used to ignore it);
// a document is sent whole, Range ignored (WholeOnly: api/hours.yaml
// declares no 206, so the generated clients type answers as documents);
// HEAD has the GET's header and no body.
func TestReadsAreOneRepresentation(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		for _, path := range []string{"/libraries.json", "/libraries/green.json", "/libraries/green/locations/stacks.json", "/api/v1/library/green/location/stacks/hours/for/today"} {
			resp, body := e.do(t, req{path: path})
			etag := resp.Header.Get("ETag")
			if resp.StatusCode != 200 || etag == "" || resp.Header.Get("Accept-Ranges") != "none" || resp.Header.Get("Content-Length") != strconv.Itoa(len(body)) {
				t.Fatalf("%s: %d %v", path, resp.StatusCode, resp.Header)
			}
			if r, b := e.do(t, req{path: path, headers: []string{"If-Match", etag}}); r.StatusCode != 200 || string(b) != string(body) {
				t.Errorf("%s If-Match its tag: %d", path, r.StatusCode)
			}
			if r, _ := e.do(t, req{path: path, outsideSpec: true, headers: []string{"If-Match", `"other"`}}); r.StatusCode != http.StatusPreconditionFailed {
				t.Errorf("%s If-Match another tag: %d, want 412", path, r.StatusCode)
			}
			r, b := rawGet(t, e.srv.URL+path, "Range", "bytes=0-9") // a part of a document is no document: sent whole
			if r.StatusCode != http.StatusOK || string(b) != string(body) || r.Header.Get("Content-Range") != "" || r.Header.Get("Accept-Ranges") != "none" {
				t.Errorf("%s Range 0-9: %d %q, %d bytes, want the whole document", path, r.StatusCode, r.Header.Get("Content-Range"), len(b))
			}
			if r, _ := e.do(t, req{path: path, headers: []string{"Range", "bytes=0-9", "If-Range", `"other"`}}); r.StatusCode != 200 {
				t.Errorf("%s Range with a stale If-Range: %d, want the whole document", path, r.StatusCode)
			}
			head, hb := e.do(t, req{method: http.MethodHead, path: path})
			if head.StatusCode != 200 || len(hb) != 0 || head.Header.Get("ETag") != etag || head.Header.Get("Content-Length") != strconv.Itoa(len(body)) {
				t.Errorf("HEAD %s: %d %v, %d bytes", path, head.StatusCode, head.Header, len(hb))
			}
		}
	})
}

// The bare URLs are the .json operations through the contract's
// x-sitesvc-same-as (generated hoursapi.WithAliases): the same document,
// the same validators, the same refusals.
func TestAliasesAnswerAsTheirOperation(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		for bare, canonical := range map[string]string{
			"/libraries":                                  "/libraries.json",
			"/libraries/green":                            "/libraries/green.json",
			"/libraries/green/locations/stacks":           "/libraries/green/locations/stacks.json",
			"/libraries/green/terms":                      "/libraries/green/terms.json",
			"/libraries/green/locations/stacks/schedules": "/libraries/green/locations/stacks/schedules.json",
			"/libraries/nowhere":                          "/libraries/nowhere.json",
		} {
			a, ab := e.do(t, req{path: bare, headers: []string{"Accept", "application/vnd.api+json"}})
			c, cb := e.do(t, req{path: canonical, headers: []string{"Accept", "application/vnd.api+json"}})
			if a.StatusCode != c.StatusCode || string(ab) != string(cb) || a.Header.Get("ETag") != c.Header.Get("ETag") {
				t.Errorf("%s: %d %q, %s: %d %q", bare, a.StatusCode, a.Header.Get("ETag"), canonical, c.StatusCode, c.Header.Get("ETag"))
			}
			if c.StatusCode == 200 {
				if r, _ := e.do(t, req{path: bare, headers: []string{"Accept", "application/vnd.api+json", "If-None-Match", c.Header.Get("ETag")}}); r.StatusCode != http.StatusNotModified {
					t.Errorf("%s with the tag of %s: %d", bare, canonical, r.StatusCode)
				}
			}
		}
	})
}
