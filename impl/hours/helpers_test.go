package hours_test

import (
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/auth"
	"github.com/sitelib/sitesvc/impl/hours"
	"github.com/sitelib/sitesvc/impl/hours/store/storetest"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// testNow is Wednesday 2026-03-04, 12:00 in Los Angeles (15:00 in New
// York): the current week is Sunday 2026-03-01 .. Saturday 2026-03-07, and
// the next Sunday is the spring-forward day.
var testNow = time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC)

// env is a running Hours service over one backend, with tokens.
type env struct {
	t      *testing.T
	svc    *hours.Service
	srv    *httptest.Server
	valid  *testkit.Validator
	tokens map[string]string // role name → plaintext
	now    time.Time
}

// jsonapiSchema is ../shared/data/schemas/jsonapi-1.0.schema.json,
// compiled once.
var jsonapiSchema testkit.Once[*testkit.JSONSchema]

// validateJSONAPI checks body against the JSON:API schema.
func validateJSONAPI(t testing.TB, body []byte) error {
	t.Helper()
	// Outside Get: without ../shared, SharedDir skips this test.
	path := filepath.Join(testkit.SharedDir(t), "data", "schemas", "jsonapi-1.0.schema.json")
	return jsonapiSchema.Get(t, func() (*testkit.JSONSchema, error) { return testkit.CompileJSONSchema(path) }).Validate(body)
}

// eachBackend runs fn against a fresh service on SQLite and, when
// configured, PostgreSQL, in parallel with each other and with the
// package's other parallel tests (each has a database of its own).
func eachBackend(t *testing.T, fn func(t *testing.T, e *env)) {
	t.Parallel()
	for _, b := range storetest.Backends() {
		t.Run(b.Name, func(t *testing.T) {
			t.Parallel()
			fn(t, newEnv(t, b.DSN(t), testNow))
		})
	}
}

func newEnv(t *testing.T, dsn string, now time.Time) *env {
	t.Helper()
	tokens, err := auth.Open(filepath.Join(t.TempDir(), "tokens.json"))
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, tokens: map[string]string{}, now: now}
	for name, roles := range map[string][]string{
		"admin":        {auth.RoleAdmin},
		"green-editor": {"editor:green"},
		"law-editor":   {"editor:law"},
		"publisher":    {auth.RolePublisher},
	} {
		tok, err := tokens.Add(name, roles)
		if err != nil {
			t.Fatal(err)
		}
		e.tokens[name] = tok
	}
	svc, err := hours.New(context.Background(), hours.Config{
		BaseURL:    "http://hours.test/hours",
		DB:         dsn,
		SampleData: true,
		Tokens:     tokens,
		Now:        func() time.Time { return e.now },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	e.svc = svc
	e.srv = httptest.NewServer(svc.Handler())
	t.Cleanup(e.srv.Close)
	e.valid = testkit.NewValidator(t, testkit.Spec(t, hoursapi.GetSpec))
	return e
}

// req is one request; headers are name, value pairs.
type req struct {
	method, path, body string
	token              string // role name in env.tokens
	headers            []string
	// outsideSpec: the request is not an operation of api/hours.yaml
	// (unknown path, CORS preflight, the published document itself).
	outsideSpec bool
}

// do sends r and checks the response against api/hours.yaml and, for
// JSON:API media types, against the JSON:API schema.
func (e *env) do(t *testing.T, r req) (*http.Response, []byte) {
	t.Helper()
	if r.method == "" {
		r.method = http.MethodGet
	}
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	hr, err := http.NewRequest(r.method, e.srv.URL+r.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.body != "" {
		hr.Header.Set("Content-Type", "application/vnd.api+json")
	}
	if r.token != "" {
		tok, ok := e.tokens[r.token]
		if !ok {
			tok = r.token // an unknown token on purpose
		}
		hr.Header.Set("Authorization", "Bearer "+tok)
	}
	for i := 0; i+1 < len(r.headers); i += 2 {
		hr.Header.Set(r.headers[i], r.headers[i+1])
	}
	resp, data := testkit.Do(t, nil, hr)
	if !r.outsideSpec {
		e.valid.Check(t, hr, resp, data)
	}
	// (the JSON:API 1.0 schema knows no extension: Atomic Operations answers are checked by their own tests)
	if mt, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/vnd.api+json" && params["ext"] == "" && r.method != http.MethodHead {
		if err := validateJSONAPI(t, data); err != nil {
			t.Errorf("%s %s: response is not a valid JSON:API document: %v\n%s", r.method, r.path, err, data)
		}
	}
	return resp, data
}

// get is a GET that must answer want; it decodes the body into out.
func (e *env) get(t *testing.T, path string, want int, out any) *http.Response {
	t.Helper()
	resp, body := e.do(t, req{path: path})
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d, want %d: %s", path, resp.StatusCode, want, body)
	}
	if out != nil {
		if err := json.Unmarshal(body, out); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
	}
	return resp
}

// create POSTs a resource document as the admin, which must be created
// (201), and returns the new resource's id.
func (e *env) create(t *testing.T, path, document string) string {
	t.Helper()
	resp, body := e.do(t, req{method: http.MethodPost, path: path, token: "admin", body: document})
	var created struct {
		Data struct{ ID string } `json:"data"`
	}
	if resp.StatusCode != http.StatusCreated || json.Unmarshal(body, &created) != nil || created.Data.ID == "" {
		t.Fatalf("POST %s: %d %s", path, resp.StatusCode, body)
	}
	return created.Data.ID
}

