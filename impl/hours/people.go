package hours

// Hours for people (issue 15.3, 15.4): the HTML page (impl/hours/page) and
// the iCalendar feeds (impl/hours/ical), built from the current view. The
// operations are hoursPage, libraryPage, libraryCalendar and
// locationCalendar in api/hours.yaml.

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"time"

	"github.com/sitelib/sitesvc/gen/hoursapi"
	"github.com/sitelib/sitesvc/impl/apiserve"
	"github.com/sitelib/sitesvc/impl/hours/ical"
	"github.com/sitelib/sitesvc/impl/hours/page"
	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// A feed covers feedWeeksBefore weeks before the current one (so a
// subscriber still sees last week's hours) to feedWeeksAfter weeks after
// it: about half a year, which calendar clients re-read every
// feedRefresh.
const (
	feedWeeksBefore = 4
	feedWeeksAfter  = 26
	feedRefresh     = 12 * time.Hour
)

func (s *Service) pageURL() string { return s.cfg.BaseURL + "/" }

func (s *Service) libraryPageURL(slug string) string {
	return s.cfg.BaseURL + "/libraries/" + slug + ".html"
}

func (s *Service) libraryCalendarURL(slug string) string {
	return s.cfg.BaseURL + "/libraries/" + slug + ".ics"
}

func (s *Service) locationCalendarURL(lib, loc string) string {
	return s.cfg.BaseURL + "/libraries/" + lib + "/locations/" + loc + ".ics"
}

// pageWeek is the Sunday of the first week a page shows: the week holding
// from, or the current week in zone.
func pageWeek(from *string, now time.Time, zone *time.Location) (schedule.Date, error) {
	if from == nil || *from == "" {
		return schedule.Week(schedule.Today(now, zone)).From, nil
	}
	d, err := schedule.ParseDate(*from)
	if err != nil {
		return schedule.Date{}, &apiserve.Error{Status: http.StatusBadRequest, Message: `query parameter "from": ` + err.Error(), Parameter: "from", Err: err}
	}
	return schedule.Week(d).From, nil
}

// defaultZone is the zone of the index page's weeks when no library is
// shown (DESIGN: the default library zone).
const defaultZone = "America/Los_Angeles"

// HoursPage is GET / (every library).
func (s *Service) HoursPage(ctx context.Context, req hoursapi.HoursPageRequestObject) (hoursapi.HoursPageResponseObject, error) {
	now := s.cfg.Now()
	key := "page||" + deref(req.Params.From) + "|" + s.quarterKey(now)
	return s.read(ctx, key, func(v *view) (*rendered, error) {
		zone, err := time.LoadLocation(defaultZone)
		if err != nil {
			return nil, err
		}
		if len(v.public) > 0 {
			zone = v.public[0].zone
		}
		from, err := pageWeek(req.Params.From, now, zone)
		if err != nil {
			return nil, err
		}
		p := s.pageOf("Library hours", v.public, from, now, zone, s.pageURL())
		p.JSONURL = s.cfg.BaseURL + "/libraries.json"
		p.EditorURL = s.cfg.BaseURL + editorPrefix
		if req.Params.From != nil && *req.Params.From != "" {
			// The overview is about now; a week asked for is the week each
			// library's link opens (and the weeks of the JSON-LD).
			for i := range p.Libraries {
				p.Libraries[i].URL += "?" + url.Values{"from": {from.String()}}.Encode()
			}
		}
		var b bytes.Buffer
		if err := page.RenderOverview(&b, p); err != nil {
			return nil, err
		}
		return renderedBytes(b.Bytes(), page.ContentType), nil
	})
}

// LibraryPage is GET /libraries/{library_id}.html.
func (s *Service) LibraryPage(ctx context.Context, req hoursapi.LibraryPageRequestObject) (hoursapi.LibraryPageResponseObject, error) {
	return s.libraryPage(ctx, req.LibraryId, req.Params.From)
}

func (s *Service) libraryPage(ctx context.Context, slug string, fromParam *string) (*hoursapi.Respond, error) {
	now := s.cfg.Now()
	key := "page|" + slug + "|" + deref(fromParam) + "|" + s.quarterKey(now)
	return s.read(ctx, key, func(v *view) (*rendered, error) {
		lib := v.publicLibrary(slug)
		if lib == nil {
			return nil, libraryNotFound(slug)
		}
		from, err := pageWeek(fromParam, now, lib.zone)
		if err != nil {
			return nil, err
		}
		p := s.pageOf(lib.lib.Name+" hours", []*libraryView{lib}, from, now, lib.zone, s.libraryPageURL(lib.lib.Slug))
		p.JSONURL = s.rend.libraryURL(lib.lib.Slug)
		p.ICSURL = s.libraryCalendarURL(lib.lib.Slug)
		p.IndexURL = s.pageURL()
		return s.renderPage(p)
	})
}

func (s *Service) renderPage(p page.Page) (*rendered, error) {
	var b bytes.Buffer
	if err := page.Render(&b, p); err != nil {
		return nil, err
	}
	return renderedBytes(b.Bytes(), page.ContentType), nil
}

