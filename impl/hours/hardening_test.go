package hours_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

type dayJSON struct {
	Day     string `json:"day"`
	Notes   string `json:"notes"`
	Periods []struct {
		OpensAt  string `json:"opens_at"`
		ClosesAt string `json:"closes_at"`
	} `json:"periods"`
}

// hoursOn reads the hours of one location ("<library>/locations/<slug>")
// on one date through get, a GET of the service decoding its JSON into its
// second argument; D is the test's view of a day.
func hoursOn[D any](t *testing.T, get func(path string, into any), location, date string) D {
	t.Helper()
	var doc struct {
		Data struct {
			Attributes struct {
				Hours []D `json:"hours"`
			} `json:"attributes"`
		} `json:"data"`
	}
	get("/libraries/"+location+".json?from="+date, &doc)
	if len(doc.Data.Attributes.Hours) != 1 {
		t.Fatalf("%s on %s: %d days", location, date, len(doc.Data.Attributes.Hours))
	}
	return doc.Data.Attributes.Hours[0]
}

// dayOf reads one location's hours on one date.
func dayOf(t *testing.T, e *env, location, date string) dayJSON {
	t.Helper()
	day := hoursOn[dayJSON](t, func(path string, into any) { e.get(t, path, http.StatusOK, into) }, location, date)
	if day.Day != date {
		t.Fatalf("%s on %s: the day read is %s", location, date, day.Day)
	}
	return day
}

func spans(d dayJSON) string {
	var parts []string
	for _, p := range d.Periods {
		parts = append(parts, p.OpensAt+"/"+p.ClosesAt)
	}
	return strings.Join(parts, " ")
}

// Times that do not exist (the spring-forward gap, 2026-03-08 02:00–03:00 in
// America/Los_Angeles) are refused in a per-date exception with a 422 pointing at the
// period, on POST and PATCH, opening or closing, and for an overnight period closing into
// the gap; a weekly schedule is kept and its times in the gap read as the instant of the
// change, so no period closes before it opens. The fall-back day's repeated hour reads as
// its first occurrence.
func TestNonexistentTimes(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		exc := "/libraries/green/locations/stacks/exceptions"
		bodies := expectRefusedWrites(t, e, "from=2026-03-01&to=2026-03-14", []refusedWrite{
			{"opens in the gap", "POST", exc, `{"data":{"type":"exceptions","attributes":{"day":"2026-03-08","periods":["02:30-03:15"]}}}`, 422, "/data/attributes/periods/0"},
			{"inside the gap", "POST", exc, `{"data":{"type":"exceptions","attributes":{"day":"2026-03-08","periods":["00:00-01:00","02:10-02:20"]}}}`, 422, "/data/attributes/periods/1"},
			{"closes in the gap", "POST", exc, `{"data":{"type":"exceptions","attributes":{"day":"2026-03-08","periods":["01:00-02:00"]}}}`, 422, "/data/attributes/periods/0"},
			{"overnight into the gap", "POST", exc, `{"data":{"type":"exceptions","attributes":{"day":"2026-03-07","periods":["09:00-12:00","20:00-02:30"]}}}`, 422, "/data/attributes/periods/1"},
		})
		for _, body := range bodies {
			if !strings.Contains(body, "does not exist in America/Los_Angeles") {
				t.Errorf("the error does not say why: %s", body)
			}
		}
		// PATCH of an existing exception into the gap, and its day moved onto the gap.
		dayAfter := e.create(t, exc, `{"data":{"type":"exceptions","attributes":{"day":"2026-03-09","periods":["02:30-03:15"]}}}`)
		resp, body := e.do(t, req{method: "PATCH", path: exc + "/" + dayAfter, token: "admin", body: `{"data":{"type":"exceptions","attributes":{"day":"2026-03-08"}}}`})
		expectError(t, resp, body, 422, "", "/data/attributes/periods/0")
		if got := dayOf(t, e, "green/locations/stacks", "2026-03-09"); spans(got) != "2026-03-09T02:30:00.000-07:00/2026-03-09T03:15:00.000-07:00" {
			t.Errorf("after a refused PATCH: %s", spans(got))
		}

		// Fall back: accepted, the repeated hour is the first one.
		resp, body = e.do(t, req{method: "POST", path: exc, token: "admin", body: `{"data":{"type":"exceptions","attributes":{"day":"2026-11-01","periods":["01:30-01:45","02:00-03:00"]}}}`})
		if resp.StatusCode != 201 {
			t.Fatalf("fall-back exception: %d %s", resp.StatusCode, body)
		}
		if got := dayOf(t, e, "green/locations/stacks", "2026-11-01"); spans(got) != "2026-11-01T01:30:00.000-07:00/2026-11-01T01:45:00.000-07:00 2026-11-01T02:00:00.000-08:00/2026-11-01T03:00:00.000-08:00" {
			t.Errorf("fall back: %s", spans(got))
		}

		// A weekly schedule with times in the gap is kept; on the day they do not
		// exist they read as the instant of the change.
		var sched struct {
			Data []struct {
				ID            string
				Relationships struct {
					Term struct {
						Data struct{ ID string } `json:"data"`
					} `json:"term"`
				} `json:"relationships"`
			} `json:"data"`
		}
		e.get(t, "/libraries/green/locations/stacks/schedules.json", 200, &sched)
		var days []string
		for _, wd := range []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"} {
			days = append(days, fmt.Sprintf(`{"weekday":%q,"periods":["02:30-03:15","09:00-17:00"]}`, wd))
		}
		patched := false
		for _, s := range sched.Data {
			resp, body := e.do(t, req{method: "PATCH", path: "/libraries/green/locations/stacks/schedules/" + s.ID, token: "admin",
				body: `{"data":{"type":"schedules","attributes":{"days":[` + strings.Join(days, ",") + `]}}}`})
			if resp.StatusCode != 200 {
				t.Fatalf("schedule with a time in the gap: %d %s", resp.StatusCode, body)
			}
			patched = true
		}
		if !patched {
			t.Fatal("the sample has no schedule for green/stacks")
		}
		got := dayOf(t, e, "green/locations/stacks", "2026-03-08")
		if spans(got) != "2026-03-08T03:00:00.000-07:00/2026-03-08T03:15:00.000-07:00 2026-03-08T09:00:00.000-07:00/2026-03-08T17:00:00.000-07:00" {
			t.Errorf("schedule on the spring-forward day: %s", spans(got))
		}
	})
}

