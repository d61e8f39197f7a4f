package testkit

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

func TestValidatorMediaTypesAndHEAD(t *testing.T) {
	t.Parallel()
	spec, err := openapi3.NewLoader().LoadFromFile("testdata/pages.yaml")
	if err != nil {
		t.Fatal(err)
	}
	v := NewValidator(t, spec)
	resp := func(status int, ct string) *http.Response {
		h := http.Header{}
		if ct != "" {
			h.Set("Content-Type", ct)
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	for _, c := range []struct {
		method, path string
		status       int
		ct, body     string
		ok           bool
	}{
		{"GET", "/page/a", 200, "application/json", `{"id":"a"}`, true},
		{"GET", "/page/a", 200, "application/json", `{"name":"a"}`, false},
		{"GET", "/page/a", 200, "text/html; charset=utf-8", `<p>a</p>`, true},
		{"GET", "/page/a", 200, "text/xml", `<a/>`, false},
		{"GET", "/page/a", 200, "", `{"id":"a"}`, false},
		{"GET", "/page/a", 500, "text/plain", "boom", false},
		{"GET", "/page/a", 404, "text/plain", "no such page", true},
		{"GET", "/page/a", 404, "application/json", `{}`, false},
		// HEAD answers as its GET would, without a body.
		{"HEAD", "/page/a", 200, "application/json", "", true},
		{"HEAD", "/page/a", 200, "text/xml", "", false},
		{"HEAD", "/page/a", 418, "application/json", "", false},
		{"GET", "/nowhere", 200, "application/json", `{}`, false},
	} {
		req := httptest.NewRequest(c.method, c.path, nil)
		err := v.Validate(req, resp(c.status, c.ct), []byte(c.body))
		if (err == nil) != c.ok {
			t.Errorf("%s %s → %d %s %q: err = %v, want ok=%v", c.method, c.path, c.status, c.ct, c.body, err, c.ok)
		}
	}
}
