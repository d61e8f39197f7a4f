package hours_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/hours"
	"github.com/sitelib/sitesvc/impl/testkit"
)

func TestWriteAuth(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		lib := `{"data":{"type":"libraries","attributes":{"name":"Art Library","slug":"art","timezone":"America/Chicago"}}}`
		resp, body := e.do(t, req{method: "POST", path: "/libraries", body: lib})
		expectError(t, resp, body, 401, "", "")
		if !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("401 without WWW-Authenticate: %v", resp.Header)
		}
		resp, body = e.do(t, req{method: "POST", path: "/libraries", body: lib, token: "not-a-token"})
		expectError(t, resp, body, 401, "", "")
		resp, body = e.do(t, req{method: "POST", path: "/libraries", body: lib, headers: []string{"Authorization", "Basic dXNlcjpwYXNz"}})
		expectError(t, resp, body, 401, "", "")
		// Editors and publishers may not create libraries.
		for _, who := range []string{"green-editor", "publisher"} {
			resp, body = e.do(t, req{method: "POST", path: "/libraries", body: lib, token: who})
			expectError(t, resp, body, 403, "", "")
		}
		// An editor of green may not touch law.
		term := `{"data":{"type":"terms","attributes":{"name":"Summer","first_day":"2026-06-20","last_day":"2026-09-20"}}}`
		resp, body = e.do(t, req{method: "POST", path: "/libraries/law/terms", body: term, token: "green-editor"})
		expectError(t, resp, body, 403, "", "")
		resp, body = e.do(t, req{method: "DELETE", path: "/libraries/green", token: "green-editor"})
		expectError(t, resp, body, 403, "", "")
		// Every kind of write to law is refused to green's editor, before
		// anything is looked up (so nothing about law leaks either).
		for _, w := range []struct{ method, path, body string }{
			{"PATCH", "/libraries/law", `{"data":{"type":"libraries","attributes":{"name":"Ours now"}}}`},
			{"POST", "/libraries/law/locations", `{"data":{"type":"locations","attributes":{"name":"X","slug":"x"}}}`},
			{"PATCH", "/libraries/law/locations/main", `{"data":{"type":"locations","attributes":{"name":"X"}}}`},
			{"DELETE", "/libraries/law/locations/archives", ``},
			{"PATCH", "/libraries/law/terms/3", `{"data":{"type":"terms","attributes":{"name":"X"}}}`},
			{"DELETE", "/libraries/law/terms/3", ``},
			{"POST", "/libraries/law/locations/main/schedules", `{"data":{"type":"schedules","attributes":{"days":[]},"relationships":{"term":{"data":{"type":"terms","id":"3"}}}}}`},
			{"PATCH", "/libraries/law/locations/main/schedules/999", `{"data":{"type":"schedules","attributes":{"days":[]}}}`},
			{"DELETE", "/libraries/law/locations/main/schedules/999", ``},
			{"POST", "/libraries/law/locations/main/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":true}}}`},
			{"PATCH", "/libraries/law/locations/main/exceptions/999", `{"data":{"type":"exceptions","attributes":{"closed":true}}}`},
			{"DELETE", "/libraries/law/locations/main/exceptions/999", ``},
			{"PATCH", "/libraries/nowhere", `{"data":{"type":"libraries","attributes":{"name":"X"}}}`},
		} {
			resp, body := e.do(t, req{method: w.method, path: w.path, body: w.body, token: "green-editor"})
			expectError(t, resp, body, 403, "", "")
		}
		resp, body = e.do(t, req{method: "POST", path: "/libraries/green/terms", body: term, token: "green-editor"})
		if resp.StatusCode != 201 {
			t.Fatalf("editor on own library: %d %s", resp.StatusCode, body)
		}
		resp, body = e.do(t, req{method: "POST", path: "/libraries", body: lib, token: "admin"})
		if resp.StatusCode != 201 || resp.Header.Get("Location") != "http://hours.test/hours/libraries/art.json" {
			t.Fatalf("admin create: %d %v %s", resp.StatusCode, resp.Header, body)
		}
		// Refused writes left no trace; the two that succeeded are audited
		// under their tokens' names.
		entries, err := e.svc.Store().Audit(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var mine []string
		for _, a := range entries {
			if a.Who != "sample-data" {
				mine = append(mine, a.Who+" "+a.Action+" "+a.ResourceType)
			}
		}
		if got := strings.Join(mine, "; "); got != "green-editor create terms; admin create libraries" {
			t.Errorf("audit: %s", got)
		}
	})
}

func TestWriteValidation(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		expectRefusedWrites(t, e, "from=2026-03-01&to=2026-03-14", []refusedWrite{
			{"malformed JSON", "POST", "/libraries", `{"data":`, 400, ""},
			{"wrong type", "POST", "/libraries", `{"data":{"type":"locations","attributes":{"name":"A","slug":"a"}}}`, 409, "/data/type"},
			{"wrong type on PATCH", "PATCH", "/libraries/green/terms/1", `{"data":{"type":"libraries","attributes":{"name":"A"}}}`, 409, "/data/type"},
			{"no type", "POST", "/libraries", `{"data":{"attributes":{"name":"A","slug":"a"}}}`, 422, "/data/type"},
			{"bad slug", "POST", "/libraries", `{"data":{"type":"libraries","attributes":{"name":"A","slug":"Not A Slug"}}}`, 422, "/data/attributes/slug"},
			{"unknown attribute", "POST", "/libraries", `{"data":{"type":"libraries","attributes":{"name":"A","slug":"a","colour":"red"}}}`, 422, "/data/attributes/colour"},
			{"missing name", "POST", "/libraries", `{"data":{"type":"libraries","attributes":{"slug":"a"}}}`, 422, "/data/attributes/name"},
			{"bad zone", "POST", "/libraries", `{"data":{"type":"libraries","attributes":{"name":"A","slug":"a","timezone":"Mars/Olympus_Mons"}}}`, 422, "/data/attributes/timezone"},
			{"client id", "POST", "/libraries", `{"data":{"type":"libraries","id":"a","attributes":{"name":"A","slug":"a"}}}`, 403, "/data/id"},
			{"duplicate slug", "POST", "/libraries", `{"data":{"type":"libraries","attributes":{"name":"A","slug":"green"}}}`, 409, ""},
			{"id mismatch", "PATCH", "/libraries/green", `{"data":{"type":"libraries","id":"law","attributes":{"name":"A"}}}`, 409, "/data/id"},
			{"rename onto another", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"slug":"law"}}}`, 409, ""},
			{"unknown library", "PATCH", "/libraries/nowhere", `{"data":{"type":"libraries","attributes":{"name":"A"}}}`, 404, ""},
			{"location slug taken", "POST", "/libraries/green/locations", `{"data":{"type":"locations","attributes":{"name":"A","slug":"stacks"}}}`, 409, ""},
			{"unset primary", "PATCH", "/libraries/green/locations/stacks", `{"data":{"type":"locations","attributes":{"primary":false}}}`, 422, "/data/attributes/primary"},
			{"term bad date", "POST", "/libraries/green/terms", `{"data":{"type":"terms","attributes":{"name":"T","first_day":"2026-02-30","last_day":"2026-03-30"}}}`, 422, "/data/attributes/first_day"},
			{"term date format", "POST", "/libraries/green/terms", `{"data":{"type":"terms","attributes":{"name":"T","first_day":"2026-2-3","last_day":"2026-03-30"}}}`, 422, "/data/attributes/first_day"},
			{"term reversed", "POST", "/libraries/green/terms", `{"data":{"type":"terms","attributes":{"name":"T","first_day":"2026-04-01","last_day":"2026-03-30"}}}`, 422, "/data/attributes/last_day"},
			{"term missing", "PATCH", "/libraries/green/terms/999999", `{"data":{"type":"terms","attributes":{"name":"T"}}}`, 404, ""},
			{"term of another library", "PATCH", "/libraries/law/terms/1", `{"data":{"type":"terms","attributes":{"name":"T"}}}`, 404, ""},
			{"schedule without term", "POST", "/libraries/green/locations/stacks/schedules", `{"data":{"type":"schedules","attributes":{"days":[]}}}`, 422, "/data/relationships"},
			{"schedule unknown term", "POST", "/libraries/green/locations/stacks/schedules", `{"data":{"type":"schedules","attributes":{"days":[]},"relationships":{"term":{"data":{"type":"terms","id":"424242"}}}}}`, 422, "/data/relationships/term"},
			{"schedule term taken", "POST", "/libraries/green/locations/stacks/schedules", `{"data":{"type":"schedules","attributes":{"days":[]},"relationships":{"term":{"data":{"type":"terms","id":"1"}}}}}`, 409, ""},
			{"period syntax", "POST", "/libraries/green/locations/stacks/schedules", `{"data":{"type":"schedules","attributes":{"days":[{"weekday":"Monday","periods":["9-17"]}]},"relationships":{"term":{"data":{"type":"terms","id":"1"}}}}}`, 422, "/data/attributes/days/0/periods/0"},
			{"period hour", "PATCH", "/libraries/green/locations/stacks/schedules/1", `{"data":{"type":"schedules","attributes":{"days":[{"weekday":"Monday","periods":["08:00-12:00","25:00-26:00"]}]}}}`, 422, "/data/attributes/days/0/periods/1"},
			{"periods overlap", "PATCH", "/libraries/green/locations/stacks/schedules/1", `{"data":{"type":"schedules","attributes":{"days":[{"weekday":"Sunday","closed":true},{"weekday":"Monday","periods":["08:00-12:00","11:00-13:00"]}]}}}`, 422, "/data/attributes/days/1/periods/1"},
			{"day over 24 hours", "PATCH", "/libraries/green/locations/stacks/schedules/1", `{"data":{"type":"schedules","attributes":{"days":[{"weekday":"Friday","periods":["08:00-12:00","20:00-09:00"]}]}}}`, 422, "/data/attributes/days/0/periods/1"},
			{"weekday twice", "PATCH", "/libraries/green/locations/stacks/schedules/1", `{"data":{"type":"schedules","attributes":{"days":[{"weekday":"Monday","closed":true},{"weekday":"Monday","open_24h":true}]}}}`, 422, "/data/attributes/days/1/weekday"},
			{"closed and open", "PATCH", "/libraries/green/locations/stacks/schedules/1", `{"data":{"type":"schedules","attributes":{"days":[{"weekday":"Monday","closed":true,"periods":["08:00-09:00"]}]}}}`, 422, "/data/attributes/days/0"},
			{"bad weekday", "PATCH", "/libraries/green/locations/stacks/schedules/1", `{"data":{"type":"schedules","attributes":{"days":[{"weekday":"Funday","closed":true}]}}}`, 422, "/data/attributes/days/0/weekday"},
			{"schedule elsewhere", "PATCH", "/libraries/law/locations/main/schedules/1", `{"data":{"type":"schedules","attributes":{"days":[]}}}`, 404, ""},
			{"exception closed with periods", "POST", "/libraries/green/locations/stacks/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":true,"periods":["10:00-12:00"]}}}`, 422, "/data/attributes/periods"},
			{"exception open without periods", "POST", "/libraries/green/locations/stacks/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":false}}}`, 422, "/data/attributes/periods"},
			{"exception no day", "POST", "/libraries/green/locations/stacks/exceptions", `{"data":{"type":"exceptions","attributes":{"closed":true}}}`, 422, "/data/attributes/day"},
			{"exception type", "POST", "/libraries/green/locations/stacks/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":true,"hours_type":"special"}}}`, 422, "/data/attributes/hours_type"},
			{"exception type enum", "POST", "/libraries/green/locations/stacks/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":true,"hours_type":"party"}}}`, 422, "/data/attributes/hours_type"},
			{"exception day taken", "POST", "/libraries/green/locations/stacks/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-12-25","closed":true}}}`, 409, ""},
			{"bad id", "DELETE", "/libraries/green/terms/abc", ``, 400, "term_id"},
		})
	})
}

// TestSettingHours walks an editor through setting a library's hours and
// checks each write shows in the next read, including the legacy API at
// old slugs.
func TestSettingHours(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		write := func(method, path, body string, want int) map[string]any {
			t.Helper()
			resp, data := e.do(t, req{method: method, path: path, body: body, token: "law-editor"})
			if resp.StatusCode != want {
				t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, data)
			}
			var doc map[string]any
			if len(data) > 0 {
				if err := json.Unmarshal(data, &doc); err != nil {
					t.Fatal(err)
				}
			}
			return doc
		}
		id := func(doc map[string]any) string { return doc["data"].(map[string]any)["id"].(string) }

		loc := write("POST", "/libraries/law/locations", `{"data":{"type":"locations","attributes":{"name":"Clinic","slug":"clinic"}}}`, 201)
		if id(loc) != "law/clinic" {
			t.Errorf("location id %v", id(loc))
		}
		term := write("POST", "/libraries/law/terms", `{"data":{"type":"terms","attributes":{"name":"Spring 2026","first_day":"2026-03-01","last_day":"2026-03-31"}}}`, 201)
		termID := id(term)
		sched := write("POST", "/libraries/law/locations/clinic/schedules", `{"data":{"type":"schedules","attributes":{"days":[
			{"weekday":"Monday","periods":["09:00-12:00","13:00-17:00"]},
			{"weekday":"Wednesday","periods":["18:00-01:00"]},
			{"weekday":"Saturday","open_24h":true}]},
			"relationships":{"term":{"data":{"type":"terms","id":"`+termID+`"}}}}}`, 201)
		schedID := id(sched)
		days := sched["data"].(map[string]any)["attributes"].(map[string]any)["days"].([]any)
		if len(days) != 7 || days[0].(map[string]any)["closed"] != true || days[6].(map[string]any)["open_24h"] != true {
			t.Errorf("schedule days %v", days)
		}

		var doc oneDoc
		e.get(t, "/libraries/law/locations/clinic.json", 200, &doc)
		h := doc.Data.Attributes.Hours
		if len(h[1].Periods) != 2 || *h[3].OpensAt != "2026-03-04T18:00:00.000-08:00" || *h[3].ClosesAt != "2026-03-05T01:00:00.000-08:00" || !h[6].Open24 || !h[0].Closed {
			t.Errorf("clinic week: %+v", h)
		}

		exc := write("POST", "/libraries/law/locations/clinic/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-03-04","periods":["10:00-14:00"],"notes":"Bar exam"}}}`, 201)
		excID := id(exc)
		if a := exc["data"].(map[string]any)["attributes"].(map[string]any); a["hours_type"] != "special" || a["closed"] != false {
			t.Errorf("exception %v", a)
		}
		var recs []map[string]any
		e.get(t, "/api/v1/library/law/location/clinic/hours/for/today", 200, &recs)
		if len(recs) != 1 || recs[0]["type"] != "special" || recs[0]["notes"] != "Bar exam" || recs[0]["closes_at"] != "2026-03-04T14:00:00.000-08:00" || recs[0]["id"].(float64) != mustFloat(excID) {
			t.Errorf("legacy after the exception: %v", recs)
		}
		write("PATCH", "/libraries/law/locations/clinic/exceptions/"+excID, `{"data":{"type":"exceptions","id":"`+excID+`","attributes":{"closed":true,"hours_type":"closure"}}}`, 200)
		e.get(t, "/api/v1/library/law/location/clinic/hours/for/2026-03-04", 200, &recs)
		if len(recs) != 1 || recs[0]["closed"] != true || recs[0]["type"] != "closure" || recs[0]["opens_at"] != "2026-03-04T00:00:00.000-08:00" {
			t.Errorf("legacy after closing: %v", recs)
		}
		write("DELETE", "/libraries/law/locations/clinic/exceptions/"+excID, "", 204)
		e.get(t, "/api/v1/library/law/location/clinic/hours/for/2026-03-04", 200, &recs)
		if recs[0]["type"] != "regular" || recs[0]["opens_at"] != "2026-03-04T18:00:00.000-08:00" {
			t.Errorf("legacy after deleting the exception: %v", recs)
		}

		write("PATCH", "/libraries/law/locations/clinic/schedules/"+schedID, `{"data":{"type":"schedules","id":"`+schedID+`","attributes":{"days":[{"weekday":"Wednesday","open_24h":true}]}}}`, 200)
		e.get(t, "/libraries/law/locations/clinic.json?from=2026-03-04", 200, &doc)
		if !doc.Data.Attributes.Hours[0].Open24 {
			t.Errorf("after the schedule change: %+v", doc.Data.Attributes.Hours[0])
		}
		write("PATCH", "/libraries/law/terms/"+termID, `{"data":{"type":"terms","attributes":{"last_day":"2026-03-03"}}}`, 200)
		e.get(t, "/libraries/law/locations/clinic.json?from=2026-03-04", 200, &doc)
		if d := doc.Data.Attributes.Hours[0]; !d.Closed || d.Type != "unscheduled" {
			t.Errorf("after shortening the term: %+v", d)
		}

		// Renames: the old slugs keep answering.
		write("PATCH", "/libraries/law/locations/clinic", `{"data":{"type":"locations","id":"law/clinic","attributes":{"slug":"legal-clinic","name":"Legal Clinic","primary":true}}}`, 200)
		write("PATCH", "/libraries/law", `{"data":{"type":"libraries","attributes":{"slug":"law-library"}}}`, 200)
		for _, path := range []string{
			"/api/v1/library/law/location/clinic/hours/for/2026-03-02",
			"/api/v1/library/law-library/location/clinic/hours/for/2026-03-02",
			"/api/v1/library/law/location/legal-clinic/hours/for/2026-03-02",
			"/api/v1/library/law-library/location/legal-clinic/hours/for/2026-03-02",
		} {
			e.get(t, path, 200, &recs)
			// Only Wednesday is open since the schedule change: Monday is a
			// closed day of the schedule.
			if len(recs) != 1 || recs[0]["location_slug"] != "legal-clinic" || recs[0]["closed"] != true || recs[0]["type"] != "regular" {
				t.Errorf("%s: %v", path, recs)
			}
		}
		var lib oneDoc
		e.get(t, "/libraries/law.json", 200, &lib)
		if lib.Data.ID != "law-library" || !sameJSON(string(lib.Data.Relationships["primary_location"].Data), `{"type":"locations","id":"law-library/legal-clinic"}`) {
			t.Errorf("renamed library: %s %s", lib.Data.ID, lib.Data.Relationships["primary_location"].Data)
		}
		// The editor role names the old slug and still works.
		write("DELETE", "/libraries/law-library/locations/legal-clinic", "", 204)
		e.get(t, "/libraries/law-library.json", 200, &lib)
		if string(lib.Data.Relationships["primary_location"].Data) == "null" {
			t.Errorf("no primary location after deleting the primary one")
		}
		resp, body := e.do(t, req{path: "/libraries/law-library/locations/legal-clinic.json"})
		expectError(t, resp, body, 404, "location_id", "")

		entries, err := e.svc.Store().Audit(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, a := range entries {
			if a.Who == "law-editor" {
				n++
				if a.At.IsZero() || a.ResourceID == "" {
					t.Errorf("audit entry %+v", a)
				}
			}
		}
		if n != 11 {
			t.Errorf("%d audit entries by law-editor, want 11", n)
		}

		resp, body = e.do(t, req{method: "DELETE", path: "/libraries/law-library", token: "admin"})
		if resp.StatusCode != 204 || len(body) != 0 {
			t.Fatalf("delete library: %d %s", resp.StatusCode, body)
		}
		resp, body = e.do(t, req{path: "/libraries/law-library.json"})
		expectError(t, resp, body, 404, "library_id", "")
	})
}

