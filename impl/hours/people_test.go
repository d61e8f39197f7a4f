package hours_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/page/browsercheck"
	"github.com/sitelib/sitesvc/impl/testkit"
)

// TestPeoplePages reads the HTML pages through the service.
func TestPeoplePages(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		resp, body := e.do(t, req{path: "/"})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("GET /: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		html := string(body)
		for _, want := range []string{
			"<title>Library hours</title>",
			`<a href="http://hours.test/hours/libraries/green.html">Green Library</a>`,
			// Noon on Wednesday 4 March in Los Angeles (issue 19.4: the
			// overview says what is open now and today's hours).
			`Open now and today’s hours: Wednesday 4 March, noon Los Angeles time (PST).`,
			`<p class="zone">New York time (EST)</p>`,
			`<li><span class="loc">Bender Room (24 hours)</span> <span class="state open">Open 24 hours</span> <span class="hours">Today: Open 24 hours</span></li>`,
			`<input id="filter" type="search"`,
			`<a href="http://hours.test/hours/admin/">Staff: edit hours</a>`,
			`<script type="application/ld+json">`,
		} {
			if !strings.Contains(html, want) {
				t.Errorf("GET / lacks %s", want)
			}
		}
		etag := resp.Header.Get("ETag")
		if resp, _ := e.do(t, req{path: "/", headers: []string{"If-None-Match", etag}}); resp.StatusCode != http.StatusNotModified {
			t.Errorf("GET / with its ETag: %d, want 304", resp.StatusCode)
		}

		// A week asked for on the overview is the week its links open.
		_, body = e.do(t, req{path: "/?from=2026-03-10"})
		if !strings.Contains(string(body), `<a href="http://hours.test/hours/libraries/green.html?from=2026-03-08">Green Library</a>`) {
			t.Error("GET /?from=2026-03-10 does not link Green Library's week of 8 March")
		}

		resp, body = e.do(t, req{path: "/libraries/green.html?from=2026-03-10"})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET /libraries/green.html: %d %s", resp.StatusCode, body)
		}
		html = string(body)
		for _, want := range []string{
			"<title>Green Library hours</title>",
			"<p>Opening hours for 8 – 21 March 2026.</p>",
			`<a href="http://hours.test/hours/libraries/green.html">This week</a>`,
			`<a rel="prev" href="http://hours.test/hours/libraries/green.html?from=2026-03-01">`,
			`<link rel="alternate" type="text/calendar" title="Green Library hours (calendar)" href="http://hours.test/hours/libraries/green.ics">`,
		} {
			if !strings.Contains(html, want) {
				t.Errorf("GET /libraries/green.html lacks %s", want)
			}
		}
		if strings.Contains(html, "Law Library") {
			t.Error("a library's page shows another library")
		}

		resp, body = e.do(t, req{path: "/libraries/nowhere.html"})
		expectError(t, resp, body, http.StatusNotFound, "library_id", "")
		resp, body = e.do(t, req{path: "/libraries/green.html?from=2026-02-30"})
		expectError(t, resp, body, http.StatusBadRequest, "from", "")
	})
}

// TestCalendarFeeds reads the feeds through the service and has Debian's
// python3-icalendar parse them: every opening of the Reference Desk across
// the spring-forward of 8 March 2026 is at the instants the JSON:API says.
func TestCalendarFeeds(t *testing.T) {
	eachBackend(t, func(t *testing.T, e *env) {
		resp, body := e.do(t, req{path: "/libraries/green/locations/reference.ics"})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/calendar; charset=utf-8" || resp.Header.Get("ETag") == "" {
			t.Fatalf("GET reference.ics: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("ETag"))
		}
		if r, _ := e.do(t, req{path: "/libraries/green/locations/reference.ics", headers: []string{"If-None-Match", resp.Header.Get("ETag")}}); r.StatusCode != http.StatusNotModified {
			t.Errorf("feed with its ETag: %d, want 304", r.StatusCode)
		}
		out := testkit.ReadICalendar(t, "python3-icalendar", body)
		events := map[string][2]string{} // UID → start, end (UTC)
		for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			f := strings.Split(line, "\t")
			events[f[0]] = [2]string{f[1], f[2]}
		}
		var doc struct {
			Data struct {
				Attributes struct {
					Hours []dayDoc `json:"hours"`
				} `json:"attributes"`
				Meta struct {
					Calendar string `json:"calendar"`
				} `json:"meta"`
			} `json:"data"`
		}
		e.get(t, "/libraries/green/locations/reference.json?from=2026-03-06&to=2026-03-10", http.StatusOK, &doc)
		if doc.Data.Meta.Calendar != "http://hours.test/hours/libraries/green/locations/reference.ics" {
			t.Errorf("meta.calendar = %q", doc.Data.Meta.Calendar)
		}
		checked := 0
		for _, d := range doc.Data.Attributes.Hours {
			for i, p := range d.Periods {
				uid := d.Day + ".green.reference." + string(rune('0'+i)) + "@hours.test"
				got, ok := events[uid]
				if !ok {
					t.Errorf("no event %s in the feed", uid)
					continue
				}
				if want := utc(t, p.OpensAt); got[0] != want {
					t.Errorf("%s starts %s, JSON:API says %s", uid, got[0], want)
				}
				if want := utc(t, p.ClosesAt); got[1] != want {
					t.Errorf("%s ends %s, JSON:API says %s", uid, got[1], want)
				}
				checked++
			}
		}
		if checked < 3 {
			t.Errorf("only %d openings compared: the sample data changed?", checked)
		}

		resp, body = e.do(t, req{path: "/libraries/green.ics"})
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "X-WR-CALNAME:Green Library hours\r\n") || !strings.Contains(string(body), "LOCATION:Green Library\\, Reference Desk\r\n") {
			t.Errorf("GET /libraries/green.ics: %d\n%.400s", resp.StatusCode, body)
		}
		resp, body = e.do(t, req{path: "/libraries/green/locations/nowhere.ics"})
		expectError(t, resp, body, http.StatusNotFound, "location_id", "")
	})
}

func utc(t *testing.T, s string) string {
	t.Helper()
	tm, err := time.Parse("2006-01-02T15:04:05.000-07:00", s)
	if err != nil {
		t.Fatal(err)
	}
	return tm.UTC().Format("2006-01-02T15:04:05Z")
}

// TestPagesInBrowser checks the service's real pages (the sample data:
// seven libraries, long names, 24-hour rooms, lunch breaks) in headless
// Chromium at 390 px with axe-core. (The overview, which has a script for
// its filter box, is TestOverviewAtAGlance's.)
func TestPagesInBrowser(t *testing.T) {
	t.Parallel()
	e := newEnv(t, storetestSQLite(t), testNow)
	ctx := browsercheck.Phone(t)
	for _, path := range []string{"/libraries/green.html", "/libraries/law.html?from=2026-12-24"} {
		browsercheck.Check(ctx, t, e.srv.URL+path)
	}
}
