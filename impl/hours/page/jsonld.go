package page

import (
	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// schema.org structures for search engines: a Library per library with an
// OpeningHoursSpecification per opening of each day shown (validFrom =
// validThrough = that date, so holidays and special hours are exact), a
// closed day as opens = closes = 00:00 (schema.org's way to say closed),
// and each other location that keeps hours as a department. A library's or
// location's own web page (about_url) is its sameAs: url stays this page.

type orgLD struct {
	Context    string      `json:"@context,omitempty"`
	Type       string      `json:"@type"`
	Name       string      `json:"name"`
	URL        string      `json:"url,omitempty"`
	SameAs     string      `json:"sameAs,omitempty"`
	Hours      []openingLD `json:"openingHoursSpecification,omitempty"`
	Department []orgLD     `json:"department,omitempty"`
}

type openingLD struct {
	Type         string `json:"@type"`
	DayOfWeek    string `json:"dayOfWeek"`
	Opens        string `json:"opens"`
	Closes       string `json:"closes"`
	ValidFrom    string `json:"validFrom"`
	ValidThrough string `json:"validThrough"`
	Description  string `json:"description,omitempty"`
}

func jsonLD(lib Library, primary *Location) any {
	org := orgLD{Context: "https://schema.org", Type: "Library", Name: lib.Name, URL: lib.URL, SameAs: lib.AboutURL}
	if primary == nil && len(lib.Locations) > 0 {
		primary = &lib.Locations[0]
	}
	if primary != nil {
		org.Hours = openingHours(primary.Days, lib)
	}
	for i := range lib.Locations {
		loc := &lib.Locations[i]
		if loc == primary || loc.SameAsPrimary {
			continue
		}
		org.Department = append(org.Department, orgLD{Type: "Library", Name: loc.Name, SameAs: loc.AboutURL, Hours: openingHours(loc.Days, lib)})
	}
	return org
}

func openingHours(days []schedule.Day, lib Library) []openingLD {
	var out []openingLD
	for _, d := range days {
		base := openingLD{
			Type:         "OpeningHoursSpecification",
			DayOfWeek:    "https://schema.org/" + d.Date.Weekday().String(),
			ValidFrom:    d.Date.String(),
			ValidThrough: d.Date.String(),
			Description:  d.Notes,
		}
		switch {
		case d.Closed:
			base.Opens, base.Closes = "00:00", "00:00"
			out = append(out, base)
		case d.Open24:
			base.Opens, base.Closes = "00:00", "23:59"
			out = append(out, base)
		default:
			for _, o := range d.Openings {
				spec := base
				spec.Opens = o.Opens.In(lib.Zone).Format("15:04")
				spec.Closes = o.Closes.In(lib.Zone).Format("15:04")
				out = append(out, spec)
			}
		}
	}
	return out
}
