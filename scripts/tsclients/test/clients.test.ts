// Drives every read operation of the PURL, Embed and Hours contracts, and a
// write of each service that has writes, through the generated TypeScript
// clients (gen/ts/<api>) against the real binary.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { createEmbedClient } from "../../../gen/ts/embed/client.gen.js";
import { createHoursClient } from "../../../gen/ts/hours/client.gen.js";
import { createPurlClient } from "../../../gen/ts/purl/client.gen.js";
import { startServer, type Server } from "./server.js";

let srv: Server;
before(async () => {
  srv = await startServer();
});
after(async () => {
  await srv?.stop();
});

const druid = "bb000kk0000"; // a public image object with two files
const jsonAPI = "application/vnd.api+json";

describe("PURL client", () => {
  const purl = () => createPurlClient({ baseUrl: `${srv.url}/purl` });

  it("getObject and getObjectHtml: the object's page", async () => {
    for (const res of [
      await purl().GET("/{id}", { params: { path: { id: druid } }, parseAs: "text" }),
      await purl().GET("/{id}.html", { params: { path: { id: druid } }, parseAs: "text" }),
    ]) {
      assert.equal(res.response.status, 200);
      assert.match(res.response.headers.get("content-type") ?? "", /^text\/html/);
      assert.match(res.data ?? "", /<html/i);
    }
  });

  it("getPublicXml and getMods: the records", async () => {
    const xml = await purl().GET("/{id}.xml", { params: { path: { id: druid } }, parseAs: "text" });
    assert.equal(xml.response.status, 200);
    assert.match(xml.data ?? "", /<publicObject[^>]*objectId="druid:bb000kk0000"/);
    const mods = await purl().GET("/{id}.mods", { params: { path: { id: druid } }, parseAs: "text" });
    assert.equal(mods.response.status, 200);
    assert.match(mods.data ?? "", /<mods[\s>]/);
  });

  it("getManifest: a IIIF Presentation 3 manifest", async () => {
    const { data, error, response } = await purl().GET("/{id}/iiif/manifest", { params: { path: { id: druid } } });
    assert.equal(response.status, 200, JSON.stringify(error));
    const manifest = data as { type?: string; items?: unknown[] };
    assert.equal(manifest.type, "Manifest");
    assert.equal(manifest.items?.length, 2);
  });

  it("getFile: a file's bytes, and a Range", async () => {
    const whole = await purl().GET("/{id}/file/{name}", {
      params: { path: { id: druid, name: "reading-room-north.png" } },
      parseAs: "arrayBuffer",
    });
    assert.equal(whole.response.status, 200);
    const bytes = new Uint8Array(whole.data as ArrayBuffer);
    assert.deepEqual([...bytes.slice(0, 4)], [0x89, 0x50, 0x4e, 0x47]); // PNG signature
    const part = await purl().GET("/{id}/file/{name}", {
      params: { path: { id: druid, name: "reading-room-north.png" }, header: { Range: "bytes=0-3" } },
      parseAs: "arrayBuffer",
    });
    assert.equal(part.response.status, 206);
    assert.equal((part.data as ArrayBuffer).byteLength, 4);
  });

  it("a missing object is the contract's error", async () => {
    const { error, response } = await purl().GET("/{id}.xml", { params: { path: { id: "zz999zz9999" } }, parseAs: "text" });
    assert.equal(response.status, 404);
    assert.ok(error);
  });

  it("deleteObject (write): refused without a token, done with one", async () => {
    const victim = "bc000df0001";
    const anon = await purl().DELETE("/{id}", { params: { path: { id: victim } } });
    assert.equal(anon.response.status, 401);
    const authed = createPurlClient({ baseUrl: `${srv.url}/purl`, headers: { Authorization: `Bearer ${srv.adminToken}` } });
    const del = await authed.DELETE("/{id}", { params: { path: { id: victim } } });
    assert.ok(del.response.status >= 200 && del.response.status < 300, `status ${del.response.status}: ${JSON.stringify(del.error)}`);
    const gone = await purl().GET("/{id}.xml", { params: { path: { id: victim } }, parseAs: "text" });
    assert.ok([404, 410].includes(gone.response.status), `after delete: ${gone.response.status}`);
  });
});

