package hours_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/page/browsercheck"
	"github.com/sitelib/sitesvc/impl/testkit"
)

func TestJSONAPISchemaRejectsIncludedObject(t *testing.T) {
	t.Parallel()
	good := `{"data":[],"included":[]}`
	if err := validateJSONAPI(t, []byte(good)); err != nil {
		t.Fatalf("valid document refused: %v", err)
	}
	for _, bad := range []string{
		`{"data":[],"included":{}}`,
		`{"data":[],"included":{"type":"locations","id":"a/b"}}`,
		`{"data":{"type":"x","id":"1","attributes":{"id":"2"}}}`,
		`{"data":[],"errors":[{"status":"400"}]}`,
		`{"meta":{"a":1},"extra":true}`,
	} {
		if err := validateJSONAPI(t, []byte(bad)); err == nil {
			t.Errorf("JSON:API schema accepted %s", bad)
		}
	}
}

func TestListLibrariesCurrentWeek(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		var doc listDoc
		resp := e.get(t, "/libraries.json", http.StatusOK, &doc)
		if ct := resp.Header.Get("Content-Type"); ct != "application/vnd.api+json" {
			t.Errorf("Content-Type %q", ct)
		}
		if len(doc.Data) < 6 || len(doc.Included) < 15 {
			t.Fatalf("%d libraries, %d locations", len(doc.Data), len(doc.Included))
		}
		if doc.Links["self"] != "http://hours.test/hours/libraries.json" {
			t.Errorf("self link %q", doc.Links["self"])
		}
		// 12:00 in Los Angeles and 15:00 in New York: the same week.
		if doc.Meta["from"] != "2026-03-01" || doc.Meta["to"] != "2026-03-07" {
			t.Errorf("meta %v", doc.Meta)
		}
		for _, lib := range doc.Data {
			if lib.Type != "libraries" || lib.ID != lib.Attributes.Slug || len(lib.Attributes.Hours) != 7 {
				t.Errorf("library %s: type %s, %d days", lib.ID, lib.Type, len(lib.Attributes.Hours))
				continue
			}
			if lib.Attributes.Hours[0].Weekday != "Sunday" || lib.Attributes.Hours[0].Day != "2026-03-01" || lib.Attributes.Hours[6].Day != "2026-03-07" {
				t.Errorf("library %s week starts %s %s", lib.ID, lib.Attributes.Hours[0].Weekday, lib.Attributes.Hours[0].Day)
			}
			if lib.Links.Self != "http://hours.test/hours/libraries/"+lib.ID+".json" {
				t.Errorf("library self link %s", lib.Links.Self)
			}
		}
		for _, loc := range doc.Included {
			if loc.Type != "locations" || len(loc.Attributes.Hours) != 7 || !strings.Contains(loc.ID, "/") || loc.Attributes.LocationID <= 0 {
				t.Errorf("location %s: %d days", loc.ID, len(loc.Attributes.Hours))
			}
		}
		// The library carries its primary location's hours.
		green := findResource(t, doc.Data, "libraries", "green")
		stacks := findResource(t, doc.Included, "locations", "green/stacks")
		gh, _ := json.Marshal(green.Attributes.Hours)
		sh, _ := json.Marshal(stacks.Attributes.Hours)
		if string(gh) != string(sh) || !stacks.Attributes.Primary {
			t.Errorf("green's hours are not its primary location's")
		}
		if got := string(green.Relationships["primary_location"].Data); !sameJSON(got, `{"type":"locations","id":"green/stacks"}`) {
			t.Errorf("primary_location %s", got)
		}
		// Capital Center is in New York.
		capital := findResource(t, doc.Data, "libraries", "capital")
		if capital.Attributes.TimeZone != "America/New_York" {
			t.Errorf("capital zone %s", capital.Attributes.TimeZone)
		}
		wed := capital.Attributes.Hours[3]
		if *wed.OpensAt != "2026-03-04T08:30:00.000-05:00" || *wed.ClosesAt != "2026-03-04T21:00:00.000-05:00" {
			t.Errorf("capital Wednesday %s..%s", *wed.OpensAt, *wed.ClosesAt)
		}
	})
}

