package hours_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/sitelib/sitesvc/impl/testkit"
)

// Authorisation before work (issue 11.6): a token that may not make a
// write is refused 403 before its body is read, whatever the body; a body
// beyond the operation's limit is 413 without being read whole.
func TestAuthorisationBeforeBody(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
