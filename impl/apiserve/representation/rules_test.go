package representation

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Every conditional-request and Range rule of RFC 9110 that Content
// answers for the services' cached reads, on one prepared representation,
// through WriteResponse (the way the generated Respond calls it).
func TestContentFollowsRFC9110(t *testing.T) {
	body := []byte(strings.Repeat("0123456789", 10)) // 100 bytes
	mod := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	before := mod.Add(-time.Hour).Format(http.TimeFormat)
	at := mod.Format(http.TimeFormat)
	c := NewContent(body, `"v1"`, mod).
		WithHeader("Content-Type", "text/plain; charset=utf-8").
		WithHeader("cache-control", "public, max-age=60")
	undated := NewContent(body, `"v1"`, time.Time{}).WithHeader("Content-Type", "text/plain; charset=utf-8")

	type want struct {
		status int
		body   string            // "" none; "*" the whole body
		header map[string]string // "" means absent
	}
	whole := map[string]string{"Etag": `"v1"`, "Last-Modified": at, "Content-Length": "100", "Accept-Ranges": "bytes", "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=60"}
	notModified := map[string]string{"Etag": `"v1"`, "Cache-Control": "public, max-age=60", "Content-Type": "", "Content-Length": ""}
	cases := []struct {
		rule    string
		content *Content
		method  string
		header  []string
		want    want
	}{
		{"§9.3.1 a GET without conditions is the representation", c, "GET", nil, want{200, "*", whole}},
		{"§9.3.2 HEAD is GET without the body", c, "HEAD", nil, want{200, "", whole}},
		{"§13.1.2 If-None-Match naming the tag: 304", c, "GET", []string{"If-None-Match", `"v1"`}, want{304, "", notModified}},
		{"§13.1.2 If-None-Match compares weakly", c, "GET", []string{"If-None-Match", `W/"v1"`}, want{304, "", notModified}},
		{"§13.1.2 If-None-Match is a list", c, "GET", []string{"If-None-Match", `"x", "v1"`}, want{304, "", notModified}},
		{"§13.1.2 If-None-Match: * matches a current representation", c, "GET", []string{"If-None-Match", "*"}, want{304, "", notModified}},
		{"§13.1.2 If-None-Match naming another tag: 200", c, "GET", []string{"If-None-Match", `"x"`}, want{200, "*", whole}},
		{"§13.1.2 HEAD with a matching If-None-Match: 304", c, "HEAD", []string{"If-None-Match", `"v1"`}, want{304, "", notModified}},
		{"§13.1.1 If-Match naming the tag: 200", c, "GET", []string{"If-Match", `"v1"`}, want{200, "*", whole}},
		{"§13.1.1 If-Match: * with a representation: 200", c, "GET", []string{"If-Match", "*"}, want{200, "*", whole}},
		{"§13.1.1 If-Match naming another tag: 412 (no content, so no Content-Type)", c, "GET", []string{"If-Match", `"x"`}, want{412, "", map[string]string{"Etag": `"v1"`, "Content-Type": ""}}},
		{"§13.1.1 If-Match compares strongly", c, "GET", []string{"If-Match", `W/"v1"`}, want{412, "", nil}},
		{"§13.1.3 If-Modified-Since not older than the representation: 304", c, "GET", []string{"If-Modified-Since", at}, want{304, "", notModified}},
		{"§13.1.3 If-Modified-Since older: 200", c, "GET", []string{"If-Modified-Since", before}, want{200, "*", whole}},
		{"§13.2.2 If-None-Match wins over If-Modified-Since", c, "GET", []string{"If-None-Match", `"x"`, "If-Modified-Since", at}, want{200, "*", whole}},
		{"§13.1.3 If-Modified-Since without Last-Modified is ignored", undated, "GET", []string{"If-Modified-Since", at}, want{200, "*", map[string]string{"Last-Modified": ""}}},
		{"§13.1.4 If-Unmodified-Since older than the representation: 412", c, "GET", []string{"If-Unmodified-Since", before}, want{412, "", nil}},
		{"§13.1.4 If-Unmodified-Since not older: 200", c, "GET", []string{"If-Unmodified-Since", at}, want{200, "*", whole}},
		{"§13.2.2 If-Match wins over If-Unmodified-Since", c, "GET", []string{"If-Match", `"v1"`, "If-Unmodified-Since", before}, want{200, "*", whole}},
		{"§14.2 one range: 206 with Content-Range", c, "GET", []string{"Range", "bytes=0-9"}, want{206, "0123456789", map[string]string{"Content-Range": "bytes 0-9/100", "Content-Length": "10", "Etag": `"v1"`}}},
		{"§14.1.2 a suffix range", c, "GET", []string{"Range", "bytes=-5"}, want{206, "56789", map[string]string{"Content-Range": "bytes 95-99/100"}}},
		{"§15.5.17 no satisfiable range: 416", c, "GET", []string{"Range", "bytes=200-"}, want{416, "", map[string]string{"Content-Range": "bytes */100"}}},
		{"§14.2 a unit other than bytes is ignored", c, "GET", []string{"Range", "lines=1-2"}, want{200, "*", whole}},
		{"§14.2 bytes ranges that do not parse: 416 (http.ServeContent's choice)", c, "GET", []string{"Range", "bytes=x-y"}, want{416, "", nil}},
		{"§13.1.5 If-Range naming the tag: the range", c, "GET", []string{"Range", "bytes=0-9", "If-Range", `"v1"`}, want{206, "0123456789", nil}},
		{"§13.1.5 If-Range naming another tag: the whole representation", c, "GET", []string{"Range", "bytes=0-9", "If-Range", `"x"`}, want{200, "*", whole}},
		{"§13.1.5 If-Range compares strongly", c, "GET", []string{"Range", "bytes=0-9", "If-Range", `W/"v1"`}, want{200, "*", whole}},
		{"§13.1.5 If-Range with the Last-Modified date: the range", c, "GET", []string{"Range", "bytes=0-9", "If-Range", at}, want{206, "0123456789", nil}},
		{"§13.1.5 If-Range with another date: the whole representation", c, "GET", []string{"Range", "bytes=0-9", "If-Range", before}, want{200, "*", whole}},
		{"§13.2.2 preconditions before Range: 304", c, "GET", []string{"Range", "bytes=0-9", "If-None-Match", `"v1"`}, want{304, "", notModified}},
		{"§13.2.2 preconditions before Range: 412", c, "GET", []string{"Range", "bytes=0-9", "If-Match", `"x"`}, want{412, "", nil}},
		{"§14.2 ranges merged when close (TidyRanges)", c, "GET", []string{"Range", "bytes=0-0,2-2"}, want{206, "012", map[string]string{"Content-Range": "bytes 0-2/100"}}},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "/x", nil)
			for i := 0; i+1 < len(tc.header); i += 2 {
				r.Header.Set(tc.header[i], tc.header[i+1])
			}
			w := httptest.NewRecorder()
			if err := tc.content.WriteResponse(w, r); err != nil {
				t.Fatal(err)
			}
			if w.Code != tc.want.status {
				t.Fatalf("status %d, want %d (%v)", w.Code, tc.want.status, w.Header())
			}
			switch got := w.Body.String(); {
			case tc.want.body == "*" && got != string(body):
				t.Errorf("body %q, want the whole representation", got)
			case tc.want.body != "*" && tc.method == "GET" && tc.want.status != 416 && tc.want.status != 412 && got != tc.want.body:
				t.Errorf("body %q, want %q", got, tc.want.body)
			case tc.method == "HEAD" && got != "":
				t.Errorf("HEAD answered with a body of %d bytes", len(got))
			}
			for k, v := range tc.want.header {
				if got := w.Header().Get(k); got != v {
					t.Errorf("%s: %q, want %q", k, got, v)
				}
			}
		})
	}
}