func TestSampleHoursKinds(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		var law oneDoc
		e.get(t, "/libraries/law/locations/main.json", http.StatusOK, &law)
		sun := law.Data.Attributes.Hours[0]
		if !sun.Overnight || *sun.OpensAt != "2026-03-01T10:00:00.000-08:00" || *sun.ClosesAt != "2026-03-02T02:00:00.000-08:00" || sun.Type != "regular" || sun.RuleID == 0 {
			t.Errorf("law Sunday (overnight): %+v", sun)
		}
		if len(law.Included) != 1 || law.Included[0].Type != "libraries" || law.Included[0].ID != "law" {
			t.Errorf("included %+v", law.Included)
		}
		if law.Meta["from"] != "2026-03-01" || law.Links["self"] != "http://hours.test/hours/libraries/law/locations/main.json" {
			t.Errorf("meta %v links %v", law.Meta, law.Links)
		}

		// A location that keeps no hours shows its library's primary hours.
		var reading oneDoc
		e.get(t, "/libraries/law/locations/reading-room.json", http.StatusOK, &reading)
		if reading.Data.Attributes.KeepsHours || *reading.Data.Attributes.Hours[1].OpensAt != *law.Data.Attributes.Hours[1].OpensAt {
			t.Errorf("reading room: %+v", reading.Data.Attributes)
		}

		var lobby oneDoc
		e.get(t, "/libraries/green/locations/lobby.json", http.StatusOK, &lobby)
		for _, d := range lobby.Data.Attributes.Hours {
			if !d.Open24 || d.Closed || *d.OpensAt != d.Day+"T00:00:00.000-08:00" || *d.ClosesAt != d.Day+"T23:59:59.999-08:00" {
				t.Errorf("24-hour day: %+v", d)
			}
		}

		var ref oneDoc
		e.get(t, "/libraries/green/locations/reference.json?from=2026-03-04", http.StatusOK, &ref)
		if len(ref.Data.Attributes.Hours) != 1 {
			t.Fatalf("from only: %d days", len(ref.Data.Attributes.Hours))
		}
		wed := ref.Data.Attributes.Hours[0]
		if len(wed.Periods) != 2 || wed.Periods[0].ClosesAt != "2026-03-04T12:00:00.000-08:00" || wed.Periods[1].OpensAt != "2026-03-04T13:00:00.000-08:00" || *wed.ClosesAt != wed.Periods[0].ClosesAt {
			t.Errorf("lunch break: %+v", wed)
		}
		e.get(t, "/libraries/green/locations/reference.json?from=2026-03-07", http.StatusOK, &ref)
		sat := ref.Data.Attributes.Hours
		if !sat[0].Closed || sat[0].OpensAt != nil || sat[0].ClosesAt != nil || len(sat[0].Periods) != 0 {
			t.Errorf("closed Saturday: %+v", sat[0])
		}

		// The staff-training closure next Wednesday, over a range.
		var stacks oneDoc
		e.get(t, "/libraries/green/locations/stacks.json?from=2026-03-08&to=2026-03-14", http.StatusOK, &stacks)
		days := stacks.Data.Attributes.Hours
		if len(days) != 7 || !days[3].Closed || days[3].Type != "closure" || days[3].Notes == "" || days[3].Day != "2026-03-11" {
			t.Errorf("closure: %+v", days[3])
		}
		if stacks.Meta["from"] != "2026-03-08" || stacks.Meta["to"] != "2026-03-14" || !strings.Contains(stacks.Links["self"], "from=2026-03-08&to=2026-03-14") {
			t.Errorf("meta %v links %v", stacks.Meta, stacks.Links)
		}
		// Spring forward on Sunday the 8th: hours after 03:00 are PDT.
		if *days[0].OpensAt != "2026-03-08T10:00:00.000-07:00" || days[1].Periods[0].OpensAt != "2026-03-09T08:00:00.000-07:00" {
			t.Errorf("spring forward: %s, %s", *days[0].OpensAt, days[1].Periods[0].OpensAt)
		}
		e.get(t, "/libraries/green/locations/lobby.json?from=2026-03-08", http.StatusOK, &lobby)
		if d := lobby.Data.Attributes.Hours[0]; *d.OpensAt != "2026-03-08T00:00:00.000-08:00" || *d.ClosesAt != "2026-03-08T23:59:59.999-07:00" {
			t.Errorf("24 hours on spring forward: %s..%s", *d.OpensAt, *d.ClosesAt)
		}
		// Christmas: the holiday closure and the short day before it.
		e.get(t, "/libraries/music.json?from=2026-12-24&to=2026-12-25", http.StatusOK, &stacks)
		h := stacks.Data.Attributes.Hours
		if len(h) != 2 || h[0].Type != "special" || *h[0].OpensAt != "2026-12-24T10:00:00.000-08:00" || !h[1].Closed || h[1].Type != "holiday" {
			t.Errorf("Christmas: %+v", h)
		}
		// Beyond every term: unscheduled, closed, rule 0.
		e.get(t, "/libraries/music/locations/main.json?from=2028-01-05", http.StatusOK, &stacks)
		if d := stacks.Data.Attributes.Hours[0]; !d.Closed || d.Type != "unscheduled" || d.RuleID != 0 {
			t.Errorf("unscheduled: %+v", d)
		}
	})
}