func mustFloat(s string) float64 {
	var f float64
	if err := json.Unmarshal([]byte(s), &f); err != nil {
		panic(err)
	}
	return f
}

func TestNoTokensConfigured(t *testing.T) {
	t.Parallel()
	svc, err := hours.New(context.Background(), hours.Config{BaseURL: "http://hours.test/hours", DB: storetestSQLite(t), SampleData: true})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	rec := httptest.NewRecorder()
	r := httptest.NewRequest(http.MethodDelete, "/libraries/green", nil)
	r.Header.Set("Authorization", "Bearer anything")
	svc.Handler().ServeHTTP(rec, r)
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("no tokens configured: %d %s", rec.Code, rec.Body)
	}
	if err := svc.Ready(context.Background()); err != nil {
		t.Errorf("ready: %v", err)
	}
}

func TestListTermsSchedulesExceptions(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		type res struct {
			Type          string         `json:"type"`
			ID            string         `json:"id"`
			Attributes    map[string]any `json:"attributes"`
			Relationships map[string]struct {
				Data struct{ Type, ID string } `json:"data"`
			} `json:"relationships"`
		}
		var list struct {
			Data  []res             `json:"data"`
			Links map[string]string `json:"links"`
		}
		e.get(t, "/libraries/green/terms.json", 200, &list)
		if len(list.Data) != 2 || list.Data[0].Type != "terms" || list.Data[0].Attributes["name"] != "Current term" || list.Links["self"] != "http://hours.test/hours/libraries/green/terms.json" {
			t.Fatalf("terms: %+v", list)
		}
		termID := list.Data[0].ID
		e.get(t, "/libraries/green/locations/reference/schedules.json", 200, &list)
		if len(list.Data) != 2 || list.Data[0].Relationships["term"].Data.ID != termID || list.Data[0].Relationships["location"].Data.ID != "green/reference" {
			t.Fatalf("schedules: %+v", list)
		}
		days := list.Data[0].Attributes["days"].([]any)
		if len(days) != 7 || days[1].(map[string]any)["periods"].([]any)[1] != "13:00-17:00" {
			t.Errorf("schedule days: %v", days)
		}
		e.get(t, "/libraries/green/locations/stacks/exceptions.json", 200, &list)
		if len(list.Data) != 3 || list.Data[0].Attributes["hours_type"] != "closure" || list.Data[2].Attributes["hours_type"] != "holiday" {
			t.Fatalf("exceptions: %+v", list)
		}
		// The listed ids are the ones writes take.
		resp, body := e.do(t, req{method: "PATCH", path: "/libraries/green/locations/stacks/exceptions/" + list.Data[0].ID, token: "green-editor",
			body: `{"data":{"type":"exceptions","attributes":{"notes":"Closed for staff training (all day)"}}}`})
		if resp.StatusCode != 200 {
			t.Errorf("PATCH a listed exception: %d %s", resp.StatusCode, body)
		}
		for _, path := range []string{"/libraries/nowhere/terms.json", "/libraries/green/locations/nowhere/schedules.json", "/libraries/nowhere/locations/stacks/exceptions.json"} {
			resp, body := e.do(t, req{path: path})
			if resp.StatusCode != 404 {
				t.Errorf("%s: %d %s", path, resp.StatusCode, body)
			}
		}
	})
}

