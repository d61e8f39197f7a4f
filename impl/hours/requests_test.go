package hours_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestRequestsAsJSONAPIAllows sends what JSON:API clients send: members
// the specification allows, a resource back as it was read, and query
// parameters the API does not support.
func TestRequestsAsJSONAPIAllows(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, e *env) {
		// devour sends "meta":{}; others jsonapi, links, data.meta, data.links.
		resp, body := e.do(t, req{method: http.MethodPatch, path: "/libraries/green", token: "admin", body: `{
			"meta": {}, "jsonapi": {"version": "1.1"}, "links": {"self": "http://hours.test/hours/libraries/green.json"},
			"data": {"type": "libraries", "id": "green", "attributes": {"name": "Green Library (renamed)"},
			         "meta": {"client": "x"}, "links": {"self": "http://hours.test/hours/libraries/green.json"}}}`})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Green Library (renamed)") {
			t.Fatalf("PATCH with meta, jsonapi, links: %d %s", resp.StatusCode, body)
		}

		// A location sent back exactly as read, with one attribute changed.
		var doc struct {
			Data map[string]any `json:"data"`
		}
		e.get(t, "/libraries/green/locations/stacks.json", http.StatusOK, &doc)
		doc.Data["attributes"].(map[string]any)["name"] = "Stacks (renamed)"
		sendBack, err := json.Marshal(map[string]any{"data": doc.Data})
		if err != nil {
			t.Fatal(err)
		}
		resp, body = e.do(t, req{method: http.MethodPatch, path: "/libraries/green/locations/stacks", token: "admin", body: string(sendBack)})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Stacks (renamed)") {
			t.Fatalf("PATCH of a location as read: %d %s", resp.StatusCode, body)
		}

		// A change to a read-only attribute or a relationship: 403 with a pointer.
		for _, tc := range []struct{ body, pointer string }{
			{`{"data":{"type":"locations","id":"green/stacks","attributes":{"location_id":999}}}`, "/data/attributes/location_id"},
			{`{"data":{"type":"locations","id":"green/stacks","attributes":{"hours":"always"}}}`, "/data/attributes/hours"},
			{`{"data":{"type":"locations","id":"green/stacks","attributes":{},"relationships":{"library":{"data":{"type":"libraries","id":"law"}}}}}`, "/data/relationships/library/data"},
		} {
			resp, body := e.do(t, req{method: http.MethodPatch, path: "/libraries/green/locations/stacks", token: "admin", body: tc.body})
			expectError(t, resp, body, http.StatusForbidden, "", tc.pointer)
		}

		// include of what is always included is fine; anything else is 400.
		e.get(t, "/libraries/green.json?include=locations,primary_location", http.StatusOK, nil)
		e.get(t, "/libraries/green/locations/stacks.json?include=library", http.StatusOK, nil)
		for _, tc := range []struct{ path, parameter string }{
			{"/libraries/green.json?include=bogus", "include"},
			{"/libraries.json?sort=name", "sort"},
			{"/libraries.json?page%5Bsize%5D=2", "page[size]"},
			{"/libraries/green.json?fields%5Blibraries%5D=name", "fields[libraries]"},
			{"/libraries.json?filter%5Bname%5D=Green", "filter[name]"},
			{"/libraries/green/locations/stacks.json?foo=bar", "foo"},
			{"/libraries/green/terms.json?from=2026-03-01", "from"},
		} {
			resp, body := e.do(t, req{path: tc.path})
			expectError(t, resp, body, http.StatusBadRequest, tc.parameter, "")
			if !strings.Contains(string(body), `\"`+tc.parameter+`\"`) {
				t.Errorf("GET %s: the message does not name %q: %s", tc.path, tc.parameter, body)
			}
		}
		// Implementation-specific names (not all a–z) are ignored.
		e.get(t, "/libraries.json?utm_source=x", http.StatusOK, nil)
	})
}