// refusedWrite is a write the API must refuse as the admin: the status,
// and the error's source (a JSON pointer into the body when it starts with
// "/", else the name of the parameter at fault).
type refusedWrite struct {
	name, method, path, body string
	status                   int
	source                   string
}

// expectRefusedWrites sends each write, checks its error (in a subtest of
// the write's name), and then that the refusals together changed nothing:
// the audit log has no new entry and the hours read over hoursRange (the
// query of /libraries.json) are as they were. It returns the error bodies
// in the writes' order, for checks of what they say.
func expectRefusedWrites(t *testing.T, e *env, hoursRange string, writes []refusedWrite) []string {
	t.Helper()
	audit := func() int {
		entries, err := e.svc.Store().Audit(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return len(entries)
	}
	hoursRead := func() string {
		_, body := e.do(t, req{path: "/libraries.json?" + hoursRange})
		return string(body)
	}
	audited, read := audit(), hoursRead()
	bodies := make([]string, len(writes))
	for i, w := range writes {
		resp, body := e.do(t, req{method: w.method, path: w.path, body: w.body, token: "admin"})
		bodies[i] = string(body)
		parameter, pointer := w.source, ""
		if strings.HasPrefix(w.source, "/") {
			parameter, pointer = "", w.source
		}
		t.Run(w.name, func(t *testing.T) { expectError(t, resp, body, w.status, parameter, pointer) })
	}
	if now := audit(); now != audited {
		t.Errorf("refused writes were audited: %d → %d entries", audited, now)
	}
	if hoursRead() != read {
		t.Error("refused writes changed the hours")
	}
	return bodies
}

// Document shapes the tests read (a subset of api/hours.yaml).
type dayDoc struct {
	Day       string  `json:"day"`
	Weekday   string  `json:"weekday"`
	Closed    bool    `json:"closed"`
	Open24    bool    `json:"open_24h"`
	Overnight bool    `json:"overnight"`
	OpensAt   *string `json:"opens_at"`
	ClosesAt  *string `json:"closes_at"`
	Periods   []struct {
		OpensAt   string `json:"opens_at"`
		ClosesAt  string `json:"closes_at"`
		Overnight bool   `json:"overnight"`
	} `json:"periods"`
	Type   string `json:"type"`
	Notes  string `json:"notes"`
	RuleID int64  `json:"rule_id"`
}

type resourceDoc struct {
	Type       string `json:"type"`
	ID         string `json:"id"`
	Attributes struct {
		Name       string   `json:"name"`
		Slug       string   `json:"slug"`
		TimeZone   string   `json:"timezone"`
		LocationID int64    `json:"location_id"`
		Primary    bool     `json:"primary"`
		KeepsHours bool     `json:"keeps_hours"`
		Hours      []dayDoc `json:"hours"`
	} `json:"attributes"`
	Relationships map[string]struct {
		Data json.RawMessage `json:"data"`
	} `json:"relationships"`
	Links struct {
		Self string `json:"self"`
	} `json:"links"`
}

type listDoc struct {
	Data     []resourceDoc     `json:"data"`
	Included []resourceDoc     `json:"included"`
	Meta     map[string]string `json:"meta"`
	Links    map[string]string `json:"links"`
}

type oneDoc struct {
	Data     resourceDoc       `json:"data"`
	Included []resourceDoc     `json:"included"`
	Meta     map[string]string `json:"meta"`
	Links    map[string]string `json:"links"`
}

type errorsDoc struct {
	Errors []struct {
		Status string `json:"status"`
		Title  string `json:"title"`
		Detail string `json:"detail"`
		Source struct {
			Parameter string `json:"parameter"`
			Pointer   string `json:"pointer"`
			Header    string `json:"header"`
		} `json:"source"`
	} `json:"errors"`
}

// expectError checks a JSON:API error response.
func expectError(t *testing.T, resp *http.Response, body []byte, status int, parameter, pointer string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d: %s", resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/vnd.api+json" {
		t.Errorf("error Content-Type %q", ct)
	}
	var doc errorsDoc
	if err := json.Unmarshal(body, &doc); err != nil || len(doc.Errors) != 1 {
		t.Fatalf("error document %s: %v", body, err)
	}
	got := doc.Errors[0]
	if got.Status != strconv.Itoa(status) || got.Title != http.StatusText(status) || got.Detail == "" {
		t.Errorf("error object %+v", got)
	}
	if got.Source.Parameter != parameter || got.Source.Pointer != pointer {
		t.Errorf("source parameter %q pointer %q, want %q %q (%s)", got.Source.Parameter, got.Source.Pointer, parameter, pointer, got.Detail)
	}
	// JSON:API 1.1: refusals about a request header name it.
	wantHeader := map[int]string{401: "Authorization", 406: "Accept", 415: "Content-Type"}[status]
	if got.Source.Header != wantHeader {
		t.Errorf("source header %q, want %q", got.Source.Header, wantHeader)
	}
}

// storetestSQLite is a fresh SQLite database path.
func storetestSQLite(t *testing.T) string { return filepath.Join(t.TempDir(), "hours.db") }

func findResource(t *testing.T, list []resourceDoc, typ, id string) resourceDoc {
	t.Helper()
	for _, r := range list {
		if r.Type == typ && r.ID == id {
			return r
		}
	}
	t.Fatalf("no %s %q", typ, id)
	return resourceDoc{}
}

// sameJSON reports whether two JSON texts are the same value (member
// order aside).
func sameJSON(a, b string) bool {
	var va, vb any
	if json.Unmarshal([]byte(a), &va) != nil || json.Unmarshal([]byte(b), &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}