// TestReadsDuringWrites reads while an editor writes: every read answers
// 200 with a complete document, and the last read shows the last write.
func TestReadsDuringWrites(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetestSQLite(t), testNow)
	done := make(chan struct{})
	errs := make(chan string, 64)
	for g := 0; g < 4; g++ {
		go func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				resp, err := http.Get(e.srv.URL + "/libraries/green.json")
				if err != nil {
					errs <- err.Error()
					return
				}
				var doc oneDoc
				err = json.NewDecoder(resp.Body).Decode(&doc)
				resp.Body.Close()
				if resp.StatusCode != 200 || err != nil || len(doc.Data.Attributes.Hours) != 7 {
					errs <- "bad read during writes"
					return
				}
			}
		}()
	}
	for i := 0; i < 10; i++ {
		name := "Green Library " + strings.Repeat("I", i+1)
		resp, body := e.do(t, req{method: "PATCH", path: "/libraries/green", token: "green-editor", body: `{"data":{"type":"libraries","attributes":{"name":"` + name + `"}}}`})
		if resp.StatusCode != 200 {
			t.Fatalf("write %d: %d %s", i, resp.StatusCode, body)
		}
	}
	close(done)
	select {
	case msg := <-errs:
		t.Fatal(msg)
	default:
	}
	var doc oneDoc
	e.get(t, "/libraries/green.json", 200, &doc)
	if doc.Data.Attributes.Name != "Green Library IIIIIIIIII" {
		t.Errorf("last read: %q", doc.Data.Attributes.Name)
	}
}

