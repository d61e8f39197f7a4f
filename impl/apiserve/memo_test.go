package apiserve

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/labstack/echo/v4"
)

// The memo reads the declared headers by their canonical names; a contract
// may spell a header parameter in any case (HTTP header names are
// case-insensitive), and the verdict must still depend on its value.
func TestMemoKeysOnHeadersDeclaredInAnyCase(t *testing.T) {
	t.Parallel()
	spec := itemsSpec(t)
	for _, p := range spec.Paths.Find("/items/{id}").Get.Parameters {
		if p.Value.In == openapi3.ParameterInHeader {
			p.Value.Name = strings.ToLower(p.Value.Name)
		}
	}
	e, memo, err := newEcho(Options{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	e.GET("/items/:id", func(c echo.Context) error { return c.NoContent(200) })
	for range 2 {
		if code, _, body := do(t, e, "GET", "/items/abc?limit=4", "", "X-Trace", "ok"); code != 200 {
			t.Fatalf("valid GET = %d %s", code, body)
		}
	}
	if memo.hits.Load() != 1 {
		t.Fatalf("memo hits after 2 identical GETs = %d, want 1", memo.hits.Load())
	}
	for range 2 {
		if code, _, body := do(t, e, "GET", "/items/abc?limit=4", "", "X-Trace", "BAD!"); code != 400 {
			t.Errorf("GET with a bad x-trace after valid ones = %d %s, want 400", code, body)
		}
		if code, _, body := do(t, e, "GET", "/items/abc?limit=4", "", "X-Trace", "ok", "X-Mode", "warp"); code != 400 {
			t.Errorf("GET with x-mode outside its enum after valid ones = %d %s, want 400", code, body)
		}
	}
	// The default validation writes for the absent x-mode is replayed on a
	// hit, under the header's canonical name.
	var modes []string
	e.GET("/items/:id", func(c echo.Context) error {
		modes = append(modes, c.Request().Header.Get("X-Mode"))
		return c.NoContent(200)
	})
	for range 2 {
		do(t, e, "GET", "/items/def?limit=4", "")
	}
	if len(modes) != 2 || modes[0] != "fast" || modes[1] != "fast" {
		t.Errorf("X-Mode seen by the handler on a miss and a hit = %q, want the default fast twice", modes)
	}
	if memo.hits.Load() != 2 {
		t.Errorf("memo hits = %d, want 2", memo.hits.Load())
	}
}

// An operation without header parameters keeps its verdict key in its URL
// entry: each URL still has its own verdict.
func TestMemoRemembersEachURLOfAHeaderlessOperation(t *testing.T) {
	t.Parallel()
	e, memo := newItemsEcho(t)
	var seen []string
	e.GET("/notes/:file", func(c echo.Context) error {
		seen = append(seen, c.Request().URL.RequestURI())
		return c.NoContent(200)
	})
	for _, step := range []struct {
		url  string
		hits int64
	}{
		{"/notes/abc.xml", 0},
		{"/notes/abc.xml", 1},
		{"/notes/abd.xml", 1},
		{"/notes/abc.xml?v=2", 1},
		{"/notes/abd.xml", 2},
		{"/notes/abc.xml?v=2", 3},
		{"/notes/abc.xml", 4},
	} {
		if code, _, body := do(t, e, "GET", step.url, ""); code != 200 {
			t.Fatalf("GET %s = %d %s", step.url, code, body)
		}
		if got := memo.hits.Load(); got != step.hits {
			t.Errorf("after GET %s memo hits = %d, want %d", step.url, got, step.hits)
		}
	}
	if len(seen) != 7 || seen[3] != "/notes/abc.xml?v=2" || seen[4] != "/notes/abd.xml" {
		t.Errorf("handler saw %q", seen)
	}
}

// A GET without a query is remembered under its path alone, with the
// verdict of a request sending none of the declared headers kept in the
// URL's own entry: one lookup per hit. That verdict is the URL's without
// headers only: the same URL with a bad header value, a bad query or a
// path the contract refuses is still validated and refused, each time.
func TestMemoPlainVerdictOfAURL(t *testing.T) {
	spec, err := openapi3.NewLoader().LoadFromFile("testdata/items.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e, memo, err := newEcho(Options{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	var modes []string
	e.GET("/items/:id", func(c echo.Context) error {
		modes = append(modes, c.Request().Header.Get("X-Mode"))
		return c.NoContent(200)
	})
	for range 3 {
		if code, _, body := do(t, e, "GET", "/items/abc", ""); code != 200 {
			t.Fatalf("valid GET = %d %s", code, body)
		}
	}
	if got := memo.hits.Load(); got != 2 {
		t.Fatalf("memo hits after 3 identical GETs = %d, want 2", got)
	}
	// The default of the absent X-Mode is replayed on every hit.
	if len(modes) != 3 || modes[0] != "fast" || modes[2] != "fast" {
		t.Errorf("X-Mode seen by the handler = %q, want the default fast each time", modes)
	}
	entry, ok := memo.entries.Peek(urlKey("/items/abc"))
	if !ok || entry.plain.Load() == nil {
		t.Fatalf("no plain verdict in the entry of /items/abc (%v)", ok)
	}
	for range 2 {
		for _, bad := range []struct{ path, header, value, names string }{
			{"/items/abc", "X-Trace", "BAD!", "X-Trace"},
			{"/items/abc", "X-Mode", "warp", "X-Mode"},
			{"/items/abc", "X-Trace", "", "X-Trace"},
			{"/items/abc?limit=0", "", "", "limit"},
			{"/items/abcd", "", "", "id"},
		} {
			var hdr []string
			if bad.header != "" {
				hdr = []string{bad.header, bad.value}
			}
			req := httptest.NewRequest("GET", bad.path, nil)
			for i := 0; i+1 < len(hdr); i += 2 {
				req.Header[hdr[i]] = []string{hdr[i+1]}
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			if rec.Code != 400 || !strings.Contains(rec.Body.String(), bad.names) {
				t.Errorf("GET %s with %s %q after valid GETs = %d %s, want 400 naming %s", bad.path, bad.header, bad.value, rec.Code, rec.Body, bad.names)
			}
		}
	}
	if got := memo.hits.Load(); got != 2 {
		t.Errorf("memo hits = %d after refused requests, want still 2", got)
	}
}

// An operation that lets anonymous requests through beside a bearer token
// (security [{}, {bearerAuth: []}], PURL's files) has its anonymous reads
// remembered: their verdict cannot depend on credentials they do not
// carry. A bad parameter or header is still refused each time, a request
// with a token is validated each time (its principal handed over), and an
// operation taking a credential outside Authorization is never remembered.
func TestMemoRemembersAnonymousReadsOfOptionallySecuredOperations(t *testing.T) {
	spec, err := openapi3.NewLoader().LoadFromFile("testdata/items.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e, memo, err := newEcho(Options{Spec: spec, Auth: func(context.Context, *openapi3filter.AuthenticationInput) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	e.GET("/files/:name", func(c echo.Context) error { return c.NoContent(200) })
	e.GET("/keyed/:name", func(c echo.Context) error { return c.NoContent(200) })
	for range 3 {
		if code, _, body := do(t, e, "GET", "/files/abc", "", "Range", "bytes=0-9"); code != 200 {
			t.Fatalf("anonymous GET = %d %s", code, body)
		}
	}
	if got := memo.hits.Load(); got != 2 {
		t.Errorf("memo hits after 3 identical anonymous GETs = %d, want 2", got)
	}
	for range 2 {
		for _, bad := range []struct{ path, rng, names string }{
			{"/files/abc", "lines=0-9", "Range"},
			{"/files/ABC", "bytes=0-9", "name"},
		} {
			if code, _, body := do(t, e, "GET", bad.path, "", "Range", bad.rng); code != 400 || !strings.Contains(body, bad.names) {
				t.Errorf("GET %s Range %s after valid GETs = %d %s, want 400 naming %s", bad.path, bad.rng, code, body, bad.names)
			}
		}
	}
	hits := memo.hits.Load()
	for range 2 {
		if code, _, body := do(t, e, "GET", "/files/abc", "", "Range", "bytes=0-9", "Authorization", "Bearer x"); code != 200 {
			t.Fatalf("GET with a token = %d %s", code, body)
		}
		if code, _, body := do(t, e, "GET", "/keyed/abc", ""); code != 200 {
			t.Fatalf("GET of an apiKey operation = %d %s", code, body)
		}
	}
	if got := memo.hits.Load(); got != hits {
		t.Errorf("memo hits %d→%d: a request with a token, or of an operation with a header credential, was remembered", hits, got)
	}
}

// A remembered verdict must hand the handler the same request a validated
// one gets: the validator writes absent query parameters' defaults into
// the request, so a memo hit has to as well.
func TestMemoHitSeesTheSameRequest(t *testing.T) {
	t.Parallel()
	e, memo := newItemsEcho(t)
	e.GET("/items/:id", func(c echo.Context) error {
		return c.String(200, c.Request().URL.RawQuery+" mode="+strings.Join(c.Request().Header.Values("X-Mode"), ","))
	})
	var seen []string
	for range 3 {
		_, _, body := do(t, e, "GET", "/items/abc?limit=2", "")
		seen = append(seen, body)
	}
	if memo.hits.Load() != 2 {
		t.Fatalf("memo hits = %d, want 2", memo.hits.Load())
	}
	for i, q := range seen {
		if q != seen[0] || !strings.Contains(q, "sort=asc") || !strings.HasSuffix(q, " mode=fast") {
			t.Errorf("request %d reached the handler with query %q (first: %q)", i, q, seen[0])
		}
	}
}

// A declared header sent empty is not the same request as one without it:
// validation may refuse the empty value, so a remembered verdict for the
// request without it must not let it through.
func TestMemoTellsAbsentFromEmptyHeader(t *testing.T) {
	t.Parallel()
	e, _ := newItemsEcho(t)
	e.GET("/items/:id", func(c echo.Context) error { return c.NoContent(200) })
	for range 2 {
		if code, _, body := do(t, e, "GET", "/items/abc?limit=3", ""); code != 200 {
			t.Fatalf("valid GET = %d %s", code, body)
		}
	}
	for range 2 {
		if code, _, body := do(t, e, "GET", "/items/abc?limit=3", "", "X-Trace", ""); code != 400 {
			t.Errorf("GET with an empty X-Trace (pattern ^[a-z]+$) after valid ones = %d %s, want 400", code, body)
		}
		if code, _, body := do(t, e, "GET", "/items/abc?limit=3", "", "X-Mode", "warp"); code != 400 {
			t.Errorf("GET with X-Mode outside its enum after valid ones = %d %s, want 400", code, body)
		}
	}
	// HEAD is not GET: the operation has no HEAD, whatever GET's verdict.
	if code, _, _ := do(t, e, "HEAD", "/items/abc?limit=3", ""); code == 200 {
		t.Errorf("HEAD of a GET-only operation = %d after remembered GETs", code)
	}
}

// A verdict key tells apart every way of sending the declared headers:
// absent, sent empty, sent once, sent twice; and so does the key of a
// shape with more headers than the key holds inline (encoded).
func TestMemoVerdictKeysTellHeaderValuesApart(t *testing.T) {
	t.Parallel()
	for _, headers := range [][]string{
		{"X-Trace", "X-Mode"},
		{"X-Trace", "X-Mode", "A", "B", "C"}, // more than inlineHeaders
	} {
		shape := &urlShape{rememberable: true, headers: headers}
		sends := []map[string][]string{
			{},
			{"X-Trace": {""}},
			{"X-Trace": {"abc"}},
			{"X-Trace": {"abc", "abc"}},
			{"X-Trace": {"abc"}, "X-Mode": {"fast"}},
			{"X-Mode": {"abc"}},
			{"X-Trace": {"ab"}, "X-Mode": {"c"}},
			{"X-Trace": {"ab", "c"}},
		}
		keys := map[memoKey]int{}
		for i, sent := range sends {
			r := httptest.NewRequest("GET", "/items/abc", nil)
			for name, values := range sent {
				r.Header[name] = values
			}
			key := verdictKey("/items/abc", shape, r)
			if !key.verdict {
				t.Errorf("%d headers, request %d: key is not a verdict key", len(headers), i)
			}
			if j, seen := keys[key]; seen {
				t.Errorf("%d headers: requests %d %v and %d %v have one verdict key", len(headers), j, sends[j], i, sent)
			}
			keys[key] = i
			// The same headers sent again give the same key.
			again := httptest.NewRequest("GET", "/items/abc", nil)
			for name, values := range sent {
				again.Header[name] = append([]string(nil), values...)
			}
			if verdictKey("/items/abc", shape, again) != key {
				t.Errorf("%d headers, request %d: the same headers give another key", len(headers), i)
			}
		}
		if _, clash := keys[urlKey("/items/abc")]; clash {
			t.Errorf("a verdict key equals the URL key")
		}
	}
}

// The verdict key of a request sending its declared headers once each (a
// file's Range) is the request's own strings: building it allocates
// nothing.
func TestMemoVerdictKeyOfSentHeadersAllocatesNothing(t *testing.T) {
	shape := &urlShape{rememberable: true, headers: []string{"Range", "If-None-Match", "If-Modified-Since"}}
	r := httptest.NewRequest("GET", "/druid/file/a.txt", nil)
	r.Header.Set("Range", "bytes=0-1023")
	r.Header.Set("If-None-Match", `"abc"`)
	var key memoKey
	if allocs := testing.AllocsPerRun(100, func() { key = verdictKey("/druid/file/a.txt", shape, r) }); allocs != 0 {
		t.Errorf("verdictKey allocates %v times per request, want 0", allocs)
	}
	if key.encoded != "" || key.values[0] != "bytes=0-1023" || key.values[1] != `"abc"` || key.sent != 0b011 {
		t.Errorf("key = %+v, want the two sent values inline", key)
	}
}

// A verdict holds the values of the declared headers it depends on, so a
// request sending longer ones than maxMemoKey is validated each time and
// leaves nothing in the memo: distinct megabyte-long headers cannot make
// anonymous requests fill memory through it.
func TestMemoLeavesLongHeaderValuesOut(t *testing.T) {
	t.Parallel()
	e, memo := newItemsEcho(t)
	e.GET("/items/:id", func(c echo.Context) error { return c.NoContent(200) })
	long := strings.Repeat("a", maxMemoKey)
	for i := range 3 {
		before := memo.entries.Len()
		if code, _, body := do(t, e, "GET", "/items/abc?limit=3", "", "X-Trace", long+strings.Repeat("b", i)); code != 200 {
			t.Fatalf("GET with a long valid X-Trace = %d %s", code, body)
		}
		if i > 0 && memo.entries.Len() != before {
			t.Errorf("request %d with a %d-byte header added %d memo entries, want none", i, len(long)+i, memo.entries.Len()-before)
		}
	}
	if hits := memo.hits.Load(); hits != 0 {
		t.Errorf("%d memo hits for requests with long headers, want 0", hits)
	}
	// The same header, short, is remembered as before.
	for range 2 {
		if code, _, body := do(t, e, "GET", "/items/abc?limit=3", "", "X-Trace", "abc"); code != 200 {
			t.Fatalf("GET with X-Trace abc = %d %s", code, body)
		}
	}
	if memo.hits.Load() != 1 {
		t.Errorf("memo hits after two short requests = %d, want 1", memo.hits.Load())
	}
}