func TestRangesAndErrors(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		var doc oneDoc
		e.get(t, "/libraries/green.json?from=2026-03-01&to=2027-09-01", http.StatusOK, &doc)
		if n := len(doc.Data.Attributes.Hours); n != 550 {
			t.Errorf("18-month range: %d days", n)
		}
		cases := []struct {
			path, param string
			status      int
		}{
			{"/libraries.json?to=2026-03-01", "to", 400},
			{"/libraries.json?from=2026-3-1", "from", 400},
			{"/libraries.json?from=2026-02-30", "from", 400},
			{"/libraries.json?from=2026-03-01&to=2026-13-01", "to", 400},
			{"/libraries.json?from=2026-03-02&to=2026-03-01", "to", 400},
			{"/libraries.json?from=2026-03-01&to=2027-09-02", "to", 400},
			{"/libraries.json?from=2026-08-31&to=2028-03-01", "to", 400},
			{"/libraries/green.json?from=yesterday", "from", 400},
			{"/libraries/green.json?from=3000-01-01", "from", 400},
			{"/libraries/green.json?from=2026-01-01&to=1899-01-01", "to", 400},
			{"/libraries/green/locations/stacks.json?to=2026-03-01", "to", 400},
			{"/libraries/Green.json", "library_id", 400},
			{"/libraries/nowhere.json", "library_id", 404},
			{"/libraries/green/locations/nowhere.json", "location_id", 404},
			{"/libraries/nowhere/locations/stacks.json", "library_id", 404},
			{"/api/v1/library/law/location/main/hours/for/tomorrow", "when", 400},
			{"/api/v1/library/law/location/main/hours/for/2026-02-29", "when", 400},
			{"/api/v1/library/nowhere/location/main/hours/for/today", "library_id", 404},
			{"/api/v1/library/law/location/nowhere/hours/for/today", "location_id", 404},
		}
		for _, c := range cases {
			t.Run(c.path, func(t *testing.T) {
				resp, body := e.do(t, req{path: c.path})
				expectError(t, resp, body, c.status, c.param, "")
			})
		}
		resp, body := e.do(t, req{path: "/libraries/green/hours.json", outsideSpec: true})
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("unknown path: %d %s", resp.StatusCode, body)
		}
	})
}

