package page

import (
	"strings"
	"testing"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// TestOverviewStates: the overview says in a few words whether each place
// is open now, with today's hours, at different times of one day.
func TestOverviewStates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		now  time.Time
		want []string
	}{
		{"noon: both open", time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC), []string{
			`<h2 id="library-1"><a href="https://h.test/hours/libraries/green.html">Green Library</a></h2>`,
			`<p class="now"><span class="state open">Open until 5 PM</span></p>`,
			`<p class="today">Today: 9 AM – 5 PM</p>`,
			`<li><span class="loc">Stacks Reading Room</span> <span class="state open">Open until 10 PM</span> <span class="hours">Today: 8 AM – 10 PM</span></li>`,
			`Open now and today’s hours: Wednesday 4 March, noon.`,
		}},
		{"7 AM: opens later today", time.Date(2026, 3, 4, 15, 0, 0, 0, time.UTC), []string{
			`<span class="state">Opens at 9 AM</span>`,
			`<span class="state">Opens at 8 AM</span>`,
		}},
		{"11 PM: closed, opens tomorrow", time.Date(2026, 3, 5, 7, 0, 0, 0, time.UTC), []string{
			`<span class="state">Opens tomorrow 9 AM</span>`,
		}},
		{"holiday: closed today", time.Date(2026, 3, 9, 19, 0, 0, 0, time.UTC), []string{
			`<span class="state">Closed today</span>`,
			`<p class="today">Today: Closed (Holiday)</p>`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			html := renderOverview(t, testPage(t, c.now))
			expectContains(t, "overview", html, c.want...)
			if strings.Contains(html, "time (PST)") {
				t.Error("one library's zone named although no other differs")
			}
		})
	}
}

// TestOverviewZonesAndJSONLD: with libraries in two zones every card names
// its zone and "as of" names the zone most share; the JSON-LD holds a
// Library per library as the library pages do.
func TestOverviewZonesAndJSONLD(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 4, 20, 0, 0, 0, time.UTC)
	p := testPage(t, now)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	east := p.Libraries[0]
	east.Name, east.URL, east.Zone = "Capital Center", "https://h.test/hours/libraries/capital.html", ny
	east.Locations = []Location{east.Locations[0]}
	east.Locations[0].StatusDays = rules(t, "09:00-17:00", nil).Days(schedule.Range{From: date(t, "2026-03-03"), To: date(t, "2026-03-11")}, ny)
	p.Libraries = append(p.Libraries, p.Libraries[0], east)
	p.Libraries[1].Name = "Green Annex"
	html := renderOverview(t, p)
	expectContains(t, "overview", html,
		`<p class="zone">Los Angeles time (PST)</p>`,
		`<p class="zone">New York time (EST)</p>`,
		`Wednesday 4 March, noon Los Angeles time (PST).`,
		`data-search="capital center main library"`,
		`data-search="green library main library stacks reading room"`,
	)
	var ld []struct {
		Type  string `json:"@type"`
		Name  string `json:"name"`
		Hours []any  `json:"openingHoursSpecification"`
	}
	decodeJSONLD(t, html, &ld)
	if len(ld) != 3 || ld[2].Name != "Capital Center" || ld[0].Type != "Library" || len(ld[0].Hours) != 14 {
		t.Errorf("JSON-LD: %+v", ld)
	}
}

func TestShortHours(t *testing.T) {
	t.Parallel()
	z := zone(t)
	for periods, want := range map[string]string{
		"09:00-17:00":             "9 AM – 5 PM",
		"09:00-12:00,13:00-17:00": "9 AM – noon, 1 – 5 PM",
		"08:30-21:00":             "8:30 AM – 9 PM",
		"07:00-02:00":             "7 AM – 2 AM (next day)",
		"10:00-13:00,14:00-20:00": "10 AM – 1 PM, 2 – 8 PM",
		"00:00-12:00":             "midnight – noon",
	} {
		day := rules(t, periods, nil).Days(schedule.Range{From: date(t, "2026-03-04"), To: date(t, "2026-03-04")}, z)[0]
		if got := shortHours(day, z); got != want {
			t.Errorf("%s: %q, want %q", periods, got, want)
		}
	}
}
