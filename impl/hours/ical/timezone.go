package ical

import (
	"fmt"
	"time"
)

// writeTimezone writes a VTIMEZONE for zone that is correct for every
// instant from first to last. Go does not expose a zone's rules, so the
// transitions are found by looking at the offset: one observance per
// transition found (no RRULE), starting a year before first so a client
// has the offset in force at the feed's first event, and ending a year
// after last. A zone without transitions in that span gets one STANDARD
// observance.
func writeTimezone(b *writer, zone *time.Location, first, last time.Time) {
	from := first.AddDate(-1, 0, 0)
	to := last.AddDate(1, 0, 0)
	b.line("BEGIN:VTIMEZONE")
	b.prop("TZID", zone.String())
	name, off := from.In(zone).Zone()
	// The observance in force at the start of the span.
	writeObservance(b, from.In(zone).IsDST(), from.In(zone), off, off, name)
	for _, tr := range transitions(zone, from, to) {
		writeObservance(b, tr.dst, tr.at, tr.offsetFrom, tr.offsetTo, tr.name)
	}
	b.line("END:VTIMEZONE")
}

type transition struct {
	at                   time.Time // the instant the new offset begins
	offsetFrom, offsetTo int       // seconds east of UTC
	name                 string    // the new abbreviation
	dst                  bool
}

// transitions finds every change of offset or abbreviation in zone between
// from and to: a scan in steps of at most a day (no zone changes twice in
// a day), then a binary search to the second.
func transitions(zone *time.Location, from, to time.Time) []transition {
	var out []transition
	const step = 24 * time.Hour
	prev := from
	prevName, prevOff := prev.In(zone).Zone()
	for t := from.Add(step); !t.After(to.Add(step)); t = t.Add(step) {
		name, off := t.In(zone).Zone()
		if name == prevName && off == prevOff {
			prev = t
			continue
		}
		lo, hi := prev.Unix(), t.Unix() // offset at lo is the old one, at hi the new
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			n, o := time.Unix(mid, 0).In(zone).Zone()
			if n == prevName && o == prevOff {
				lo = mid
			} else {
				hi = mid
			}
		}
		at := time.Unix(hi, 0).In(zone)
		out = append(out, transition{at: at, offsetFrom: prevOff, offsetTo: off, name: name, dst: at.IsDST()})
		prev, prevName, prevOff = t, name, off
	}
	return out
}

// writeObservance writes a STANDARD or DAYLIGHT block. DTSTART is the
// local time of the change as read in the offset before it (RFC 5545
// 3.6.5: "the local time ... in effect before the onset").
func writeObservance(b *writer, dst bool, at time.Time, offsetFrom, offsetTo int, name string) {
	kind := "STANDARD"
	if dst {
		kind = "DAYLIGHT"
	}
	local := at.UTC().Add(time.Duration(offsetFrom) * time.Second)
	b.line("BEGIN:" + kind)
	b.prop("DTSTART", local.Format("20060102T150405"))
	b.prop("TZOFFSETFROM", offset(offsetFrom))
	b.prop("TZOFFSETTO", offset(offsetTo))
	if name != "" && !isNumericName(name) {
		b.prop("TZNAME", escapeText(name))
	}
	b.line("END:" + kind)
}

// offset writes seconds east of UTC as RFC 5545's UTC-OFFSET (+hhmm, or
// +hhmmss when there are seconds).
func offset(sec int) string {
	sign := "+"
	if sec < 0 {
		sign = "-"
		sec = -sec
	}
	if sec%60 != 0 {
		return fmt.Sprintf("%s%02d%02d%02d", sign, sec/3600, sec%3600/60, sec%60)
	}
	return fmt.Sprintf("%s%02d%02d", sign, sec/3600, sec%3600/60)
}

// isNumericName reports whether an abbreviation is Go's stand-in "+03" for
// a zone with no letters; such a name says nothing TZOFFSETTO does not.
func isNumericName(name string) bool {
	return name != "" && (name[0] == '+' || name[0] == '-')
}