func TestMediaTypeRules(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		for accept, want := range map[string]int{
			"":                                      200,
			"*/*":                                   200,
			"application/json":                      200,
			"application/vnd.api+json":              200,
			`application/vnd.api+json; profile="x"`: 200,
			"application/vnd.api+json; charset=utf-8, application/vnd.api+json": 200,
			"application/vnd.api+json; charset=utf-8":                           406,
			`application/vnd.api+json; ext="https://x"`:                         406,
			"application/vnd.api+json;v=2, application/vnd.api+json;q=0.5;x=1":  406,
		} {
			resp, body := e.do(t, req{path: "/libraries/green.json", headers: []string{"Accept", accept}})
			if want == 200 && resp.StatusCode != 200 {
				t.Errorf("Accept %q: %d %s", accept, resp.StatusCode, body)
			}
			if want == 406 {
				expectError(t, resp, body, 406, "", "")
			}
		}
		// The legacy API is plain JSON and ignores JSON:API's Accept rules.
		resp, _ := e.do(t, req{path: "/api/v1/library/law/location/main/hours/for/today", headers: []string{"Accept", "application/vnd.api+json; charset=utf-8"}})
		if resp.StatusCode != 200 {
			t.Errorf("legacy with a parameterised Accept: %d", resp.StatusCode)
		}

		doc := `{"data":{"type":"terms","attributes":{"name":"Summer","first_day":"2026-06-20","last_day":"2026-09-20"}}}`
		for ct, want := range map[string]int{
			"application/vnd.api+json; charset=utf-8":   415,
			`application/vnd.api+json; ext="urn:x"`:     415,
			"application/json":                          415,
			"text/plain":                                415,
			"application/vnd.api+json":                  201,
			`application/vnd.api+json; profile="urn:x"`: 201,
		} {
			resp, body := e.do(t, req{method: "POST", path: "/libraries/green/terms", body: doc, token: "admin", headers: []string{"Content-Type", ct}})
			if want == 415 {
				expectError(t, resp, body, 415, "", "")
			} else if resp.StatusCode != want {
				t.Errorf("Content-Type %q: %d %s", ct, resp.StatusCode, body)
			}
		}
	})
}

func TestLegacyAPI(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		resp, body := e.do(t, req{path: "/api/v1/library/law/location/main/hours/for/today"})
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("%d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		var raw []map[string]any
		if err := json.Unmarshal(body, &raw); err != nil || len(raw) != 1 {
			t.Fatalf("%s: %v", body, err)
		}
		want := map[string]string{"id": "number", "day": "string", "weekday": "string", "opens_at": "string", "closes_at": "string", "type": "string", "notes": "string", "location_slug": "string", "location_id": "number", "closed": "bool"}
		if len(raw[0]) != len(want) {
			t.Errorf("%d fields, want exactly %d: %v", len(raw[0]), len(want), raw[0])
		}
		for field, kind := range want {
			v, ok := raw[0][field]
			got := "other"
			switch v.(type) {
			case float64:
				got = "number"
			case string:
				got = "string"
			case bool:
				got = "bool"
			}
			if !ok || got != kind {
				t.Errorf("field %s: %T, want %s", field, v, kind)
			}
		}
		if raw[0]["day"] != "2026-03-04" || raw[0]["weekday"] != "Wednesday" || raw[0]["opens_at"] != "2026-03-04T07:00:00.000-08:00" ||
			raw[0]["closes_at"] != "2026-03-05T02:00:00.000-08:00" || raw[0]["location_slug"] != "main" || raw[0]["closed"] != false || raw[0]["id"].(float64) <= 0 {
			t.Errorf("record %v", raw[0])
		}

		var recs []struct {
			ID       int64  `json:"id"`
			OpensAt  string `json:"opens_at"`
			ClosesAt string `json:"closes_at"`
			Closed   bool   `json:"closed"`
			Type     string `json:"type"`
		}
		// A lunch break is two records of the same rule.
		e.get(t, "/api/v1/library/green/location/reference/hours/for/2026-03-04", 200, &recs)
		if len(recs) != 2 || recs[0].ID != recs[1].ID || recs[1].OpensAt != "2026-03-04T13:00:00.000-08:00" {
			t.Errorf("lunch break: %+v", recs)
		}
		// A closed day opens and closes at local midnight.
		e.get(t, "/api/v1/library/green/location/reference/hours/for/2026-03-07", 200, &recs)
		if len(recs) != 1 || !recs[0].Closed || recs[0].OpensAt != "2026-03-07T00:00:00.000-08:00" || recs[0].ClosesAt != recs[0].OpensAt || recs[0].ID == 0 {
			t.Errorf("closed day: %+v", recs)
		}
		e.get(t, "/api/v1/library/green/location/reference/hours/for/2027-12-01", 200, &recs)
		if len(recs) != 1 || !recs[0].Closed || recs[0].ID != 0 || recs[0].Type != "unscheduled" {
			t.Errorf("unscheduled day: %+v", recs)
		}
		// Around spring forward (Sunday 2026-03-08): offsets change with the
		// instant, an overnight period closing the next day included.
		for path, want := range map[string][2]string{
			"/api/v1/library/law/location/main/hours/for/2026-03-08":     {"2026-03-08T10:00:00.000-07:00", "2026-03-09T02:00:00.000-07:00"},
			"/api/v1/library/medical/location/main/hours/for/2026-03-07": {"2026-03-07T09:00:00.000-08:00", "2026-03-08T01:00:00.000-08:00"},
			"/api/v1/library/green/location/lobby/hours/for/2026-03-08":  {"2026-03-08T00:00:00.000-08:00", "2026-03-08T23:59:59.999-07:00"},
		} {
			e.get(t, path, 200, &recs)
			if len(recs) != 1 || recs[0].OpensAt != want[0] || recs[0].ClosesAt != want[1] {
				t.Errorf("%s: %+v, want %s..%s", path, recs, want[0], want[1])
			}
		}
		// "today" is the library's: at 03:00 UTC it is already Thursday in
		// New York and still Wednesday in Los Angeles.
		e.now = testNow.Add(7 * 3600e9) // 2026-03-05T03:00Z
		var day []struct {
			Day string `json:"day"`
		}
		e.get(t, "/api/v1/library/capital/location/main/hours/for/today", 200, &day)
		if day[0].Day != "2026-03-04" { // 22:00 in New York
			t.Errorf("capital today = %s", day[0].Day)
		}
		e.now = testNow.Add(9 * 3600e9) // 05:00Z: midnight has passed in New York only
		e.get(t, "/api/v1/library/capital/location/main/hours/for/today", 200, &day)
		if day[0].Day != "2026-03-05" {
			t.Errorf("capital today = %s", day[0].Day)
		}
		e.get(t, "/api/v1/library/law/location/main/hours/for/today", 200, &day)
		if day[0].Day != "2026-03-04" {
			t.Errorf("law today = %s", day[0].Day)
		}
	})
}

