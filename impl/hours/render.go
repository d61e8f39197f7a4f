package hours

import (
	"net/url"
	"strconv"
	"time"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// Every document the service sends is a generated model of api/hours.yaml,
// built in mapping.go; the renderer assembles the read API's documents
// from them.

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

// rangeFor is the explicit range, or the current week in the library's zone.
func rangeFor(lib *libraryView, explicit bool, r schedule.Range, now time.Time) schedule.Range {
	if explicit {
		return r
	}
	return schedule.Week(schedule.Today(now, lib.zone))
}

// libraryWithLocations renders a library and its locations, computing the
// primary location's days once.
func (r renderer) libraryWithLocations(lib *libraryView, days schedule.Range) (hoursapi.LibraryResource, []hoursapi.LocationResource) {
	locs := make([]hoursapi.LocationResource, 0, len(lib.locations))
	var primaryHours *[]hoursapi.DayHours
	for _, l := range lib.locations {
		res := r.toLocationResource(l, days)
		if l == lib.primary {
			primaryHours = res.Attributes.Hours
		}
		locs = append(locs, res)
	}
	return r.toLibraryResource(lib, days, primaryHours), locs
}

func (r renderer) libraries(v *view, explicit bool, rng schedule.Range, now time.Time, from, to string) hoursapi.LibrariesDocument {
	doc := hoursapi.LibrariesDocument{
		Jsonapi:  jsonapiDoc,
		Links:    hoursapi.Links{Self: withRange(r.base+"/libraries.json", from, to)},
		Data:     make([]hoursapi.LibraryResource, 0, len(v.public)),
		Included: []hoursapi.LocationResource{},
	}
	var shared *hoursapi.RangeMeta
	same := true
	for _, lib := range v.public { // the public list: docs/hours.md, "Public and not public"
		days := rangeFor(lib, explicit, rng, now)
		m := toRangeMeta(days)
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

func (r renderer) libraryDoc(lib *libraryView, explicit bool, rng schedule.Range, now time.Time, from, to string) hoursapi.LibraryDocument {
	days := rangeFor(lib, explicit, rng, now)
	res, locs := r.libraryWithLocations(lib, days)
	return hoursapi.LibraryDocument{
		Jsonapi:  jsonapiDoc,
		Links:    hoursapi.Links{Self: withRange(r.libraryURL(lib.lib.Slug), from, to)},
		Meta:     toRangeMeta(days),
		Data:     res,
		Included: locs,
	}
}

func (r renderer) locationDoc(loc *locationView, explicit bool, rng schedule.Range, now time.Time, from, to string) hoursapi.LocationDocument {
	days := rangeFor(loc.lib, explicit, rng, now)
	return hoursapi.LocationDocument{
		Jsonapi:  jsonapiDoc,
		Links:    hoursapi.Links{Self: withRange(r.locationURL(loc.lib.lib.Slug, loc.loc.Slug), from, to)},
		Meta:     toRangeMeta(days),
		Data:     r.toLocationResource(loc, days),
		Included: []hoursapi.LibraryResource{r.toLibraryResource(loc.lib, days, nil)},
	}
}

// idString formats a numeric resource id.
func idString(id int64) string { return strconv.FormatInt(id, 10) }
