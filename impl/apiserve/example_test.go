package apiserve_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/impl/apiserve"
)

// A service on the edge: the contract decides routing, validation, HEAD,
// OPTIONS, 405 with Allow, CORS and body limits; the handler only answers
// requests that are already valid. In the project the handlers are the
// generated strict server's (gen/<api>, registered with
// <api>.RegisterHandlers(apiserve.Routes(e), …)); here one is registered
// by hand on the same echo instance.
func ExampleNew() {
	const contract = `
openapi: 3.0.3
info: {title: notes, version: "1"}
paths:
  /notes/{id}.json:
    get:
      operationId: getNote
      parameters:
        - {name: id, in: path, required: true, schema: {type: string, pattern: "^[a-z]{3}$"}}
      responses:
        "200":
          description: a note
          content:
            application/json:
              schema: {type: object}
`
	spec, err := openapi3.NewLoader().LoadFromData([]byte(contract))
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := apiserve.New(apiserve.Options{
		Spec:    spec,
		BaseURL: "https://example.org/notes",
		Policy: &apiserve.Policy{
			CrossOrigin: func(operationID string) bool { return operationID == "getNote" },
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	e.GET("/notes/:id", func(c echo.Context) error {
		id := strings.TrimSuffix(c.Param("id"), ".json")
		return c.JSON(http.StatusOK, map[string]string{"id": id})
	})

	for _, r := range []struct{ method, path string }{
		{"GET", "/notes/abc.json"},  // valid: the handler answers
		{"GET", "/notes/ab1.json"},  // the path parameter breaks its pattern: 400
		{"POST", "/notes/abc.json"}, // the contract has no POST here: 405
		{"GET", "/nothing"},         // no such path: 404
	} {
		req := httptest.NewRequest(r.method, r.path, nil)
		req.Header.Set("Origin", "https://course.example.edu")
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, req)
		fmt.Printf("%s %s: %d allow=%q cors=%q\n", r.method, r.path, rec.Code, rec.Header().Get("Allow"), rec.Header().Get("Access-Control-Allow-Origin"))
	}
	// Output:
	// GET /notes/abc.json: 200 allow="" cors="*"
	// GET /notes/ab1.json: 400 allow="" cors="*"
	// POST /notes/abc.json: 405 allow="GET, HEAD, OPTIONS" cors=""
	// GET /nothing: 404 allow="" cors=""
}