describe("Embed client", () => {
  const embed = () => createEmbedClient({ baseUrl: `${srv.url}/embed` });
  const objectURL = () => `${srv.url}/purl/${druid}`;

  it("getEmbed: oEmbed JSON and XML", async () => {
    const { data, error, response } = await embed().GET("/embed", { params: { query: { url: objectURL(), maxwidth: 640 } } });
    assert.equal(response.status, 200, JSON.stringify(error));
    // The operation answers JSON or (format=xml) text: narrow to the JSON form.
    assert.ok(typeof data === "object" && data !== null);
    assert.equal(data.type, "rich");
    assert.equal(data.version, "1.0");
    assert.match(data.html, /<iframe[^>]+src="[^"]*\/embed\/iframe\?url=/);
    assert.ok(data.width, "width");
    const xml = await embed().GET("/embed", { params: { query: { url: objectURL(), format: "xml" } }, parseAs: "text" });
    assert.equal(xml.response.status, 200);
    assert.match(xml.data ?? "", /<oembed>[\s\S]*<type>rich<\/type>/);
  });

  it("getEmbed: an object that is not a PURL is the contract's error", async () => {
    const { error, response } = await embed().GET("/embed", { params: { query: { url: "https://example.org/x" } } });
    assert.equal(response.status, 404);
    assert.ok(error);
  });

  it("getIframe: the viewer page", async () => {
    const { data, response } = await embed().GET("/iframe", { params: { query: { url: objectURL() } }, parseAs: "text" });
    assert.equal(response.status, 200);
    assert.match(data ?? "", /<html/i);
  });

  it("the viewer's assets: script, stylesheet, Mirador", async () => {
    const js = await embed().GET("/viewer/viewer.js", { parseAs: "text" });
    assert.equal(js.response.status, 200);
    assert.ok((js.data ?? "").length > 100);
    const css = await embed().GET("/viewer/viewer.css", { parseAs: "text" });
    assert.equal(css.response.status, 200);
    assert.ok((css.data ?? "").length > 100);
    const mirador = await embed().GET("/viewer/mirador.min.js", { parseAs: "text" });
    assert.equal(mirador.response.status, 200, "Mirador bundle (scripts/build-viewer.sh installs it)");
    assert.ok((mirador.data ?? "").length > 100_000);
    // Conditional GET through the client: the ETag answers 304.
    const etag = js.response.headers.get("etag") ?? "";
    assert.ok(etag);
    const again = await embed().GET("/viewer/viewer.js", { params: { header: { "If-None-Match": etag } }, parseAs: "text" });
    assert.equal(again.response.status, 304);
  });
});