func TestCachingAndCORS(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		for _, path := range []string{"/libraries.json", "/libraries/green.json?from=2026-03-02", "/libraries/green/locations/stacks.json", "/api/v1/library/green/location/stacks/hours/for/today"} {
			resp, body := e.do(t, req{path: path, headers: []string{"Origin", "https://library.example.edu"}})
			etag := resp.Header.Get("ETag")
			if resp.StatusCode != 200 || !strings.HasPrefix(etag, `"`) || len(etag) < 10 {
				t.Fatalf("%s: %d ETag %q", path, resp.StatusCode, etag)
			}
			if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=60" {
				t.Errorf("%s: Cache-Control %q", path, cc)
			}
			if resp.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(resp.Header.Get("Access-Control-Expose-Headers"), "ETag") {
				t.Errorf("%s: CORS headers %v", path, resp.Header)
			}
			for _, inm := range []string{etag, `W/` + etag, `"other", ` + etag, "*"} {
				r2, b2 := e.do(t, req{path: path, headers: []string{"If-None-Match", inm}})
				if r2.StatusCode != http.StatusNotModified || len(b2) != 0 || r2.Header.Get("ETag") != etag {
					t.Errorf("%s If-None-Match %s: %d %q", path, inm, r2.StatusCode, b2)
				}
			}
			r3, b3 := e.do(t, req{path: path, headers: []string{"If-None-Match", `"stale"`}})
			if r3.StatusCode != 200 || string(b3) != string(body) {
				t.Errorf("%s with a stale tag: %d", path, r3.StatusCode)
			}
		}
		// Preflight for a GET from another origin.
		resp, _ := e.do(t, req{method: "OPTIONS", outsideSpec: true, path: "/libraries.json", headers: []string{"Origin", "https://x.example", "Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "if-none-match"}})
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(resp.Header.Get("Access-Control-Allow-Headers"), "If-None-Match") {
			t.Errorf("preflight: %d %v", resp.StatusCode, resp.Header)
		}
		// A write changes the tag.
		first := e.get(t, "/libraries/green.json", 200, nil).Header.Get("ETag")
		resp, body := e.do(t, req{method: "PATCH", path: "/libraries/green", token: "admin", body: `{"data":{"type":"libraries","id":"green","attributes":{"name":"Cecil H. Green Library"}}}`})
		if resp.StatusCode != 200 {
			t.Fatalf("rename: %d %s", resp.StatusCode, body)
		}
		var doc oneDoc
		second := e.get(t, "/libraries/green.json", 200, &doc).Header.Get("ETag")
		if first == second || doc.Data.Attributes.Name != "Cecil H. Green Library" {
			t.Errorf("after a write: tag %s → %s, name %q", first, second, doc.Data.Attributes.Name)
		}
	})
}

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

