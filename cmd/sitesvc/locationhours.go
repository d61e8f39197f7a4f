package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"time"

	"github.com/sitelib/sitesvc/impl/purl"
	"github.com/sitelib/sitesvc/impl/server"
)

// locationHours tells PURL when a reading location is open, from the
// Hours service of the same process (--purl-location-hours maps a
// rights location to an Hours library and location). The Hours service
// is made after PURL: hours is set once it is.
type locationHours struct {
	places map[string][2]string // rights location → Hours library, location
	base   string               // the Hours service's public base URL
	hours  *server.Service
}

// parseLocationHours reads 'reading-room=green/reading-room;…'.
func parseLocationHours(s string) (map[string][2]string, error) {
	out := map[string][2]string{}
	for part := range strings.SplitSeq(s, ";") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		name, place, ok := strings.Cut(part, "=")
		lib, loc, ok2 := strings.Cut(strings.TrimSpace(place), "/")
		name, lib, loc = strings.TrimSpace(name), strings.TrimSpace(lib), strings.TrimSpace(loc)
		if !ok || !ok2 || name == "" || lib == "" || loc == "" || strings.Contains(loc, "/") {
			return nil, fmt.Errorf("%q is not location=library/location (Hours slugs)", part)
		}
		out[name] = [2]string{lib, loc}
	}
	return out, nil
}

// Visit implements purl.LocationHours: today's opening of the location
// in words ("open today 9 AM–5 PM", "closed today") and its library's
// page on the Hours service.
func (h *locationHours) Visit(ctx context.Context, location string) (purl.Visit, bool) {
	place, ok := h.places[location]
	if !ok {
		return purl.Visit{}, false
	}
	v := purl.Visit{Page: h.base + "/libraries/" + url.PathEscape(place[0]) + ".html"}
	if h.hours == nil || *h.hours == nil {
		return v, true
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/api/v1/library/"+url.PathEscape(place[0])+"/location/"+url.PathEscape(place[1])+"/hours/for/today", nil)
	if err != nil {
		return v, true
	}
	rec := httptest.NewRecorder() // an in-process call of the Hours handler
	(*h.hours).Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		return v, true
	}
	var periods []struct {
		OpensAt  time.Time `json:"opens_at"`
		ClosesAt time.Time `json:"closes_at"`
		Closed   bool      `json:"closed"`
	}
	if json.Unmarshal(rec.Body.Bytes(), &periods) != nil || len(periods) == 0 {
		return v, true
	}
	var open []string
	for _, p := range periods {
		switch {
		case p.Closed:
		case p.ClosesAt.Sub(p.OpensAt) >= 24*time.Hour:
			open = append(open, "all day")
		default:
			open = append(open, clock(p.OpensAt)+"–"+clock(p.ClosesAt))
		}
	}
	if len(open) == 0 {
		v.Today = "closed today"
	} else {
		v.Today = "open today " + strings.Join(open, ", ")
	}
	return v, true
}

// clock writes a time as patrons read it: "9 AM", "5:30 PM".
func clock(t time.Time) string {
	if t.Minute() == 0 {
		return t.Format("3 PM")
	}
	return t.Format("3:04 PM")
}
