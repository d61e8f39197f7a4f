// Reads an Hours iCalendar feed with a real JavaScript iCalendar library
// and prints one line per VEVENT, in the form of
// impl/testkit/testdata/icalendar_parse.py (python3-icalendar): UID, start and end
// in UTC (ISO 8601, or the date of an all-day event), summary, description,
// tab-separated. impl/hours/ical's tests compare the three readers' lines.
//
//   node icalread.cjs icaljs|nodeical FILE
'use strict';
const fs = require('fs');

const [reader, file] = process.argv.slice(2);
const text = fs.readFileSync(file, 'utf8');

function utc(d) {
  return d.toISOString().replace(/\.000Z$/, 'Z');
}

function line(uid, start, end, summary, description) {
  console.log([uid, start, end, summary, description || ''].join('\t'));
}

function withIcalJs() {
  const ICAL = require('ical.js');
  const cal = new ICAL.Component(ICAL.parse(text));
  const zones = cal.getAllSubcomponents('vtimezone').map((vtz) => {
    const tz = new ICAL.Timezone(vtz);
    ICAL.TimezoneService.register(tz.tzid, tz);
    return tz.tzid;
  });
  console.log('TZ\t' + zones.join(','));
  for (const vevent of cal.getAllSubcomponents('vevent')) {
    const ev = new ICAL.Event(vevent);
    const when = (t) => (t.isDate ? t.toString() : utc(t.toJSDate()));
    line(ev.uid, when(ev.startDate), when(ev.endDate), ev.summary, ev.description);
  }
}

function withNodeIcal() {
  const ical = require('node-ical');
  const data = ical.sync.parseICS(text);
  const zones = Object.values(data).filter((c) => c.type === 'VTIMEZONE').map((c) => c.tzid);
  console.log('TZ\t' + zones.join(','));
  const events = Object.values(data).filter((c) => c.type === 'VEVENT');
  for (const ev of events) {
    // node-ical marks all-day events dateOnly and gives them local midnight.
    const when = (d) => {
      if (d.dateOnly) {
        const p = (n) => String(n).padStart(2, '0');
        return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
      }
      return utc(d);
    };
    const str = (v) => (v && typeof v === 'object' && 'val' in v ? v.val : v);
    line(ev.uid, when(ev.start), when(ev.end), str(ev.summary), str(ev.description));
  }
}

if (reader === 'icaljs') {
  withIcalJs();
} else if (reader === 'nodeical') {
  withNodeIcal();
} else {
  console.error('usage: node icalread.cjs icaljs|nodeical FILE');
  process.exit(2);
}