func TestOpenAPIPublished(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetestSQLite(t), testNow)
	resp, body := e.do(t, req{path: "/openapi.yaml", outsideSpec: true})
	if resp.StatusCode != 200 || !strings.Contains(string(body), "http://hours.test/hours") || !strings.Contains(string(body), "/libraries/{library_id}.json") {
		t.Errorf("openapi.yaml: %d", resp.StatusCode)
	}
}

// TestHEAD checks every read answers HEAD with the GET's status and
// headers and no body, conditional HEAD included, and that a method a
// path does not have is 405 naming the ones it has.
func TestHEAD(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetestSQLite(t), testNow)
	for _, path := range []string{
		"/libraries.json",
		"/libraries/green.json?from=2026-03-02&to=2026-03-09",
		"/libraries/green/locations/stacks.json",
		"/api/v1/library/law/location/main/hours/for/today",
		"/libraries/green/terms.json",
		"/libraries/green/locations/stacks/schedules.json",
		"/libraries/green/locations/stacks/exceptions.json",
		"/libraries",
		"/libraries/green/terms",
		"/libraries/green/locations/stacks/schedules",
		"/libraries/green/locations/stacks/exceptions",
		"/openapi.yaml",
		"/libraries/nowhere.json",
		"/libraries.json?to=2026-03-01",
	} {
		get, getBody := e.do(t, req{path: path, outsideSpec: path == "/openapi.yaml"})
		head, headBody := e.do(t, req{method: http.MethodHead, path: path, outsideSpec: true})
		if head.StatusCode != get.StatusCode || len(headBody) != 0 {
			t.Errorf("HEAD %s: %d with %d bytes; GET %d", path, head.StatusCode, len(headBody), get.StatusCode)
		}
		for _, h := range []string{"Content-Type", "ETag", "Cache-Control", "Access-Control-Allow-Origin"} {
			if head.Header.Get(h) != get.Header.Get(h) {
				t.Errorf("HEAD %s: %s %q, GET %q", path, h, head.Header.Get(h), get.Header.Get(h))
			}
		}
		// The API's reads state their length (the published document is
		// apiserve's and streamed).
		if get.StatusCode == http.StatusOK && path != "/openapi.yaml" && head.Header.Get("Content-Length") != strconv.Itoa(len(getBody)) {
			t.Errorf("HEAD %s: Content-Length %q, the GET sends %d bytes", path, head.Header.Get("Content-Length"), len(getBody))
		}
		if etag := get.Header.Get("ETag"); etag != "" {
			r, b := e.do(t, req{method: http.MethodHead, path: path, outsideSpec: true, headers: []string{"If-None-Match", etag}})
			if r.StatusCode != http.StatusNotModified || len(b) != 0 {
				t.Errorf("conditional HEAD %s: %d", path, r.StatusCode)
			}
		}
	}
	for path, allow := range map[string]string{
		"/libraries.json":                 "GET, HEAD, OPTIONS",
		"/libraries/green":                "GET, HEAD, PATCH, DELETE, OPTIONS", // issue 15.1: one URL per resource
		"/libraries/green/terms":          "GET, HEAD, POST, OPTIONS",          // issue 19.5: collections at their bare URLs
		"/libraries/green/locations.json": "",
	} {
		resp, body := e.do(t, req{method: http.MethodOptions, path: path, outsideSpec: true})
		if allow == "" {
			expectError(t, resp, body, http.StatusNotFound, "", "")
			continue
		}
		if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Allow") != allow || resp.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("OPTIONS %s: %d Allow %q %v", path, resp.StatusCode, resp.Header.Get("Allow"), resp.Header)
		}
	}
	for _, c := range []struct{ method, path, allow string }{
		{"PUT", "/libraries.json", "GET, HEAD, OPTIONS"},
		{"POST", "/libraries/green.json", "GET, HEAD, PATCH, DELETE, OPTIONS"},
		{"DELETE", "/api/v1/library/law/location/main/hours/for/today", "GET, HEAD, OPTIONS"},
		{"PUT", "/libraries/green", "GET, HEAD, PATCH, DELETE, OPTIONS"},
		{"PUT", "/libraries", "GET, HEAD, POST, OPTIONS"},
	} {
		// No Content-Type on purpose: the missing method is the fault, not
		// the media type.
		resp, body := e.do(t, req{method: c.method, path: c.path, token: "admin", outsideSpec: true})
		expectError(t, resp, body, http.StatusMethodNotAllowed, "", "")
		if got := resp.Header.Get("Allow"); got != c.allow {
			t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
		}
	}
}

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

