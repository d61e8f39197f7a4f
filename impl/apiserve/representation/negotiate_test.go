package representation

import (
	"reflect"
	"testing"
)

func TestParseAccept(t *testing.T) {
	got := ParseAccept([]string{`text/HTML;level=1;q=0.5, application/json`, `bad/;;, x/y;q=2, */*;q=0`})
	want := []AcceptItem{
		{Value: "text/html", Params: map[string]string{"level": "1"}, Q: 0.5},
		{Value: "application/json", Params: map[string]string{}, Q: 1},
		{Value: "*/*", Params: map[string]string{}, Q: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}

func TestPrefers(t *testing.T) {
	html, plain := []string{"text/html"}, []string{"text/plain"}
	for _, tc := range []struct {
		accept string
		want   bool
	}{
		{"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", true}, // a browser
		{"text/plain", false},
		{"*/*", false},
		{"text/html;q=0", false},
		{"text/plain;q=0.5, text/html", true},
		{"text/html;q=0.4, text/plain;q=0.5", false},
		{"text/html, text/plain", true},  // equal: the first named
		{"text/plain, text/html", false}, // equal: the first named
		{"", false},
	} {
		if got := Prefers([]string{tc.accept}, html, plain); got != tc.want {
			t.Errorf("Prefers(%q) = %v, want %v", tc.accept, got, tc.want)
		}
	}
}

func TestAcceptsEncoding(t *testing.T) {
	for _, tc := range []struct {
		field string
		want  bool
	}{
		{"gzip, deflate, br", true},
		{"GZIP", true},
		{"x-gzip", true},
		{"*", true},
		{"gzip;q=0", false},
		{"gzip;q=0.000", false},
		{"*, gzip;q=0", false}, // named beats *
		{"gzip;q=0, *", false},
		{"*;q=0", false},
		{"deflate", false},
		{"", false},
		{"identity", false},
	} {
		if got := AcceptsEncoding([]string{tc.field}, "gzip"); got != tc.want {
			t.Errorf("AcceptsEncoding(%q) = %v, want %v", tc.field, got, tc.want)
		}
	}
}