describe("Hours client", () => {
  const hours = () => createHoursClient({ baseUrl: `${srv.url}/hours` });

  it("listLibraries, getLibrary, getLocation, legacyHours", async () => {
    const all = await hours().GET("/libraries.json", { params: { query: { from: "2026-01-05", to: "2026-01-11" } } });
    assert.equal(all.response.status, 200, JSON.stringify(all.error));
    const libs = all.data!.data;
    assert.ok(libs.length >= 2);
    const lib = libs[0];
    assert.equal(lib.attributes.hours?.length, 7);
    const one = await hours().GET("/libraries/{library_id}.json", { params: { path: { library_id: lib.id } } });
    assert.equal(one.response.status, 200);
    assert.equal(one.data!.data.id, lib.id);
    const loc = one.data!.included[0];
    assert.ok(loc, `library ${lib.id} has a location`);
    const location = await hours().GET("/libraries/{library_id}/locations/{location_id}.json", {
      params: { path: { library_id: lib.id, location_id: loc.attributes.slug }, query: { from: "2026-01-05" } },
    });
    assert.equal(location.response.status, 200);
    assert.equal(location.data!.data.attributes.hours?.length, 1);
    const legacy = await hours().GET("/api/v1/library/{library_id}/location/{location_id}/hours/for/{when}", {
      params: { path: { library_id: lib.id, location_id: loc.attributes.slug, when: "2026-01-05" } },
    });
    assert.equal(legacy.response.status, 200, JSON.stringify(legacy.error));
    assert.ok(Array.isArray(legacy.data) && legacy.data.length >= 1);
    assert.equal(legacy.data[0].day, "2026-01-05");
    const bad = await hours().GET("/libraries.json", { params: { query: { from: "2026-13-01" } } });
    assert.equal(bad.response.status, 400);
    assert.ok(bad.error?.errors?.length);
  });

  it("terms, schedules and exceptions: lists and single resources", async () => {
    const all = await hours().GET("/libraries.json");
    let sawException = false;
    for (const lib of all.data!.data) {
      const terms = await hours().GET("/libraries/{library_id}/terms.json", { params: { path: { library_id: lib.id } } });
      assert.equal(terms.response.status, 200);
      for (const term of terms.data!.data.slice(0, 1)) {
        const got = await hours().GET("/libraries/{library_id}/terms/{term_id}.json", { params: { path: { library_id: lib.id, term_id: term.id } } });
        assert.equal(got.response.status, 200);
        assert.equal(got.data!.data.attributes.name, term.attributes.name);
      }
      const one = await hours().GET("/libraries/{library_id}.json", { params: { path: { library_id: lib.id } } });
      for (const loc of one.data!.included) {
        const path = { library_id: lib.id, location_id: loc.attributes.slug };
        const schedules = await hours().GET("/libraries/{library_id}/locations/{location_id}/schedules.json", { params: { path } });
        assert.equal(schedules.response.status, 200);
        for (const s of schedules.data!.data.slice(0, 1)) {
          const got = await hours().GET("/libraries/{library_id}/locations/{location_id}/schedules/{schedule_id}.json", {
            params: { path: { ...path, schedule_id: s.id } },
          });
          assert.equal(got.response.status, 200);
          assert.equal(got.data!.data.attributes.days.length, s.attributes.days.length);
        }
        const exceptions = await hours().GET("/libraries/{library_id}/locations/{location_id}/exceptions.json", { params: { path } });
        assert.equal(exceptions.response.status, 200);
        for (const x of exceptions.data!.data.slice(0, 1)) {
          sawException = true;
          const got = await hours().GET("/libraries/{library_id}/locations/{location_id}/exceptions/{exception_id}.json", {
            params: { path: { ...path, exception_id: x.id } },
          });
          assert.equal(got.response.status, 200);
          assert.equal(got.data!.data.attributes.day, x.attributes.day);
        }
      }
    }
    assert.ok(sawException, "the sample data has an exception to read");
  });

  it("createLibrary (write): refused without a token, created with one", async () => {
    const body = { data: { type: "libraries" as const, attributes: { name: "TS Client Library", slug: "ts-client", timezone: "Europe/Berlin" } } };
    const anon = await hours().POST("/libraries", { body, headers: { "Content-Type": jsonAPI } });
    assert.equal(anon.response.status, 401);
    const admin = createHoursClient({ baseUrl: `${srv.url}/hours`, headers: { Authorization: `Bearer ${srv.adminToken}` } });
    const created = await admin.POST("/libraries", { body, headers: { "Content-Type": jsonAPI } });
    assert.equal(created.response.status, 201, JSON.stringify(created.error));
    assert.equal(created.data!.data.attributes.slug, "ts-client");
    const read = await hours().GET("/libraries/{library_id}.json", { params: { path: { library_id: "ts-client" } } });
    assert.equal(read.response.status, 200);
    assert.equal(read.data!.data.attributes.timezone, "Europe/Berlin");
  });
});
