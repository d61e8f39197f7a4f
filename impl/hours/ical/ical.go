// Package ical writes library hours as iCalendar (RFC 5545) feeds people
// subscribe to: a VTIMEZONE for the library's zone, one VEVENT per opening
// period, and an all-day VEVENT for each holiday, closure or other day with
// a note on which the place is closed. It knows nothing of HTTP or storage;
// the same input always gives the same bytes, so a hash of them is an ETag.
package ical

import (
	"bytes"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sitelib/sitesvc/impl/hours/schedule"
)

// ContentType is the media type of a feed.
const ContentType = "text/calendar; charset=utf-8"

// Source is one place whose days go into a feed.
type Source struct {
	// Name is shown in each event's SUMMARY and LOCATION ("Green Library,
	// Main Library").
	Name string
	// UIDScope makes the place's UIDs unique within UIDDomain
	// ("green/main"). A day's events keep their UIDs across renders, so a
	// calendar updates an event instead of adding a second one.
	UIDScope string
	// Days are the place's computed days, in date order.
	Days []schedule.Day
}

// Feed is one calendar.
type Feed struct {
	// Name is the calendar's name (X-WR-CALNAME, NAME).
	Name string
	// URL is where the feed is served (the calendar's URL and SOURCE).
	URL string
	// UIDDomain is the right-hand side of every UID (the service's host).
	UIDDomain string
	// Zone is the library's time zone: every time is written in it and a
	// VTIMEZONE describes it.
	Zone *time.Location
	// Stamp is every event's DTSTAMP. The caller passes a value that
	// changes only when the data does (the start of the feed's range), so
	// that the bytes — and the ETag — stay the same between renders.
	Stamp time.Time
	// RefreshInterval is the REFRESH-INTERVAL suggested to clients; zero
	// leaves it out.
	RefreshInterval time.Duration
	Sources         []Source
}

// Write renders the feed.
func Write(f Feed) ([]byte, error) {
	if f.Zone == nil {
		return nil, fmt.Errorf("ical: feed %q has no time zone", f.Name)
	}
	first, last, ok := span(f.Sources)
	var b writer
	b.line("BEGIN:VCALENDAR")
	b.line("VERSION:2.0")
	b.line("PRODID:-//sitesvc//Library Hours//EN")
	b.line("CALSCALE:GREGORIAN")
	b.line("METHOD:PUBLISH")
	b.prop("NAME", escapeText(f.Name))
	b.prop("X-WR-CALNAME", escapeText(f.Name))
	b.prop("X-WR-TIMEZONE", f.Zone.String())
	if f.URL != "" {
		b.prop("URL;VALUE=URI", f.URL)
		b.prop("SOURCE;VALUE=URI", f.URL)
	}
	if f.RefreshInterval > 0 {
		b.prop("REFRESH-INTERVAL;VALUE=DURATION", duration(f.RefreshInterval))
		b.prop("X-PUBLISHED-TTL", duration(f.RefreshInterval))
	}
	if !ok {
		// No days: still a valid calendar with the zone, for the day data
		// appears.
		now := f.Stamp
		first, last = now, now
	}
	writeTimezone(&b, f.Zone, first, last)
	stamp := f.Stamp.UTC().Format("20060102T150405Z")
	for _, src := range f.Sources {
		for _, d := range src.Days {
			writeDay(&b, f, src, d, stamp)
		}
	}
	b.line("END:VCALENDAR")
	return b.Bytes(), nil
}

// span is the first and last instant the feed's days cover.
func span(srcs []Source) (first, last time.Time, ok bool) {
	for _, s := range srcs {
		for _, d := range s.Days {
			end := d.Midnight.Add(48 * time.Hour) // an overnight period ends the next day
			if !ok || d.Midnight.Before(first) {
				first = d.Midnight
			}
			if !ok || end.After(last) {
				last = end
			}
			ok = true
		}
	}
	return first, last, ok
}

// closedDayShown reports whether a closed day gets an all-day event: a
// holiday or closure, or any closed day with a note. Ordinary closed days
// (Sunday in a term with no Sunday hours, unscheduled days) are left out;
// a calendar full of "Closed" events hides the openings.
func closedDayShown(d schedule.Day) bool {
	switch d.Type {
	case schedule.TypeHoliday, schedule.TypeClosure, schedule.TypeSpecial:
		return true
	}
	return d.Notes != ""
}

