package hours_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// Invalid UTF-8 in a text attribute is 422 with the attribute's pointer and stores
// nothing, as docs/security.md promises: JSON decoding used to turn the bytes into U+FFFD
// and the write was stored with 201.
func TestInvalidUTF8Refused(t *testing.T) {
	t.Parallel()
	eachBackend(t, func(t *testing.T, e *env) {
		var created struct {
			Data struct{ ID string } `json:"data"`
		}
		resp, body := e.do(t, req{method: "POST", path: "/libraries/green/locations/stacks/exceptions", token: "admin", body: `{"data":{"type":"exceptions","attributes":{"day":"2026-07-05","closed":true,"notes":"Closed"}}}`})
		if resp.StatusCode != 201 || json.Unmarshal(body, &created) != nil {
			t.Fatalf("creating an exception: %d %s", resp.StatusCode, body)
		}
		before, err := e.svc.Store().Audit(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		cases := []struct{ name, method, path, body, pointer string }{
			{"library name on POST", "POST", "/libraries", "{\"data\":{\"type\":\"libraries\",\"attributes\":{\"name\":\"Caf\xe9\",\"slug\":\"cafe\"}}}", "/data/attributes/name"},
			{"library name on PATCH", "PATCH", "/libraries/green", "{\"data\":{\"type\":\"libraries\",\"attributes\":{\"name\":\"Green \xff\xfe\"}}}", "/data/attributes/name"},
			{"location name (cut sequence)", "PATCH", "/libraries/green/locations/stacks", "{\"data\":{\"type\":\"locations\",\"attributes\":{\"name\":\"Stacks \xe2\x82\"}}}", "/data/attributes/name"},
			{"exception notes", "PATCH", "/libraries/green/locations/stacks/exceptions/%s", "{\"data\":{\"type\":\"exceptions\",\"attributes\":{\"notes\":\"\xc0\xaf\"}}}", "/data/attributes/notes"},
			{"legacy .json PATCH", "PATCH", "/libraries/green.json", "{\"data\":{\"type\":\"libraries\",\"attributes\":{\"name\":\"\xed\xa0\x80\"}}}", "/data/attributes/name"},
		}
		for _, c := range cases {
			path := c.path
			if c.pointer == "/data/attributes/notes" {
				path = fmt.Sprintf(path, created.Data.ID)
			}
			resp, body := e.do(t, req{method: c.method, path: path, body: c.body, token: "admin"})
			t.Run(c.name, func(t *testing.T) { expectError(t, resp, body, 422, "", c.pointer) })
		}
		after, _ := e.svc.Store().Audit(context.Background())
		if len(after) != len(before) {
			t.Errorf("refused writes were stored: audit %d → %d", len(before), len(after))
		}
		// Valid multi-byte text is kept as sent.
		resp, body = e.do(t, req{method: "PATCH", path: "/libraries/green", token: "admin", body: `{"data":{"type":"libraries","attributes":{"name":"Café Green ☕"}}}`})
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
