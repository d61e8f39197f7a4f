package jsonapireq

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"reflect"
	"testing"
)

// location is a stored location as the service renders it.
var location = Resource{
	Type:     "locations",
	ReadOnly: map[string]any{"location_id": 7},
	Computed: map[string]Kind{"hours": Array},
	Relationships: map[string]any{
		"library": map[string]any{"type": "libraries", "id": "green"},
	},
}

var library = Resource{
	Type:     "libraries",
	Computed: map[string]Kind{"hours": Array},
	Relationships: map[string]any{
		"locations":        []any{map[string]any{"type": "locations", "id": "green/main"}, map[string]any{"type": "locations", "id": "green/east"}},
		"primary_location": map[string]any{"type": "locations", "id": "green/main"},
	},
}

var schedule = Resource{
	Type:                  "schedules",
	Relationships:         map[string]any{"location": map[string]any{"type": "locations", "id": "green/main"}, "term": map[string]any{"type": "terms", "id": "1"}},
	WritableRelationships: []string{"term"},
}

func decode(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("not JSON: %v: %s", err, b)
	}
	return v
}

func TestNormalizeAccepts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		r        Resource
		in, want string
	}{
		{"devour's empty meta", location,
			`{"data":{"type":"locations","attributes":{"name":"Main"}},"meta":{}}`,
			`{"data":{"type":"locations","attributes":{"name":"Main"}}}`},
		{"jsonapi, links, data.meta, data.links", location,
			`{"jsonapi":{"version":"1.1"},"links":{"self":"x"},"data":{"type":"locations","id":"green/main","attributes":{"name":"Main"},"meta":{"a":1},"links":{"self":"https://h/x.json"}}}`,
			`{"data":{"type":"locations","id":"green/main","attributes":{"name":"Main"}}}`},
		{"a resource sent back as read", location,
			`{"data":{"type":"locations","id":"green/main","attributes":{"name":"Main","location_id":7,"hours":[{"day":"2026-03-08"}]},"relationships":{"library":{"data":{"type":"libraries","id":"green"},"links":{"related":"x"}}}}}`,
			`{"data":{"type":"locations","id":"green/main","attributes":{"name":"Main"}}}`},
		{"7.0 is 7", location,
			`{"data":{"type":"locations","attributes":{"location_id":7.0}}}`,
			`{"data":{"type":"locations","attributes":{}}}`},
		{"to-many in another order, identifier meta", library,
			`{"data":{"type":"libraries","attributes":{"name":"G"},"relationships":{"locations":{"data":[{"type":"locations","id":"green/east","meta":{"x":1}},{"type":"locations","id":"green/main"}]},"primary_location":{"data":{"type":"locations","id":"green/main"}}}}}`,
			`{"data":{"type":"libraries","attributes":{"name":"G"}}}`},
		{"relationship with links only", library,
			`{"data":{"type":"libraries","attributes":{"name":"G"},"relationships":{"locations":{"links":{"related":"x"}}}}}`,
			`{"data":{"type":"libraries","attributes":{"name":"G"}}}`},
		{"unknown members left for the validator", location,
			`{"data":{"type":"locations","attributes":{"colour":"red"}},"included":[]}`,
			`{"data":{"type":"locations","attributes":{"colour":"red"}},"included":[]}`},
		{"not an object: unchanged", location, `[1,2]`, `[1,2]`},
		{"a writable relationship is kept", schedule,
			`{"data":{"type":"schedules","attributes":{},"relationships":{"term":{"data":{"type":"terms","id":"9"}},"location":{"data":{"type":"locations","id":"green/main"}}}}}`,
			`{"data":{"type":"schedules","attributes":{},"relationships":{"term":{"data":{"type":"terms","id":"9"}}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Normalize([]byte(tc.in), tc.r)
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if got, want := decode(t, out), decode(t, []byte(tc.want)); !reflect.DeepEqual(got, want) {
				t.Errorf("got %s\nwant %s", out, tc.want)
			}
		})
	}
}

func TestNormalizeUntouchedBodyIsSameBytes(t *testing.T) {
	t.Parallel()
	in := []byte(`{"data": {"type":"locations", "attributes": {"name":"Main"}}}`)
	out, err := Normalize(in, location)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != string(in) {
		t.Errorf("a document with nothing to drop was re-encoded: %s", out)
	}
}

func TestNormalizeRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		r       Resource
		in      string
		status  int
		pointer string
		message string
	}{
		{"changed read-only attribute", location,
			`{"data":{"type":"locations","attributes":{"location_id":8}}}`,
			http.StatusForbidden, "/data/attributes/location_id", `attribute "location_id" is read-only: it cannot be changed (it is 7)`},
		{"hours not an array", location,
			`{"data":{"type":"locations","attributes":{"hours":"always"}}}`,
			http.StatusForbidden, "/data/attributes/hours", `attribute "hours" is read-only: it is computed by the server; leave it out or send it back as read`},
		{"moved to another library", location,
			`{"data":{"type":"locations","relationships":{"library":{"data":{"type":"libraries","id":"law"}}}}}`,
			http.StatusForbidden, "/data/relationships/library/data", `relationship "library" cannot be changed here (it is libraries "green")`},
		{"to-many changed", library,
			`{"data":{"type":"libraries","relationships":{"locations":{"data":[{"type":"locations","id":"green/main"}]}}}}`,
			http.StatusForbidden, "/data/relationships/locations/data", `relationship "locations" cannot be changed here (it is 2 resources, set by the server)`},
		{"unknown relationship", location,
			`{"data":{"type":"locations","relationships":{"owner":{"data":null}}}}`,
			http.StatusUnprocessableEntity, "/data/relationships/owner", `locations have no relationship "owner"`},
		{"relationship not an object", location,
			`{"data":{"type":"locations","relationships":{"library":"green"}}}`,
			http.StatusBadRequest, "/data/relationships/library", `relationship "library" must be an object`},
		{"relationships not an object", location,
			`{"data":{"type":"locations","relationships":[]}}`,
			http.StatusBadRequest, "/data/relationships", `data.relationships must be an object`},
		{"meta not an object", location,
			`{"data":{"type":"locations"},"meta":[]}`,
			http.StatusBadRequest, "/meta", `member "meta" of the request document must be an object`},
		{"data.links not an object", location,
			`{"data":{"type":"locations","links":"x"}}`,
			http.StatusBadRequest, "/data/links", `data.links must be an object`},
		{"unknown JSON:API version", location,
			`{"jsonapi":{"version":"2.0"},"data":{"type":"locations"}}`,
			http.StatusBadRequest, "/jsonapi/version", `jsonapi.version "2.0" is not supported: this server speaks JSON:API 1.0 and 1.1`},
		{"extensions", location,
			`{"jsonapi":{"ext":["https://jsonapi.org/ext/atomic"]},"data":{"type":"locations"}}`,
			http.StatusBadRequest, "/jsonapi/ext", `jsonapi.ext: this server supports no JSON:API extensions`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Normalize([]byte(tc.in), tc.r)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want a refusal", err)
			}
			if e.Status != tc.status || e.Pointer != tc.pointer || e.Message != tc.message {
				t.Errorf("got %d %q %q\nwant %d %q %q", e.Status, e.Pointer, e.Message, tc.status, tc.pointer, tc.message)
			}
		})
	}
}

func TestNormalizeBound(t *testing.T) {
	t.Parallel()
	big := make([]byte, MaxDocumentBytes+1)
	var e *Error
	if _, err := Normalize(big, location); !errors.As(err, &e) || e.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("a %d-byte document: %v", len(big), err)
	}
}

func TestCheckQuery(t *testing.T) {
	t.Parallel()
	libSpec := Query{Params: []string{"from", "to"}, AlwaysIncluded: []string{"locations", "primary_location"}}
	termSpec := Query{}
	for _, tc := range []struct {
		query     string
		spec      Query
		parameter string // "" when accepted
		message   string
	}{
		{"from=2026-03-01&to=2026-03-07", libSpec, "", ""},
		{"include=locations", libSpec, "", ""},
		{"include=primary_location,locations", libSpec, "", ""},
		{"include=", libSpec, "", ""},
		{"fooBar=1&x_y=2", libSpec, "", ""}, // implementation-specific names: ignored
		{"include=bogus", Query{Params: []string{"from", "to", "include"}, AlwaysIncluded: libSpec.AlwaysIncluded}, "include", `query parameter "include": "bogus" cannot be included: this resource always includes "locations", "primary_location" and nothing else`},
		{"include=locations.library", libSpec, "include", `query parameter "include": "locations.library" cannot be included: this resource always includes "locations", "primary_location" and nothing else`},
		{"include=library", termSpec, "include", `query parameter "include": "library" cannot be included: this resource includes no related resources`},
		{"include[x]=1", libSpec, "include[x]", `query parameter "include[x]": include takes no brackets`},
		{"sort=name", libSpec, "sort", `query parameter "sort": sorting is not supported`},
		{"page[size]=2", libSpec, "page[size]", `query parameter "page[size]": pagination is not supported: every collection is returned whole`},
		{"fields[libraries]=name", libSpec, "fields[libraries]", `query parameter "fields[libraries]": sparse fieldsets are not supported: every field is returned`},
		{"filter[name]=Green", libSpec, "filter[name]", `query parameter "filter[name]": filtering is not supported`},
		{"foo=bar", libSpec, "foo", `query parameter "foo" is not supported here (supported: "from", "to")`},
		{"from=2026-01-01", termSpec, "from", `query parameter "from" is not supported here (this endpoint takes no query parameters)`},
		{"sort=name&foo=1", libSpec, "foo", `query parameter "foo" is not supported here (supported: "from", "to")`},
	} {
		q, err := url.ParseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckQuery(q, tc.spec)
		if tc.parameter == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", tc.query, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: accepted, want 400 naming %q", tc.query, tc.parameter)
			continue
		}
		if e.Status != http.StatusBadRequest || e.Parameter != tc.parameter || e.Message != tc.message {
			t.Errorf("%s: got %d %q %q\nwant 400 %q %q", tc.query, e.Status, e.Parameter, e.Message, tc.parameter, tc.message)
		}
	}
}

// CheckUTF8 names the string holding invalid UTF-8 by its JSON Pointer, in objects and
// arrays and for member names, and leaves valid documents and non-JSON alone.
func TestCheckUTF8Pointer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ body, pointer string }{
		{"{\"data\":{\"attributes\":{\"name\":\"ok\",\"notes\":\"x\xff\"}}}", "/data/attributes/notes"},
		{"{\"a\":[\"ok\",{\"b\":1},\"\xc3\"]}", "/a/2"},
		{"{\"a\":[[1,2],{\"c/d\":\"\xfe\"}]}", "/a/1/c~1d"},
		{"{\"k\xff\":1}", "/k\uFFFD"},
		{"\"\xff\"", ""},
	} {
		err := CheckUTF8([]byte(c.body))
		var je *Error
		if !errors.As(err, &je) || je.Status != 422 || je.Pointer != c.pointer {
			t.Errorf("%q: %v (%+v), want 422 at %q", c.body, err, je, c.pointer)
		}
	}
	for _, ok := range []string{`{"name":"Café ☕"}`, "not json \xff", `{"a":[1,"b"]}`} {
		if err := CheckUTF8([]byte(ok)); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
}
