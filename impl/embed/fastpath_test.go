package embed

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/sitelib/sitesvc/gen/embedapi"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestOEmbedJSONFieldOrder: the JSON form lists the fields in the seed's
// order, like the XML form.
func TestOEmbedJSONFieldOrder(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, body := e.get(t, "/embed?"+q("url", e.purl(imageDruid), "maxwidth", "320"))
	// The object's members, read one by one: each key, then its value
	// skipped whole.
	dec := json.NewDecoder(strings.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object (%v, %v): %s", tok, err, body)
	}
	var keys []string
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			t.Fatalf("%v: %s", err, body)
		}
		keys = append(keys, key.(string))
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			t.Fatalf("%v: %s", err, body)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		t.Fatalf("%v: %s", err, body)
	}
	if tok, err := dec.Token(); err != io.EOF {
		t.Fatalf("after the object: %v, %v: %s", tok, err, body)
	}
	if got := strings.Join(keys, ","); got != "type,version,provider_name,title,height,width,html" {
		t.Errorf("field order %s", got)
	}
}

// fetchRaw GETs path and returns status, headers and body, validated
// against the contract.
func (e *testEnv) fetchRaw(t *testing.T, method, path string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, body := testkit.Do(t, nil, req)
	if method == http.MethodGet {
		e.v.Check(t, req, resp, body)
	}
	resp.Header.Del("Date")
	return resp.StatusCode, resp.Header, string(body)
}

// TestRememberedAnswersMatchRoutedOnes: the second identical request is
// answered from the remembered rendering, byte for byte as the routed
// answer, headers included.
func TestRememberedAnswersMatchRoutedOnes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	paths := []string{
		"/embed?" + q("url", e.purl(imageDruid)),
		"/embed?" + q("url", e.purl(imageDruid), "format", "xml"),
		"/embed?" + q("url", e.purl(imageDruid), "format", "json", "maxheight", "240", "maxwidth", "320", "hide_title", "true"),
		"/embed?url=" + strings.Replace(e.purl(mediaDruid), mediaDruid, "druid:"+strings.ToUpper(mediaDruid), 1),
		"/iframe?" + q("url", e.purl(imageDruid)),
		"/iframe?" + q("url", e.purl(fileDruid), "hide_title", "true", "maxheight", "300"),
	}
	for _, path := range paths {
		u, _ := http.NewRequest(http.MethodGet, path, nil)
		if _, ok := e.svc.answers.get(u.URL.Path, u.URL.RawQuery); ok {
			t.Fatalf("%s remembered before it was asked", path)
		}
		status, header, body := e.fetchRaw(t, http.MethodGet, path)
		if status != http.StatusOK {
			t.Fatalf("%s: %d %s", path, status, body)
		}
		// Remembered under the query as sent (the validator adds defaults
		// to the request it passes on).
		if _, ok := e.svc.answers.get(u.URL.Path, u.URL.RawQuery); !ok {
			t.Fatalf("%s not remembered", path)
		}
		rec := httptest.NewRecorder()
		if !e.svc.serveRemembered(rec, httptest.NewRequest(http.MethodGet, path, nil)) {
			t.Fatalf("%s: not answered from the remembered rendering", path)
		}
		status2, header2, body2 := e.fetchRaw(t, http.MethodGet, path)
		if status2 != status || body2 != body || fmt.Sprint(header2) != fmt.Sprint(header) {
			t.Errorf("%s: remembered answer differs:\n%d %v %q\n%d %v %q", path, status, header, body, status2, header2, body2)
		}
		hStatus, hHeader, hBody := e.fetchRaw(t, http.MethodHead, path)
		if hStatus != status || hBody != "" || fmt.Sprint(hHeader) != fmt.Sprint(header) {
			t.Errorf("HEAD %s: %d %v %q", path, hStatus, hHeader, hBody)
		}
	}
	if n := len(e.stub.log()); n != 3 {
		t.Errorf("%d upstream requests for three objects: %v", n, e.stub.log())
	}
}

// TestRememberedAnswersFollowTheCache: a remembered query string is only a
// shortcut to a fresh cached object; expiry, a changed record and an object
// gone upstream are seen as on the routed path.
func TestRememberedAnswersFollowTheCache(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := "/embed?" + q("url", e.purl(imageDruid))
	e.get(t, path)
	e.get(t, path)
	if n := len(e.stub.log()); n != 1 {
		t.Fatalf("upstream requests %v", e.stub.log())
	}

	e.stub.retitle(imageDruid, "Retitled")
	_, body := e.get(t, path)
	if decodeOEmbed(t, body)["title"] != fixtures[imageDruid].title {
		t.Errorf("within the TTL the cached title is served: %s", body)
	}
	e.clock.advance(2 * time.Minute)
	_, body = e.get(t, path)
	if got := decodeOEmbed(t, body)["title"]; got != "Retitled" {
		t.Errorf("after the TTL the remembered query served %v", got)
	}
	if n := len(e.stub.log()); n != 2 {
		t.Errorf("after the TTL, want one revalidation: %v", e.stub.log())
	}

	// Gone upstream (withdrawn, or made dark): 404 although the query
	// string is remembered.
	e.stub.setStatus(http.StatusNotFound)
	e.clock.advance(2 * time.Minute)
	resp, body := e.get(t, path)
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("object gone upstream: %d %s", resp.StatusCode, body)
	}
}

