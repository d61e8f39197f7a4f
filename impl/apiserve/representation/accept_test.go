package representation

import "testing"

func TestAcceptQuality(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		accept []string
		types  []string
		want   float64
	}{
		{nil, []string{"text/html"}, 0},
		{[]string{"text/html"}, []string{"text/html"}, 1},
		{[]string{"text/html;q=0.4, application/xhtml+xml;q=0.9"}, []string{"text/html", "application/xhtml+xml"}, 0.9},
		{[]string{"text/html, */*;q=0.8"}, []string{"application/json"}, 0},
		{[]string{"application/json;q=0.5", "application/json;q=0.7"}, []string{"application/json"}, 0.7},
		{[]string{"application/ld+json;q=abc, text/html;q=0.2"}, []string{"application/ld+json"}, 0},
		{[]string{"application/ld+json;q=abc, text/html;q=0.2"}, []string{"text/html"}, 0.2},
		{[]string{";;, text/html"}, []string{"text/html"}, 1},
	} {
		if got := AcceptQuality(c.accept, c.types...); got != c.want {
			t.Errorf("AcceptQuality(%q, %q) = %v, want %v", c.accept, c.types, got, c.want)
		}
	}
}
