// The Hours staff editor: a thin client of the Hours JSON:API. Every read
// and write is a JSON:API request sent with the session cookie and the
// page's CSRF token (X-CSRF-Token); the server authorises each one as it
// would a bearer token's. No build step: plain browser JavaScript.
(function () {
  'use strict';

  var MEDIA = 'application/vnd.api+json';
  // ATOMIC is the media type of JSON:API Atomic Operations documents (the CSV import).
  var ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
  var WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
  var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

  // ---------------------------------------------------------------------
  // Hours as people type them: "9a-5p", "9:30am-1pm, 2pm-6pm", "closed",
  // "24h", overnight "10p-2a", 24-hour "09:00-17:00". parseHours returns
  // {closed: true}, {open24: true} or {periods: ["HH:MM-HH:MM", …]} and
  // throws an Error whose message says what is wrong.

  function parseTime(raw) {
    var s = raw.trim();
    if (s === 'noon') { return { min: 720, fixed: true }; }
    if (s === 'midnight') { return { min: 0, fixed: true }; }
    var m = /^(\d{1,2})(?::?(\d{2}))?\s*(a|am|a\.m\.|p|pm|p\.m\.)?$/.exec(s);
    if (!m) { throw new Error('"' + raw.trim() + '" is not a time (write 9a, 9:30am, 1pm, 13:00, noon)'); }
    var h = parseInt(m[1], 10);
    var min = m[2] ? parseInt(m[2], 10) : 0;
    if (min > 59) { throw new Error('"' + raw.trim() + '": minutes go up to 59'); }
    if (m[3]) {
      if (h < 1 || h > 12) { throw new Error('"' + raw.trim() + '": with am or pm the hour is 1 to 12'); }
      return { min: (h % 12 + (m[3].charAt(0) === 'p' ? 12 : 0)) * 60 + min, fixed: true };
    }
    if (h > 24 || (h === 24 && min > 0)) { throw new Error('"' + raw.trim() + '": the hour is 0 to 23'); }
    if (h === 24) { return { min: 0, fixed: true, h24: true }; }
    // 24-hour clock when it cannot be a 12-hour one: 0–0:59, 13–23, or a
    // leading zero ("09:00").
    if (h === 0 || h >= 13 || m[1].length === 2 && m[1].charAt(0) === '0') {
      return { min: h * 60 + min, fixed: true, h24: true };
    }
    return { min: (h % 12) * 60 + min, fixed: false }; // am; pm is +12 h
  }

  function span(open, close) {
    var d = (close - open + 1440) % 1440;
    return d === 0 ? 1440 : d;
  }

  function parseRange(part) {
    var ends = part.split('-');
    if (ends.length !== 2 || !ends[0].trim() || !ends[1].trim()) {
      throw new Error('"' + part.trim() + '" is not a range of hours like 9a-5p');
    }
    var a = parseTime(ends[0]);
    var b = parseTime(ends[1]);
    var open, close;
    if (a.fixed && b.fixed) {
      open = a.min; close = b.min;
    } else if (a.h24 || b.h24) {
      // "8-22": the other end is on the 24-hour clock too.
      open = a.min; close = b.min;
    } else if (!a.fixed && !b.fixed) {
      // "9-5" is the working day; "8-10" could be morning, evening or
      // both: say which.
      if (a.min > b.min || a.min === 0) {
        open = a.min === 0 ? 720 : a.min;
        close = b.min + 720;
      } else {
        throw new Error('"' + part.trim() + '" could be morning or evening: add a or p (for example ' + ends[0].trim() + 'a-' + ends[1].trim() + 'p)');
      }
    } else {
      // One end says am or pm: the other is read so that the opening is
      // the shortest that fits (10p-2 is 22:00–02:00, 9-5p 09:00–17:00).
      var fixed = a.fixed ? a : b;
      var loose = a.fixed ? b : a;
      var best = null;
      [loose.min, loose.min + 720].forEach(function (c) {
        var o = a.fixed ? fixed.min : c;
        var cl = a.fixed ? c : fixed.min;
        var len = span(o, cl);
        if (o === cl) { return; }
        if (best === null || len < best.len) { best = { o: o, c: cl, len: len }; }
      });
      open = best.o; close = best.c;
    }
    if (open === close) {
      throw new Error('"' + part.trim() + '" opens and closes at the same time: write 24h for a day open around the clock');
    }
    return { open: open, close: close, overnight: close < open };
  }

  function hhmm(min) {
    var h = Math.floor(min / 60);
    var m = min % 60;
    return (h < 10 ? '0' : '') + h + ':' + (m < 10 ? '0' : '') + m;
  }

  function parseHours(text) {
    var s = String(text).toLowerCase().replace(/[\u2013\u2014\u2212]/g, '-').replace(/\s+to\s+/g, '-').replace(/\s+/g, ' ').trim();
    if (s === '') { throw new Error('type the hours, for example 9a-5p, closed or 24h'); }
    if (/^(closed|close|shut)$/.test(s)) { return { closed: true }; }
    if (/^(24 ?h|24 ?hrs?|24 hours|open 24 ?h(ours)?|24\/7|all day)$/.test(s)) { return { open24: true }; }
    var parts = s.split(/\s*(?:,|;|&|\band\b)\s*/).filter(function (p) { return p !== ''; });
    if (parts.length > 6) { throw new Error('at most 6 openings a day'); }
    var ranges = parts.map(parseRange);
    for (var i = 0; i < ranges.length; i++) {
      if (ranges[i].overnight && i !== ranges.length - 1) {
        throw new Error('only the last opening of a day may run past midnight (' + parts[i] + ')');
      }
      if (i > 0 && ranges[i].open < ranges[i - 1].close + (ranges[i - 1].overnight ? 1440 : 0)) {
        throw new Error('"' + parts[i] + '" starts before "' + parts[i - 1] + '" ends: list openings in order, without overlap');
      }
    }
    var last = ranges[ranges.length - 1];
    if (last.overnight && last.close > ranges[0].open) {
      throw new Error('"' + parts[parts.length - 1] + '" runs into the next day past this day\'s first opening');
    }
    return { periods: ranges.map(function (r) { return hhmm(r.open) + '-' + hhmm(r.close); }) };
  }

  // hoursAttributes is a parsed day as an exception's attributes.
  function hoursAttributes(h) {
    if (h.closed) { return { closed: true }; }
    if (h.open24) { return { open_24h: true }; }
    return { periods: h.periods };
  }

  // The short text a cell shows and its editor starts from.
  function clock12(min) {
    var h = Math.floor(min / 60) % 24;
    var m = min % 60;
    var suffix = h < 12 ? 'a' : 'p';
    var h12 = h % 12 === 0 ? 12 : h % 12;
    return h12 + (m ? ':' + (m < 10 ? '0' : '') + m : '') + suffix;
  }

  function periodText(p) {
    var ends = p.split('-');
    var toMin = function (t) { return parseInt(t.slice(0, 2), 10) * 60 + parseInt(t.slice(3, 5), 10); };
    return clock12(toMin(ends[0])) + '-' + clock12(toMin(ends[1]));
  }

  function localHHMM(iso) { return iso.slice(11, 16); }

  // dayText is a JSON:API day's hours as a person types them.
  function dayText(day) {
    if (day.closed) { return 'closed'; }
    if (day.open_24h) { return '24h'; }
    return day.periods.map(function (p) { return periodText(localHHMM(p.opens_at) + '-' + localHHMM(p.closes_at)); }).join(', ');
  }

  // ruleText is a schedule day's or exception's hours as typed.
  function ruleText(r) {
    if (!r || r.closed) { return 'closed'; }
    if (r.open_24h) { return '24h'; }
    return (r.periods || []).map(periodText).join(', ');
  }

  // ---------------------------------------------------------------------
  // Dates (YYYY-MM-DD strings, computed in UTC so no zone moves them).

  function parseDate(s) {
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s || '');
    if (!m) { return null; }
    var d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
    return d.getUTCMonth() === +m[2] - 1 ? d : null;
  }
  function fmtDate(d) { return d.toISOString().slice(0, 10); }
  function addDays(s, n) { var d = parseDate(s); d.setUTCDate(d.getUTCDate() + n); return fmtDate(d); }
  function sunday(s) { var d = parseDate(s); d.setUTCDate(d.getUTCDate() - d.getUTCDay()); return fmtDate(d); }
  // The service's clock when the page was made, moved on by the time the
  // page has been open (the page's data-now).
  var pageNow = { server: Date.now(), local: Date.now() };
  function now() { return new Date(pageNow.server + (Date.now() - pageNow.local)); }
  function todayIn(zone) {
    var parts = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).formatToParts(now());
    var get = function (t) { return parts.filter(function (p) { return p.type === t; })[0].value; };
    return get('year') + '-' + get('month') + '-' + get('day');
  }
  function dayLabel(s) { var d = parseDate(s); return WEEKDAYS[d.getUTCDay()].slice(0, 3) + ' ' + d.getUTCDate() + ' ' + MONTHS[d.getUTCMonth()]; }
  function longDay(s) { var d = parseDate(s); return WEEKDAYS[d.getUTCDay()] + ' ' + d.getUTCDate() + ' ' + MONTHS[d.getUTCMonth()] + ' ' + d.getUTCFullYear(); }

  // ---------------------------------------------------------------------
  // The JSON:API, with the session's credentials.

  function ApiError(status, detail, pointer) {
    this.status = status;
    this.message = detail;
    this.pointer = pointer || '';
  }

  function startApp() {
    var app = document.getElementById('app');
    var base = app.getAttribute('data-base');
    var csrfMeta = document.querySelector('meta[name="csrf-token"]');
    var csrf = csrfMeta ? csrfMeta.getAttribute('content') : '';
    var isAdmin = app.getAttribute('data-admin') === 'true';
    var mine = (app.getAttribute('data-libraries') || '').split(' ').filter(Boolean);
    // Libraries not public are not in the public list; the page names them
    // to admins, and their own documents answer.
    var unlisted = (app.getAttribute('data-unlisted') || '').split(' ').filter(Boolean);
    var announcer = document.getElementById('announce');
    var served = Date.parse(app.getAttribute('data-now') || '');
    if (!isNaN(served)) { pageNow = { server: served, local: Date.now() }; }

    function api(method, path, doc, mediaType) {
      var headers = { Accept: MEDIA };
      if (method !== 'GET') { headers['X-CSRF-Token'] = csrf; }
      if (doc) { headers['Content-Type'] = mediaType || MEDIA; }
      return fetch(path.indexOf('http') === 0 ? path : base + path, {
        method: method, headers: headers, credentials: 'same-origin', cache: 'no-store',
        body: doc ? JSON.stringify(doc) : undefined,
      }).then(function (r) {
        return r.text().then(function (text) {
          var body = text ? JSON.parse(text) : null;
          if (r.status === 401) {
            // The session ended (signed out elsewhere, or timed out).
            signedOut();
            throw new ApiError(401, 'You are no longer signed in, so nothing was saved: sign in again (link above) and repeat the change.');
          }
          if (!r.ok) {
            var e = body && body.errors && body.errors[0] || {};
            throw new ApiError(r.status, e.detail || e.title || ('HTTP ' + r.status), e.source && e.source.pointer);
          }
          return body;
        });
      });
    }

    function signedOut() {
      if (document.getElementById('signed-out')) { return; }
      var banner = el('p', { id: 'signed-out', class: 'error', role: 'alert' }, 'You are no longer signed in. ',
        el('a', { href: app.getAttribute('data-login') }, 'Sign in again'));
      app.insertBefore(banner, app.firstChild);
    }

    function say(text) {
      announcer.textContent = '';
      window.setTimeout(function () { announcer.textContent = text; }, 50);
    }

    // el builds an element: el('p', {class: 'x'}, 'text', child…).
    function el(tag, attrs) {
      var n = document.createElement(tag);
      Object.keys(attrs || {}).forEach(function (k) {
        var v = attrs[k];
        if (v === null || v === undefined || v === false) { return; }
        if (k.slice(0, 2) === 'on') { n.addEventListener(k.slice(2), v); } else if (k === 'text') { n.textContent = v; } else { n.setAttribute(k, v === true ? '' : v); }
      });
      for (var i = 2; i < arguments.length; i++) {
        var c = arguments[i];
        if (c === null || c === undefined || c === false) { continue; }
        if (Array.isArray(c)) { c.forEach(function (x) { if (x) { n.appendChild(typeof x === 'string' ? document.createTextNode(x) : x); } }); continue; }
        n.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
      }
      return n;
    }

    var state = { libraries: [], lib: null, view: 'week', from: null };
    var VIEWS = [['week', 'Week'], ['term', 'Term hours'], ['terms', 'Terms and holidays'], ['library', 'Library and locations'], ['csv', 'CSV'], ['changes', 'Changes']];

    function readHash() {
      var q = new URLSearchParams(location.hash.slice(1));
      return { lib: q.get('library'), view: q.get('view'), from: q.get('from') };
    }
    function writeHash() {
      var q = new URLSearchParams();
      q.set('library', state.lib.id);
      q.set('view', state.view);
      if (state.view === 'week' && state.from) { q.set('from', state.from); }
      history.replaceState(null, '', '#' + q.toString());
    }

    function editable(slug) { return isAdmin || mine.indexOf(slug) >= 0; }

    function load() {
      return api('GET', '/libraries.json').then(function (doc) {
        state.libraries = doc.data.filter(function (l) { return editable(l.id); });
        // A role may name a library's former slug (it still authorises
        // it): the library's own document says which library that is now.
        var known = state.libraries.map(function (l) { return l.id; });
        var former = (isAdmin ? unlisted : mine).filter(function (slug) { return known.indexOf(slug) < 0; });
        return Promise.all(former.map(function (slug) {
          return api('GET', '/libraries/' + encodeURIComponent(slug) + '.json').then(function (d) { return d.data; }, function () { return null; });
        })).then(function (found) {
          found.forEach(function (l) {
            if (l && known.indexOf(l.id) < 0) { known.push(l.id); mine.push(l.id); state.libraries.push(l); }
          });
          state.libraries.sort(function (x, y) { return x.id < y.id ? -1 : x.id > y.id ? 1 : 0; });
          return doc;
        });
      }).then(function () {
        var h = readHash();
        state.lib = state.libraries.filter(function (l) { return l.id === h.lib; })[0] || state.libraries[0] || null;
        state.view = VIEWS.some(function (v) { return v[0] === h.view; }) ? h.view : 'week';
        state.from = parseDate(h.from) ? sunday(h.from) : null;
        render();
      });
    }

    function shell(content) {
      var picker = null;
      if (state.libraries.length > 1 || isAdmin) {
        picker = el('p', { class: 'picker' },
          el('label', { for: 'library-pick' }, 'Library '),
          el('select', { id: 'library-pick', onchange: function (e) {
            state.lib = state.libraries.filter(function (l) { return l.id === e.target.value; })[0];
            state.from = null;
            render();
          } }, state.libraries.map(function (l) {
            return el('option', { value: l.id, selected: l.id === state.lib.id }, l.attributes.name + (l.attributes.public === false ? ' (not public)' : ''));
          })));
      }
      var tabs = el('nav', { 'aria-label': 'Editor sections', class: 'tabs' }, el('ul', null, VIEWS.map(function (v) {
        return el('li', null, el('button', { type: 'button', 'aria-current': v[0] === state.view ? 'page' : null, onclick: function () {
          state.view = v[0];
          render();
          var h = document.querySelector('#app h2');
          if (h) { h.focus(); }
        } }, v[1]));
      })));
      app.replaceChildren(el('div', { class: 'bar' }, picker, tabs), content);
    }

    function render() {
      if (!state.lib) {
        app.replaceChildren(el('div', null, el('h2', { id: 'view-title', tabindex: '-1' }, 'No library to edit'),
          el('p', null, isAdmin ? 'There are no libraries yet.' : 'None of your libraries (' + mine.join(', ') + ') exists.'),
          isAdmin ? newLibraryForm() : null));
        return;
      }
      writeHash();
      var section = el('section', { 'aria-labelledby': 'view-title' });
      shell(section);
      var views = { week: weekView, term: termView, terms: termsView, library: libraryView, csv: csvView, changes: changesView };
      views[state.view](section).catch(function (e) { section.appendChild(errorBox(e)); });
    }

    function errorBox(e) {
      return el('p', { class: 'error', role: 'alert' }, e.message || String(e));
    }

    function heading(text) { return el('h2', { id: 'view-title', tabindex: '-1' }, text); }

    function libPath() { return '/libraries/' + encodeURIComponent(state.lib.id); }
    function zone() { return state.lib.attributes.timezone; }
    function locationsOf(doc) {
      var locs = (doc.included || []).filter(function (r) { return r.type === 'locations'; });
      locs.sort(function (a, b) { return (b.attributes.primary - a.attributes.primary) || a.attributes.name.localeCompare(b.attributes.name); });
      return locs;
    }
    function locSlug(loc) { return loc.attributes.slug; }

    // ---- Week grid ----------------------------------------------------

    // On a phone the grid of locations × days does not fit: it shows one
    // location at a time, its days as rows (docs/hours.md, "Staff editor").
    var phone = window.matchMedia('(max-width: 40rem)');
    var phoneListener = function () { if (state.view === 'week' && state.lib) { render(); } };
    if (phone.addEventListener) { phone.addEventListener('change', phoneListener); }

    // phoneWeek is the week of one location (state.weekLoc, else the
    // first), a location picker above it.
    function phoneWeek(section, locs, from, today) {
      var cur = locs.filter(function (l) { return locSlug(l) === state.weekLoc; })[0] || locs[0];
      state.weekLoc = locSlug(cur);
      var pick = el('p', { class: 'row' }, el('label', { for: 'week-loc' }, 'Location'),
        el('select', { id: 'week-loc', onchange: function (e) { state.weekLoc = e.target.value; weekView(section); } },
          locs.map(function (l) { return el('option', { value: locSlug(l), selected: l === cur }, l.attributes.name + (l.attributes.primary ? ' (main)' : '')); })));
      var byDay = {};
      (cur.attributes.hours || []).forEach(function (h) { byDay[h.day] = h; });
      var body = el('tbody');
      for (var i = 0; i < 7; i++) {
        var d = addDays(from, i);
        body.appendChild(el('tr', null,
          el('th', { scope: 'row', class: d === today ? 'today' : null, 'aria-current': d === today ? 'date' : null },
            dayLabel(d), d === today ? el('span', { class: 'today-label' }, ' (today)') : null),
          cell(cur, d, byDay[d], d === today)));
      }
      return [pick, el('table', { class: 'grid days' },
        el('caption', { class: 'visually-hidden' }, 'Hours of ' + cur.attributes.name + ', ' + dayLabel(from) + ' to ' + dayLabel(addDays(from, 6))),
        el('thead', null, el('tr', null, el('th', { scope: 'col' }, 'Day'), el('th', { scope: 'col' }, 'Hours'))), body)];
    }

    // weekShown counts the week's reads: only the latest one draws, so a
    // slow answer to an earlier read (another week, location or layout)
    // never replaces the grid under a cell being edited.
    var weekShown = 0;

    function weekView(section) {
      var today = todayIn(zone());
      var from = state.from || sunday(today);
      state.from = from;
      writeHash();
      var to = addDays(from, 6);
      var ticket = ++weekShown;
      return api('GET', libPath() + '.json?from=' + from + '&to=' + to).then(function (doc) {
        if (ticket !== weekShown) { return; }
        var locs = locationsOf(doc);
        var nav = el('div', { class: 'weeknav' },
          el('button', { type: 'button', onclick: function () { state.from = addDays(from, -7); render(); } }, '← Previous week'),
          el('button', { type: 'button', onclick: function () { state.from = sunday(today); render(); } }, 'This week'),
          el('button', { type: 'button', onclick: function () { state.from = addDays(from, 7); render(); } }, 'Next week →'),
          el('form', { class: 'jump', onsubmit: function (e) {
            e.preventDefault();
            var v = e.target.elements.jump.value;
            if (parseDate(v)) { state.from = sunday(v); render(); }
          } }, el('label', { for: 'jump' }, 'Go to date '), el('input', { id: 'jump', name: 'jump', type: 'date', value: from }), el('button', { type: 'submit' }, 'Go')));
        var head = el('tr', null, el('th', { scope: 'col' }, 'Location'));
        for (var i = 0; i < 7; i++) {
          var d = addDays(from, i);
          head.appendChild(el('th', { scope: 'col', class: d === today ? 'today' : null, 'aria-current': d === today ? 'date' : null },
            dayLabel(d), d === today ? el('span', { class: 'today-label' }, ' (today)') : null));
        }
        var body = el('tbody');
        locs.forEach(function (loc) {
          var row = el('tr', null, el('th', { scope: 'row' }, loc.attributes.name, loc.attributes.primary ? el('span', { class: 'tag' }, ' main') : null));
          var byDay = {};
          (loc.attributes.hours || []).forEach(function (h) { byDay[h.day] = h; });
          for (var i = 0; i < 7; i++) {
            var d = addDays(from, i);
            row.appendChild(cell(loc, d, byDay[d], d === today));
          }
          body.appendChild(row);
        });
        var grid = phone.matches && locs.length
          ? phoneWeek(section, locs, from, today)
          : el('div', { class: 'scroll' }, el('table', { class: 'grid' }, el('caption', { class: 'visually-hidden' }, 'Hours of each location, ' + dayLabel(from) + ' to ' + dayLabel(to)), el('thead', null, head), body));
        section.replaceChildren.apply(section, [
          heading('Week of ' + longDay(from) + ' — ' + state.lib.attributes.name),
          el('p', { class: 'hint' }, 'Times in ' + zone() + '. Choose a day to change its hours for that date: type 9a-5p, 9:30am-1pm, 2pm-6pm, closed, or overnight 10p-2a, then Enter (Escape cancels). Weekly hours are set under Term hours.'),
          nav].concat(grid));
      });
    }

    var TYPE_LABEL = { special: 'special', holiday: 'holiday', closure: 'closure', unscheduled: 'no hours set' };

    function cell(loc, date, day, isToday) {
      var td = el('td', { class: isToday ? 'today' : null });
      var follows = !loc.attributes.keeps_hours && !loc.attributes.primary;
      var text = day ? dayText(day) : '?';
      var type = day && TYPE_LABEL[day.type];
      if (follows) {
        td.appendChild(el('span', { class: 'follows', title: 'Keeps no hours of its own: shows the main location\'s' }, text));
        return td;
      }
      var show = function () {
        // The button's name is its visible text with the place and day
        // before it (for a screen reader), and the note after.
        td.replaceChildren(el('button', { type: 'button', class: 'cell' + (day && day.closed ? ' closed' : ''), 'data-location': locSlug(loc), 'data-day': date, title: day && day.notes ? day.notes : null, onclick: edit },
          el('span', { class: 'visually-hidden' }, 'Edit ' + loc.attributes.name + ', ' + longDay(date) + ': '),
          el('span', { class: 'hours' }, text), type ? ' ' : null, type ? el('span', { class: 'type ' + day.type }, type) : null,
          day && day.notes ? el('span', { class: 'visually-hidden' }, ', ' + day.notes) : null));
      };
      var edit = function () {
        var errId = 'err-' + locSlug(loc) + '-' + date;
        var input = el('input', { type: 'text', value: text === '?' ? '' : text, 'aria-label': 'Hours of ' + loc.attributes.name + ' on ' + longDay(date), autocomplete: 'off', spellcheck: 'false' });
        var err = el('p', { class: 'cell-error', id: errId, role: 'alert' });
        var isException = day && (day.type === 'special' || day.type === 'holiday' || day.type === 'closure');
        var reset = isException ? el('button', { type: 'button', class: 'small', onclick: function () {
          api('DELETE', libPath() + '/locations/' + locSlug(loc) + '/exceptions/' + day.rule_id).then(function () {
            say('Back to the regular hours for ' + loc.attributes.name + ' on ' + longDay(date));
            return refocus();
          }, function (e) { err.textContent = e.message; });
        } }, 'Regular hours') : null;
        // refocus redraws the week and puts the focus back on this cell.
        var refocus = function () {
          return weekView(document.querySelector('#app section')).then(function () {
            var b = document.querySelector('button.cell[data-location="' + locSlug(loc) + '"][data-day="' + date + '"]');
            if (b) { b.focus(); }
          });
        };
        var fail = function (msg) {
          input.setAttribute('aria-invalid', 'true');
          input.setAttribute('aria-describedby', errId);
          err.textContent = msg;
          input.focus();
        };
        input.addEventListener('keydown', function (e) {
          if (e.key === 'Escape') { e.preventDefault(); show(); td.querySelector('button').focus(); return; }
          if (e.key !== 'Enter') { return; }
          e.preventDefault();
          var h;
          try { h = parseHours(input.value); } catch (ex) { fail(ex.message); return; }
          var attrs = hoursAttributes(h);
          attrs.day = date;
          if (isException) {
            // The type follows what the day becomes; a note is kept.
            attrs.hours_type = h.closed ? (day.type === 'special' ? 'holiday' : day.type) : 'special';
          }
          var req = isException
            ? api('PATCH', libPath() + '/locations/' + locSlug(loc) + '/exceptions/' + day.rule_id, { data: { type: 'exceptions', id: String(day.rule_id), attributes: attrs } })
            : api('POST', libPath() + '/locations/' + locSlug(loc) + '/exceptions', { data: { type: 'exceptions', attributes: attrs } });
          input.disabled = true;
          req.then(function () {
            say('Saved ' + loc.attributes.name + ', ' + longDay(date) + ': ' + input.value);
            return refocus();
          }, function (ex) {
            input.disabled = false;
            fail(ex.message);
          });
        });
        td.replaceChildren.apply(td, [input, reset, err].filter(Boolean));
        input.focus();
        input.select();
      };
      show();
      return td;
    }

    // ---- Term hours (weekly schedules) ----------------------------------

    function termView(section) {
      return Promise.all([api('GET', libPath() + '/terms.json'), api('GET', libPath() + '.json')]).then(function (r) {
        var terms = r[0].data;
        var locs = locationsOf(r[1]).filter(function (l) { return l.attributes.keeps_hours || l.attributes.primary; });
        section.replaceChildren(heading('Term hours'));
        if (!terms.length || !locs.length) {
          section.appendChild(el('p', null, 'Add a term (under Terms and holidays) and a location first.'));
          return;
        }
        var today = todayIn(zone());
        var current = terms.filter(function (t) { return t.attributes.first_day <= today && today <= t.attributes.last_day; })[0] || terms[0];
        var pick = el('form', { class: 'row', onsubmit: function (e) { e.preventDefault(); } },
          el('label', { for: 'term-pick' }, 'Term '),
          el('select', { id: 'term-pick', onchange: show }, terms.map(function (t) {
            return el('option', { value: t.id, selected: t === current }, t.attributes.name + ' (' + t.attributes.first_day + ' – ' + t.attributes.last_day + ')');
          })),
          el('label', { for: 'loc-pick' }, ' Location '),
          el('select', { id: 'loc-pick', onchange: show }, locs.map(function (l) { return el('option', { value: locSlug(l) }, l.attributes.name); })));
        var holder = el('div');
        section.appendChild(el('p', { class: 'hint' }, 'The weekly hours of a location during a term. Type 9a-5p, 9:30am-1pm, 2pm-6pm, closed, 24h or 10p-2a for each weekday.'));
        section.appendChild(pick);
        section.appendChild(holder);
        function show() {
          var termId = pick.elements['term-pick'].value;
          var slug = pick.elements['loc-pick'].value;
          return api('GET', libPath() + '/locations/' + slug + '/schedules.json').then(function (doc) {
            var sched = doc.data.filter(function (s) { return s.relationships.term.data.id === termId; })[0];
            var byDay = {};
            if (sched) { sched.attributes.days.forEach(function (d) { byDay[d.weekday] = d; }); }
            var form = el('form', { class: 'weekly', novalidate: true });
            var errs = {};
            WEEKDAYS.forEach(function (w) {
              var id = 'wd-' + w;
              errs[w] = el('span', { class: 'field-error', id: id + '-err', role: 'alert' });
              form.appendChild(el('p', null, el('label', { for: id }, w), el('input', { id: id, name: w, type: 'text', value: sched ? ruleText(byDay[w]) : '', autocomplete: 'off' }), errs[w]));
            });
            var status = el('p', { class: 'status', role: 'status' });
            form.appendChild(el('p', null, el('button', { type: 'submit' }, sched ? 'Save term hours' : 'Create term hours'), sched ? el('button', { type: 'button', class: 'danger', onclick: function () {
              if (!window.confirm('Delete these term hours? The days fall back to another term or to no hours.')) { return; }
              api('DELETE', libPath() + '/locations/' + slug + '/schedules/' + sched.id).then(function () { say('Deleted'); show(); }, function (e) { status.textContent = e.message; });
            } }, 'Delete') : null));
            form.appendChild(status);
            form.addEventListener('submit', function (e) {
              e.preventDefault();
              var days = [];
              var bad = false;
              WEEKDAYS.forEach(function (w) {
                var input = form.elements[w];
                errs[w].textContent = '';
                input.removeAttribute('aria-invalid');
                var v = input.value.trim() === '' ? 'closed' : input.value;
                try {
                  var h = parseHours(v);
                  days.push(h.closed ? { weekday: w, closed: true } : h.open24 ? { weekday: w, open_24h: true } : { weekday: w, periods: h.periods });
                } catch (ex) {
                  bad = true;
                  errs[w].textContent = ex.message;
                  input.setAttribute('aria-invalid', 'true');
                  input.setAttribute('aria-describedby', 'wd-' + w + '-err');
                }
              });
              if (bad) { status.textContent = 'Nothing was saved: fix the days marked.'; return; }
              var doc = { data: { type: 'schedules', attributes: { days: days }, relationships: { term: { data: { type: 'terms', id: termId } } } } };
              var req;
              if (sched) {
                doc.data.id = sched.id;
                req = api('PATCH', libPath() + '/locations/' + slug + '/schedules/' + sched.id, doc);
              } else {
                req = api('POST', libPath() + '/locations/' + slug + '/schedules', doc);
              }
              req.then(function () { status.textContent = 'Saved.'; say('Term hours saved'); }, function (ex) {
                var m = /^\/data\/attributes\/days\/(\d+)/.exec(ex.pointer);
                if (m) { errs[days[+m[1]].weekday].textContent = ex.message; }
                status.textContent = 'Nothing was saved: ' + ex.message;
              });
            });
            holder.replaceChildren(form);
          });
        }
        return show();
      });
    }

    // ---- Terms and holidays ---------------------------------------------

    function termsView(section) {
      return Promise.all([api('GET', libPath() + '/terms.json'), api('GET', libPath() + '.json')]).then(function (r) {
        var terms = r[0].data;
        var locs = locationsOf(r[1]);
        section.replaceChildren(heading('Terms and holidays'));
        var status = el('p', { class: 'status', role: 'status' });
        var rows = terms.map(function (t) {
          return el('tr', null, el('td', null, t.attributes.name), el('td', null, t.attributes.first_day), el('td', null, t.attributes.last_day),
            el('td', null,
              el('button', { type: 'button', class: 'small', onclick: function () { fillTerm(t); } }, 'Edit', el('span', { class: 'visually-hidden' }, ' ' + t.attributes.name)),
              el('button', { type: 'button', class: 'small danger', onclick: function () {
                if (!window.confirm('Delete the term ' + t.attributes.name + ' and its weekly hours?')) { return; }
                api('DELETE', libPath() + '/terms/' + t.id).then(function () { say('Term deleted'); render(); }, function (e) { status.textContent = e.message; });
              } }, 'Delete', el('span', { class: 'visually-hidden' }, ' ' + t.attributes.name))));
        });
        section.appendChild(el('h3', null, 'Terms'));
        section.appendChild(el('div', { class: 'scroll' }, el('table', { class: 'list' }, el('thead', null, el('tr', null, ['Name', 'First day', 'Last day', 'Actions'].map(function (h) { return el('th', { scope: 'col' }, h); }))), el('tbody', null, rows))));
        var termForm = el('form', { class: 'fields', novalidate: true },
          el('input', { type: 'hidden', name: 'id' }),
          field('term-name', 'Name', el('input', { id: 'term-name', name: 'name', type: 'text', required: true, maxlength: '200' })),
          field('term-first', 'First day', el('input', { id: 'term-first', name: 'first_day', type: 'date', required: true })),
          field('term-last', 'Last day', el('input', { id: 'term-last', name: 'last_day', type: 'date', required: true })),
          el('p', null, el('button', { type: 'submit', name: 'save' }, 'Add term')), status);
        function fillTerm(t) {
          termForm.elements.id.value = t.id;
          termForm.elements.name.value = t.attributes.name;
          termForm.elements.first_day.value = t.attributes.first_day;
          termForm.elements.last_day.value = t.attributes.last_day;
          termForm.elements.save.textContent = 'Save term';
          termForm.elements.name.focus();
        }
        termForm.addEventListener('submit', function (e) {
          e.preventDefault();
          var f = termForm.elements;
          var attrs = { name: f.name.value, first_day: f.first_day.value, last_day: f.last_day.value };
          var req = f.id.value
            ? api('PATCH', libPath() + '/terms/' + f.id.value, { data: { type: 'terms', id: f.id.value, attributes: attrs } })
            : api('POST', libPath() + '/terms', { data: { type: 'terms', attributes: attrs } });
          req.then(function () { say('Term saved'); render(); }, function (ex) { status.textContent = 'Nothing was saved: ' + ex.message; });
        });
        section.appendChild(el('h3', null, 'Add or change a term'));
        section.appendChild(termForm);

        // Holidays and other per-date exceptions, every location's.
        section.appendChild(el('h3', null, 'Holidays, closures and special hours'));
        var listHolder = el('div');
        section.appendChild(listHolder);
        var exStatus = el('p', { class: 'status', role: 'status' });
        var exForm = el('form', { class: 'fields', novalidate: true },
          field('ex-loc', 'Location', el('select', { id: 'ex-loc', name: 'loc' }, el('option', { value: '*' }, 'Every location'), locs.map(function (l) { return el('option', { value: locSlug(l) }, l.attributes.name); }))),
          field('ex-day', 'Date', el('input', { id: 'ex-day', name: 'day', type: 'date', required: true })),
          field('ex-hours', 'Hours', el('input', { id: 'ex-hours', name: 'hours', type: 'text', value: 'closed', autocomplete: 'off' })),
          field('ex-type', 'Kind', el('select', { id: 'ex-type', name: 'type' }, el('option', { value: 'holiday' }, 'Holiday (closed)'), el('option', { value: 'closure' }, 'Closure (closed)'), el('option', { value: 'special' }, 'Special hours'))),
          field('ex-notes', 'Note', el('input', { id: 'ex-notes', name: 'notes', type: 'text', maxlength: '500' })),
          el('p', null, el('button', { type: 'submit' }, 'Add')), exStatus);
        exForm.addEventListener('submit', function (e) {
          e.preventDefault();
          var f = exForm.elements;
          var h;
          try { h = parseHours(f.hours.value); } catch (ex) { exStatus.textContent = 'Nothing was saved: ' + ex.message; return; }
          var type = h.closed ? (f.type.value === 'special' ? 'holiday' : f.type.value) : 'special';
          var targets = f.loc.value === '*' ? locs.filter(function (l) { return l.attributes.keeps_hours || l.attributes.primary; }).map(locSlug) : [f.loc.value];
          var attrs = hoursAttributes(h);
          attrs.day = f.day.value;
          attrs.hours_type = type;
          attrs.notes = f.notes.value;
          var done = [];
          // One location after another; on a refusal the ones already
          // written are removed again, so the form writes all or nothing.
          targets.reduce(function (p, slug) {
            return p.then(function () {
              return api('POST', libPath() + '/locations/' + slug + '/exceptions', { data: { type: 'exceptions', attributes: attrs } }).then(function (doc) { done.push([slug, doc.data.id]); });
            });
          }, Promise.resolve()).then(function () { say('Added'); render(); }, function (ex) {
            return Promise.all(done.map(function (d) { return api('DELETE', libPath() + '/locations/' + d[0] + '/exceptions/' + d[1]); })).then(function () {
              exStatus.textContent = 'Nothing was saved: ' + ex.message;
            });
          });
        });
        section.appendChild(el('h3', null, 'Add a holiday or special day'));
        section.appendChild(exForm);
        return Promise.all(locs.map(function (l) { return api('GET', libPath() + '/locations/' + locSlug(l) + '/exceptions.json'); })).then(function (docs) {
          var rows = [];
          docs.forEach(function (doc, i) {
            doc.data.forEach(function (x) { rows.push([locs[i], x]); });
          });
          rows.sort(function (a, b) { return a[1].attributes.day.localeCompare(b[1].attributes.day); });
          if (!rows.length) { listHolder.replaceChildren(el('p', null, 'None yet.')); return; }
          listHolder.replaceChildren(el('div', { class: 'scroll' }, el('table', { class: 'list' },
            el('thead', null, el('tr', null, ['Date', 'Location', 'Hours', 'Kind', 'Note', 'Actions'].map(function (h) { return el('th', { scope: 'col' }, h); }))),
            el('tbody', null, rows.map(function (r) {
              var x = r[1];
              return el('tr', null, el('td', null, x.attributes.day), el('td', null, r[0].attributes.name), el('td', null, ruleText(x.attributes)), el('td', null, x.attributes.hours_type), el('td', null, x.attributes.notes),
                el('td', null, el('button', { type: 'button', class: 'small danger', onclick: function () {
                  api('DELETE', libPath() + '/locations/' + locSlug(r[0]) + '/exceptions/' + x.id).then(function () { say('Removed'); render(); }, function (e) { exStatus.textContent = e.message; });
                } }, 'Remove', el('span', { class: 'visually-hidden' }, ' ' + x.attributes.day + ' ' + r[0].attributes.name))));
            })))));
        });
      });
    }

    function field(id, label, input) {
      return el('p', { class: 'field' }, el('label', { for: id }, label), input);
    }

    // ---- Library and locations --------------------------------------------

    // describing is the fields a library and a location share besides name
    // and slug: the place's own page, whether readers see it, and a note
    // for staff (docs/hours.md, "Public and not public").
    function describing(key, a) {
      var publicBox = el('input', { id: key + '-public', name: 'public', type: 'checkbox', checked: a.public !== false, 'aria-describedby': key + '-public-hint' });
      return [
        field(key + '-about', 'About page (URL)', el('input', { id: key + '-about', name: 'about_url', type: 'url', value: a.about_url || '', maxlength: '2000', placeholder: 'https://' })),
        el('p', { class: 'check' }, publicBox, el('label', { for: key + '-public' }, 'Public'),
          el('span', { id: key + '-public-hint', class: 'hint-inline' }, ' (unticked: hidden from the overview, pages, calendars and lists; staff still see it here)')),
        el('p', { class: 'field note' }, el('label', { for: key + '-note' }, 'Note for staff'),
          el('textarea', { id: key + '-note', name: 'note', rows: '2', maxlength: '2000' }, a.note || ''))
      ];
    }

    // described is the form's values of the describing fields.
    function described(f, attrs) {
      attrs.about_url = f.about_url.value.trim();
      attrs.public = f.public.checked;
      attrs.note = f.note.value;
      return attrs;
    }

    function libraryView(section) {
      return api('GET', libPath() + '.json').then(function (doc) {
        var lib = doc.data;
        var locs = locationsOf(doc);
        section.replaceChildren(heading('Library and locations'));
        var status = el('p', { class: 'status', role: 'status' });
        var libForm = el('form', { class: 'fields', novalidate: true },
          field('lib-name', 'Name', el('input', { id: 'lib-name', name: 'name', type: 'text', value: lib.attributes.name, maxlength: '200' })),
          field('lib-slug', 'Slug (in its URLs; the old one keeps working)', el('input', { id: 'lib-slug', name: 'slug', type: 'text', value: lib.attributes.slug, maxlength: '64' })),
          field('lib-zone', 'Time zone', el('input', { id: 'lib-zone', name: 'timezone', type: 'text', value: lib.attributes.timezone, maxlength: '64' })),
          describing('lib', lib.attributes),
          el('p', null, el('button', { type: 'submit' }, 'Save library'), isAdmin ? el('button', { type: 'button', class: 'danger', onclick: function () {
            if (!window.confirm('Delete ' + lib.attributes.name + ' with all its locations, terms and hours?')) { return; }
            api('DELETE', libPath()).then(function () { say('Library deleted'); location.hash = ''; load(); }, function (e) { status.textContent = e.message; });
          } }, 'Delete library') : null), status);
        libForm.addEventListener('submit', function (e) {
          e.preventDefault();
          var f = libForm.elements;
          api('PATCH', libPath(), { data: { type: 'libraries', id: lib.id, attributes: described(f, { name: f.name.value, slug: f.slug.value, timezone: f.timezone.value }) } }).then(function (d) {
            say('Library saved');
            // Made not public, it leaves the public list: load() finds it
            // among the unlisted.
            if (d.data.attributes.public === false && unlisted.indexOf(d.data.id) < 0) { unlisted.push(d.data.id); }
            // A new slug: the address names the library by it from now on.
            state.lib = d.data;
            writeHash();
            return load();
          }, function (ex) { status.textContent = 'Nothing was saved: ' + ex.message; });
        });
        section.appendChild(el('h3', null, 'Library'));
        section.appendChild(libForm);
        section.appendChild(el('h3', null, 'Locations'));
        locs.forEach(function (l) { section.appendChild(locationForm(l, locs)); });
        section.appendChild(el('h3', null, 'Add a location'));
        section.appendChild(locationForm(null, locs));
        if (isAdmin) {
          section.appendChild(el('h3', null, 'Add a library'));
          section.appendChild(newLibraryForm());
        }
      });
    }

    function locationForm(loc, locs) {
      var key = loc ? locSlug(loc) : 'new';
      var status = el('p', { class: 'status', role: 'status' });
      var a = loc ? loc.attributes : { name: '', slug: '', primary: locs.length === 0, keeps_hours: true, public: true };
      var desc = describing('loc-' + key, a); // about URL, public, note
      var form = el('form', { class: 'fields location', novalidate: true, 'aria-label': loc ? 'Location ' + a.name : 'New location' },
        field('loc-name-' + key, 'Name', el('input', { id: 'loc-name-' + key, name: 'name', type: 'text', value: a.name, maxlength: '200' })),
        field('loc-slug-' + key, 'Slug', el('input', { id: 'loc-slug-' + key, name: 'slug', type: 'text', value: a.slug, maxlength: '64' })),
        desc.slice(0, 2),
        el('p', { class: 'check' }, el('input', { id: 'loc-keeps-' + key, name: 'keeps_hours', type: 'checkbox', checked: a.keeps_hours }), el('label', { for: 'loc-keeps-' + key }, 'Keeps its own hours')),
        el('p', { class: 'check' }, el('input', { id: 'loc-primary-' + key, name: 'primary', type: 'checkbox', checked: a.primary }), el('label', { for: 'loc-primary-' + key }, 'Main location (its hours are the library\'s)')),
        desc[2],
        el('p', null, el('button', { type: 'submit' }, loc ? 'Save location' : 'Add location'), loc ? el('button', { type: 'button', class: 'danger', onclick: function () {
          if (!window.confirm('Delete the location ' + a.name + ' and its hours?')) { return; }
          api('DELETE', libPath() + '/locations/' + a.slug).then(function () { say('Location deleted'); render(); }, function (e) { status.textContent = e.message; });
        } }, 'Delete location') : null), status);
      form.addEventListener('submit', function (e) {
        e.preventDefault();
        var f = form.elements;
        // primary is sent only when ticked: the API makes a location the
        // main one (unsetting the previous), but refuses unsetting it.
        var attrs = described(f, { name: f.name.value, slug: f.slug.value, primary: f.primary.checked || undefined, keeps_hours: f.keeps_hours.checked });
        var req = loc
          ? api('PATCH', libPath() + '/locations/' + a.slug, { data: { type: 'locations', id: loc.id, attributes: attrs } })
          : api('POST', libPath() + '/locations', { data: { type: 'locations', attributes: attrs } });
        req.then(function () { say('Location saved'); render(); }, function (ex) { status.textContent = 'Nothing was saved: ' + ex.message; });
      });
      return form;
    }

    function newLibraryForm() {
      var status = el('p', { class: 'status', role: 'status' });
      var form = el('form', { class: 'fields', novalidate: true, 'aria-label': 'New library' },
        field('new-lib-name', 'Name', el('input', { id: 'new-lib-name', name: 'name', type: 'text', maxlength: '200' })),
        field('new-lib-slug', 'Slug', el('input', { id: 'new-lib-slug', name: 'slug', type: 'text', maxlength: '64' })),
        field('new-lib-zone', 'Time zone', el('input', { id: 'new-lib-zone', name: 'timezone', type: 'text', value: 'America/Los_Angeles', maxlength: '64' })),
        describing('new-lib', { public: true }),
        el('p', null, el('button', { type: 'submit' }, 'Add library')), status);
      form.addEventListener('submit', function (e) {
        e.preventDefault();
        var f = form.elements;
        api('POST', '/libraries', { data: { type: 'libraries', attributes: described(f, { name: f.name.value, slug: f.slug.value, timezone: f.timezone.value }) } }).then(function (d) {
          say('Library added');
          location.hash = 'library=' + encodeURIComponent(d.data.id) + '&view=library';
          return load();
        }, function (ex) { status.textContent = 'Nothing was saved: ' + ex.message; });
      });
      return form;
    }

    // ---- CSV ----------------------------------------------------------------

    var CSV_HEAD = ['location', 'date', 'hours', 'type', 'notes'];

    function csvField(v) {
      v = String(v === undefined || v === null ? '' : v);
      return /[",\n\r]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v;
    }

    // parseCSV reads RFC 4180 text into rows of fields.
    function parseCSV(text) {
      var rows = [];
      var row = [];
      var f = '';
      var q = false;
      for (var i = 0; i < text.length; i++) {
        var c = text.charAt(i);
        if (q) {
          if (c === '"' && text.charAt(i + 1) === '"') { f += '"'; i++; } else if (c === '"') { q = false; } else { f += c; }
        } else if (c === '"' && f === '') { q = true; } else if (c === ',') { row.push(f); f = ''; } else if (c === '\n' || c === '\r') {
          if (c === '\r' && text.charAt(i + 1) === '\n') { i++; }
          row.push(f); rows.push(row); row = []; f = '';
        } else { f += c; }
      }
      if (q) { throw new Error('the file ends inside a quoted field'); }
      if (f !== '' || row.length) { row.push(f); rows.push(row); }
      return rows.filter(function (r) { return !(r.length === 1 && r[0].trim() === ''); });
    }

    function csvView(section) {
      var today = todayIn(zone());
      var from = sunday(today);
      section.replaceChildren(heading('CSV export and import'));
      var exForm = el('form', { class: 'row', novalidate: true },
        el('label', { for: 'csv-from' }, 'From '), el('input', { id: 'csv-from', name: 'from', type: 'date', value: from }),
        el('label', { for: 'csv-to' }, ' to '), el('input', { id: 'csv-to', name: 'to', type: 'date', value: addDays(from, 27) }),
        el('button', { type: 'submit' }, 'Export CSV'));
        var exStatus = el('p', { class: 'status', role: 'status' });
      exForm.addEventListener('submit', function (e) {
        e.preventDefault();
        var f = exForm.elements;
        api('GET', libPath() + '.json?from=' + f.from.value + '&to=' + f.to.value).then(function (doc) {
          var lines = [CSV_HEAD.join(',')];
          locationsOf(doc).forEach(function (l) {
            if (!l.attributes.keeps_hours && !l.attributes.primary) { return; }
            (l.attributes.hours || []).forEach(function (d) {
              lines.push([locSlug(l), d.day, dayText(d), d.type, d.notes].map(csvField).join(','));
            });
          });
          var blob = new Blob([lines.join('\r\n') + '\r\n'], { type: 'text/csv' });
          var a = el('a', { href: URL.createObjectURL(blob), download: state.lib.id + '-hours-' + f.from.value + '-' + f.to.value + '.csv' }, 'Download ' + (lines.length - 1) + ' days as CSV');
          exStatus.replaceChildren(a);
          a.focus();
        }, function (ex) { exStatus.textContent = ex.message; });
      });
      section.appendChild(el('p', { class: 'hint' }, 'One row per location and date: location (slug), date (YYYY-MM-DD), hours (as typed in the week grid), type and notes. Import sets the hours of each date that changes, as a special day, holiday or closure; rows that change nothing are skipped.'));
      section.appendChild(el('h3', null, 'Export'));
      section.appendChild(exForm);
      section.appendChild(exStatus);
      var area = el('textarea', { id: 'csv-text', name: 'csv', rows: '8', spellcheck: 'false' });
      var file = el('input', { id: 'csv-file', type: 'file', accept: '.csv,text/csv', onchange: function () {
        if (file.files[0]) { file.files[0].text().then(function (t) { area.value = t; }); }
      } });
      var preview = el('div', { id: 'csv-preview' });
      var imForm = el('form', { class: 'fields', novalidate: true },
        field('csv-file', 'CSV file', file),
        field('csv-text', 'or paste CSV', area),
        el('p', null, el('button', { type: 'submit' }, 'Preview import')));
      imForm.addEventListener('submit', function (e) {
        e.preventDefault();
        previewImport(area.value, preview);
      });
      section.appendChild(el('h3', null, 'Import'));
      section.appendChild(imForm);
      section.appendChild(preview);
      return Promise.resolve();
    }

    function previewImport(text, holder) {
      var rows;
      try { rows = parseCSV(text); } catch (e) { holder.replaceChildren(errorBox(e)); return; }
      if (rows.length && rows[0][0].trim().toLowerCase() === 'location') { rows.shift(); }
      if (!rows.length) { holder.replaceChildren(errorBox(new Error('the CSV has no rows'))); return; }
      var plan = rows.map(function (r, i) {
        var p = { line: i + 2, location: (r[0] || '').trim(), date: (r[1] || '').trim(), text: (r[2] || '').trim(), type: (r[3] || '').trim(), notes: r[4] || '', error: '' };
        if (r.length < 3 || r.length > 5) { p.error = 'has ' + r.length + ' fields: want location,date,hours[,type[,notes]]'; return p; }
        if (!parseDate(p.date)) { p.error = 'date "' + p.date + '" is not a date YYYY-MM-DD'; return p; }
        try {
          p.hours = parseHours(p.text);
        } catch (ex) { p.error = ex.message; }
        if (!p.error && p.type && ['regular', 'special', 'holiday', 'closure', 'unscheduled'].indexOf(p.type) < 0) { p.error = 'type "' + p.type + '" is not special, holiday or closure'; }
        return p;
      });
      var dates = plan.filter(function (p) { return !p.error; }).map(function (p) { return p.date; }).sort();
      var fetches = dates.length ? api('GET', libPath() + '.json?from=' + dates[0] + '&to=' + dates[dates.length - 1]) : Promise.resolve(null);
      fetches.then(function (doc) {
        var locs = {};
        if (doc) { locationsOf(doc).forEach(function (l) { locs[locSlug(l)] = l; }); }
        var seen = {};
        plan.forEach(function (p) {
          if (p.error) { return; }
          var l = locs[p.location];
          if (!l) { p.error = 'no location "' + p.location + '" in ' + state.lib.attributes.name; return; }
          if (!l.attributes.keeps_hours && !l.attributes.primary) { p.error = p.location + ' keeps no hours of its own'; return; }
          var key = p.location + ' ' + p.date;
          if (seen[key]) { p.error = 'line ' + seen[key] + ' already sets ' + key; return; }
          seen[key] = p.line;
          var day = (l.attributes.hours || []).filter(function (d) { return d.day === p.date; })[0];
          p.day = day;
          p.before = day ? dayText(day) : '';
          var after = p.hours.closed ? 'closed' : p.hours.open24 ? '24h' : p.hours.periods.map(periodText).join(', ');
          p.after = after;
          var wantType = p.hours.closed ? (p.type === 'closure' ? 'closure' : 'holiday') : 'special';
          p.same = day && p.before === after && (day.notes || '') === p.notes && (day.type === 'regular' && !p.type || day.type === (p.type || wantType) || day.type === 'regular' && p.type === 'regular');
          p.attrs = hoursAttributes(p.hours);
          p.attrs.day = p.date;
          p.attrs.hours_type = wantType;
          p.attrs.notes = p.notes;
          p.exception = day && (day.type === 'special' || day.type === 'holiday' || day.type === 'closure') ? day.rule_id : null;
        });
        var errors = plan.filter(function (p) { return p.error; });
        var changes = plan.filter(function (p) { return !p.error && !p.same; });
        var summary = errors.length
          ? errors.length + ' of ' + plan.length + ' rows have errors: nothing will be written until every row is right.'
          : changes.length + ' of ' + plan.length + ' rows change hours; ' + (plan.length - changes.length) + ' change nothing.';
        var apply = el('button', { type: 'button', disabled: errors.length > 0 || changes.length === 0 }, 'Write ' + changes.length + (changes.length === 1 ? ' change' : ' changes'));
        var status = el('p', { class: 'status', role: 'status' });
        apply.addEventListener('click', function () {
          apply.disabled = true;
          writeAll(changes).then(function () {
            status.textContent = 'Written: ' + changes.length + (changes.length === 1 ? ' change.' : ' changes.');
            say(status.textContent);
          }, function (ex) {
            status.textContent = 'Nothing was written: ' + (ex.line ? 'line ' + ex.line + ': ' : '') + ex.message;
            say(status.textContent);
          });
        });
        holder.replaceChildren(
          el('h3', { tabindex: '-1', id: 'preview-title' }, 'Preview'),
          el('p', { class: errors.length ? 'error' : 'status', role: 'status' }, summary),
          el('div', { class: 'scroll' }, el('table', { class: 'list' },
            el('thead', null, el('tr', null, ['Line', 'Location', 'Date', 'Now', 'After import', 'Result'].map(function (h) { return el('th', { scope: 'col' }, h); }))),
            el('tbody', null, plan.map(function (p) {
              return el('tr', { class: p.error ? 'bad' : p.same ? 'same' : 'change' }, el('td', null, String(p.line)), el('td', null, p.location), el('td', null, p.date),
                el('td', null, p.before || ''), el('td', null, p.error ? p.text : p.after),
                el('td', null, p.error ? 'Error: ' + p.error : p.same ? 'No change' : 'Change'));
            })))),
          el('p', null, apply), status);
        document.getElementById('preview-title').focus();
      }, function (ex) { holder.replaceChildren(errorBox(ex)); });
    }

    // writeAll writes the changes in one request, JSON:API Atomic
    // Operations (POST /libraries/{id}/operations): the server writes them
    // in one transaction, so an import writes all of its rows or none, and
    // nobody ever reads part of it. A refusal names the operation, which is
    // turned back into the CSV line.
    function writeAll(changes) {
      var ops = changes.map(function (c) {
        var path = libPath() + '/locations/' + encodeURIComponent(c.location) + '/exceptions';
        if (c.exception) {
          return { op: 'update', href: path + '/' + c.exception, data: { type: 'exceptions', id: String(c.exception), attributes: c.attrs } };
        }
        return { op: 'add', href: path, data: { type: 'exceptions', attributes: c.attrs } };
      });
      return api('POST', libPath() + '/operations', { 'atomic:operations': ops }, ATOMIC).catch(function (ex) {
        var m = /^\/atomic:operations\/(\d+)/.exec(ex.pointer || '');
        if (m && changes[Number(m[1])]) { ex.line = changes[Number(m[1])].line; }
        throw ex;
      });
    }

    // ---- Changes (the audit log) ------------------------------------------

    // detailText is an audit entry's detail in words: "day: 2026-07-04;
    // kind: closed; notes: Independence Day"; a schedule's days one after
    // another.
    function detailText(d) {
      if (!d || typeof d !== 'object') { return d ? String(d) : ''; }
      return Object.keys(d).filter(function (k) { return d[k] !== '' && d[k] !== null; }).map(function (k) {
        var v = d[k];
        if (v && typeof v === 'object' && !Array.isArray(v)) {
          v = WEEKDAYS.filter(function (w) { return w in v; }).map(function (w) { return w.slice(0, 3) + ' ' + v[w]; }).join(', ') || JSON.stringify(v);
        }
        return k + ': ' + v;
      }).join('; ');
    }

    function changesView(section) {
      var when = new Intl.DateTimeFormat('en-GB', { timeZone: zone(), day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });
      return api('GET', libPath() + '/changes.json').then(function (doc) {
        section.replaceChildren(heading('Changes'), el('p', { class: 'hint' }, 'Who changed what in ' + state.lib.attributes.name + ', newest first.'));
        if (!doc.data.length) { section.appendChild(el('p', null, 'No changes recorded.')); return; }
        section.appendChild(el('div', { class: 'scroll' }, el('table', { class: 'list changes' },
          el('thead', null, el('tr', null, ['When', 'Who', 'What', 'Which', 'Details'].map(function (h) { return el('th', { scope: 'col' }, h); }))),
          el('tbody', null, doc.data.map(function (c) {
            var a = c.attributes;
            return el('tr', null, el('td', null, el('time', { datetime: a.at }, when.format(new Date(a.at)))), el('td', null, a.who), el('td', null, a.action),
              el('td', null, a.resource_type + ' ' + a.resource_id), el('td', { class: 'detail' }, detailText(a.detail)));
          })))));
      });
    }

    load().catch(function (e) { app.replaceChildren(errorBox(e)); });
  }

  // The parser is the page's, exposed for its tests and for the console.
  window.HoursEditor = { parseHours: parseHours, dayText: dayText };
  if (document.getElementById('app')) { startApp(); }
}());
