// Rate limits of the SDK endpoints: per key and client IP, per org,
// tickets on their own quota, config per IP. 429 `rate_limited` with Retry-After, in our error shape.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp, seedOrg, type TestApp } from "../support/app.ts";

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;

beforeAll(async () => {
  app = await createTestApp({
    SDK_RATE_LIMIT_PER_KEY_IP_PER_MINUTE: "5",
    SDK_RATE_LIMIT_PER_ORG_PER_MINUTE: "8",
    SDK_TICKETS_PER_KEY_IP_PER_MINUTE: "2",
    SDK_CONFIG_PER_IP_PER_MINUTE: "3",
  });
  org = await seedOrg(app);
}, 30_000);
afterAll(() => app.close());

const identify = (ip: string) =>
  app.request("/api/sdk/users/identify", {
    ip,
    headers: { authorization: `Bearer ${org.widget_key}`, origin: "https://shop.example" },
    json: { user_id: "u" },
  });

async function expect429(res: Response) {
  expect(res.status).toBe(429);
  const retry = Number(res.headers.get("retry-after"));
  expect(retry).toBeGreaterThanOrEqual(1);
  expect(retry).toBeLessThanOrEqual(60);
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  expect(res.headers.get("access-control-expose-headers")).toContain("Retry-After");
  expect((await res.json()).error.code).toBe("rate_limited");
}

test("per key and IP: the 5th request passes, the 6th is 429; other IPs still pass until the org's 8 are spent", async () => {
  // Start of a fresh window, so the test does not straddle two.
  app.clock.advance(60_000 - (app.clock.now.getTime() % 60_000));
  for (let i = 1; i <= 5; i++) expect((await identify("198.51.100.1")).status).toBe(200);
  await expect429(await identify("198.51.100.1"));
  // 5 counted against the org so far (a request refused per key and IP never reaches the org's
  // count): three more from elsewhere, then the org is full whatever the address.
  for (const ip of ["198.51.100.2", "198.51.100.3", "198.51.100.4"]) expect((await identify(ip)).status).toBe(200);
  await expect429(await identify("198.51.100.5"));
  app.clock.advance(60_000);
  expect((await identify("198.51.100.1")).status).toBe(200);
});

test("tickets: 2 per key and IP per minute", async () => {
  app.clock.advance(60_000 - (app.clock.now.getTime() % 60_000));
  const post = () =>
    app.request("/api/sdk/tickets/create", { ip: "203.0.113.9", headers: { authorization: `Bearer ${org.widget_key}` }, json: { subject: "s", message: "m" } });
  expect((await post()).status).toBe(201);
  expect((await post()).status).toBe(201);
  await expect429(await post());
});

test("config: 3 per IP per minute", async () => {
  app.clock.advance(60_000 - (app.clock.now.getTime() % 60_000));
  const get = () => app.request(`/api/sdk/config?org_id=${org.org_id}`, { ip: "192.0.2.7" });
  for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
  await expect429(await get());
});
