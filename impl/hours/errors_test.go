package hours_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEveryErrorReadable is a table of every kind of error the API gives:
// each answer is a JSON:API error whose source names the parameter,
// pointer or header at fault, and whose detail is a sentence a person can
// read that names it too.
func TestEveryErrorReadable(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, e *env) {
		for _, tc := range []struct {
			name               string
			r                  req
			status             int
			parameter, pointer string
			header             string
			detail             string // the exact detail, or "" to check only that it names the source
			names              string // what the detail must name, when not the source's name
		}{
			{"to without from", req{path: "/libraries.json?to=2026-03-01"}, 400, "to", "", "", `query parameter "to" given without "from"`, ""},
			{"bad from", req{path: "/libraries.json?from=2026-3-1"}, 400, "from", "", "", "", ""},
			{"impossible date", req{path: "/libraries.json?from=2026-02-30"}, 400, "from", "", "", `query parameter "from": invalid date: "2026-02-30" does not exist`, ""},
			{"to before from", req{path: "/libraries.json?from=2026-03-08&to=2026-03-01"}, 400, "to", "", "", `query parameter "to" (2026-03-01) is before "from" (2026-03-08)`, ""},
			{"range too long", req{path: "/libraries.json?from=2026-01-31&to=2027-08-01"}, 400, "to", "", "", `query parameter "to" (2027-08-01) is more than 18 months after "from" (2026-01-31): it may be at most 2027-07-31`, ""},
			{"include", req{path: "/libraries/green.json?include=bogus"}, 400, "include", "", "", "", ""},
			{"sort", req{path: "/libraries.json?sort=name"}, 400, "sort", "", "", `query parameter "sort": sorting is not supported`, ""},
			{"page", req{path: "/libraries.json?page%5Bsize%5D=1"}, 400, "page[size]", "", "", "", ""},
			{"fields", req{path: "/libraries.json?fields%5Blibraries%5D=name"}, 400, "fields[libraries]", "", "", "", ""},
			{"filter", req{path: "/libraries.json?filter%5Bslug%5D=green"}, 400, "filter[slug]", "", "", "", ""},
			{"unknown parameter", req{path: "/libraries.json?foo=bar"}, 400, "foo", "", "", `query parameter "foo" is not supported here (supported: "from", "to", "include")`, ""},
			{"legacy when", req{path: "/api/v1/library/law/location/main/hours/for/someday"}, 400, "when", "", "", "", ""},
			{"page week", req{path: "/libraries/green.html?from=2026-13-01"}, 400, "from", "", "", "", ""},
			{"no library", req{path: "/libraries/nowhere.json"}, 404, "library_id", "", "", `no library "nowhere"`, `"nowhere"`},
			{"no location", req{path: "/libraries/green/locations/nowhere.json"}, 404, "location_id", "", "", `no location "nowhere" in library "green"`, `"nowhere"`},
			{"no term", req{path: "/libraries/green/terms/999.json"}, 404, "term_id", "", "", `no term 999 in library "green"`, "999"},
			{"no schedule", req{path: "/libraries/green/locations/stacks/schedules/999.json"}, 404, "schedule_id", "", "", "", "schedule 999"},
			{"no exception", req{path: "/libraries/green/locations/stacks/exceptions/999"}, 404, "exception_id", "", "", "", "exception 999"},
			{"no token", req{method: "PATCH", path: "/libraries/green", body: `{"data":{"type":"libraries","attributes":{"name":"x"}}}`}, 401, "", "", "Authorization", "", ""},
			{"other library", req{method: "PATCH", path: "/libraries/green", token: "law-editor", body: `{"data":{"type":"libraries","attributes":{"name":"x"}}}`}, 403, "", "", "", "", ""},
			{"read-only attribute", req{method: "PATCH", path: "/libraries/green/locations/stacks", token: "admin", body: `{"data":{"type":"locations","attributes":{"location_id":5}}}`}, 403, "", "/data/attributes/location_id", "", "", ""},
			{"read-only relationship", req{method: "PATCH", path: "/libraries/green/locations/stacks", token: "admin", body: `{"data":{"type":"locations","attributes":{},"relationships":{"library":{"data":{"type":"libraries","id":"law"}}}}}`}, 403, "", "/data/relationships/library/data", "", "", `relationship "library"`},
			{"client id", req{method: "POST", path: "/libraries", token: "admin", body: `{"data":{"type":"libraries","id":"x","attributes":{"name":"X","slug":"x","timezone":"UTC"}}}`}, 403, "", "/data/id", "", "", ""},
			{"Accept with parameters", req{path: "/libraries.json", headers: []string{"Accept", "application/vnd.api+json; charset=utf-8"}}, 406, "", "", "Accept", "", ""},
			{"Content-Type", req{method: "PATCH", path: "/libraries/green", token: "admin", body: `{}`, headers: []string{"Content-Type", "application/json"}}, 415, "", "", "Content-Type", "", ""},
			{"wrong type", req{method: "PATCH", path: "/libraries/green", token: "admin", body: `{"data":{"type":"locations","attributes":{"name":"x"}}}`}, 409, "", "/data/type", "", `data.type is not the type of the resources at this URL: it must be "libraries"`, ""},
			{"wrong id", req{method: "PATCH", path: "/libraries/green", token: "admin", body: `{"data":{"type":"libraries","id":"law","attributes":{"name":"x"}}}`}, 409, "", "/data/id", "", "", ""},
			{"unknown attribute", req{method: "PATCH", path: "/libraries/green", token: "admin", body: `{"data":{"type":"libraries","attributes":{"colour":"green"}}}`}, 422, "", "/data/attributes/colour", "", "", ""},
			{"bad period", req{method: "POST", path: "/libraries/green/locations/stacks/exceptions", token: "admin", body: `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":false,"periods":["25:00-26:00"]}}}`}, 422, "", "/data/attributes/periods/0", "", "", ""},
			{"bad time zone", req{method: "PATCH", path: "/libraries/green", token: "admin", body: `{"data":{"type":"libraries","attributes":{"timezone":"Mars/Olympus"}}}`}, 422, "", "/data/attributes/timezone", "", "", ""},
			{"slug taken", req{method: "PATCH", path: "/libraries/green", token: "admin", body: `{"data":{"type":"libraries","attributes":{"slug":"law"}}}`}, 409, "", "", "", "", ""},
			{"meta not an object", req{method: "PATCH", path: "/libraries/green", token: "admin", body: `{"data":{"type":"libraries","attributes":{}},"meta":1}`}, 422, "", "/meta", "", "", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				if tc.r.body != "" && len(tc.r.headers) > 0 && tc.r.headers[0] == "Content-Type" {
					tc.r.outsideSpec = true
				}
				resp, body := e.do(t, tc.r)
				var doc struct {
					Errors []struct {
						Status string `json:"status"`
						Detail string `json:"detail"`
						Source *struct {
							Parameter, Pointer, Header string
						} `json:"source"`
					} `json:"errors"`
				}
				if resp.StatusCode != tc.status || json.Unmarshal(body, &doc) != nil || len(doc.Errors) != 1 {
					t.Fatalf("%d, want %d: %s", resp.StatusCode, tc.status, body)
				}
				got := doc.Errors[0]
				var src struct{ Parameter, Pointer, Header string }
				if got.Source != nil {
					src = *got.Source
				}
				if src.Parameter != tc.parameter || src.Pointer != tc.pointer || src.Header != tc.header {
					t.Errorf("source %+v, want parameter %q pointer %q header %q", src, tc.parameter, tc.pointer, tc.header)
				}
				if tc.detail != "" && got.Detail != tc.detail {
					t.Errorf("detail %q\nwant   %q", got.Detail, tc.detail)
				}
				// The detail names what is wrong: the parameter, the last
				// member of the pointer, or the header.
				name := tc.parameter
				if tc.pointer != "" {
					name = tc.pointer[strings.LastIndex(tc.pointer, "/")+1:]
					if name == "0" {
						name = "25:00-26:00"
					}
				}
				if tc.header != "" {
					name = ""
				}
				if tc.names != "" {
					name = tc.names
				}
				if name != "" && !strings.Contains(got.Detail, name) {
					t.Errorf("detail %q does not name %q", got.Detail, name)
				}
				if strings.Contains(got.Detail, "query parameter the") || got.Detail == "" || (strings.HasPrefix(got.Detail, "request body at") && tc.status != 422) {
					t.Errorf("detail %q does not read as a sentence", got.Detail)
				}
			})
		}
	})
}
