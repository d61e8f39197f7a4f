package hours_test

import (
	"context"
	"encoding/json"
	"fmt"
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

// dayOf reads one location's hours on one date.
func dayOf(t *testing.T, e *env, location, date string) dayJSON {
	t.Helper()
	var doc struct {
		Data struct {
			Attributes struct {
				Hours []dayJSON `json:"hours"`
			} `json:"attributes"`
		} `json:"data"`
	}
	e.get(t, "/libraries/"+location+".json?from="+date, 200, &doc)
	if len(doc.Data.Attributes.Hours) != 1 || doc.Data.Attributes.Hours[0].Day != date {
		t.Fatalf("%s on %s: %+v", location, date, doc.Data.Attributes.Hours)
	}
	return doc.Data.Attributes.Hours[0]
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
	t.Parallel()
	eachBackend(t, func(t *testing.T, e *env) {
		exc := "/libraries/green/locations/stacks/exceptions"
		refused := []struct{ name, method, path, body, pointer string }{
			{"opens in the gap", "POST", exc, `{"data":{"type":"exceptions","attributes":{"day":"2026-03-08","periods":["02:30-03:15"]}}}`, "/data/attributes/periods/0"},
			{"inside the gap", "POST", exc, `{"data":{"type":"exceptions","attributes":{"day":"2026-03-08","periods":["00:00-01:00","02:10-02:20"]}}}`, "/data/attributes/periods/1"},
			{"closes in the gap", "POST", exc, `{"data":{"type":"exceptions","attributes":{"day":"2026-03-08","periods":["01:00-02:00"]}}}`, "/data/attributes/periods/0"},
			{"overnight into the gap", "POST", exc, `{"data":{"type":"exceptions","attributes":{"day":"2026-03-07","periods":["09:00-12:00","20:00-02:30"]}}}`, "/data/attributes/periods/1"},
		}
		before, err := e.svc.Store().Audit(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range refused {
			resp, body := e.do(t, req{method: c.method, path: c.path, body: c.body, token: "admin"})
			t.Run(c.name, func(t *testing.T) {
				expectError(t, resp, body, 422, "", c.pointer)
				if !strings.Contains(string(body), "does not exist in America/Los_Angeles") {
					t.Errorf("the error does not say why: %s", body)
				}
			})
		}
		after, _ := e.svc.Store().Audit(context.Background())
		if len(after) != len(before) {
			t.Errorf("refused writes were audited: %d → %d", len(before), len(after))
		}
		// PATCH of an existing exception into the gap, and its day moved onto the gap.
		var created struct {
			Data struct{ ID string } `json:"data"`
		}
		resp, body := e.do(t, req{method: "POST", path: exc, token: "admin", body: `{"data":{"type":"exceptions","attributes":{"day":"2026-03-09","periods":["02:30-03:15"]}}}`})
		if resp.StatusCode != 201 || json.Unmarshal(body, &created) != nil {
			t.Fatalf("the same periods the day after: %d %s", resp.StatusCode, body)
		}
		resp, body = e.do(t, req{method: "PATCH", path: exc + "/" + created.Data.ID, token: "admin", body: `{"data":{"type":"exceptions","attributes":{"day":"2026-03-08"}}}`})
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

// Control characters other than tab and newline, and invalid UTF-8, are refused with 422
// in every text attribute on both databases (a NUL was stored by SQLite and a 500 on
// PostgreSQL); tab and newline are kept.
func TestTextAttributesRefuseControlCharacters(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, e *env) {
		cases := []struct{ name, method, path, body, pointer string }{
			{"library name NUL", "POST", "/libraries", `{"data":{"type":"libraries","attributes":{"name":"A\u0000B","slug":"ctl"}}}`, "/data/attributes/name"},
			{"library name BEL on PATCH", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"name":"Green\u0007"}}}`, "/data/attributes/name"},
			{"library name CR", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"name":"Green\r"}}}`, "/data/attributes/name"},
			{"library name DEL", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"name":"Green\u007f"}}}`, "/data/attributes/name"},
			{"library name C1", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"name":"Green\u0085"}}}`, "/data/attributes/name"},
			{"timezone NUL", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"timezone":"America/Los_Angeles\u0000"}}}`, "/data/attributes/timezone"},
			{"location name", "POST", "/libraries/green/locations", `{"data":{"type":"locations","attributes":{"name":"Desk\u0000","slug":"desk"}}}`, "/data/attributes/name"},
			{"location name on PATCH", "PATCH", "/libraries/green/locations/stacks", `{"data":{"type":"locations","attributes":{"name":"\u001b[31mStacks"}}}`, "/data/attributes/name"},
			{"library note NUL", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"note":"Closed\u0000"}}}`, "/data/attributes/note"},
			{"location note ESC", "PATCH", "/libraries/green/locations/stacks", `{"data":{"type":"locations","attributes":{"note":"\u001b[31mred"}}}`, "/data/attributes/note"},
			{"about URL NUL", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"about_url":"https://x.example/\u0000"}}}`, "/data/attributes/about_url"},
			{"term name", "POST", "/libraries/green/terms", `{"data":{"type":"terms","attributes":{"name":"T\u0000","first_day":"2027-01-01","last_day":"2027-02-01"}}}`, "/data/attributes/name"},
			{"term name on PATCH", "PATCH", "/libraries/green/terms/1", `{"data":{"type":"terms","attributes":{"name":"T\u0001"}}}`, "/data/attributes/name"},
			{"exception notes", "POST", "/libraries/green/locations/stacks/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":true,"notes":"x\u0000y"}}}`, "/data/attributes/notes"},
			{"exception notes on PATCH", "PATCH", "/libraries/green/locations/stacks/exceptions/%s", `{"data":{"type":"exceptions","attributes":{"notes":"x\u000by"}}}`, "/data/attributes/notes"},
		}
		var created struct {
			Data struct{ ID string } `json:"data"`
		}
		resp, body := e.do(t, req{method: "POST", path: "/libraries/green/locations/stacks/exceptions", token: "admin", body: `{"data":{"type":"exceptions","attributes":{"day":"2026-07-05","closed":true,"notes":"Closed\tall day\nfor the move"}}}`})
		if resp.StatusCode != 201 || json.Unmarshal(body, &created) != nil {
			t.Fatalf("notes with tab and newline: %d %s", resp.StatusCode, body)
		}
		before, err := e.svc.Store().Audit(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		start := func() string {
			_, body := e.do(t, req{path: "/libraries.json?from=2026-07-01&to=2026-07-07"})
			return string(body)
		}()
		for _, c := range cases {
			path := c.path
			if strings.Contains(path, "%s") {
				path = fmt.Sprintf(path, created.Data.ID)
			}
			resp, body := e.do(t, req{method: c.method, path: path, body: c.body, token: "admin"})
			t.Run(c.name, func(t *testing.T) { expectError(t, resp, body, 422, "", c.pointer) })
		}
		after, _ := e.svc.Store().Audit(context.Background())
		if len(after) != len(before) {
			t.Errorf("refused writes were audited: %d → %d", len(before), len(after))
		}
		if _, body := e.do(t, req{path: "/libraries.json?from=2026-07-01&to=2026-07-07"}); string(body) != start {
			t.Error("refused writes changed the hours")
		}
		if got := dayOf(t, e, "green/locations/stacks", "2026-07-05"); got.Notes != "Closed\tall day\nfor the move" {
			t.Errorf("notes with tab and newline read back %q", got.Notes)
		}
	})
}
