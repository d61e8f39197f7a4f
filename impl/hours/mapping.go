package hours

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/hours/schedule"
	"github.com/sitelib/sitesvc/impl/hours/store"
)

// mapping.go converts the domain's values (schedule days, the stored
// libraries and locations as the view holds them) into the generated
// models of api/hours.yaml, which are the read API's documents: the
// contract declares them once, and this file is the only place that knows
// both sides. The documents are encoded once per data version and URL and
// served as prepared bytes (see rendered), so building them here costs
// nothing per request.

var jsonapiDoc = hoursapi.JSONAPIObject{Version: hoursapi.N11}

func toRangeMeta(days schedule.Range) *hoursapi.RangeMeta {
	return &hoursapi.RangeMeta{From: days.From.String(), To: days.To.String()}
}

func toDayHours(d schedule.Day) hoursapi.DayHours {
	out := hoursapi.DayHours{
		Day:       d.Date.String(),
		Weekday:   hoursapi.Weekday(d.Date.Weekday().String()),
		Closed:    d.Closed,
		Open24h:   d.Open24,
		Overnight: d.Overnight,
		Periods:   make([]hoursapi.Period, len(d.Openings)),
		Type:      hoursapi.HoursType(d.Type),
		Notes:     d.Notes,
		RuleId:    d.RuleID,
	}
	for i, o := range d.Openings {
		out.Periods[i] = hoursapi.Period{OpensAt: schedule.FormatTime(o.Opens), ClosesAt: schedule.FormatTime(o.Closes), Overnight: o.Overnight}
	}
	if len(out.Periods) > 0 {
		out.OpensAt = &out.Periods[0].OpensAt
		out.ClosesAt = &out.Periods[0].ClosesAt
	}
	return out
}

func toDaysHours(days []schedule.Day) *[]hoursapi.DayHours {
	out := make([]hoursapi.DayHours, len(days))
	for i, d := range days {
		out[i] = toDayHours(d)
	}
	return &out
}

func toLocationIdentifier(l *locationView) hoursapi.LocationIdentifier {
	return hoursapi.LocationIdentifier{Type: hoursapi.LocationIdentifierTypeLocations, Id: locationKey(l)}
}

// toLocationResource is a location with its hours over days.
func (r renderer) toLocationResource(l *locationView, days schedule.Range) hoursapi.LocationResource {
	res := hoursapi.LocationResource{
		Type: hoursapi.LocationResourceTypeLocations,
		Id:   locationKey(l),
		Attributes: hoursapi.LocationAttributes{
			Name:       l.loc.Name,
			Slug:       l.loc.Slug,
			LocationId: l.loc.ID,
			Primary:    l.loc.Primary,
			KeepsHours: l.loc.KeepsHours,
			AboutUrl:   optional(l.loc.AboutURL),
			Public:     l.loc.Public,
			Note:       optional(l.loc.Note),
			Hours:      toDaysHours(l.hoursRules().Days(days, l.lib.zone)),
		},
		Links: hoursapi.Links{Self: r.locationURL(l.lib.lib.Slug, l.loc.Slug)},
		Meta:  &hoursapi.PeopleLinks{Calendar: r.base + "/libraries/" + l.lib.lib.Slug + "/locations/" + l.loc.Slug + ".ics"},
	}
	res.Relationships.Library.Data = hoursapi.LibraryIdentifier{Type: hoursapi.LibraryIdentifierTypeLibraries, Id: l.lib.lib.Slug}
	return res
}

// toLibraryResource is a library; its hours are those of its primary
// location (already computed in primaryHours when non-nil).
func (r renderer) toLibraryResource(lib *libraryView, days schedule.Range, primaryHours *[]hoursapi.DayHours) hoursapi.LibraryResource {
	res := hoursapi.LibraryResource{
		Type: hoursapi.LibraryResourceTypeLibraries,
		Id:   lib.lib.Slug,
		Attributes: hoursapi.LibraryAttributes{
			Name:     lib.lib.Name,
			Slug:     lib.lib.Slug,
			Timezone: lib.lib.TimeZone,
			AboutUrl: optional(lib.lib.AboutURL),
			Public:   lib.lib.Public,
			Note:     optional(lib.lib.Note),
			Hours:    primaryHours,
		},
		Links: hoursapi.Links{Self: r.libraryURL(lib.lib.Slug)},
		Meta:  &hoursapi.PeopleLinks{Calendar: r.base + "/libraries/" + lib.lib.Slug + ".ics", Page: optional(r.base + "/libraries/" + lib.lib.Slug + ".html")},
	}
	if res.Attributes.Hours == nil && lib.primary != nil {
		res.Attributes.Hours = toDaysHours(lib.primary.hoursRules().Days(days, lib.zone))
	}
	locs := make([]hoursapi.LocationIdentifier, 0, len(lib.locations))
	for _, l := range lib.locations {
		locs = append(locs, toLocationIdentifier(l))
	}
	res.Relationships.Locations.Data = locs
	// A list that leaves the primary location out (it is not public) does
	// not point at it; the library's hours are still the primary's.
	if lib.primary != nil && slices.Contains(lib.locations, lib.primary) {
		id := toLocationIdentifier(lib.primary)
		res.Relationships.PrimaryLocation.Data = &id
	}
	return res
}

