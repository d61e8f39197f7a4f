package purl

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/labstack/echo/v4"

	"github.com/sitelib/sitesvc/gen/purlapi"
)

// bindingRecorder is a purlapi.StrictServerInterface that records the
// request objects of the reads it is asked (the others are not called).
type bindingRecorder struct {
	purlapi.StrictServerInterface
	got []any
}

func (b *bindingRecorder) GetFile(_ context.Context, r purlapi.GetFileRequestObject) (purlapi.GetFileResponseObject, error) {
	b.got = append(b.got, r)
	return nil, nil
}

func (b *bindingRecorder) GetImage(_ context.Context, r purlapi.GetImageRequestObject) (purlapi.GetImageResponseObject, error) {
	b.got = append(b.got, r)
	return nil, nil
}

func (b *bindingRecorder) GetPublicXml(_ context.Context, r purlapi.GetPublicXmlRequestObject) (purlapi.GetPublicXmlResponseObject, error) {
	b.got = append(b.got, r)
	return nil, nil
}

// PURL registers its operations through RegisterDirectHandlers (string path
// and header parameters bound without reflection, the file's download
// query looked for only in a request with a query). Those bindings hand
// the service what oapi-codegen's wrappers and strict handler do, for
// escaped paths, odd values and refused ones alike.
func TestDirectHandlersBindAsGenerated(t *testing.T) {
	t.Parallel()
	generated, direct := &bindingRecorder{}, &bindingRecorder{}
	eGenerated, eDirect := echo.New(), echo.New()
	purlapi.RegisterHandlers(eGenerated, purlapi.NewStrictHandler(generated, nil))
	purlapi.RegisterDirectHandlers(eDirect, direct)

	type header struct{ name, value string }
	for _, c := range []struct {
		target  string
		headers []header
	}{
		{"/bb000cc1111.xml", nil},
		{"/bb000cc1111/file/a.txt", nil},
		{"/bb000cc1111/file/a%20b.txt", nil},
		{"/bb000cc1111/file/a%2Fb.txt", nil},
		{"/bb000cc1111/file/caf%C3%A9.txt?", nil},
		{"/bb000cc1111/file/a+b.txt?download=true", nil},
		{"/bb000cc1111/file/a.txt?download=false&other=1", nil},
		{"/bb000cc1111/file/a.txt?download=nope", nil},
		{"/bb000cc1111/file/a.txt?other=%zz", nil},
		{"/bb000cc1111/file/a.txt?download=", nil},
		{"/bb000cc1111/file/a.txt", []header{{"Range", "bytes=0-1023"}}},
		{"/bb000cc1111/file/a.txt", []header{{"Range", ""}}},
		{"/bb000cc1111/file/a.txt", []header{{"Range", "bytes=0-1"}, {"Range", "bytes=2-3"}}},
		{"/bb000cc1111/file/a.txt", []header{{"If-None-Match", `"a", W/"b,c"`}, {"If-Modified-Since", "Wed, 21 Oct 2015 07:28:00 GMT"}}},
		{"/bb000cc1111/file/a.txt", []header{{"If-None-Match", "%41"}}},
		{"/bb000cc1111/iiif/image/a.jp2/full/max/0/default.jpg", nil},
		{"/bb000cc1111/iiif/image/a%2Fb.jp2/pct:10,10,50,50/!100,100/!90/gray.png", nil},
		{"/bb000cc1111/iiif/image/a.jp2/pct%3A10%2C10%2C50%2C50/%5E200,/180/default.jpg", []header{{"If-None-Match", `"t"`}}},
		{"/bb000cc1111/iiif/image/caf%C3%A9.jp2/0,0,256,256/256,/0/default.webp?x=1", nil},
	} {
		answer := func(e *echo.Echo) (int, string) {
			r := httptest.NewRequest(http.MethodGet, c.target, nil)
			for _, h := range c.headers {
				r.Header.Add(h.name, h.value)
			}
			w := httptest.NewRecorder()
			e.ServeHTTP(w, r)
			return w.Code, w.Body.String()
		}
		gCode, gBody := answer(eGenerated)
		dCode, dBody := answer(eDirect)
		if gCode != dCode || gBody != dBody {
			t.Errorf("GET %s %v: direct answers %d %q, generated %d %q", c.target, c.headers, dCode, dBody, gCode, gBody)
		}
		if len(generated.got) != len(direct.got) {
			t.Fatalf("GET %s %v: direct handed the service %d requests, generated %d", c.target, c.headers, len(direct.got), len(generated.got))
		}
	}
	if len(generated.got) < 15 {
		t.Fatalf("only %d of the requests reached the service: the cases test refusals only", len(generated.got))
	}
	for i := range generated.got {
		if !reflect.DeepEqual(generated.got[i], direct.got[i]) {
			t.Errorf("request %d: direct binds %s, generated %s", i, show(direct.got[i]), show(generated.got[i]))
		}
	}
}

// show prints a request object with the values its pointers point to.
func show(v any) string {
	rv := reflect.ValueOf(v)
	out := fmt.Sprintf("%+v", v)
	if p := rv.FieldByName("Params"); p.IsValid() {
		out += " params{"
		for i := range p.NumField() {
			f := p.Field(i)
			if f.Kind() == reflect.Pointer && !f.IsNil() {
				out += fmt.Sprintf(" %s=%q", p.Type().Field(i).Name, fmt.Sprint(f.Elem().Interface()))
			}
		}
		out += " }"
	}
	return out
}
