// The TypeScript examples of docs/clients.md are the functions below,
// verbatim: the test fails when the two differ, and runs them against the
// real binary.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, it } from "node:test";

import { createEmbedClient } from "../../../gen/ts/embed/client.gen.js";
import { createHoursClient } from "../../../gen/ts/hours/client.gen.js";
import { repoRoot, startServer, type Server } from "./server.js";

export async function weekHours(baseUrl: string, library: string): Promise<string[]> {
  const hours = createHoursClient({ baseUrl }); // e.g. http://localhost:8080/hours
  const { data, error } = await hours.GET("/libraries/{library_id}.json", {
    params: { path: { library_id: library } }, // this week; query: { from, to } for others
  });
  if (error) throw new Error(error.errors.map((e) => e.detail ?? e.title).join("; "));
  if (!data) throw new Error("no document (a 412 answers If-Match with none)");
  return (data.data.attributes.hours ?? []).map((d) =>
    d.closed ? `${d.weekday}: closed` : `${d.weekday}: ${d.opens_at} – ${d.closes_at}`,
  );
}

export async function embedHTML(embedBase: string, purl: string): Promise<string> {
  const embed = createEmbedClient({ baseUrl: embedBase }); // e.g. http://localhost:8080/embed
  const { data, error, response } = await embed.GET("/embed", {
    params: { query: { url: purl, maxwidth: 800 } },
  });
  if (error || typeof data !== "object") throw new Error(`oEmbed answered ${response.status}`);
  return data.html; // an <iframe> of the viewer, ready to put into a page
}

let srv: Server;
before(async () => {
  srv = await startServer();
});
after(async () => {
  await srv?.stop();
});

it("the ts blocks of docs/clients.md are this file's examples", () => {
  const doc = fs.readFileSync(path.join(repoRoot, "docs", "clients.md"), "utf8");
  const blocks = [...doc.matchAll(/```ts\n([\s\S]*?)```\n/g)].map((m) => m[1]);
  assert.equal(blocks.length, 2, "docs/clients.md has two ts blocks (hours, oEmbed)");
  const source = fs.readFileSync(path.join(repoRoot, "scripts", "tsclients", "test", "docs.test.ts"), "utf8");
  for (const block of blocks) {
    assert.ok(source.includes(block), `not in scripts/tsclients/test/docs.test.ts:\n${block}`);
  }
});

it("the hours example lists this week", async () => {
  const days = await weekHours(`${srv.url}/hours`, "green");
  assert.equal(days.length, 7);
  assert.match(days[0], /^Sunday: /);
  await assert.rejects(weekHours(`${srv.url}/hours`, "no-such-library"), /no-such-library|not found/i);
});

it("the oEmbed example returns the viewer iframe", async () => {
  const html = await embedHTML(`${srv.url}/embed`, `${srv.url}/purl/bb000kk0000`);
  assert.match(html, /^<iframe [^>]*src="[^"]*\/embed\/iframe\?url=/);
  await assert.rejects(embedHTML(`${srv.url}/embed`, "https://example.org/x"), /oEmbed answered 404/);
});
