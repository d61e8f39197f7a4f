package hours_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestOneURLPerResource reads, updates and deletes every kind of resource
// at its links.self (.json) and at the URL without .json.
func TestOneURLPerResource(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		// A new exception: its Location and links.self are the .json URL.
		resp, body := e.do(t, req{method: http.MethodPost, path: "/libraries/green/locations/stacks/exceptions", token: "admin",
			body: `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":true,"notes":"Independence Day"}}}`})
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST exception: %d %s", resp.StatusCode, body)
		}
		var created struct {
			Links struct{ Self string } `json:"links"`
			Data  struct{ ID string }   `json:"data"`
		}
		if err := json.Unmarshal(body, &created); err != nil {
			t.Fatal(err)
		}
		self := strings.TrimPrefix(created.Links.Self, "http://hours.test/hours")
		if !strings.HasSuffix(self, ".json") || resp.Header.Get("Location") != created.Links.Self {
			t.Fatalf("links.self %q, Location %q", created.Links.Self, resp.Header.Get("Location"))
		}
		var terms struct {
			Data []struct{ ID string } `json:"data"`
		}
		e.get(t, "/libraries/green/terms.json", http.StatusOK, &terms)
		var schedules struct {
			Data []struct{ ID string } `json:"data"`
		}
		e.get(t, "/libraries/green/locations/stacks/schedules.json", http.StatusOK, &schedules)
		if len(terms.Data) == 0 || len(schedules.Data) == 0 {
			t.Fatal("no terms or schedules in the sample data")
		}

		// Reads: the bare URL is the same resource as the .json URL.
		for _, p := range []string{
			"/libraries/green",
			"/libraries/green/locations/stacks",
			"/libraries/green/terms/" + terms.Data[0].ID,
			"/libraries/green/locations/stacks/schedules/" + schedules.Data[0].ID,
			strings.TrimSuffix(self, ".json"),
		} {
			r1, b1 := e.do(t, req{path: p + ".json"})
			r2, b2 := e.do(t, req{path: p})
			if r1.StatusCode != http.StatusOK || r2.StatusCode != http.StatusOK || string(b1) != string(b2) || r1.Header.Get("ETag") != r2.Header.Get("ETag") {
				t.Errorf("GET %s and %s.json differ: %d/%d\n%s\n%s", p, p, r2.StatusCode, r1.StatusCode, b2, b1)
			}
		}

		// Writes at links.self.
		resp, body = e.do(t, req{method: http.MethodPatch, path: self, token: "admin",
			body: `{"data":{"type":"exceptions","id":"` + created.Data.ID + `","attributes":{"day":"2026-07-04","closed":true,"notes":"Fourth of July"}}}`})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Fourth of July") {
			t.Errorf("PATCH %s: %d %s", self, resp.StatusCode, body)
		}
		resp, body = e.do(t, req{method: http.MethodPatch, path: "/libraries/green.json", token: "admin",
			body: `{"data":{"type":"libraries","id":"green","attributes":{"name":"Green"}}}`})
		if resp.StatusCode != http.StatusOK {
			t.Errorf("PATCH /libraries/green.json: %d %s", resp.StatusCode, body)
		}
		resp, body = e.do(t, req{method: http.MethodDelete, path: self, token: "admin"})
		if resp.StatusCode != http.StatusNoContent {
			t.Errorf("DELETE %s: %d %s", self, resp.StatusCode, body)
		}
		resp, body = e.do(t, req{path: strings.TrimSuffix(self, ".json")})
		expectError(t, resp, body, http.StatusNotFound, "exception_id", "")
	})
}

// TestCollectionsAtBareURLs is issue 19.5: every collection with a .json
// read answers the same document at the URL without .json (devour's
// findAll and kitsu's get build that URL), with the same ETag, and a
// browser asking for the bare /libraries gets the overview page.
func TestCollectionsAtBareURLs(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		for _, p := range []string{
			"/libraries",
			"/libraries?from=2026-03-08&to=2026-03-14",
			"/libraries/green/terms",
			"/libraries/green/locations/stacks/schedules",
			"/libraries/green/locations/stacks/exceptions",
		} {
			dotJSON := strings.Replace(p, "?", ".json?", 1)
			if !strings.Contains(p, "?") {
				dotJSON = p + ".json"
			}
			r1, b1 := e.do(t, req{path: dotJSON})
			r2, b2 := e.do(t, req{path: p})
			if r1.StatusCode != http.StatusOK || r2.StatusCode != http.StatusOK || string(b1) != string(b2) || r1.Header.Get("ETag") != r2.Header.Get("ETag") {
				t.Errorf("GET %s and %s differ: %d/%d\n%.300s\n%.300s", p, dotJSON, r2.StatusCode, r1.StatusCode, b2, b1)
			}
			if !strings.Contains(string(b2), `"data":[`) {
				t.Errorf("GET %s is not a collection document: %.300s", p, b2)
			}
		}
		// The bare URLs keep their errors: an unknown library is 404, a bad
		// date 400 naming the parameter.
		resp, body := e.do(t, req{path: "/libraries/nowhere/terms"})
		expectError(t, resp, body, http.StatusNotFound, "library_id", "")
		resp, body = e.do(t, req{path: "/libraries?from=2026-02-30"})
		expectError(t, resp, body, http.StatusBadRequest, "from", "")
		// A browser at /libraries gets the overview, a client the document.
		browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
		resp, body = e.do(t, req{path: "/libraries", headers: []string{"Accept", browser}})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || resp.Header.Get("Vary") != "Accept" || !strings.Contains(string(body), "<html") {
			t.Errorf("browser GET /libraries: %d %q Vary %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Vary"))
		}
		resp, _ = e.do(t, req{path: "/libraries", headers: []string{"Accept", "application/vnd.api+json"}})
		if resp.Header.Get("Content-Type") != "application/vnd.api+json" || resp.Header.Get("Vary") != "Accept" {
			t.Errorf("client GET /libraries: %q Vary %q", resp.Header.Get("Content-Type"), resp.Header.Get("Vary"))
		}
	})
}

// TestBrowserGetsThePage: a browser's Accept at a library's bare URL gets
// the HTML page; a JSON:API client gets the document; both Vary: Accept.
func TestBrowserGetsThePage(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		browser := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
		resp, body := e.do(t, req{path: "/libraries/green", headers: []string{"Accept", browser}})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" || !strings.Contains(string(body), "<title>Green Library hours</title>") {
			t.Errorf("browser GET /libraries/green: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		if resp.Header.Get("Vary") != "Accept" {
			t.Errorf("browser GET: Vary %q", resp.Header.Get("Vary"))
		}
		for _, accept := range []string{"application/vnd.api+json", "", "*/*", "application/vnd.api+json, text/html;q=0.5"} {
			resp, _ := e.do(t, req{path: "/libraries/green", headers: []string{"Accept", accept}})
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/vnd.api+json" || resp.Header.Get("Vary") != "Accept" {
				t.Errorf("Accept %q: %d %q Vary %q", accept, resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Vary"))
			}
		}
		// The .json URL is never negotiated.
		resp, _ = e.do(t, req{path: "/libraries/green.json", headers: []string{"Accept", browser}})
		if resp.Header.Get("Content-Type") != "application/vnd.api+json" {
			t.Errorf("browser GET /libraries/green.json: %q", resp.Header.Get("Content-Type"))
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
