package hours_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// publicAttrs is what TestPublicAndNote reads of a library or location.
type publicAttrs struct {
	Data struct {
		ID         string `json:"id"`
		Attributes struct {
			Name     string  `json:"name"`
			AboutURL *string `json:"about_url"`
			Public   *bool   `json:"public"`
			Note     *string `json:"note"`
		} `json:"attributes"`
	} `json:"data"`
	Included []struct {
		ID         string `json:"id"`
		Attributes struct {
			Public *bool `json:"public"`
		} `json:"attributes"`
	} `json:"included"`
}

// TestPublicAndNote: the library and location forms' about URL, public flag
// and note are written and read back through the JSON:API; a library or
// location that is not public is left out of the public list, the overview,
// the HTML pages, the calendars and the legacy API but still answers at its
// own JSON:API URL (what the editor reads); a bad URL or an over-long note
// is 422 and changes nothing (docs/hours.md, "Public and not public").
func TestPublicAndNote(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		write := func(method, path, body string, want int) []byte {
			t.Helper()
			resp, data := e.do(t, req{method: method, path: path, body: body, token: "admin"})
			if resp.StatusCode != want {
				t.Fatalf("%s %s: %d, want %d: %s", method, path, resp.StatusCode, want, data)
			}
			return data
		}
		read := func(path string) publicAttrs {
			t.Helper()
			var d publicAttrs
			e.get(t, path, http.StatusOK, &d)
			return d
		}
		text := func(path string, want int) string {
			t.Helper()
			resp, data := e.do(t, req{path: path})
			if resp.StatusCode != want {
				t.Fatalf("GET %s: %d, want %d", path, resp.StatusCode, want)
			}
			return string(data)
		}
		listed := func() string {
			t.Helper()
			var l listDoc
			e.get(t, "/libraries.json", http.StatusOK, &l)
			var ids []string
			for _, r := range l.Data {
				ids = append(ids, r.ID)
			}
			for _, r := range l.Included {
				ids = append(ids, r.ID)
			}
			return " " + strings.Join(ids, " ") + " "
		}

		// Defaults: public, no URL, no note.
		d := read("/libraries/green.json")
		if d.Data.Attributes.Public == nil || !*d.Data.Attributes.Public || d.Data.Attributes.AboutURL != nil || d.Data.Attributes.Note != nil {
			t.Errorf("green before: %+v", d.Data.Attributes)
		}

		// A library created not public, with a location.
		var created publicAttrs
		data := write("POST", "/libraries", `{"data":{"type":"libraries","attributes":{"name":"Art Library","slug":"art","about_url":"https://library.example.edu/art","public":false,"note":"Opens in the fall; do not announce."}}}`, http.StatusCreated)
		if err := json.Unmarshal(data, &created); err != nil {
			t.Fatal(err)
		}
		a := created.Data.Attributes
		if a.Public == nil || *a.Public || a.AboutURL == nil || *a.AboutURL != "https://library.example.edu/art" || a.Note == nil || *a.Note != "Opens in the fall; do not announce." {
			t.Errorf("created art: %+v", a)
		}
		write("POST", "/libraries/art/locations", `{"data":{"type":"locations","attributes":{"name":"Art Stacks","slug":"stacks","note":"Shelving in progress"}}}`, http.StatusCreated)
		if got := read("/libraries/art.json").Data.Attributes; got.Public == nil || *got.Public || got.Note == nil {
			t.Errorf("art read back: %+v", got)
		}
		if l := listed(); strings.Contains(l, " art ") || strings.Contains(l, " art/stacks ") || !strings.Contains(l, " green ") {
			t.Errorf("the public list holds %s", l)
		}
		var bare listDoc
		e.get(t, "/libraries", http.StatusOK, &bare)
		for _, r := range bare.Data {
			if r.ID == "art" {
				t.Error("GET /libraries lists the library that is not public")
			}
		}
		if page := text("/", http.StatusOK); strings.Contains(page, "Art Library") || !strings.Contains(page, "Green Library") {
			t.Error("the overview shows the library that is not public (or not green)")
		}
		text("/libraries/art.html", http.StatusNotFound)
		text("/libraries/art.ics", http.StatusNotFound)
		text("/libraries/art/locations/stacks.ics", http.StatusNotFound)
		text("/api/v1/library/art/location/stacks/hours/for/today", http.StatusNotFound)
		// Staff still read it where the editor does.
		read("/libraries/art/locations/stacks.json")
		text("/libraries/art/terms.json", http.StatusOK)

		// A location of a public library made not public, with a note.
		data = write("PATCH", "/libraries/law/locations/archives", `{"data":{"type":"locations","id":"law/archives","attributes":{"public":false,"note":"Closed for renovation","about_url":"http://law.example.edu/archives"}}}`, http.StatusOK)
		var arch publicAttrs
		_ = json.Unmarshal(data, &arch)
		if a := arch.Data.Attributes; a.Public == nil || *a.Public || a.Note == nil || *a.Note != "Closed for renovation" || a.AboutURL == nil {
			t.Errorf("archives after PATCH: %+v", a)
		}
		if l := listed(); strings.Contains(l, " law/archives ") || !strings.Contains(l, " law/main ") {
			t.Errorf("the public list holds %s", l)
		}
		if page := text("/libraries/law.html", http.StatusOK); strings.Contains(page, "Law Archives") || !strings.Contains(page, "Reading Room") {
			t.Error("law's page shows the location that is not public (or not the others)")
		}
		if page := text("/", http.StatusOK); strings.Contains(page, "Law Archives") {
			t.Error("the overview shows the location that is not public")
		}
		if ics := text("/libraries/law.ics", http.StatusOK); strings.Contains(ics, "Law Archives") {
			t.Error("law's calendar holds the location that is not public")
		}
		text("/api/v1/library/law/location/archives/hours/for/today", http.StatusNotFound)
		text("/api/v1/library/law/location/main/hours/for/today", http.StatusOK)
		staff := read("/libraries/law.json")
		found := false
		for _, inc := range staff.Included {
			if inc.ID == "law/archives" {
				found = inc.Attributes.Public != nil && !*inc.Attributes.Public
			}
		}
		if !found {
			t.Error("law's own document does not hold archives (public: false) for staff")
		}

		// A change that does not name public leaves it; "" removes the URL.
		write("PATCH", "/libraries/law/locations/archives", `{"data":{"type":"locations","id":"law/archives","attributes":{"name":"Law Archives","about_url":""}}}`, http.StatusOK)
		if a := read("/libraries/law/locations/archives.json").Data.Attributes; a.Public == nil || *a.Public || a.AboutURL != nil || a.Note == nil {
			t.Errorf("archives after a PATCH without public: %+v", a)
		}

		// Refusals: 422 at the attribute, nothing changed.
		for _, bad := range []struct{ body, pointer string }{
			{`{"data":{"type":"libraries","id":"green","attributes":{"about_url":"javascript:alert(1)"}}}`, "/data/attributes/about_url"},
			{`{"data":{"type":"libraries","id":"green","attributes":{"about_url":"ftp://library.example.edu/"}}}`, "/data/attributes/about_url"},
			{`{"data":{"type":"libraries","id":"green","attributes":{"about_url":"/green"}}}`, "/data/attributes/about_url"},
			{`{"data":{"type":"libraries","id":"green","attributes":{"about_url":"https://user:pw@library.example.edu/"}}}`, "/data/attributes/about_url"},
			{`{"data":{"type":"libraries","id":"green","attributes":{"note":"` + strings.Repeat("é", 2001) + `"}}}`, "/data/attributes/note"},
			{`{"data":{"type":"libraries","id":"green","attributes":{"public":"no"}}}`, "/data/attributes/public"},
		} {
			resp, body := e.do(t, req{method: "PATCH", path: "/libraries/green", body: bad.body, token: "admin"})
			expectError(t, resp, body, http.StatusUnprocessableEntity, "", bad.pointer)
		}
		resp, body := e.do(t, req{method: "PATCH", path: "/libraries/law/locations/main", body: `{"data":{"type":"locations","id":"law/main","attributes":{"about_url":"data:text/html,hi"}}}`, token: "admin"})
		expectError(t, resp, body, http.StatusUnprocessableEntity, "", "/data/attributes/about_url")
		d = read("/libraries/green.json")
		if a := d.Data.Attributes; a.AboutURL != nil || a.Note != nil || a.Public == nil || !*a.Public {
			t.Errorf("green changed by refused writes: %+v", a)
		}
		// A note of exactly the limit is taken.
		write("PATCH", "/libraries/green", `{"data":{"type":"libraries","id":"green","attributes":{"note":"`+strings.Repeat("é", 2000)+`"}}}`, http.StatusOK)

		// Made public again, the library is listed.
		write("PATCH", "/libraries/art", `{"data":{"type":"libraries","id":"art","attributes":{"public":true}}}`, http.StatusOK)
		if l := listed(); !strings.Contains(l, " art ") || !strings.Contains(l, " art/stacks ") {
			t.Errorf("art made public is not listed: %s", l)
		}
		// Its page links its about URL.
		if page := text("/libraries/art.html", http.StatusOK); !strings.Contains(page, `<a href="https://library.example.edu/art">About Art Library</a>`) {
			t.Error("art's page does not link its about URL")
		}
	})
}
