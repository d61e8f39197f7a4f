package admin

import "testing"

func TestSiteOf(t *testing.T) {
	t.Parallel()
	for base, want := range map[string]string{
		"http://localhost:8080/hours":        "http://localhost:8080",
		"https://lib.example.edu/svc/hours/": "https://lib.example.edu/svc",
		"https://hours.example.edu":          "https://hours.example.edu",
		"not a url":                          "",
	} {
		if got := siteOf(base); got != want {
			t.Errorf("siteOf(%q) = %q, want %q", base, got, want)
		}
	}
}
