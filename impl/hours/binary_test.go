package hours_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/hours/store/storetest"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestBinary runs the real `sitesvc serve`: the sample data answers under
// /hours, a token made with `sitesvc tokens add` sets hours, and the
// change survives a restart on the same --data.
func TestBinary(t *testing.T) {
	t.Parallel()
	srv := testkit.StartServer(t, "--services", "hours")
	valid := testkit.NewValidator(t, testkit.Spec(t, hoursapi.GetSpec)).Mounted("/hours")
	// get is srv.Get with the response checked against api/hours.yaml and,
	// for JSON:API, the JSON:API schema.
	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		resp, body := srv.Get(t, path)
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		valid.Check(t, req, resp, body)
		if resp.Header.Get("Content-Type") == "application/vnd.api+json" {
			if err := validateJSONAPI(t, body); err != nil {
				t.Errorf("%s: not a JSON:API document: %v", path, err)
			}
		}
		return resp, body
	}
	var doc listDoc
	resp, body := get("/hours/libraries.json")
	if resp.StatusCode != 200 || json.Unmarshal(body, &doc) != nil || len(doc.Data) < 6 || len(doc.Included) < 15 {
		t.Fatalf("libraries.json: %d, %d libraries: %.300s", resp.StatusCode, len(doc.Data), body)
	}
	if !strings.HasPrefix(doc.Links["self"], srv.URL+"/hours/") {
		t.Errorf("self link %s is not under the server's base URL %s", doc.Links["self"], srv.URL)
	}
	resp, body = get("/hours/api/v1/library/green/location/stacks/hours/for/today")
	var recs []map[string]any
	if resp.StatusCode != 200 || json.Unmarshal(body, &recs) != nil || len(recs) == 0 || recs[0]["location_slug"] != "stacks" {
		t.Fatalf("legacy today: %d %s", resp.StatusCode, body)
	}
	// Link checkers and caches send HEAD: the GET's headers, no body.
	for _, path := range []string{"/hours/libraries.json", "/hours/api/v1/library/green/location/stacks/hours/for/today"} {
		get, getBody := srv.Get(t, path)
		hr, err := http.NewRequest(http.MethodHead, srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		head, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		head.Body.Close()
		if head.StatusCode != 200 || head.Header.Get("ETag") != get.Header.Get("ETag") || head.ContentLength != int64(len(getBody)) {
			t.Errorf("HEAD %s: %d, ETag %q (GET %q), length %d (GET %d)", path, head.StatusCode, head.Header.Get("ETag"), get.Header.Get("ETag"), head.ContentLength, len(getBody))
		}
	}
	resp, body = srv.Get(t, "/hours/openapi.json")
	if resp.StatusCode != 200 || !strings.Contains(string(body), srv.URL+"/hours") {
		t.Errorf("openapi.json: %d", resp.StatusCode)
	}

	for _, path := range []string{"/hours/libraries/capital/locations/main.json?from=2026-03-08&to=2026-03-14", "/hours/libraries/nowhere.json", "/hours/libraries.json?to=2026-01-01"} {
		get(path)
	}

	token := testkit.AddToken(t, srv.DataDir, "editor:green", "gina")
	patch := func(body string) int {
		req, _ := http.NewRequest(http.MethodPatch, srv.URL+"/hours/libraries/green", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/vnd.api+json")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := patch(`{"data":{"type":"libraries","attributes":{"name":"Green Library (renovated)"}}}`); code != 200 {
		t.Fatalf("PATCH with an editor token: %d", code)
	}
	if err := srv.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	again := testkit.StartServer(t, "--services", "hours", "--data", srv.DataDir)
	var lib oneDoc
	resp, body = again.Get(t, "/hours/libraries/green.json")
	if resp.StatusCode != 200 || json.Unmarshal(body, &lib) != nil || lib.Data.Attributes.Name != "Green Library (renovated)" {
		t.Errorf("after restart: %d %.200s", resp.StatusCode, body)
	}
}

// TestBinaryPostgres runs `sitesvc serve --hours-db postgres://…` against a
// fresh schema: migrations apply, no sample data is loaded, /readyz
// checks the database.
func TestBinaryPostgres(t *testing.T) {
	t.Parallel()
	var pg *storetest.Backend
	for _, b := range storetest.Backends() {
		if b.Name == "postgres" {
			pg = &b
		}
	}
	if pg == nil {
		// CI starts PostgreSQL for the suite: without it every eachBackend
		// test would quietly run on SQLite alone.
		testkit.Missing(t, "a PostgreSQL server named by %s, for the Hours suite on PostgreSQL", storetest.PostgresEnv)
	}
	if testing.Short() {
		t.Skip("-short: no PostgreSQL server")
	}
	srv := testkit.StartServer(t, "--services", "hours", "--hours-db", pg.DSN(t))
	resp, body := srv.Get(t, "/hours/libraries.json")
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"data":[]`) {
		t.Errorf("libraries.json on an empty PostgreSQL database: %d %.200s", resp.StatusCode, body)
	}
	if resp, _ := srv.Get(t, "/readyz"); resp.StatusCode != 200 {
		t.Errorf("readyz: %d", resp.StatusCode)
	}
}