// More ranges than MaxRanges after merging are answered whole (200).
func TestContentAnswersTooManyRangesWhole(t *testing.T) {
	body := []byte(strings.Repeat("x", 10000))
	c := NewContent(body, `"v"`, time.Time{})
	var parts []string
	for i := range MaxRanges + 1 {
		parts = append(parts, fmt.Sprintf("%d-%d", i*200, i*200))
	}
	r := httptest.NewRequest("GET", "/x", nil)
	r.Header.Set("Range", "bytes="+strings.Join(parts, ","))
	w := httptest.NewRecorder()
	c.Serve(w, r)
	if w.Code != 200 || w.Body.Len() != len(body) {
		t.Fatalf("%d ranges: %d with %d bytes, want 200 with the whole %d", MaxRanges+1, w.Code, w.Body.Len(), len(body))
	}
	r.Header.Set("Range", "bytes="+strings.Join(parts[:MaxRanges], ","))
	w = httptest.NewRecorder()
	c.Serve(w, r)
	if w.Code != 206 || !strings.HasPrefix(w.Header().Get("Content-Type"), "multipart/byteranges") {
		t.Fatalf("%d ranges: %d %q, want 206 multipart/byteranges", MaxRanges, w.Code, w.Header().Get("Content-Type"))
	}
}

// Header fields prepared with WithHeader are on every answer and replace
// what the writer held; an encoded representation still says its length.
func TestContentPreparedHeader(t *testing.T) {
	c := NewContent([]byte("gzip bytes"), `"g"`, time.Time{}).
		WithHeader("Content-Encoding", "gzip").
		WithHeader("Vary", "Accept-Encoding").
		WithHeader("Vary", "Accept-Encoding, Origin") // replaces
	w := httptest.NewRecorder()
	w.Header().Set("Vary", "Accept")
	c.Serve(w, httptest.NewRequest("GET", "/x", nil))
	if got := w.Header().Values("Vary"); len(got) != 1 || got[0] != "Accept-Encoding, Origin" {
		t.Errorf("Vary %q", got)
	}
	if w.Header().Get("Content-Length") != "10" || w.Header().Get("Content-Encoding") != "gzip" {
		t.Errorf("header %v", w.Header())
	}
}

// A Content answered without its request (a strict handler built without
// BindRequests) fails rather than ignoring every precondition.
func TestContentWithoutRequestFails(t *testing.T) {
	w := httptest.NewRecorder()
	if err := NewContent([]byte("x"), `"x"`, time.Time{}).WriteResponse(w, nil); err != ErrNoRequest {
		t.Errorf("WriteResponse without a request: %v, want ErrNoRequest", err)
	}
	if w.Code != 200 || w.Body.Len() != 0 || len(w.Header()) != 0 {
		t.Errorf("it wrote: %d %v %q", w.Code, w.Header(), w.Body.String())
	}
}