// TestFormerSlugsReserved checks a former slug keeps resolving to its
// library or location: no other library (or location of the same library)
// may take it, while the one that had it may take it back.
func TestFormerSlugsReserved(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		write := func(token, method, path, body string, want int) {
			t.Helper()
			resp, data := e.do(t, req{method: method, path: path, body: body, token: token})
			if want == http.StatusConflict {
				expectError(t, resp, data, want, "", "")
			} else if resp.StatusCode != want {
				t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, data)
			}
		}
		write("admin", "PATCH", "/libraries/law", `{"data":{"type":"libraries","attributes":{"slug":"law-library"}}}`, 200)
		write("admin", "PATCH", "/libraries/green/locations/reference", `{"data":{"type":"locations","attributes":{"slug":"research-help"}}}`, 200)
		before := func() string {
			_, body := e.do(t, req{path: "/libraries.json?from=2026-03-02"})
			return string(body)
		}()
		audit, err := e.svc.Store().Audit(context.Background())
		if err != nil {
			t.Fatal(err)
		}

		// Neither a new library nor another's rename may take "law"; an
		// editor of green cannot capture law's old links that way either.
		write("admin", "POST", "/libraries", `{"data":{"type":"libraries","attributes":{"name":"Lawn Library","slug":"law"}}}`, 409)
		write("green-editor", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"slug":"law"}}}`, 409)
		// Nor may another location of green take "reference".
		write("admin", "POST", "/libraries/green/locations", `{"data":{"type":"locations","attributes":{"name":"Ref","slug":"reference"}}}`, 409)
		write("admin", "PATCH", "/libraries/green/locations/lobby", `{"data":{"type":"locations","attributes":{"slug":"reference"}}}`, 409)

		after, err := e.svc.Store().Audit(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != len(audit) {
			t.Errorf("refused renames were audited")
		}
		_, body := e.do(t, req{path: "/libraries.json?from=2026-03-02"})
		if string(body) != before {
			t.Errorf("refused renames changed the documents")
		}
		var recs []map[string]any
		e.get(t, "/api/v1/library/law/location/main/hours/for/2026-03-02", 200, &recs)
		e.get(t, "/api/v1/library/green/location/reference/hours/for/2026-03-02", 200, &recs)
		if len(recs) != 2 || recs[0]["location_slug"] != "research-help" {
			t.Errorf("old location slug: %v", recs)
		}
		// The current API answers at both former slugs with the current ids.
		var loc oneDoc
		e.get(t, "/libraries/law/locations/reading-room.json", 200, &loc)
		e.get(t, "/libraries/green/locations/reference.json", 200, &loc)
		if loc.Data.ID != "green/research-help" || loc.Links["self"] != "http://hours.test/hours/libraries/green/locations/research-help.json" {
			t.Errorf("old location slug on the current API: %s %v", loc.Data.ID, loc.Links)
		}
		e.get(t, "/libraries/law/locations/reading-room.json", 200, &loc)
		if loc.Data.ID != "law-library/reading-room" || loc.Included[0].ID != "law-library" {
			t.Errorf("old library slug on the current API: %s %+v", loc.Data.ID, loc.Included)
		}

		// The former owner may take its slug back; the slug it leaves keeps
		// resolving too. The location slug is free in another library.
		write("law-editor", "PATCH", "/libraries/law-library", `{"data":{"type":"libraries","attributes":{"slug":"law"}}}`, 200)
		var lib oneDoc
		e.get(t, "/libraries/law-library.json", 200, &lib)
		if lib.Data.ID != "law" {
			t.Errorf("law-library resolves to %q", lib.Data.ID)
		}
		write("admin", "PATCH", "/libraries/green/locations/research-help", `{"data":{"type":"locations","attributes":{"slug":"reference"}}}`, 200)
		write("admin", "POST", "/libraries/music/locations", `{"data":{"type":"locations","attributes":{"name":"Research help","slug":"research-help"}}}`, 201)
	})
}

// TestAuditLog checks what the audit log records of each write: who (the
// token's name), when, the action, the resource and what was written.
func TestAuditLog(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		before, err := e.svc.Store().Audit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now().Add(-time.Second)
		var created struct {
			Data struct{ ID string } `json:"data"`
		}
		for _, w := range []struct{ token, method, path, body string }{
			{"green-editor", "PATCH", "/libraries/green", `{"data":{"type":"libraries","attributes":{"name":"Green","timezone":"America/Denver"}}}`},
			{"green-editor", "POST", "/libraries/green/terms", `{"data":{"type":"terms","attributes":{"name":"Summer","first_day":"2026-06-20","last_day":"2026-09-20"}}}`},
			{"admin", "POST", "/libraries/law/locations/main/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":true,"notes":"Independence Day"}}}`},
			{"law-editor", "PATCH", "/libraries/law/locations/reading-room", `{"data":{"type":"locations","attributes":{"keeps_hours":true,"slug":"reading"}}}`},
			{"law-editor", "DELETE", "/libraries/law/locations/reading", ``},
		} {
			resp, body := e.do(t, req{method: w.method, path: w.path, body: w.body, token: w.token})
			if resp.StatusCode >= 300 {
				t.Fatalf("%s %s: %d %s", w.method, w.path, resp.StatusCode, body)
			}
			if w.method == "POST" {
				if err := json.Unmarshal(body, &created); err != nil {
					t.Fatal(err)
				}
			}
		}
		end := time.Now().Add(time.Second)
		after, err := e.svc.Store().Audit(ctx)
		if err != nil {
			t.Fatal(err)
		}
		got := after[len(before):]
		want := []struct{ who, action, typ, id, detail string }{
			{"green-editor", "update", "libraries", "green", `{"name":"Green","timezone":"America/Denver"}`},
			{"green-editor", "create", "terms", "", `{"first_day":"2026-06-20","last_day":"2026-09-20","library":"green","name":"Summer"}`},
			{"admin", "create", "exceptions", created.Data.ID, `{"day":"2026-07-04","kind":"closed","location":"law/main","notes":"Independence Day","periods":"","type":"holiday"}`},
			{"law-editor", "update", "locations", "law/reading-room", `{"keeps_hours":true,"slug":"reading"}`},
			{"law-editor", "delete", "locations", "law/reading", `null`},
		}
		if len(got) != len(want) {
			t.Fatalf("%d new audit entries, want %d: %+v", len(got), len(want), got)
		}
		for i, w := range want {
			g := got[i]
			if w.id == "" {
				w.id = g.ResourceID // the term's id: checked by the next read
			}
			if g.Who != w.who || g.Action != w.action || g.ResourceType != w.typ || g.ResourceID != w.id {
				t.Errorf("entry %d: %s %s %s %s, want %s %s %s %s", i, g.Who, g.Action, g.ResourceType, g.ResourceID, w.who, w.action, w.typ, w.id)
			}
			var gd, wd any
			if err := json.Unmarshal([]byte(g.Detail), &gd); err != nil {
				t.Errorf("entry %d: detail %q: %v", i, g.Detail, err)
			}
			_ = json.Unmarshal([]byte(w.detail), &wd)
			gj, _ := json.Marshal(gd)
			wj, _ := json.Marshal(wd)
			if string(gj) != string(wj) {
				t.Errorf("entry %d detail %s, want %s", i, gj, wj)
			}
			if g.At.Before(start) || g.At.After(end) {
				t.Errorf("entry %d at %s, not during the test", i, g.At)
			}
		}
		var terms struct {
			Data []struct{ ID string } `json:"data"`
		}
		e.get(t, "/libraries/green/terms.json", 200, &terms)
		found := false
		for _, term := range terms.Data {
			found = found || term.ID == got[1].ResourceID
		}
		if !found || len(terms.Data) != 3 {
			t.Errorf("audited term id %s is not among the library's terms (%+v)", got[1].ResourceID, terms.Data)
		}
	})
}

