package hours

import (
	"net/url"
	"strconv"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// The JSON:API documents of the read API, shaped exactly as api/hours.yaml
// declares them (tests validate every response against it).

type jsonapiObject struct {
	Version string `json:"version"`
}

var jsonapiVersion = jsonapiObject{Version: "1.1"}

type selfLinks struct {
	Self string `json:"self"`
}

type rangeMeta struct {
	From string `json:"from"`
	To   string `json:"to"`
}

type identifier struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

type periodJSON struct {
	OpensAt   string `json:"opens_at"`
	ClosesAt  string `json:"closes_at"`
	Overnight bool   `json:"overnight"`
}

type dayJSON struct {
	Day       string       `json:"day"`
	Weekday   string       `json:"weekday"`
	Closed    bool         `json:"closed"`
	Open24    bool         `json:"open_24h"`
	Overnight bool         `json:"overnight"`
	OpensAt   *string      `json:"opens_at"`
	ClosesAt  *string      `json:"closes_at"`
	Periods   []periodJSON `json:"periods"`
	Type      string       `json:"type"`
	Notes     string       `json:"notes"`
	RuleID    int64        `json:"rule_id"`
}

type libraryAttributes struct {
	Name     string    `json:"name"`
	Slug     string    `json:"slug"`
	TimeZone string    `json:"timezone"`
	Hours    []dayJSON `json:"hours,omitempty"`
}

type toMany struct {
	Data []identifier `json:"data"`
}

type toOne struct {
	Data *identifier `json:"data"`
}

type libraryRelationships struct {
	Locations       toMany `json:"locations"`
	PrimaryLocation toOne  `json:"primary_location"`
}

type libraryResource struct {
	Type          string               `json:"type"`
	ID            string               `json:"id"`
	Attributes    libraryAttributes    `json:"attributes"`
	Relationships libraryRelationships `json:"relationships"`
	Links         selfLinks            `json:"links"`
	Meta          peopleLinks          `json:"meta"`
}

// peopleLinks is where people see and subscribe to a resource's hours
// (issue 15). In meta: JSON:API 1.0's schema allows only self in a
// resource's links.
type peopleLinks struct {
	Calendar string `json:"calendar"`
	Page     string `json:"page,omitempty"`
}

type locationAttributes struct {
	Name       string    `json:"name"`
	Slug       string    `json:"slug"`
	LocationID int64     `json:"location_id"`
	Primary    bool      `json:"primary"`
	KeepsHours bool      `json:"keeps_hours"`
	Hours      []dayJSON `json:"hours"`
}

type locationRelationships struct {
	Library toOne `json:"library"`
}

type locationResource struct {
	Type          string                `json:"type"`
	ID            string                `json:"id"`
	Attributes    locationAttributes    `json:"attributes"`
	Relationships locationRelationships `json:"relationships"`
	Links         selfLinks             `json:"links"`
	Meta          peopleLinks           `json:"meta"`
}

type librariesDocument struct {
	JSONAPI  jsonapiObject      `json:"jsonapi"`
	Links    selfLinks          `json:"links"`
	Meta     *rangeMeta         `json:"meta,omitempty"`
	Data     []libraryResource  `json:"data"`
	Included []locationResource `json:"included"`
}

type libraryDocument struct {
	JSONAPI  jsonapiObject      `json:"jsonapi"`
	Links    selfLinks          `json:"links"`
	Meta     *rangeMeta         `json:"meta,omitempty"`
	Data     libraryResource    `json:"data"`
	Included []locationResource `json:"included"`
}

type locationDocument struct {
	JSONAPI  jsonapiObject     `json:"jsonapi"`
	Links    selfLinks         `json:"links"`
	Meta     *rangeMeta        `json:"meta,omitempty"`
	Data     locationResource  `json:"data"`
	Included []libraryResource `json:"included"`
}

// legacyRecord is the legacy API's record: exactly the seed's ten fields.
type legacyRecord struct {
	ID           int64  `json:"id"`
	Day          string `json:"day"`
	Weekday      string `json:"weekday"`
	OpensAt      string `json:"opens_at"`
	ClosesAt     string `json:"closes_at"`
	Type         string `json:"type"`
	Notes        string `json:"notes"`
	LocationSlug string `json:"location_slug"`
	LocationID   int64  `json:"location_id"`
	Closed       bool   `json:"closed"`
}

// renderer builds documents with links under the service's base URL.
type renderer struct {
	base string
}

func (r renderer) libraryURL(slug string) string { return r.base + "/libraries/" + slug + ".json" }

func (r renderer) locationURL(lib, loc string) string {
	return r.base + "/libraries/" + lib + "/locations/" + loc + ".json"
}

// withRange appends the request's from/to to a link.
func withRange(link, from, to string) string {
	q := url.Values{}
	if from != "" {
		q.Set("from", from)
	}
	if to != "" {
		q.Set("to", to)
	}
	if len(q) == 0 {
		return link
	}
	return link + "?" + q.Encode()
}

func locationKey(l *locationView) string { return l.lib.lib.Slug + "/" + l.loc.Slug }

func dayDoc(d schedule.Day) dayJSON {
	out := dayJSON{
		Day:       d.Date.String(),
		Weekday:   d.Date.Weekday().String(),
		Closed:    d.Closed,
		Open24:    d.Open24,
		Overnight: d.Overnight,
		Periods:   make([]periodJSON, len(d.Openings)),
		Type:      d.Type,
		Notes:     d.Notes,
		RuleID:    d.RuleID,
	}
	for i, o := range d.Openings {
		out.Periods[i] = periodJSON{OpensAt: schedule.FormatTime(o.Opens), ClosesAt: schedule.FormatTime(o.Closes), Overnight: o.Overnight}
	}
	if len(out.Periods) > 0 {
		out.OpensAt = &out.Periods[0].OpensAt
		out.ClosesAt = &out.Periods[0].ClosesAt
	}
	return out
}

func daysDoc(days []schedule.Day) []dayJSON {
	out := make([]dayJSON, len(days))
	for i, d := range days {
		out[i] = dayDoc(d)
	}
	return out
}

// rangeFor is the explicit range, or the current week in the library's zone.
func rangeFor(lib *libraryView, explicit bool, r schedule.Range, now time.Time) schedule.Range {
	if explicit {
		return r
	}
	return schedule.Week(schedule.Today(now, lib.zone))
}

func (r renderer) location(l *locationView, days schedule.Range) locationResource {
	return locationResource{
		Type: "locations",
		ID:   locationKey(l),
		Attributes: locationAttributes{
			Name:       l.loc.Name,
			Slug:       l.loc.Slug,
			LocationID: l.loc.ID,
			Primary:    l.loc.Primary,
			KeepsHours: l.loc.KeepsHours,
			Hours:      daysDoc(l.hoursRules().Days(days, l.lib.zone)),
		},
		Relationships: locationRelationships{Library: toOne{Data: &identifier{Type: "libraries", ID: l.lib.lib.Slug}}},
		Links:         selfLinks{Self: r.locationURL(l.lib.lib.Slug, l.loc.Slug)},
		Meta:          peopleLinks{Calendar: r.base + "/libraries/" + l.lib.lib.Slug + "/locations/" + l.loc.Slug + ".ics"},
	}
}

// library is the library resource; its hours are those of its primary
// location (already computed in primaryHours when non-nil).
func (r renderer) library(lib *libraryView, days schedule.Range, primaryHours []dayJSON) libraryResource {
	res := libraryResource{
		Type: "libraries",
		ID:   lib.lib.Slug,
		Attributes: libraryAttributes{
			Name:     lib.lib.Name,
			Slug:     lib.lib.Slug,
			TimeZone: lib.lib.TimeZone,
			Hours:    primaryHours,
		},
		Relationships: libraryRelationships{Locations: toMany{Data: make([]identifier, 0, len(lib.locations))}},
		Links:         selfLinks{Self: r.libraryURL(lib.lib.Slug)},
		Meta:          peopleLinks{Calendar: r.base + "/libraries/" + lib.lib.Slug + ".ics", Page: r.base + "/libraries/" + lib.lib.Slug + ".html"},
	}
	if res.Attributes.Hours == nil && lib.primary != nil {
		res.Attributes.Hours = daysDoc(lib.primary.hoursRules().Days(days, lib.zone))
	}
	for _, l := range lib.locations {
		res.Relationships.Locations.Data = append(res.Relationships.Locations.Data, identifier{Type: "locations", ID: locationKey(l)})
	}
	if lib.primary != nil {
		res.Relationships.PrimaryLocation.Data = &identifier{Type: "locations", ID: locationKey(lib.primary)}
	}
	return res
}

// libraryWithLocations renders a library and its locations, computing the
// primary location's days once.
func (r renderer) libraryWithLocations(lib *libraryView, days schedule.Range) (libraryResource, []locationResource) {
	locs := make([]locationResource, 0, len(lib.locations))
	var primaryHours []dayJSON
	for _, l := range lib.locations {
		res := r.location(l, days)
		if l == lib.primary {
			primaryHours = res.Attributes.Hours
		}
		locs = append(locs, res)
	}
	return r.library(lib, days, primaryHours), locs
}

func (r renderer) libraries(v *view, explicit bool, rng schedule.Range, now time.Time, from, to string) librariesDocument {
	doc := librariesDocument{
		JSONAPI:  jsonapiVersion,
		Links:    selfLinks{Self: withRange(r.base+"/libraries.json", from, to)},
		Data:     make([]libraryResource, 0, len(v.libraries)),
		Included: []locationResource{},
	}
	var shared *rangeMeta
	same := true
	for _, lib := range v.libraries {
		days := rangeFor(lib, explicit, rng, now)
		m := &rangeMeta{From: days.From.String(), To: days.To.String()}
		if shared == nil {
			shared = m
		} else if *shared != *m {
			same = false
		}
		res, locs := r.libraryWithLocations(lib, days)
		doc.Data = append(doc.Data, res)
		doc.Included = append(doc.Included, locs...)
	}
	// Without dates each library has its own current week; meta states the
	// range only when it is the same for all.
	if same {
		doc.Meta = shared
	}
	return doc
}

func (r renderer) libraryDoc(lib *libraryView, explicit bool, rng schedule.Range, now time.Time, from, to string) libraryDocument {
	days := rangeFor(lib, explicit, rng, now)
	res, locs := r.libraryWithLocations(lib, days)
	return libraryDocument{
		JSONAPI:  jsonapiVersion,
		Links:    selfLinks{Self: withRange(r.libraryURL(lib.lib.Slug), from, to)},
		Meta:     &rangeMeta{From: days.From.String(), To: days.To.String()},
		Data:     res,
		Included: locs,
	}
}

func (r renderer) locationDoc(loc *locationView, explicit bool, rng schedule.Range, now time.Time, from, to string) locationDocument {
	days := rangeFor(loc.lib, explicit, rng, now)
	return locationDocument{
		JSONAPI:  jsonapiVersion,
		Links:    selfLinks{Self: withRange(r.locationURL(loc.lib.lib.Slug, loc.loc.Slug), from, to)},
		Meta:     &rangeMeta{From: days.From.String(), To: days.To.String()},
		Data:     r.location(loc, days),
		Included: []libraryResource{r.library(loc.lib, days, nil)},
	}
}

// legacyRecords is one record per opening period; a closed day is one
// record opening and closing at local midnight.
func legacyRecords(loc *locationView, d schedule.Day) []legacyRecord {
	rec := legacyRecord{
		ID:           d.RuleID,
		Day:          d.Date.String(),
		Weekday:      d.Date.Weekday().String(),
		Type:         d.Type,
		Notes:        d.Notes,
		LocationSlug: loc.loc.Slug,
		LocationID:   loc.loc.ID,
		Closed:       d.Closed,
	}
	if d.Closed {
		rec.OpensAt = schedule.FormatTime(d.Midnight)
		rec.ClosesAt = rec.OpensAt
		return []legacyRecord{rec}
	}
	out := make([]legacyRecord, len(d.Openings))
	for i, o := range d.Openings {
		out[i] = rec
		out[i].OpensAt = schedule.FormatTime(o.Opens)
		out[i].ClosesAt = schedule.FormatTime(o.Closes)
	}
	return out
}

// idString formats a numeric resource id.
func idString(id int64) string { return strconv.FormatInt(id, 10) }