// toLegacyHours is the legacy API's records of a day: one per opening
// period; a closed day is one record opening and closing at local
// midnight.
func toLegacyHours(loc *locationView, d schedule.Day) []hoursapi.LegacyHours {
	rec := hoursapi.LegacyHours{
		Id:           d.RuleID,
		Day:          d.Date.String(),
		Weekday:      hoursapi.Weekday(d.Date.Weekday().String()),
		Type:         hoursapi.HoursType(d.Type),
		Notes:        d.Notes,
		LocationSlug: loc.loc.Slug,
		LocationId:   loc.loc.ID,
		Closed:       d.Closed,
	}
	if d.Closed {
		rec.OpensAt = schedule.FormatTime(d.Midnight)
		rec.ClosesAt = rec.OpensAt
		return []hoursapi.LegacyHours{rec}
	}
	out := make([]hoursapi.LegacyHours, len(d.Openings))
	for i, o := range d.Openings {
		out[i] = rec
		out[i].OpensAt = schedule.FormatTime(o.Opens)
		out[i].ClosesAt = schedule.FormatTime(o.Closes)
	}
	return out
}

// errorSource is what a refusal is about (JSON:API 1.1's source members;
// "" for none).
type errorSource struct{ parameter, pointer, header string }

// toErrorDocument is the JSON:API error document of one refusal.
func toErrorDocument(status int, detail string, src errorSource) hoursapi.ErrorDocument {
	obj := hoursapi.ErrorObject{Status: strconv.Itoa(status), Title: http.StatusText(status), Detail: optional(detail)}
	if src != (errorSource{}) {
		obj.Source = &struct {
			Header    *string `json:"header,omitempty"`
			Parameter *string `json:"parameter,omitempty"`
			Pointer   *string `json:"pointer,omitempty"`
		}{Header: optional(src.header), Parameter: optional(src.parameter), Pointer: optional(src.pointer)}
	}
	version := jsonapiDoc
	return hoursapi.ErrorDocument{Jsonapi: &version, Errors: []hoursapi.ErrorObject{obj}}
}

// optional is s, or nil when it is empty (a member left out).
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func toTermResource(lib *libraryView, t store.Term) hoursapi.TermResource {
	res := hoursapi.TermResource{Type: hoursapi.TermResourceTypeTerms, Id: idString(t.ID)}
	res.Attributes.Name, res.Attributes.FirstDay, res.Attributes.LastDay = t.Name, t.First.String(), t.Last.String()
	res.Relationships.Library.Data = hoursapi.LibraryIdentifier{Type: hoursapi.LibraryIdentifierTypeLibraries, Id: lib.lib.Slug}
	return res
}

func toScheduleResource(loc *locationView, sc store.Schedule) hoursapi.ScheduleResource {
	res := hoursapi.ScheduleResource{Type: hoursapi.ScheduleResourceTypeSchedules, Id: idString(sc.ID)}
	res.Relationships.Term.Data = hoursapi.TermIdentifier{Type: hoursapi.TermIdentifierTypeTerms, Id: idString(sc.TermID)}
	res.Relationships.Location.Data = toLocationIdentifier(loc)
	if len(sc.Days) > 0 {
		res.Attributes.Days = sized(res.Attributes.Days, len(sc.Days))
	}
	for i, d := range sc.Days {
		out := &res.Attributes.Days[i]
		out.Weekday = hoursapi.Weekday(d.Weekday.String())
		out.Closed, out.Open24h, out.RuleId = d.Kind == schedule.Closed, d.Kind == schedule.Open24, d.RuleID
		out.Periods = storedPeriods(d.Periods)
	}
	return res
}

func toExceptionResource(loc *locationView, e store.Exception) hoursapi.ExceptionResource {
	res := hoursapi.ExceptionResource{Type: hoursapi.ExceptionResourceTypeExceptions, Id: idString(e.ID)}
	a := &res.Attributes
	a.Day, a.Closed, a.Open24h, a.Periods, a.Notes = e.Day.String(), e.Closed, e.Open24, storedPeriods(e.Periods), e.Notes
	a.HoursType = hoursapi.ExceptionResourceAttributesHoursType(e.Type)
	res.Relationships.Location.Data = toLocationIdentifier(loc)
	return res
}

// storedPeriods is periods in their stored form ("HH:MM-HH:MM"), [] for none.
func storedPeriods(periods []schedule.Period) []string {
	out := schedule.SplitStored(schedule.FormatPeriods(periods))
	if out == nil {
		out = []string{}
	}
	return out
}

// sized is a slice of n zero elements of s's type: the generated models
// declare some lists with element types that have no name.
func sized[S ~[]E, E any](_ S, n int) S { return make(S, n) }
