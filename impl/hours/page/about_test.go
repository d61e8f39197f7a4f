package page

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestAboutLinks: a library's and a location's own web page (about_url) are
// linked on the week page, and are their sameAs in the JSON-LD (url stays
// this page); a place without one has neither.
func TestAboutLinks(t *testing.T) {
	now := time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC)
	p := testPage(t, now)
	p.Libraries[0].AboutURL = "https://library.example.edu/green?x=1&y=2"
	p.Libraries[0].Locations[1].AboutURL = "https://library.example.edu/green/stacks"
	html := render(t, p)
	for _, want := range []string{
		`<a href="https://library.example.edu/green?x=1&amp;y=2">About Green Library</a>`,
		`<a href="https://library.example.edu/green/stacks">About Stacks Reading Room</a>`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("no %s on the page", want)
		}
	}
	if n := strings.Count(html, ">About "); n != 2 {
		t.Errorf("%d about links, want 2 (Main Library has no page of its own)", n)
	}
	m := regexp.MustCompile(`(?s)<script type="application/ld\+json">(.*?)</script>`).FindStringSubmatch(html)
	if m == nil {
		t.Fatal("no JSON-LD")
	}
	var ld []struct {
		URL        string `json:"url"`
		SameAs     string `json:"sameAs"`
		Department []struct {
			Name   string `json:"name"`
			SameAs string `json:"sameAs"`
		} `json:"department"`
	}
	if err := json.Unmarshal([]byte(m[1]), &ld); err != nil {
		t.Fatalf("JSON-LD does not parse: %v", err)
	}
	if len(ld) != 1 || ld[0].URL != "https://h.test/hours/libraries/green.html" || ld[0].SameAs != "https://library.example.edu/green?x=1&y=2" {
		t.Errorf("library url/sameAs: %+v", ld)
	}
	if len(ld[0].Department) != 1 || ld[0].Department[0].SameAs != "https://library.example.edu/green/stacks" {
		t.Errorf("department sameAs: %+v", ld[0].Department)
	}
	if strings.Contains(render(t, testPage(t, now)), "sameAs") {
		t.Error("sameAs without an about URL")
	}
}