// The pages and feeds people read (HTML, iCalendar), through the service.
// TestPeoplePages reads the HTML pages through the service.
func TestPeoplePages(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		resp, body := e.do(t, req{path: "/"})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("GET /: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		html := string(body)
		for _, want := range []string{
			"<title>Library hours</title>",
			`<a href="http://hours.test/hours/libraries/green.html">Green Library</a>`,
			// Noon on Wednesday 4 March in Los Angeles (issue 19.4: the
			// overview says what is open now and today's hours).
			`Open now and today’s hours: Wednesday 4 March, noon Los Angeles time (PST).`,
			`<p class="zone">New York time (EST)</p>`,
			`<li><span class="loc">Bender Room (24 hours)</span> <span class="state open">Open 24 hours</span> <span class="hours">Today: Open 24 hours</span></li>`,
			`<input id="filter" type="search"`,
			`<a href="http://hours.test/hours/admin/">Staff: edit hours</a>`,
			`<script type="application/ld+json">`,
		} {
			if !strings.Contains(html, want) {
				t.Errorf("GET / lacks %s", want)
			}
		}
		etag := resp.Header.Get("ETag")
		if resp, _ := e.do(t, req{path: "/", headers: []string{"If-None-Match", etag}}); resp.StatusCode != http.StatusNotModified {
			t.Errorf("GET / with its ETag: %d, want 304", resp.StatusCode)
		}

		// A week asked for on the overview is the week its links open.
		_, body = e.do(t, req{path: "/?from=2026-03-10"})
		if !strings.Contains(string(body), `<a href="http://hours.test/hours/libraries/green.html?from=2026-03-08">Green Library</a>`) {
			t.Error("GET /?from=2026-03-10 does not link Green Library's week of 8 March")
		}

		resp, body = e.do(t, req{path: "/libraries/green.html?from=2026-03-10"})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /libraries/green.html: %d %s", resp.StatusCode, body)
		}
		html = string(body)
		for _, want := range []string{
			"<title>Green Library hours</title>",
			"<p>Opening hours for 8 – 21 March 2026.</p>",
			`<a href="http://hours.test/hours/libraries/green.html">This week</a>`,
			`<a rel="prev" href="http://hours.test/hours/libraries/green.html?from=2026-03-01">`,
			`<link rel="alternate" type="text/calendar" title="Green Library hours (calendar)" href="http://hours.test/hours/libraries/green.ics">`,
		} {
			if !strings.Contains(html, want) {
				t.Errorf("GET /libraries/green.html lacks %s", want)
			}
		}
		if strings.Contains(html, "Law Library") {
			t.Error("a library's page shows another library")
		}

		resp, body = e.do(t, req{path: "/libraries/nowhere.html"})
		expectError(t, resp, body, http.StatusNotFound, "library_id", "")
		resp, body = e.do(t, req{path: "/libraries/green.html?from=2026-02-30"})
		expectError(t, resp, body, http.StatusBadRequest, "from", "")
	})
}