func TestRefusedRequestsAreNotRemembered(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{
		"/embed?" + q("url", e.purl(imageDruid), "maxheight", "0"),
		"/embed?" + q("url", e.purl(imageDruid), "format", "yaml"),
		"/embed?" + q("url", e.purl("zz999zz9999")),
		"/iframe?" + q("url", e.purl(darkDruid)),
	} {
		first, _ := e.get(t, path)
		second, _ := e.get(t, path)
		if first.StatusCode == 200 || second.StatusCode != first.StatusCode {
			t.Errorf("%s: %d then %d", path, first.StatusCode, second.StatusCode)
		}
	}
	if n := e.svc.answers.len(); n != 0 {
		t.Errorf("%d refused requests remembered", n)
	}
}

func TestRememberedAnswersBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.svc.answers.embed.Resize(8)
	e.svc.answers.iframe.Resize(8)
	for h := 1; h <= 40; h++ {
		if resp, body := e.get(t, "/embed?"+q("url", e.purl(imageDruid), "maxwidth", fmt.Sprint(h))); resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
	}
	if n := e.svc.answers.len(); n > 8 {
		t.Errorf("%d query strings remembered, bound 8", n)
	}
	// A query string longer than the bound is answered, not remembered.
	long := "/embed?" + q("url", e.purl(imageDruid)) + "&" + strings.Repeat("x", maxRememberedQuery)
	resp, _ := e.get(t, long)
	if resp.StatusCode != 200 {
		t.Fatalf("long query: %d", resp.StatusCode)
	}
	u, _ := http.NewRequest(http.MethodGet, long, nil)
	if _, ok := e.svc.answers.get("/embed", u.URL.RawQuery); ok {
		t.Errorf("over-long query string remembered")
	}
}

// TestAnswerMemoNeedsQueryOnlyOperations: if the contract ever makes the
// answer depend on more than the query string (security, a header or
// cookie parameter), nothing is remembered.
func TestAnswerMemoNeedsQueryOnlyOperations(t *testing.T) {
	t.Parallel()
	// Each a fresh copy, changed below.
	load := func() *openapi3.T { return testkit.Spec(t, embedapi.GetSpec) }
	if !newAnswerMemo(load(), 8).enabled {
		t.Fatal("the contract's /embed and /iframe depend on the query only, yet the memo is off")
	}
	secured := load()
	secured.Paths.Value("/embed").Get.Security = &openapi3.SecurityRequirements{{"bearer": {}}}
	withHeader := load()
	withHeader.Paths.Value("/iframe").Get.Parameters = append(withHeader.Paths.Value("/iframe").Get.Parameters,
		&openapi3.ParameterRef{Value: openapi3.NewHeaderParameter("X-Viewer").WithSchema(openapi3.NewStringSchema())})
	globalSecurity := load()
	globalSecurity.Security = openapi3.SecurityRequirements{{"bearer": {}}}
	for name, spec := range map[string]*openapi3.T{"secured": secured, "header parameter": withHeader, "global security": globalSecurity} {
		m := newAnswerMemo(spec, 8)
		m.remember("/embed", "url=x", answerRef{druid: imageDruid})
		if m.enabled || m.len() != 0 {
			t.Errorf("%s: memo enabled", name)
		}
	}
}

func TestMethods(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/embed", "/iframe", "/viewer/viewer.js"} {
		for _, method := range []string{http.MethodPost, http.MethodPut, http.MethodDelete} {
			req, _ := http.NewRequest(method, e.srv.URL+path+"?"+q("url", e.purl(imageDruid)), strings.NewReader("x"))
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "GET, HEAD, OPTIONS" {
				t.Errorf("%s %s: %d Allow %q", method, path, resp.StatusCode, resp.Header.Get("Allow"))
			}
			if eb := errorBody(t, string(body)); eb.Status != 405 || !strings.Contains(eb.Message, method) {
				t.Errorf("%s %s: %+v", method, path, eb)
			}
		}
	}
	req, _ := http.NewRequest(http.MethodOptions, e.srv.URL+"/embed", nil)
	req.Header.Set("Origin", "http://elsewhere.example")
	req.Header.Set("Access-Control-Request-Method", "GET")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Allow") != "GET, HEAD, OPTIONS" ||
		resp.Header.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(resp.Header.Get("Access-Control-Allow-Methods"), "GET") {
		t.Errorf("OPTIONS /embed: %d %v", resp.StatusCode, resp.Header)
	}
	if len(e.stub.log()) != 0 {
		t.Errorf("refused methods reached the PURL service: %v", e.stub.log())
	}
}

// TestOEmbedErrorsReadableByAnySite: a page on another site reading the
// oEmbed endpoint with fetch can read why it was refused.
func TestOEmbedErrorsReadableByAnySite(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{
		"/embed",
		"/embed?" + q("url", "http://elsewhere.example/x"),
		"/embed?" + q("url", e.purl(imageDruid), "format", "yaml"),
	} {
		resp, _ := e.get(t, path)
		if resp.StatusCode < 400 || resp.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %d, Access-Control-Allow-Origin %q", path, resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
		}
	}
}

// TestAssetConditionalTooLong: the 400 the contract declares for the
// viewer assets is what an oversized If-None-Match gets.
func TestAssetConditionalTooLong(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for _, path := range []string{"/viewer/viewer.js", "/viewer/viewer.css", "/viewer/mirador.min.js"} {
		resp, body := e.get(t, path, "If-None-Match", `"`+strings.Repeat("a", 1100)+`"`)
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("%s: %d", path, resp.StatusCode)
			continue
		}
		if eb := errorBody(t, body); eb.Parameter == nil || *eb.Parameter != "If-None-Match" {
			t.Errorf("%s: error body %+v does not name If-None-Match", path, eb)
		}
	}
}