func writeDay(b *writer, f Feed, src Source, d schedule.Day, stamp string) {
	uidBase := d.Date.String() + "." + uidSafe(src.UIDScope)
	if d.Closed {
		if !closedDayShown(d) {
			return
		}
		b.line("BEGIN:VEVENT")
		b.prop("UID", uidBase+".closed@"+f.UIDDomain)
		b.prop("DTSTAMP", stamp)
		b.prop("DTSTART;VALUE=DATE", dateValue(d.Date))
		b.prop("DTEND;VALUE=DATE", dateValue(d.Date.AddDays(1)))
		b.prop("SUMMARY", escapeText(summary(src.Name, "closed", d)))
		writeCommon(b, src, d)
		b.line("TRANSP:TRANSPARENT")
		b.line("END:VEVENT")
		return
	}
	for i, o := range d.Openings {
		b.line("BEGIN:VEVENT")
		b.prop("UID", fmt.Sprintf("%s.%d@%s", uidBase, i, f.UIDDomain))
		b.prop("DTSTAMP", stamp)
		start, end := o.Opens, o.Closes
		if d.Open24 {
			// The JSON API's 23:59:59.999 is the last instant of the day;
			// a calendar event ends at the next midnight (DTEND is
			// exclusive).
			end = end.Add(time.Millisecond)
		}
		b.prop(dateTimeProp("DTSTART", start, f.Zone))
		b.prop(dateTimeProp("DTEND", end, f.Zone))
		what := "open"
		if d.Open24 {
			what = "open 24 hours"
		}
		b.prop("SUMMARY", escapeText(summary(src.Name, what, d)))
		writeCommon(b, src, d)
		b.line("TRANSP:TRANSPARENT")
		b.line("END:VEVENT")
	}
}

func writeCommon(b *writer, src Source, d schedule.Day) {
	if src.Name != "" {
		b.prop("LOCATION", escapeText(src.Name))
	}
	if d.Notes != "" {
		b.prop("DESCRIPTION", escapeText(d.Notes))
	}
	if d.Type != "" {
		b.prop("CATEGORIES", escapeText(d.Type))
	}
}

// summary is "Green Library: open (holiday)".
func summary(name, what string, d schedule.Day) string {
	s := what
	if name != "" {
		s = name + ": " + what
	}
	if d.Type != "" && d.Type != schedule.TypeRegular {
		s += " (" + d.Type + ")"
	}
	return s
}

func dateValue(d schedule.Date) string {
	return fmt.Sprintf("%04d%02d%02d", d.Year, int(d.Month), d.Day)
}

func localValue(t time.Time, zone *time.Location) string {
	return t.In(zone).Format("20060102T150405")
}

// dateTimeProp is a DTSTART or DTEND property for t: local time with the
// zone's TZID, or UTC when t's wall time occurs twice in the zone (the hour
// repeated when clocks fall back). RFC 5545 says a repeated local time means
// its first occurrence, but readers differ (python icalendar, ical.js and
// node-ical take the second), so such a time is written as the one instant
// every reader agrees on (issue 19.6).
func dateTimeProp(name string, t time.Time, zone *time.Location) (string, string) {
	if wallTimeRepeated(t, zone) {
		return name, t.UTC().Format("20060102T150405Z")
	}
	return name + ";TZID=" + zone.String(), localValue(t, zone)
}

// wallTimeRepeated reports whether another instant has the same wall time
// as t in zone: an offset in force within a day of t that, applied to t's
// wall time, names an instant that really has that offset.
func wallTimeRepeated(t time.Time, zone *time.Location) bool {
	_, off := t.In(zone).Zone()
	wall := localValue(t, zone)
	for _, probe := range []time.Duration{-24 * time.Hour, 24 * time.Hour} {
		_, other := t.Add(probe).In(zone).Zone()
		if other == off {
			continue
		}
		twin := t.Add(time.Duration(off-other) * time.Second)
		if _, twinOff := twin.In(zone).Zone(); twinOff == other && localValue(twin, zone) == wall {
			return true
		}
	}
	return false
}

// uidSafe keeps a UID free of characters some clients mishandle.
func uidSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.', r == '_':
			return r
		}
		return '.'
	}, s)
}

// duration writes d as an RFC 5545 DURATION (whole seconds).
func duration(d time.Duration) string {
	s := int64(d / time.Second)
	if s <= 0 {
		return "PT0S"
	}
	var b strings.Builder
	b.WriteString("P")
	if days := s / 86400; days > 0 {
		fmt.Fprintf(&b, "%dD", days)
		s %= 86400
	}
	if s > 0 {
		b.WriteString("T")
		if h := s / 3600; h > 0 {
			fmt.Fprintf(&b, "%dH", h)
		}
		if m := s % 3600 / 60; m > 0 {
			fmt.Fprintf(&b, "%dM", m)
		}
		if sec := s % 60; sec > 0 {
			fmt.Fprintf(&b, "%dS", sec)
		}
	}
	return b.String()
}

// escapeText escapes a TEXT value (RFC 5545 3.3.11): backslash, semicolon,
// comma and newlines; other control characters are dropped, as TEXT may not
// hold them.
func escapeText(s string) string {
	var b strings.Builder
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == ';':
			b.WriteString(`\;`)
		case r == ',':
			b.WriteString(`\,`)
		case r == '\n' || r == '\r':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f:
			// dropped
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// maxLineOctets is RFC 5545's limit on a content line, CRLF excluded.
const maxLineOctets = 75

// writer writes content lines, folded and CRLF-terminated.
type writer struct{ bytes.Buffer }

func (w *writer) prop(name, value string) { w.line(name + ":" + value) }

// line folds s at maxLineOctets octets without splitting a UTF-8 sequence;
// each continuation line starts with one space (which counts).
func (w *writer) line(s string) {
	limit := maxLineOctets
	for len(s) > limit {
		cut := limit
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		w.WriteString(s[:cut])
		w.WriteString("\r\n ")
		s = s[cut:]
		limit = maxLineOctets - 1
	}
	w.WriteString(s)
	w.WriteString("\r\n")
}