// TestCreatedResourcesReadable checks the Location of every create answers
// GET with the document the create returned.
func TestCreatedResourcesReadable(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		const base = "http://hours.test/hours"
		create := func(path, body string) (string, string) {
			t.Helper()
			resp, data := e.do(t, req{method: "POST", path: path, body: body, token: "green-editor"})
			loc := resp.Header.Get("Location")
			if resp.StatusCode != 201 || !strings.HasPrefix(loc, base+"/") || !strings.HasSuffix(loc, ".json") {
				t.Fatalf("POST %s: %d Location %q: %s", path, resp.StatusCode, loc, data)
			}
			var doc struct {
				Links struct{ Self string } `json:"links"`
				Data  struct{ ID string }   `json:"data"`
			}
			if err := json.Unmarshal(data, &doc); err != nil || doc.Links.Self != loc {
				t.Errorf("POST %s: links.self %q, Location %q", path, doc.Links.Self, loc)
			}
			got, again := e.do(t, req{path: strings.TrimPrefix(loc, base)})
			if got.StatusCode != 200 || string(again) != string(data) {
				t.Errorf("GET %s: %d\n%s\nwant\n%s", loc, got.StatusCode, again, data)
			}
			return strings.TrimPrefix(loc, base), doc.Data.ID
		}
		termPath, termID := create("/libraries/green/terms", `{"data":{"type":"terms","attributes":{"name":"Summer","first_day":"2026-06-20","last_day":"2026-09-20"}}}`)
		create("/libraries/green/locations/stacks/schedules", `{"data":{"type":"schedules","attributes":{"days":[{"weekday":"Monday","periods":["10:00-16:00"]}]},"relationships":{"term":{"data":{"type":"terms","id":"`+termID+`"}}}}}`)
		excPath, excID := create("/libraries/green/locations/stacks/exceptions", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":true}}}`)

		// A PATCH shows in the next read of the resource.
		resp, body := e.do(t, req{method: "PATCH", path: strings.TrimSuffix(excPath, ".json"), token: "green-editor", body: `{"data":{"type":"exceptions","id":"` + excID + `","attributes":{"notes":"Independence Day"}}}`})
		if resp.StatusCode != 200 {
			t.Fatalf("PATCH: %d %s", resp.StatusCode, body)
		}
		_, again := e.do(t, req{path: excPath})
		if string(again) != string(body) || !strings.Contains(string(again), "Independence Day") {
			t.Errorf("after PATCH: %s", again)
		}
		for path, param := range map[string]string{
			strings.Replace(termPath, "/green/", "/law/", 1):                 "term_id",      // another library's
			"/libraries/green/locations/lobby/exceptions/" + excID + ".json": "exception_id", // another location's
			"/libraries/green/locations/stacks/schedules/999999.json":        "schedule_id",
			"/libraries/nowhere/terms/1.json":                                "library_id",
		} {
			resp, body := e.do(t, req{path: path})
			expectError(t, resp, body, 404, param, "")
		}
		resp, body = e.do(t, req{path: "/libraries/green/terms/abc.json"})
		expectError(t, resp, body, 400, "term_id", "")
	})
}