// Control characters other than tab and newline are refused with 422 in every text
// attribute on both databases (a NUL was stored by SQLite and a 500 on PostgreSQL) and
// change nothing; tab and newline are kept.
func TestTextAttributesRefuseControlCharacters(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		exception := e.create(t, "/libraries/green/locations/stacks/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-05","closed":true,"notes":"Closed\tall day\nfor the move"}}}`)
		expectRefusedWrites(t, e, "from=2026-07-01&to=2026-07-07", []refusedWrite{
			{"library name NUL", "POST", "/libraries", `{"data":{"type":"libraries","attributes":{"name":"A\u0000B","slug":"ctl"}}}`, 422, "/data/attributes/name"},
			{"library name BEL on PATCH", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"name":"Green\u0007"}}}`, 422, "/data/attributes/name"},
			{"library name CR", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"name":"Green\r"}}}`, 422, "/data/attributes/name"},
			{"library name DEL", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"name":"Green\u007f"}}}`, 422, "/data/attributes/name"},
			{"library name C1", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"name":"Green\u0085"}}}`, 422, "/data/attributes/name"},
			{"timezone NUL", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"timezone":"America/Los_Angeles\u0000"}}}`, 422, "/data/attributes/timezone"},
			{"location name", "POST", "/libraries/green/locations", `{"data":{"type":"locations","attributes":{"name":"Desk\u0000","slug":"desk"}}}`, 422, "/data/attributes/name"},
			{"location name on PATCH", "PATCH", "/libraries/green/locations/stacks", `{"data":{"type":"locations","attributes":{"name":"\u001b[31mStacks"}}}`, 422, "/data/attributes/name"},
			{"library note NUL", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"note":"Closed\u0000"}}}`, 422, "/data/attributes/note"},
			{"location note ESC", "PATCH", "/libraries/green/locations/stacks", `{"data":{"type":"locations","attributes":{"note":"\u001b[31mred"}}}`, 422, "/data/attributes/note"},
			{"about URL NUL", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"about_url":"https://x.example/\u0000"}}}`, 422, "/data/attributes/about_url"},
			{"term name", "POST", "/libraries/green/terms", `{"data":{"type":"terms","attributes":{"name":"T\u0000","first_day":"2027-01-01","last_day":"2027-02-01"}}}`, 422, "/data/attributes/name"},
			{"term name on PATCH", "PATCH", "/libraries/green/terms/1", `{"data":{"type":"terms","attributes":{"name":"T\u0001"}}}`, 422, "/data/attributes/name"},
			{"exception notes", "POST", "/libraries/green/locations/stacks/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":true,"notes":"x\u0000y"}}}`, 422, "/data/attributes/notes"},
			{"exception notes on PATCH", "PATCH", "/libraries/green/locations/stacks/exceptions/" + exception, `{"data":{"type":"exceptions","attributes":{"notes":"x\u000by"}}}`, 422, "/data/attributes/notes"},
		})
		if got := dayOf(t, e, "green/locations/stacks", "2026-07-05"); got.Notes != "Closed\tall day\nfor the move" {
			t.Errorf("notes with tab and newline read back %q", got.Notes)
		}
	})
}

// Invalid UTF-8 in a text attribute is 422 with the attribute's pointer and stores
// nothing, as docs/security.md promises: JSON decoding used to turn the bytes into U+FFFD
// and the write was stored with 201.
func TestInvalidUTF8Refused(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		exception := e.create(t, "/libraries/green/locations/stacks/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-05","closed":true,"notes":"Closed"}}}`)
		expectRefusedWrites(t, e, "from=2026-07-01&to=2026-07-07", []refusedWrite{
			{"library name on POST", "POST", "/libraries", "{\"data\":{\"type\":\"libraries\",\"attributes\":{\"name\":\"Caf\xe9\",\"slug\":\"cafe\"}}}", 422, "/data/attributes/name"},
			{"library name on PATCH", "PATCH", "/libraries/green", "{\"data\":{\"type\":\"libraries\",\"attributes\":{\"name\":\"Green \xff\xfe\"}}}", 422, "/data/attributes/name"},
			{"location name (cut sequence)", "PATCH", "/libraries/green/locations/stacks", "{\"data\":{\"type\":\"locations\",\"attributes\":{\"name\":\"Stacks \xe2\x82\"}}}", 422, "/data/attributes/name"},
			{"exception notes", "PATCH", "/libraries/green/locations/stacks/exceptions/" + exception, "{\"data\":{\"type\":\"exceptions\",\"attributes\":{\"notes\":\"\xc0\xaf\"}}}", 422, "/data/attributes/notes"},
			{"legacy .json PATCH", "PATCH", "/libraries/green.json", "{\"data\":{\"type\":\"libraries\",\"attributes\":{\"name\":\"\xed\xa0\x80\"}}}", 422, "/data/attributes/name"},
		})
		// Valid multi-byte text is kept as sent.
		resp, body := e.do(t, req{method: "PATCH", path: "/libraries/green", token: "admin", body: `{"data":{"type":"libraries","attributes":{"name":"Café Green ☕"}}}`})
		if resp.StatusCode != 200 {
			t.Fatalf("valid UTF-8: %d %s", resp.StatusCode, body)
		}
		var lib struct {
			Data struct {
				Attributes struct{ Name string } `json:"attributes"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &lib); err != nil || lib.Data.Attributes.Name != "Café Green ☕" {
			t.Errorf("valid UTF-8 read back %q (%v)", lib.Data.Attributes.Name, err)
		}
	})
}

// TestEveryErrorReadable is a table of every kind of error the API gives:
// each answer is a JSON:API error whose source names the parameter,
// pointer or header at fault, and whose detail is a sentence a person can
// read that names it too.
func TestEveryErrorReadable(t *testing.T) {
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
