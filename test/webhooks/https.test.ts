// Outside development the outbound guard accepts https only, and never loopback (the
// endpoint URL is https; docs/interface.md 8.2). Names resolve through app.hosts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, type TestApp } from "../support/app.ts";
import { seedSeriesOrg, type SeriesOrg } from "../campaigns/helpers.ts";

let app: TestApp;
let org: SeriesOrg;
beforeAll(async () => {
  app = await createTestApp();
  org = await seedSeriesOrg(app);
  app.hosts.set("hooks.example.com", ["93.184.216.34"]);
}, 60_000);
afterAll(() => app.close());

const create = (url: string) => app.request("/api/webhooks/endpoints", { headers: org.auth, json: { url, event_types: ["ticket.created"] } });

test("http is refused, https to a public address accepted, loopback refused", async () => {
  const http = await create("http://hooks.example.com/in");
  expect(http.status).toBe(400);
  expect(JSON.stringify(await http.json())).toContain("https");
  expect((await create("https://hooks.example.com/in")).status).toBe(201);
  expect((await create("https://127.0.0.1/in")).status).toBe(400);
  expect((await create("https://localhost/in")).status).toBe(400);
  expect((await create("https://user:pw@hooks.example.com/in")).status).toBe(400);
  // The URL length limit at its boundary: 2048 passes validation (then the guard), 2049 fails it.
  const long = (n: number) => `https://hooks.example.com/${"a".repeat(n - "https://hooks.example.com/".length)}`;
  expect((await create(long(2048))).status).toBe(201);
  const over = await create(long(2049));
  expect(over.status).toBe(400);
});
