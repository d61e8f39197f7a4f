package apiserve

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/labstack/echo/v4"
)

// Routes dispatches a parameter followed by a literal by the literal its
// value ends with, hands the value over without it, and leaves other
// paths to echo as they are.
func TestRoutesSuffixedParameters(t *testing.T) {
	t.Parallel()
	e := echo.New()
	r := Routes(e)
	answer := func(name string) echo.HandlerFunc {
		return func(c echo.Context) error {
			names := c.ParamNames()
			if len(names) == 0 {
				return c.String(http.StatusOK, name)
			}
			last := names[len(names)-1]
			return c.String(http.StatusOK, name+" "+last+"="+c.Param(last))
		}
	}
	r.GET("/:id", answer("page"))
	r.GET("/:id.xml", answer("xml"))
	r.GET("/:id.mods.xml", answer("modsxml"))
	r.PUT("/:id.xml", answer("put-xml"))
	r.GET("/libraries/:library_id.json", answer("library"))
	r.DELETE("/libraries/:library_id", answer("delete-library"))
	r.GET("/libraries/:library_id/terms.json", answer("terms"))
	mw := func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error { c.Response().Header().Set("X-Mw", "1"); return next(c) }
	}
	r.GET("/static", answer("static"), mw)
	for _, tc := range []struct{ method, path, want string }{
		{"GET", "/bb000kk0000", "200 page id=bb000kk0000"},
		{"GET", "/bb000kk0000.xml", "200 xml id=bb000kk0000"},
		{"GET", "/a.b.xml", "200 xml id=a.b"},
		{"GET", "/bb.mods.xml", "200 modsxml id=bb"},
		{"GET", "/x.foo", "200 page id=x.foo"},
		{"PUT", "/bb.xml", "200 put-xml id=bb"},
		{"PUT", "/bb", "404"},
		{"GET", "/libraries/green.json", "200 library library_id=green"},
		{"GET", "/libraries/green", "404"},
		{"DELETE", "/libraries/green", "200 delete-library library_id=green"},
		{"DELETE", "/libraries/green.json", "200 delete-library library_id=green.json"},
		{"GET", "/libraries/green/terms.json", "200 terms library_id=green"},
		{"POST", "/libraries/green.json", "405"},
		{"HEAD", "/bb.xml", "200 xml id=bb"},
		{"HEAD", "/libraries/green.json", "200 library library_id=green"},
	} {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
		got := map[int]string{404: "404", 405: "405"}[rec.Code]
		if rec.Code == http.StatusOK {
			got = "200 " + rec.Body.String()
		}
		if got != tc.want {
			t.Errorf("%s %s = %q (%d), want %q", tc.method, tc.path, got, rec.Code, tc.want)
		}
	}
	rec := httptest.NewRecorder()
	e.ServeHTTP(rec, httptest.NewRequest("GET", "/static", nil))
	if rec.Code != 200 || rec.Header().Get("X-Mw") != "1" {
		t.Errorf("route middleware not applied: %d %v", rec.Code, rec.Header())
	}
}

func TestRoutesRefuseLiteralAfterInnerParameter(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("a literal after a parameter in an inner segment was accepted")
		}
	}()
	Routes(echo.New()).GET("/:id.x/file", func(echo.Context) error { return nil })
}