// TestCalendarFeeds reads the feeds through the service and has Debian's
// python3-icalendar parse them: every opening of the Reference Desk across
// the spring-forward of 8 March 2026 is at the instants the JSON:API says.
func TestCalendarFeeds(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		resp, body := e.do(t, req{path: "/libraries/green/locations/reference.ics"})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/calendar; charset=utf-8" || resp.Header.Get("ETag") == "" {
			t.Fatalf("GET reference.ics: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("ETag"))
		}
		if r, _ := e.do(t, req{path: "/libraries/green/locations/reference.ics", headers: []string{"If-None-Match", resp.Header.Get("ETag")}}); r.StatusCode != http.StatusNotModified {
			t.Errorf("feed with its ETag: %d, want 304", r.StatusCode)
		}
		out := testkit.ReadICalendar(t, "python3-icalendar", body)
		events := map[string][2]string{} // UID → start, end (UTC)
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			f := strings.Split(line, "\t")
			events[f[0]] = [2]string{f[1], f[2]}
		}
		var doc struct {
			Data struct {
				Attributes struct {
					Hours []dayDoc `json:"hours"`
				} `json:"attributes"`
				Meta struct {
					Calendar string `json:"calendar"`
				} `json:"meta"`
			} `json:"data"`
		}
		e.get(t, "/libraries/green/locations/reference.json?from=2026-03-06&to=2026-03-10", http.StatusOK, &doc)
		if doc.Data.Meta.Calendar != "http://hours.test/hours/libraries/green/locations/reference.ics" {
			t.Errorf("meta.calendar = %q", doc.Data.Meta.Calendar)
		}
		checked := 0
		for _, d := range doc.Data.Attributes.Hours {
			for i, p := range d.Periods {
				uid := d.Day + ".green.reference." + string(rune('0'+i)) + "@hours.test"
				got, ok := events[uid]
				if !ok {
					t.Errorf("no event %s in the feed", uid)
					continue
				}
				if want := utc(t, p.OpensAt); got[0] != want {
					t.Errorf("%s starts %s, JSON:API says %s", uid, got[0], want)
				}
				if want := utc(t, p.ClosesAt); got[1] != want {
					t.Errorf("%s ends %s, JSON:API says %s", uid, got[1], want)
				}
				checked++
			}
		}
		if checked < 3 {
			t.Errorf("only %d openings compared: the sample data changed?", checked)
		}

		resp, body = e.do(t, req{path: "/libraries/green.ics"})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "X-WR-CALNAME:Green Library hours\r\n") || !strings.Contains(string(body), "LOCATION:Green Library\\, Reference Desk\r\n") {
			t.Errorf("GET /libraries/green.ics: %d\n%.400s", resp.StatusCode, body)
		}
		resp, body = e.do(t, req{path: "/libraries/green/locations/nowhere.ics"})
		expectError(t, resp, body, http.StatusNotFound, "location_id", "")
	})
}

func utc(t *testing.T, s string) string {
	t.Helper()
	tm, err := time.Parse("2006-01-02T15:04:05.000-07:00", s)
	if err != nil {
		t.Fatal(err)
	}
	return tm.UTC().Format("2006-01-02T15:04:05Z")
}

// TestPagesInBrowser checks the service's real pages (the sample data:
// seven libraries, long names, 24-hour rooms, lunch breaks) in headless
// Chromium at 390 px with axe-core. (The overview, which has a script for
// its filter box, is TestOverviewAtAGlance's.)
func TestPagesInBrowser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetestSQLite(t), testNow)
	ctx := browsercheck.Phone(t)
	for _, path := range []string{"/libraries/green.html", "/libraries/law.html?from=2026-12-24"} {
		browsercheck.Check(ctx, t, e.srv.URL+path)
	}
}