// TestExceptionOpen24 (issue 19.3: "24h" typed for one date in the
// editor): an exception may open a day around the clock; open_24h is one
// of the three ways to describe the day, and a write naming another one
// replaces it. On SQLite and PostgreSQL.
func TestExceptionOpen24(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		path := "/libraries/green/locations/stacks/exceptions"
		resp, body := e.do(t, req{method: http.MethodPost, path: path, token: "green-editor",
			body: `{"data":{"type":"exceptions","attributes":{"day":"2026-03-12","open_24h":true,"notes":"Finals"}}}`})
		if resp.StatusCode != http.StatusCreated || !strings.Contains(string(body), `"open_24h":true`) || !strings.Contains(string(body), `"hours_type":"special"`) {
			t.Fatalf("POST open_24h: %d %s", resp.StatusCode, body)
		}
		var created struct {
			Data struct{ ID string } `json:"data"`
		}
		if err := json.Unmarshal(body, &created); err != nil {
			t.Fatal(err)
		}
		var loc struct {
			Data struct {
				Attributes struct {
					Hours []struct {
						Open24  bool   `json:"open_24h"`
						Closed  bool   `json:"closed"`
						Type    string `json:"type"`
						OpensAt string `json:"opens_at"`
						Closes  string `json:"closes_at"`
					} `json:"hours"`
				} `json:"attributes"`
			} `json:"data"`
		}
		e.get(t, "/libraries/green/locations/stacks.json?from=2026-03-12", http.StatusOK, &loc)
		if d := loc.Data.Attributes.Hours[0]; !d.Open24 || d.Type != "special" || d.OpensAt != "2026-03-12T00:00:00.000-07:00" || d.Closes != "2026-03-12T23:59:59.999-07:00" {
			t.Errorf("the day: %+v", d)
		}
		// Two descriptions of one day: refused, nothing changed.
		resp, body = e.do(t, req{method: http.MethodPatch, path: path + "/" + created.Data.ID, token: "green-editor",
			body: `{"data":{"type":"exceptions","id":"` + created.Data.ID + `","attributes":{"open_24h":true,"periods":["09:00-17:00"]}}}`})
		expectError(t, resp, body, http.StatusUnprocessableEntity, "", "/data/attributes/open_24h")
		// Periods replace open_24h.
		resp, body = e.do(t, req{method: http.MethodPatch, path: path + "/" + created.Data.ID, token: "green-editor",
			body: `{"data":{"type":"exceptions","id":"` + created.Data.ID + `","attributes":{"periods":["09:00-17:00"]}}}`})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"open_24h":false`) || !strings.Contains(string(body), `"periods":["09:00-17:00"]`) {
			t.Errorf("PATCH periods over open_24h: %d %s", resp.StatusCode, body)
		}
		// closed replaces it too, and the type follows (special → holiday).
		resp, body = e.do(t, req{method: http.MethodPatch, path: path + "/" + created.Data.ID, token: "green-editor",
			body: `{"data":{"type":"exceptions","id":"` + created.Data.ID + `","attributes":{"open_24h":true}}}`})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"open_24h":true`) || !strings.Contains(string(body), `"periods":[]`) {
			t.Errorf("PATCH open_24h over periods: %d %s", resp.StatusCode, body)
		}
		resp, body = e.do(t, req{method: http.MethodPatch, path: path + "/" + created.Data.ID, token: "green-editor",
			body: `{"data":{"type":"exceptions","id":"` + created.Data.ID + `","attributes":{"closed":true}}}`})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"open_24h":false`) || !strings.Contains(string(body), `"hours_type":"holiday"`) {
			t.Errorf("PATCH closed over open_24h: %d %s", resp.StatusCode, body)
		}
	})
}

// TestListChanges: the audit log of one library, newest first, to its
// editors and admins only, never cached; another library's writes are not
// in it.
func TestListChanges(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		for _, w := range []struct{ path, token, body string }{
			{"/libraries/green/locations/stacks/exceptions", "green-editor", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":true,"notes":"Independence Day"}}}`},
			{"/libraries/law/locations/main/exceptions", "law-editor", `{"data":{"type":"exceptions","attributes":{"day":"2026-07-04","closed":true}}}`},
			{"/libraries/green/terms", "admin", `{"data":{"type":"terms","attributes":{"name":"Summer","first_day":"2026-06-20","last_day":"2026-09-20"}}}`},
		} {
			if resp, body := e.do(t, req{method: http.MethodPost, path: w.path, token: w.token, body: w.body}); resp.StatusCode != http.StatusCreated {
				t.Fatalf("POST %s: %d %s", w.path, resp.StatusCode, body)
			}
		}
		resp, body := e.do(t, req{path: "/libraries/green/changes.json", token: "green-editor"})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "private, no-store" {
			t.Fatalf("GET changes: %d %q %s", resp.StatusCode, resp.Header.Get("Cache-Control"), body)
		}
		var doc struct {
			Data []struct {
				Attributes struct {
					Who          string         `json:"who"`
					ResourceType string         `json:"resource_type"`
					Detail       map[string]any `json:"detail"`
				} `json:"attributes"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Data) < 3 || doc.Data[0].Attributes.ResourceType != "terms" || doc.Data[1].Attributes.ResourceType != "exceptions" || doc.Data[1].Attributes.Detail["notes"] != "Independence Day" {
			t.Errorf("green's changes, newest first: %s", body)
		}
		if strings.Contains(string(body), `"location":"law/main"`) {
			t.Error("law's write is in green's changes")
		}
		// The same list at the URL without .json.
		if resp2, body2 := e.do(t, req{path: "/libraries/green/changes", token: "green-editor"}); resp2.StatusCode != http.StatusOK || string(body2) != string(body) {
			t.Errorf("GET /libraries/green/changes: %d, differs from changes.json", resp2.StatusCode)
		}
		resp, body = e.do(t, req{path: "/libraries/green/changes.json", token: "law-editor"})
		expectError(t, resp, body, http.StatusForbidden, "", "")
		resp, body = e.do(t, req{path: "/libraries/green/changes.json"})
		expectError(t, resp, body, http.StatusUnauthorized, "", "")
		resp, body = e.do(t, req{path: "/libraries/green/changes", token: "law-editor"})
		expectError(t, resp, body, http.StatusForbidden, "", "")
		resp, body = e.do(t, req{path: "/libraries/nowhere/changes.json", token: "admin"})
		expectError(t, resp, body, http.StatusNotFound, "library_id", "")
	})
}

// Authorisation before work (issue 11.6): a token that may not make a
// write is refused 403 before its body is read, whatever the body; a body
// beyond the operation's limit is 413 without being read whole.
func TestAuthorisationBeforeBody(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		// An editor creating a library with a document the schema refuses:
		// the role decides (403), not the document (422).
		bad := `{"data":{"type":"libraries","attributes":{"name":"","slug":"NOT A SLUG","nonsense":1}}}`
		resp, body := e.do(t, req{method: "POST", path: "/libraries", body: bad, token: "law-editor"})
		expectError(t, resp, body, 403, "", "")
		// A write to another library with a broken document: 403 as well.
		resp, body = e.do(t, req{method: "POST", path: "/libraries/law/terms", body: `{"data":`, token: "green-editor"})
		expectError(t, resp, body, 403, "", "")

		// A body that never ends: only an answer that does not read it can
		// come back (the old code read up to 32 MiB, then 413).
		for _, tc := range []struct {
			method, path, token string
			status              int
		}{
			{"POST", "/libraries", "law-editor", 403},
			{"POST", "/libraries", "", 401},
			{"POST", "/libraries/law/locations/main/exceptions", "green-editor", 403},
			{"POST", "/libraries/law/locations/main/exceptions", "publisher", 403},
			{"DELETE", "/libraries/law/locations/main/exceptions/1", "green-editor", 403},
			// deleteLibrary is an admin's, also at links.self (the
			// operationIds are matched as api/hours.yaml spells them).
			{"DELETE", "/libraries/law", "law-editor", 403},
			{"DELETE", "/libraries/law.json", "law-editor", 403},
			{"POST", "/libraries", "admin", 413},
			{"DELETE", "/libraries/law/locations/main/exceptions/1", "admin", 413},
		} {
			header := http.Header{"Content-Type": {"application/vnd.api+json"}}
			if tc.token != "" {
				header.Set("Authorization", "Bearer "+e.tokens[tc.token])
			}
			resp, data := testkit.SendEndless(t, tc.method, e.srv.URL+tc.path, header)
			if resp.StatusCode != tc.status {
				t.Errorf("%s as %s with an endless body: %d, want %d: %s", tc.path, tc.token, resp.StatusCode, tc.status, data)
			}
		}

		// A declared length beyond the limit is refused before reading
		// (a library's is 64 KiB: its note and about URL are long).
		big := `{"data":{"type":"libraries","attributes":{"name":"x"}}}` + strings.Repeat(" ", 65<<10)
		resp, body = e.do(t, req{method: "POST", path: "/libraries", body: big, token: "admin", outsideSpec: true})
		if resp.StatusCode != 413 || !strings.Contains(string(body), "limit 65536 bytes") {
			t.Errorf("65 KiB library document: %d %s", resp.StatusCode, body)
		}
		big = `{"data":{"type":"terms","attributes":{"name":"x"}}}` + strings.Repeat(" ", 17<<10)
		resp, body = e.do(t, req{method: "POST", path: "/libraries/law/terms", body: big, token: "admin", outsideSpec: true})
		if resp.StatusCode != 413 || !strings.Contains(string(body), "limit 16384 bytes") {
			t.Errorf("17 KiB term document: %d %s", resp.StatusCode, body)
		}
		// An exception's limit is 64 KiB, at links.self too: 17 KiB is read.
		exc := `{"data":{"type":"exceptions","attributes":{"day":"2031-02-05","closed":true}}}` + strings.Repeat(" ", 17<<10)
		resp, body = e.do(t, req{method: "POST", path: "/libraries/law/locations/main/exceptions", body: exc, token: "admin"})
		if resp.StatusCode != 201 {
			t.Errorf("17 KiB exception document: %d %s", resp.StatusCode, body)
		}
	})
}

// The largest valid documents fit under their operations' limits: every
// string at its maximum length, every character escaped as a surrogate pair
// (6 bytes for one character; the store counts bytes, so ASCII), indented.
func TestWriteBodyLimits(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		wide := func(n int) json.RawMessage {
			return json.RawMessage(`"` + strings.Repeat(`\u0041`, n) + `"`)
		}
		indent := func(v any) string {
			b, err := json.MarshalIndent(v, "", "        ")
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		// The note is counted in characters: its widest form is a
		// character outside the BMP, a surrogate pair of 12 bytes. The
		// about URL is counted in bytes.
		widestNote := json.RawMessage(`"` + strings.Repeat(`\ud83d\udcda`, 2000) + `"`)
		aboutURL := json.RawMessage(`"https://` + strings.Repeat(`\u0061`, 2000-len("https://")) + `"`)
		lib := indent(map[string]any{"data": map[string]any{"type": "libraries", "attributes": map[string]any{
			"name": wide(200), "slug": strings.Repeat("a", 64), "timezone": "America/Argentina/ComodRivadavia",
			"about_url": aboutURL, "public": false, "note": widestNote}}})
		resp, body := e.do(t, req{method: "POST", path: "/libraries", body: lib, token: "admin"})
		if resp.StatusCode != 201 {
			t.Fatalf("largest library document (%d bytes): %d %s", len(lib), resp.StatusCode, body)
		}
		loc := indent(map[string]any{"data": map[string]any{"type": "locations", "attributes": map[string]any{
			"name": wide(200), "slug": strings.Repeat("b", 64), "primary": true, "keeps_hours": false,
			"about_url": aboutURL, "public": false, "note": widestNote}}})
		resp, body = e.do(t, req{method: "POST", path: "/libraries/law/locations", body: loc, token: "admin"})
		if resp.StatusCode != 201 {
			t.Fatalf("largest location document (%d bytes): %d %s", len(loc), resp.StatusCode, body)
		}
		periods := []string{"00:00-01:00", "02:00-03:00", "04:00-05:00", "06:00-07:00", "08:00-09:00", "10:00-11:00"}
		exc := indent(map[string]any{"data": map[string]any{"type": "exceptions", "attributes": map[string]any{
			"day": "2031-02-04", "closed": false, "periods": periods, "hours_type": "special", "notes": wide(500)}}})
		resp, body = e.do(t, req{method: "POST", path: "/libraries/law/locations/main/exceptions", body: exc, token: "admin"})
		if resp.StatusCode != 201 {
			t.Fatalf("largest exception document (%d bytes): %d %s", len(exc), resp.StatusCode, body)
		}
		t.Logf("largest library document %d bytes, location %d bytes, exception %d bytes", len(lib), len(loc), len(exc))
	})
}

