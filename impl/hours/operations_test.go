package hours_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

const atomicType = `application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"`

// atomicDoc is an Atomic Operations request document of the given
// operations (JSON objects).
func atomicDoc(ops ...string) string {
	return `{"atomic:operations":[` + strings.Join(ops, ",") + `]}`
}

func addOp(location, attrs string) string {
	return fmt.Sprintf(`{"op":"add","href":"/libraries/green/locations/%s/exceptions","data":{"type":"exceptions","attributes":%s}}`, location, attrs)
}

// TestAtomicOperations: POST /libraries/{id}/operations writes its
// operations in one transaction (JSON:API Atomic Operations): all or none,
// a refusal pointing under /atomic:operations/{n}; its media type is
// negotiated as the extension says; authorisation as any write of the
// library.
func TestAtomicOperations(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		exceptions := func() int {
			t.Helper()
			var doc struct{ Data []json.RawMessage }
			e.get(t, "/libraries/green/locations/stacks/exceptions.json", http.StatusOK, &doc)
			return len(doc.Data)
		}
		before := exceptions()
		post := func(token, contentType, body string) (*http.Response, []byte) {
			t.Helper()
			return e.do(t, req{method: http.MethodPost, path: "/libraries/green/operations", body: body, token: token, headers: []string{"Content-Type", contentType}})
		}

		// The third operation takes a day the first already took: nothing is written.
		bad := atomicDoc(
			addOp("stacks", `{"day":"2027-05-10","periods":["10:00-14:00"],"notes":"Christmas Eve"}`),
			addOp("stacks", `{"day":"2027-05-11","closed":true}`),
			addOp("stacks", `{"day":"2027-05-10","closed":true}`))
		resp, body := post("green-editor", atomicType, bad)
		expectError(t, resp, body, http.StatusConflict, "", "")
		if !strings.Contains(string(body), "operation 2") {
			t.Errorf("the refusal does not name operation 2: %s", body)
		}
		if n := exceptions(); n != before {
			t.Fatalf("a refused batch wrote %d exceptions", n-before)
		}
		// A field error points into the operation.
		resp, body = post("green-editor", atomicType, atomicDoc(addOp("stacks", `{"day":"2027-05-10","closed":true}`), addOp("stacks", `{"day":"2027-02-30","closed":true}`)))
		expectError(t, resp, body, http.StatusUnprocessableEntity, "", "/atomic:operations/1/data/attributes/day")
		if n := exceptions(); n != before {
			t.Fatalf("a refused batch wrote %d exceptions", n-before)
		}

		// A good batch: two adds, then an update and a removal of what exists.
		resp, body = post("green-editor", atomicType, atomicDoc(
			addOp("stacks", `{"day":"2027-05-10","periods":["10:00-14:00"],"notes":"Christmas Eve"}`),
			addOp("reference", `{"day":"2027-05-11","closed":true}`)))
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != atomicType {
			t.Fatalf("good batch: %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
		}
		var results struct {
			JSONAPI struct {
				Version string   `json:"version"`
				Ext     []string `json:"ext"`
			} `json:"jsonapi"`
			Results []struct {
				Data *struct {
					ID         string `json:"id"`
					Attributes struct {
						Day   string `json:"day"`
						Notes string `json:"notes"`
					} `json:"attributes"`
				} `json:"data"`
			} `json:"atomic:results"`
		}
		if err := json.Unmarshal(body, &results); err != nil {
			t.Fatal(err)
		}
		if len(results.Results) != 2 || results.Results[0].Data == nil || results.Results[0].Data.Attributes.Day != "2027-05-10" || results.Results[0].Data.Attributes.Notes != "Christmas Eve" ||
			results.JSONAPI.Version != "1.1" || len(results.JSONAPI.Ext) != 1 || results.JSONAPI.Ext[0] != "https://jsonapi.org/ext/atomic" {
			t.Fatalf("results: %s", body)
		}
		if n := exceptions(); n != before+1 {
			t.Errorf("stacks has %d new exceptions, want 1", n-before)
		}
		id := results.Results[0].Data.ID
		resp, body = post("green-editor", atomicType, atomicDoc(
			fmt.Sprintf(`{"op":"update","href":"/libraries/green/locations/stacks/exceptions/%s","data":{"type":"exceptions","id":%q,"attributes":{"closed":true,"hours_type":"closure"}}}`, id, id),
			fmt.Sprintf(`{"op":"remove","href":"http://hours.test/hours/libraries/green/locations/reference/exceptions/%s.json"}`, results.Results[1].Data.ID)))
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"closure"`) || !strings.Contains(string(body), `{}`) {
			t.Fatalf("update and remove: %d %s", resp.StatusCode, body)
		}

		// Media types, authorisation, targets.
		good := atomicDoc(addOp("stacks", `{"day":"2027-01-02","closed":true}`))
		resp, body = post("green-editor", "application/vnd.api+json", good)
		expectError(t, resp, body, http.StatusUnsupportedMediaType, "", "")
		resp, body = e.do(t, req{method: http.MethodPost, path: "/libraries/green/locations/stacks/exceptions", token: "green-editor",
			body: `{"data":{"type":"exceptions","attributes":{"day":"2027-01-02","closed":true}}}`, headers: []string{"Content-Type", atomicType}})
		expectError(t, resp, body, http.StatusUnsupportedMediaType, "", "")
		resp, body = e.do(t, req{method: http.MethodPost, path: "/libraries/green/operations", body: good, token: "green-editor",
			headers: []string{"Content-Type", atomicType, "Accept", atomicType}})
		if resp.StatusCode != http.StatusOK {
			t.Errorf("Accept with the extension: %d %s", resp.StatusCode, body)
		}
		resp, body = post("law-editor", atomicType, good)
		expectError(t, resp, body, http.StatusForbidden, "", "")
		resp, body = post("", atomicType, good)
		expectError(t, resp, body, http.StatusUnauthorized, "", "")
		resp, body = e.do(t, req{method: http.MethodPost, path: "/libraries/law/operations", body: good, token: "law-editor", headers: []string{"Content-Type", atomicType}})
		expectError(t, resp, body, http.StatusForbidden, "", "/atomic:operations/0/href")
		resp, body = post("green-editor", atomicType, atomicDoc(`{"op":"remove","href":"/libraries/green/locations/stacks/exceptions"}`))
		expectError(t, resp, body, http.StatusUnprocessableEntity, "", "/atomic:operations/0/href") // a pointer into the document: 422, as every such refusal here
		resp, body = post("green-editor", atomicType, atomicDoc(`{"op":"remove","href":"/libraries/green/locations/stacks/exceptions/999999"}`))
		expectError(t, resp, body, http.StatusNotFound, "", "/atomic:operations/0/href")
		resp, body = post("green-editor", atomicType, atomicDoc(`{"op":"add","href":"/libraries/green/locations/stacks/exceptions","data":{"type":"exceptions","id":"7","attributes":{"day":"2027-01-03","closed":true}}}`))
		expectError(t, resp, body, http.StatusForbidden, "", "/atomic:operations/0/data/id")
		resp, body = post("green-editor", atomicType, `{"atomic:operations":[]}`)
		if resp.StatusCode != http.StatusUnprocessableEntity && resp.StatusCode != http.StatusBadRequest {
			t.Errorf("no operations: %d %s", resp.StatusCode, body)
		}
	})
}