// pageOf builds the page model of libs for the weeks from from; self is
// the page's URL without query (week links add ?from=).
func (s *Service) pageOf(title string, libs []*libraryView, from schedule.Date, now time.Time, zone *time.Location, self string) page.Page {
	weekLink := func(d schedule.Date) string { return self + "?" + url.Values{"from": {d.String()}}.Encode() }
	p := page.Page{
		Title:   title,
		Now:     now,
		From:    from,
		PrevURL: weekLink(from.AddDays(-7)),
		NextURL: weekLink(from.AddDays(7)),
	}
	if current := schedule.Week(schedule.Today(now, zone)).From; current != from {
		p.ThisWeekURL = self
	}
	shown := schedule.Range{From: from, To: from.AddDays(7*page.WeeksShown - 1)}
	for _, lib := range libs {
		today := schedule.Today(now, lib.zone)
		around := schedule.Range{From: today.AddDays(-1), To: today.AddDays(7)}
		pl := page.Library{
			Name:     lib.lib.Name,
			URL:      s.libraryPageURL(lib.lib.Slug),
			JSONURL:  s.rend.libraryURL(lib.lib.Slug),
			ICSURL:   s.libraryCalendarURL(lib.lib.Slug),
			AboutURL: lib.lib.AboutURL,
			Zone:     lib.zone,
		}
		for _, loc := range lib.locations {
			rules := loc.hoursRules()
			pl.Locations = append(pl.Locations, page.Location{
				Name:          loc.loc.Name,
				JSONURL:       s.rend.locationURL(lib.lib.Slug, loc.loc.Slug),
				ICSURL:        s.locationCalendarURL(lib.lib.Slug, loc.loc.Slug),
				AboutURL:      loc.loc.AboutURL,
				Primary:       loc == lib.primary,
				SameAsPrimary: !loc.loc.KeepsHours && lib.primary != nil && loc != lib.primary,
				Days:          rules.Days(shown, lib.zone),
				StatusDays:    rules.Days(around, lib.zone),
			})
		}
		p.Libraries = append(p.Libraries, pl)
	}
	return p
}

// feedRange is the span of days a feed covers.
func feedRange(now time.Time, zone *time.Location) schedule.Range {
	week := schedule.Week(schedule.Today(now, zone)).From
	return schedule.Range{From: week.AddDays(-7 * feedWeeksBefore), To: week.AddDays(7*(feedWeeksAfter+1) - 1)}
}

func (s *Service) uidDomain() string {
	if u, err := url.Parse(s.cfg.BaseURL); err == nil && u.Hostname() != "" {
		return u.Hostname()
	}
	return "sitesvc"
}

func (s *Service) feed(name, self string, lib *libraryView, locs []*locationView, now time.Time) (*rendered, error) {
	rng := feedRange(now, lib.zone)
	f := ical.Feed{
		Name:            name,
		URL:             self,
		UIDDomain:       s.uidDomain(),
		Zone:            lib.zone,
		Stamp:           schedule.LocalTime(rng.From, 0, lib.zone).UTC(),
		RefreshInterval: feedRefresh,
	}
	for _, loc := range locs {
		f.Sources = append(f.Sources, ical.Source{
			Name:     lib.lib.Name + ", " + loc.loc.Name,
			UIDScope: lib.lib.Slug + "/" + loc.loc.Slug,
			Days:     loc.hoursRules().Days(rng, lib.zone),
		})
	}
	body, err := ical.Write(f)
	if err != nil {
		return nil, err
	}
	return renderedBytes(body, ical.ContentType), nil
}

// LibraryCalendar is GET /libraries/{library_id}.ics: every location that
// keeps its own hours (the others have the primary location's).
func (s *Service) LibraryCalendar(ctx context.Context, req hoursapi.LibraryCalendarRequestObject) (hoursapi.LibraryCalendarResponseObject, error) {
	now := s.cfg.Now()
	return s.read(ctx, "ics|"+req.LibraryId+"|"+s.quarterKey(now), func(v *view) (*rendered, error) {
		lib := v.publicLibrary(req.LibraryId)
		if lib == nil {
			return nil, libraryNotFound(req.LibraryId)
		}
		var locs []*locationView
		for _, loc := range lib.locations {
			if loc.loc.KeepsHours || loc == lib.primary {
				locs = append(locs, loc)
			}
		}
		return s.feed(lib.lib.Name+" hours", s.libraryCalendarURL(lib.lib.Slug), lib, locs, now)
	})
}

// LocationCalendar is GET /libraries/{library_id}/locations/{location_id}.ics.
func (s *Service) LocationCalendar(ctx context.Context, req hoursapi.LocationCalendarRequestObject) (hoursapi.LocationCalendarResponseObject, error) {
	now := s.cfg.Now()
	return s.read(ctx, "ics|"+req.LibraryId+"|"+req.LocationId+"|"+s.quarterKey(now), func(v *view) (*rendered, error) {
		loc, err := publicLocationIn(v, req.LibraryId, req.LocationId)
		if err != nil {
			return nil, err
		}
		lib := loc.lib
		return s.feed(lib.lib.Name+", "+loc.loc.Name+" hours", s.locationCalendarURL(lib.lib.Slug, loc.loc.Slug), lib, []*locationView{loc}, now)
	})
}
