package hours

import (
	"fmt"
	"sort"
	"time"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
	"github.com/sitelib/sitesvc/impl/hours/store"
)

// view is a store snapshot indexed for reading: libraries by current and
// former slug, each with its zone, locations and their resolved rules.
type view struct {
	snap      *store.Snapshot
	libraries []*libraryView // by slug
	bySlug    map[string]*libraryView
	byID      map[int64]*libraryView
	// public is what the public lists and pages show (docs/hours.md,
	// "Public and not public"): the public libraries, each a copy holding
	// only its public locations; publicByID indexes them.
	public     []*libraryView
	publicByID map[int64]*libraryView
}

type libraryView struct {
	lib       store.Library
	zone      *time.Location
	locations []*locationView // primary first, then by slug
	primary   *locationView
	bySlug    map[string]*locationView
}

type locationView struct {
	loc   store.Location
	lib   *libraryView
	rules *schedule.LocationRules
}

// hoursRules is the rules that decide the location's days: its own, or its
// library's primary location's when it does not keep hours.
func (l *locationView) hoursRules() *schedule.LocationRules {
	if !l.loc.KeepsHours && l.lib.primary != nil && l.lib.primary != l {
		return l.lib.primary.rules
	}
	return l.rules
}

func newView(snap *store.Snapshot) (*view, error) {
	v := &view{snap: snap, bySlug: map[string]*libraryView{}, byID: map[int64]*libraryView{}}
	terms := map[int64][]schedule.Term{}
	for _, t := range snap.Terms {
		terms[t.LibraryID] = append(terms[t.LibraryID], schedule.Term{ID: t.ID, First: t.First, Last: t.Last})
	}
	for _, l := range snap.Libraries {
		zone, err := time.LoadLocation(l.TimeZone)
		if err != nil {
			return nil, fmt.Errorf("library %s: time zone: %w", l.Slug, err)
		}
		lv := &libraryView{lib: l, zone: zone, bySlug: map[string]*locationView{}}
		v.libraries = append(v.libraries, lv)
		v.bySlug[l.Slug] = lv
		v.byID[l.ID] = lv
	}
	locByID := map[int64]*locationView{}
	for _, l := range snap.Locations {
		lv := v.byID[l.LibraryID]
		if lv == nil {
			continue
		}
		loc := &locationView{loc: l, lib: lv, rules: &schedule.LocationRules{
			Terms:      terms[l.LibraryID],
			Schedules:  map[int64]*schedule.WeeklyRules{},
			Exceptions: map[schedule.Date]schedule.Rule{},
		}}
		lv.locations = append(lv.locations, loc)
		lv.bySlug[l.Slug] = loc
		if l.Primary {
			lv.primary = loc
		}
		locByID[l.ID] = loc
	}
	for _, sc := range snap.Schedules {
		loc := locByID[sc.LocationID]
		if loc == nil {
			continue
		}
		var w schedule.WeeklyRules
		for i, d := range sc.Days {
			w[i] = schedule.Rule{ID: d.RuleID, Kind: d.Kind, Periods: d.Periods, Type: schedule.TypeRegular}
		}
		loc.rules.Schedules[sc.TermID] = &w
	}
	for _, e := range snap.Exceptions {
		loc := locByID[e.LocationID]
		if loc == nil {
			continue
		}
		kind := schedule.Hours
		switch {
		case e.Closed:
			kind = schedule.Closed
		case e.Open24:
			kind = schedule.Open24
		}
		loc.rules.Exceptions[e.Day] = schedule.Rule{ID: e.ID, Kind: kind, Periods: e.Periods, Type: e.Type, Notes: e.Notes}
	}
	// Former slugs resolve unless a current slug has taken them.
	for _, o := range snap.OldSlugs {
		lv := v.byID[o.LibraryID]
		if lv == nil {
			continue
		}
		if o.LocationID == 0 {
			if _, taken := v.bySlug[o.Slug]; !taken {
				v.bySlug[o.Slug] = lv
			}
			continue
		}
		if loc := locByID[o.LocationID]; loc != nil {
			if _, taken := lv.bySlug[o.Slug]; !taken {
				lv.bySlug[o.Slug] = loc
			}
		}
	}
	for _, lv := range v.libraries {
		sort.SliceStable(lv.locations, func(i, j int) bool {
			a, b := lv.locations[i], lv.locations[j]
			if a.loc.Primary != b.loc.Primary {
				return a.loc.Primary
			}
			return a.loc.Slug < b.loc.Slug
		})
	}
	v.publicByID = map[int64]*libraryView{}
	for _, lv := range v.libraries {
		if !lv.lib.Public {
			continue
		}
		shown := *lv
		shown.locations = nil
		for _, loc := range lv.locations {
			if loc.loc.Public {
				shown.locations = append(shown.locations, loc)
			}
		}
		v.public = append(v.public, &shown)
		v.publicByID[lv.lib.ID] = &shown
	}
	return v, nil
}

// publicLibrary is the library slug names (current or former) as the
// public pages show it, or nil when there is none or it is not public.
func (v *view) publicLibrary(slug string) *libraryView {
	if lib := v.bySlug[slug]; lib != nil {
		return v.publicByID[lib.lib.ID]
	}
	return nil
}
