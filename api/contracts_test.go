// Package api holds the OpenAPI contracts of the HTTP services. This test
// checks that each is complete enough to generate servers and client SDKs
// from: it loads and validates with kin-openapi, and every operation,
// parameter and response is fully described.
package api

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

var contracts = []string{"purl.yaml", "embed.yaml", "hours.yaml"}

func TestContractsAreCompleteAndExact(t *testing.T) {
	for _, file := range contracts {
		t.Run(file, func(t *testing.T) {
			loader := openapi3.NewLoader()
			doc, err := loader.LoadFromFile(file)
			if err != nil {
				t.Fatalf("loading: %v", err)
			}
			if err := doc.Validate(context.Background(), openapi3.EnableExamplesValidation()); err != nil {
				t.Fatalf("validating (examples included): %v", err)
			}
			if doc.OpenAPI != "3.0.3" {
				t.Errorf("openapi = %q, want 3.0.3", doc.OpenAPI)
			}
			if doc.Info == nil || doc.Info.Title == "" || doc.Info.Version == "" || doc.Info.Description == "" {
				t.Error("info needs a title, version and description")
			}
			if len(doc.Servers) == 0 || len(doc.Servers[0].Variables) == 0 {
				t.Error("servers[0] needs a base-URL variable")
			}
			for _, problem := range incompleteness(doc) {
				t.Error(problem)
			}
		})
	}
}

// incompleteness lists what an operation leaves undescribed.
func incompleteness(doc *openapi3.T) []string {
	var out []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			if op.OperationID == "" {
				out = append(out, where+": no operationId")
			}
			if op.Summary == "" && op.Description == "" {
				out = append(out, where+": no summary or description")
			}
			params := slices.Clone(op.Parameters)
			params = append(params, item.Parameters...)
			for _, p := range params {
				if p.Value == nil || p.Value.Schema == nil || p.Value.Schema.Value == nil {
					out = append(out, fmt.Sprintf("%s: parameter without a schema", where))
					continue
				}
				if p.Value.Description == "" {
					out = append(out, fmt.Sprintf("%s: parameter %q has no description", where, p.Value.Name))
				}
				if p.Value.Schema.Value.Type == nil || len(p.Value.Schema.Value.Type.Slice()) == 0 {
					out = append(out, fmt.Sprintf("%s: parameter %q has no type", where, p.Value.Name))
				}
			}
			if op.Responses == nil || op.Responses.Len() == 0 {
				out = append(out, where+": no responses")
				continue
			}
			hasError := false
			for code, resp := range op.Responses.Map() {
				status, err := strconv.Atoi(code)
				if err == nil && status >= 400 {
					hasError = true
				}
				if resp.Value == nil || resp.Value.Description == nil || *resp.Value.Description == "" {
					out = append(out, fmt.Sprintf("%s %s: no description", where, code))
					continue
				}
				// answers without content: 204, 304 (and redirects), 412 (a
				// precondition that failed, RFC 9110 §15.5.13), and HEAD
				if status == http.StatusNoContent || status == http.StatusNotModified || status == http.StatusPreconditionFailed || (status >= 300 && status < 400) || method == http.MethodHead {
					continue
				}
				if len(resp.Value.Content) == 0 {
					out = append(out, fmt.Sprintf("%s %s: no content (media type and schema)", where, code))
				}
				for mt, media := range resp.Value.Content {
					if media.Schema == nil {
						out = append(out, fmt.Sprintf("%s %s %s: no schema", where, code, mt))
					}
				}
			}
			if !hasError {
				out = append(out, where+": no error response declared")
			}
		}
	}
	return out
}
