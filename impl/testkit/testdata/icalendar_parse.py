"""Parse an iCalendar feed with python3-icalendar and print one line per
VEVENT: UID, start and end in UTC (ISO 8601) or as dates, and the summary.
testkit.ReadICalendar runs it; the tests compare the lines with what the
schedule says. Reads the feed from the file named by the first argument."""
import sys
import datetime
import icalendar

with open(sys.argv[1], "rb") as f:
    cal = icalendar.Calendar.from_ical(f.read())

tzids = [str(tz["TZID"]) for tz in cal.walk("VTIMEZONE")]
print("TZ\t" + ",".join(tzids))
for ev in cal.walk("VEVENT"):
    start = ev.decoded("DTSTART")
    end = ev.decoded("DTEND")
    def fmt(v):
        if isinstance(v, datetime.datetime):
            if v.tzinfo is None:
                raise SystemExit("floating time in " + str(ev["UID"]))
            return v.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        return v.isoformat()
    print("\t".join([str(ev["UID"]), fmt(start), fmt(end), str(ev["SUMMARY"]), str(ev.get("DESCRIPTION", ""))]))