// A JSON write is exactly one document (issue 11.11): anything after it is
// refused with 400 and nothing is written.
func TestTrailingDataRefused(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		lib := `{"data":{"type":"libraries","attributes":{"name":"Art Library","slug":"art","timezone":"America/Chicago"}}}`
		for _, body := range []string{lib + "garbage", lib + lib, lib + "\n]", lib + " 1"} {
			resp, data := e.do(t, req{method: "POST", path: "/libraries", body: body, token: "admin"})
			expectError(t, resp, data, 400, "", "")
			if !strings.Contains(string(data), "after the JSON document") {
				t.Errorf("%q: %s", body, data)
			}
		}
		resp, data := e.do(t, req{method: "PATCH", path: "/libraries/law", body: `{"data":{"type":"libraries","id":"law","attributes":{"name":"X"}}}}`, token: "admin"})
		expectError(t, resp, data, 400, "", "")
		resp, data = e.do(t, req{path: "/libraries/art.json"})
		if resp.StatusCode != 404 {
			t.Fatalf("a refused write created the library: %d %s", resp.StatusCode, data)
		}
		resp, data = e.do(t, req{method: "POST", path: "/libraries", body: lib + " \n\t", token: "admin"})
		if resp.StatusCode != 201 {
			t.Fatalf("trailing white space: %d %s", resp.StatusCode, data)
		}
	})
}

// TestRequestsAsJSONAPIAllows sends what JSON:API clients send: members
// the specification allows, a resource back as it was read, and query
// parameters the API does not support.
func TestRequestsAsJSONAPIAllows(t *testing.T) {
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
