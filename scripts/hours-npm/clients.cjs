// Drives the Hours JSON:API of a running sitesvc through three real
// JSON:API client libraries (jsona, devour-client, kitsu), as a generic
// client uses them: read at the URL the library builds, change an
// attribute, send the resource back (PATCH at its URL), delete. Run by
// impl/hours/clients_test.go with HOURS_URL (the service's base URL) and
// TOKEN (an admin token). Prints one line per check; exits 1 on the first
// failure.
'use strict';
const { default: Jsona } = require('jsona');
const JsonApi = require('devour-client');

const base = process.env.HOURS_URL;
const token = process.env.TOKEN;
const media = 'application/vnd.api+json';

function check(ok, what, detail) {
  if (!ok) {
    console.error('FAIL ' + what + (detail ? ': ' + detail : ''));
    process.exit(1);
  }
  console.log('ok ' + what);
}

// raw is a plain fetch for the set-up (not one of the clients under test).
async function raw(method, path, doc) {
  const r = await fetch(base + path, {
    method,
    headers: { Accept: media, 'Content-Type': media, Authorization: 'Bearer ' + token },
    body: doc ? JSON.stringify(doc) : undefined,
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null, headers: r.headers };
}

async function setup(slug) {
  let r = await raw('POST', '/libraries', { data: { type: 'libraries', attributes: { name: 'Client ' + slug, slug, timezone: 'America/New_York' } } });
  check(r.status === 201, 'create library ' + slug, JSON.stringify(r.body));
  r = await raw('POST', `/libraries/${slug}/locations`, { data: { type: 'locations', attributes: { name: 'Main', slug: 'main', primary: true, keeps_hours: true } } });
  check(r.status === 201, 'create location', JSON.stringify(r.body));
  r = await raw('POST', `/libraries/${slug}/terms`, { data: { type: 'terms', attributes: { name: 'Year', first_day: '2026-01-01', last_day: '2026-12-31' } } });
  check(r.status === 201, 'create term', JSON.stringify(r.body));
  const term = r.body.data.id;
  r = await raw('POST', `/libraries/${slug}/locations/main/schedules`, {
    data: { type: 'schedules', attributes: { days: [{ weekday: 'Monday', periods: ['09:00-17:00'] }] }, relationships: { term: { data: { type: 'terms', id: term } } } },
  });
  check(r.status === 201, 'create schedule', JSON.stringify(r.body));
  r = await raw('POST', `/libraries/${slug}/locations/main/exceptions`, { data: { type: 'exceptions', attributes: { day: '2026-07-04', closed: true, notes: 'Independence Day' } } });
  check(r.status === 201, 'create exception', JSON.stringify(r.body));
  return { term, exception: r.body.data.id, exceptionSelf: r.body.links.self };
}

async function withJsona() {
  const slug = 'client-jsona';
  const ids = await setup(slug);
  const jsona = new Jsona();
  const headers = { Accept: media, 'Content-Type': media, Authorization: 'Bearer ' + token };
  // Read at the bare URL, deserialise, change the name, serialise the
  // whole model back (attributes such as hours, relationships and all).
  let r = await fetch(`${base}/libraries/${slug}`, { headers });
  check(r.status === 200, 'jsona: GET bare library URL', String(r.status));
  const lib = jsona.deserialize(await r.json());
  check(lib.name === 'Client ' + slug && Array.isArray(lib.locations) && lib.locations.length === 1, 'jsona: deserialised library with its locations');
  lib.name = 'Jsona Library';
  const doc = jsona.serialize({ stuff: lib });
  r = await fetch(lib.links ? lib.links.self : `${base}/libraries/${slug}.json`, { method: 'PATCH', headers, body: JSON.stringify(doc) });
  const body = await r.text();
  check(r.status === 200 && JSON.parse(body).data.attributes.name === 'Jsona Library', 'jsona: PATCH the library back at links.self', r.status + ' ' + body);
  // A location sent back as read.
  r = await fetch(`${base}/libraries/${slug}/locations/main.json`, { headers });
  const loc = jsona.deserialize(await r.json());
  loc.name = 'Jsona Main';
  r = await fetch(`${base}/libraries/${slug}/locations/main.json`, { method: 'PATCH', headers, body: JSON.stringify(jsona.serialize({ stuff: loc })) });
  check(r.status === 200, 'jsona: PATCH a location back as read', r.status + ' ' + (await r.text()));
  // An exception: read at links.self, change the note, send back, delete.
  r = await fetch(ids.exceptionSelf, { headers });
  const ex = jsona.deserialize(await r.json());
  ex.notes = 'Fourth of July';
  r = await fetch(ids.exceptionSelf, { method: 'PATCH', headers, body: JSON.stringify(jsona.serialize({ stuff: ex })) });
  check(r.status === 200, 'jsona: PATCH an exception back at links.self', r.status + ' ' + (await r.text()));
  r = await fetch(ids.exceptionSelf, { method: 'DELETE', headers });
  check(r.status === 204, 'jsona: DELETE the exception at links.self', String(r.status));
  r = await fetch(`${base}/libraries/${slug}`, { method: 'DELETE', headers });
  check(r.status === 204, 'jsona: DELETE the library at its bare URL', String(r.status));
}

async function withDevour() {
  const slug = 'client-devour';
  const ids = await setup(slug);
  const api = new JsonApi({ apiUrl: base, pluralize: false, trailingSlash: false });
  api.headers['Authorization'] = 'Bearer ' + token;
  api.define('libraries', { name: '', slug: '', timezone: '', locations: { jsonApi: 'hasMany', type: 'locations' }, primary_location: { jsonApi: 'hasOne', type: 'locations' } }, { collectionPath: 'libraries' });
  api.define('locations', { name: '', slug: '', primary: false, keeps_hours: false }, { collectionPath: `libraries/${slug}/locations` });
  api.define('terms', { name: '', first_day: '', last_day: '' }, { collectionPath: `libraries/${slug}/terms` });
  api.define('exceptions', { day: '', closed: false, hours_type: '', notes: '' }, { collectionPath: `libraries/${slug}/locations/main/exceptions` });
  // findAll reads the bare collection URLs (issue 19.5).
  const all = await api.findAll('libraries');
  // (PostgreSQL runs hold no sample data: only the libraries made here.)
  check(Array.isArray(all.data) && all.data.some((l) => l.id === slug && l.name === 'Client ' + slug),
    'devour: findAll libraries at /libraries', JSON.stringify(all.data.map((l) => l.id)));
  const terms = await api.findAll('terms');
  check(terms.data.length === 1 && terms.data[0].id === ids.term, 'devour: findAll a library\'s terms', JSON.stringify(terms.data));
  const exceptions = await api.findAll('exceptions');
  check(exceptions.data.length === 1 && exceptions.data[0].id === ids.exception && exceptions.data[0].notes === 'Independence Day',
    'devour: findAll a location\'s exceptions', JSON.stringify(exceptions.data));
  // devour builds /libraries/{id} (no .json) for find, update and destroy.
  const found = await api.find('libraries', slug);
  check(found.data.name === 'Client ' + slug, 'devour: find library at its bare URL');
  const updated = await api.update('libraries', { id: slug, name: 'Devour Library' });
  check(updated.data.name === 'Devour Library', 'devour: update library (sends "meta":{})');
  const term = await api.find('terms', ids.term);
  check(term.data.first_day === '2026-01-01', 'devour: find term at its bare URL');
  const t2 = await api.update('terms', { id: ids.term, name: 'Calendar year' });
  check(t2.data.name === 'Calendar year', 'devour: update term');
  await api.destroy('terms', ids.term).catch((e) => check(false, 'devour: destroy term', String(e)));
  const gone = await raw('GET', `/libraries/${slug}/terms/${ids.term}`);
  check(gone.status === 404, 'devour: the destroyed term is gone (404)', String(gone.status));
  await api.destroy('libraries', slug).catch((e) => check(false, 'devour: destroy library', String(e)));
  console.log('ok devour: destroy library');
}

async function withKitsu() {
  const slug = 'client-kitsu';
  await setup(slug);
  // kitsu 11's CommonJS build is marked as an ES module: import it.
  const { default: Kitsu } = await import('kitsu');
  const api = new Kitsu({ baseURL: base, pluralize: false, camelCaseTypes: false, resourceCase: 'none', headers: { Authorization: 'Bearer ' + token } });
  const list = await api.get('libraries');
  check(Array.isArray(list.data) && list.data.some((l) => l.id === slug && l.name === 'Client ' + slug),
    'kitsu: get the libraries collection at /libraries', JSON.stringify(list.data.map((l) => l.id)));
  // kitsu reads model/id/relationship paths (deeper ones it cuts short):
  // a library's terms are such a collection.
  const terms = await api.get(`libraries/${slug}/terms`);
  check(Array.isArray(terms.data) && terms.data.length === 1 && terms.data[0].first_day === '2026-01-01', 'kitsu: get a library\'s terms collection', JSON.stringify(terms.data));
  const got = await api.get(`libraries/${slug}`);
  check(got.data.name === 'Client ' + slug, 'kitsu: get library at its bare URL');
  const loc = await api.get(`libraries/${slug}/locations/main`);
  check(loc.data.slug === 'main' && loc.data.library && loc.data.library.data.id === slug, 'kitsu: get location with its library relationship');
  await api.patch('libraries', { id: slug, name: 'Kitsu Library' });
  const again = await api.get(`libraries/${slug}.json`);
  check(again.data.name === 'Kitsu Library', 'kitsu: patch library, read back at .json');
  let bad = null;
  await api.get(`libraries/${slug}`, { params: { sort: 'name' } }).catch((e) => { bad = e; });
  check(bad && bad.response && bad.response.status === 400, 'kitsu: an unsupported sort is 400');
  await api.delete('libraries', slug);
  let gone = null;
  await api.get(`libraries/${slug}`).catch((e) => { gone = e; });
  check(gone && gone.response && gone.response.status === 404, 'kitsu: deleted library is 404');
}

(async () => {
  const only = process.argv[2];
  for (const [name, fn] of [['jsona', withJsona], ['devour', withDevour], ['kitsu', withKitsu]]) {
    if (!only || only === name) {
      await fn().catch((e) => check(false, name, (e && e.stack) || String(e)));
    }
  }
})();
