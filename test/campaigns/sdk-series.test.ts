// POST /api/sdk/series: the widget key decides the org; the customer is named by user_id (with a
// user_token under identity verification) or by email (a double opt-in, never a verified customer); enrolling is
// idempotent, removing stops future steps at once; draft, paused, archived and unknown campaigns
// are clear 4xx; limits at their boundary; org B's key reaches none of org A's campaigns or customers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { enrolCustomer } from "../../src/campaigns/enrolments.ts";
import { createCampaign, setCampaignStatus } from "../../src/campaigns/lifecycle.ts";
import { listEnrolments, listMessages } from "../../src/campaigns/queries.ts";
import { orgs } from "../../src/db/schema/index.ts";
import { createSender } from "../../src/compose.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { findEndUserByEmail } from "../../src/customers/records.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { recordingTransport, type RecordingTransport, seedCustomer, seedSeriesOrg, type SeriesOrg, step } from "./helpers.ts";

let app: TestApp;
let a: SeriesOrg;
let b: SeriesOrg;
let transport: RecordingTransport;
let sender: Sender;

beforeAll(async () => {
  app = await createTestApp();
  a = await seedSeriesOrg(app);
  b = await seedSeriesOrg(app);
  transport = recordingTransport();
  sender = createSender(app.deps, { transport });
}, 60_000);
afterAll(async () => {
  await sender.stop();
  await app.close();
});

type Json = Record<string, any>;
/**
 * Email series reach verified customers only, so a user_id sent with org A's or org B's key gets a
 * user_token signed by that org's backend unless the test sends its own (or `unsigned: true`).
 */
async function series(body: unknown, key: string | null = a.widget_key, headers: Record<string, string> = {}) {
  const { unsigned, ...fields } = body as Json;
  const secret = key === a.widget_key ? a.identity_secret : key === b.widget_key ? b.identity_secret : undefined;
  if (
    !unsigned &&
    secret &&
    typeof fields.user_id === "string" &&
    fields.user_id !== "anonymous" &&
    fields.user_id.length <= 256 &&
    fields.user_token === undefined
  )
    fields.user_token = await new SignJWT({ user_id: fields.user_id, ...(fields.email ? { email: fields.email } : {}) })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime(Math.floor(app.clock.now.getTime() / 1000) + 600)
      .sign(new TextEncoder().encode(secret));
  const res = await app.request("/api/sdk/series", { json: fields, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } });
  return { status: res.status, body: (await res.json()) as Json, headers: res.headers };
}
let count = 0;
async function campaign(
  org: SeriesOrg,
  status: "draft" | "active" | "paused" | "archived",
  steps = [step("First"), step("Second", 60)],
  slug = `sdk-${++count}`,
) {
  const acting = { orgId: org.org_id, actor: { kind: "system" as const, name: "test" } };
  const c = await createCampaign(app.deps, { ...acting, input: { name: "SDK series", slug, steps } });
  if (status !== "draft") await setCampaignStatus(app.deps, { ...acting, ref: c.id, to: "active" });
  if (status === "paused" || status === "archived") await setCampaignStatus(app.deps, { ...acting, ref: c.id, to: status });
  return c;
}

describe("enrol and remove", () => {
  test("enrol by user_id (idempotent), receive the first step, remove (stops the next at once)", async () => {
    const c = await campaign(a, "active");
    const first = await series({ campaign: c.slug, action: "enroll", user_id: "sdk-ada", email: "sdk-ada@example.com" });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ campaign: { id: c.id, slug: c.slug }, action: "enroll", state: "active", created: true });
    const again = await series({ campaign: c.id, action: "enroll", user_id: "sdk-ada" });
    expect(again.body).toMatchObject({ state: "active", created: false, customer_id: first.body.customer_id });
    expect((await listEnrolments(app.deps, a.org_id, c.id, {})).enrolments).toHaveLength(1);
    await sender.tick();
    expect(transport.sent.filter((m) => m.to === "sdk-ada@example.com").map((m) => m.subject)).toEqual(["First"]);

    const removed = await series({ campaign: c.slug, action: "remove", user_id: "sdk-ada" });
    expect(removed.status).toBe(200);
    expect(removed.body.state).toBe("removed");
    app.clock.advance(3600_000);
    await sender.tick();
    expect(transport.sent.filter((m) => m.to === "sdk-ada@example.com").map((m) => m.subject)).toEqual(["First"]);
    // Removing again is harmless; enrolling again resumes where they were, never resending First.
    expect((await series({ campaign: c.slug, action: "remove", user_id: "sdk-ada" })).body.state).toBe("removed");
    expect((await series({ campaign: c.slug, action: "enroll", user_id: "sdk-ada" })).body.state).toBe("active");
    await sender.tick();
    expect(transport.sent.filter((m) => m.to === "sdk-ada@example.com").map((m) => m.subject)).toEqual(["First", "Second"]);
  });

  test("remove cancels a step already queued", async () => {
    const c = await campaign(a, "active", [step("Queued")]);
    await series({ campaign: c.slug, action: "enroll", user_id: "sdk-queued", email: "sdk-queued@example.com" });
    const { queueDueSteps } = await import("../../src/campaigns/progress.ts");
    await queueDueSteps(app.deps);
    await series({ campaign: c.slug, action: "remove", user_id: "sdk-queued" });
    await sender.tick();
    expect(transport.sent.filter((m) => m.to === "sdk-queued@example.com")).toEqual([]);
    expect((await listMessages(app.deps, a.org_id, c.id, {})).messages.map((m) => m.status)).toEqual(["cancelled"]);
  });

  test("by email: answered 202 accepted whoever the address belongs to; a verified customer is neither enrolled nor removed without their user_token, and no one is created", async () => {
    const c = await campaign(a, "active");
    const known = await seedCustomer(app, a.org_id, { email: "known@example.com" });
    const accepted = { campaign: { id: c.id, slug: c.slug }, action: "enroll", accepted: true };
    const res = await series({ campaign: c.slug, action: "enroll", email: "Known@Example.com" });
    expect([res.status, res.body]).toEqual([202, accepted]);
    expect((await listEnrolments(app.deps, a.org_id, c.id, {})).enrolments).toEqual([]);
    const unknown = await series({ campaign: c.slug, action: "enroll", email: "stranger@example.com" });
    expect([unknown.status, unknown.body]).toEqual([202, accepted]);
    expect((await listEnrolments(app.deps, a.org_id, c.id, {})).enrolments).toEqual([]);
    expect(await findEndUserByEmail(app.deps, a.org_id, "stranger@example.com")).toBeNull();
    // Enrolled with their token, the customer is not removed by their address alone.
    await enrolCustomer(app.deps, {
      orgId: a.org_id,
      actor: { kind: "system", name: "test" },
      campaign: { ...c, status: "active" },
      endUser: known,
      source: "api",
    });
    const removed = await series({ campaign: c.slug, action: "remove", email: "known@example.com" });
    expect([removed.status, removed.body]).toEqual([202, { ...accepted, action: "remove" }]);
    expect((await listEnrolments(app.deps, a.org_id, c.id, {})).enrolments.map((e) => e.state)).toEqual(["active"]);
  });

  test("draft, paused, archived: 409 campaign_not_active; unknown: 404 campaign_not_found; no customer named: 400", async () => {
    for (const status of ["draft", "paused", "archived"] as const) {
      const c = await campaign(a, status);
      const res = await series({ campaign: c.slug, action: "enroll", user_id: "sdk-status" });
      expect([status, res.status, res.body.error.code]).toEqual([status, 409, "campaign_not_active"]);
    }
    const unknown = await series({ campaign: "no-such-series", action: "enroll", user_id: "sdk-status" });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, "campaign_not_found"]);
    const c = await campaign(a, "active");
    expect((await series({ campaign: c.slug, action: "enroll" })).status).toBe(400);
    expect((await series({ campaign: c.slug, action: "subscribe", user_id: "x" })).status).toBe(400);
    expect((await series({ campaign: c.slug, action: "enroll", user_id: "anonymous" })).status).toBe(400);
  });

  test("the widget key is required; CORS is the SDK's", async () => {
    const c = await campaign(a, "active");
    expect((await series({ campaign: c.slug, action: "enroll", user_id: "x" }, null)).status).toBe(401);
    expect((await series({ campaign: c.slug, action: "enroll", user_id: "x" }, "ab_live_notarealkeynotarealkey")).status).toBe(401);
    // The key is checked before the body: no key with a bad body is still 401.
    expect((await series({ nonsense: true }, null)).status).toBe(401);
    const preflight = await app.request("/api/sdk/series", {
      method: "OPTIONS",
      headers: { origin: "https://shop.example", "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" },
    });
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("rate limits", () => {
  test("the widget key's per-address quota: the last request within it passes, one more is 429 with Retry-After", async () => {
    const limited = await createTestApp({ SDK_RATE_LIMIT_PER_KEY_IP_PER_MINUTE: "3" });
    try {
      const org = await seedSeriesOrg(limited);
      const call = () =>
        limited.request("/api/sdk/series", {
          json: { campaign: "none", action: "enroll", user_id: "x" },
          headers: { authorization: `Bearer ${org.widget_key}` },
          ip: "203.0.113.9",
        });
      for (let i = 0; i < 3; i++) expect((await call()).status).toBe(404);
      const refused = await call();
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).not.toBeNull();
    } finally {
      await limited.close();
    }
  }, 30_000);
});

describe("identity verification", () => {
  test("on: a user_id needs a valid user_token, email alone is refused; the verified customer is enrolled", async () => {
    const org = await seedSeriesOrg(app);
    await app.deps.db.update(orgs).set({ identityVerification: true }).where(eq(orgs.id, org.org_id));
    const c = await campaign(org, "active");
    const sign = (claims: Record<string, unknown>, secret = org.identity_secret) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256" })
        .setExpirationTime(Math.floor(app.clock.now.getTime() / 1000) + 600)
        .sign(new TextEncoder().encode(secret));
    const missing = await series({ campaign: c.slug, action: "enroll", user_id: "iv-user" }, org.widget_key);
    expect([missing.status, missing.body.error.code]).toEqual([403, "user_token_required"]);
    const forged = await series(
      { campaign: c.slug, action: "enroll", user_id: "iv-user", user_token: await sign({ user_id: "iv-user" }, "not-the-secret") },
      org.widget_key,
    );
    expect(forged.status).toBe(403);
    const byEmail = await series({ campaign: c.slug, action: "enroll", email: "iv@example.com" }, org.widget_key);
    expect([byEmail.status, byEmail.body.error.code]).toEqual([403, "user_token_required"]);
    const ok = await series(
      { campaign: c.slug, action: "enroll", user_id: "iv-user", user_token: await sign({ user_id: "iv-user", email: "iv@example.com" }) },
      org.widget_key,
    );
    expect(ok.status).toBe(200);
    expect(ok.body.state).toBe("active");
    await sender.tick();
    expect(transport.sent.filter((m) => m.to === "iv@example.com").map((m) => m.subject)).toEqual(["First"]);
  });
});

describe("only verified customers are mailed", () => {
  test("verification off: an unverified user_id (a claim anyone with the key can make) is refused, and nothing is queued", async () => {
    const c = await campaign(a, "active", [step("Hello")]);
    const res = await series({ campaign: c.slug, action: "enroll", user_id: "typed-by-anyone", email: "stranger@victim.example", unsigned: true });
    expect([res.status, res.body.error.code]).toEqual([403, "customer_not_verified"]);
    expect((await listEnrolments(app.deps, a.org_id, c.id, {})).enrolments).toHaveLength(0);
    await sender.tick();
    expect(transport.sent.filter((m) => m.to === "stranger@victim.example")).toEqual([]);
  });
});

describe("limits at their boundary", () => {
  test("campaign 64, user_id 256, user_token 4096, email 320 characters", async () => {
    const slug = `l${"x".repeat(63)}`;
    await campaign(a, "active", [step("Limit")], slug);
    expect((await series({ campaign: slug, action: "enroll", user_id: "limits" })).status).toBe(200);
    expect((await series({ campaign: `${slug}x`, action: "enroll", user_id: "limits" })).status).toBe(400);
    expect((await series({ campaign: slug, action: "enroll", user_id: "u".repeat(256) })).status).toBe(200);
    expect((await series({ campaign: slug, action: "enroll", user_id: "u".repeat(257) })).status).toBe(400);
    // A token of exactly 4096 characters is read (and refused as invalid: 403); one more is a 400.
    expect((await series({ campaign: slug, action: "enroll", user_id: "limits", user_token: "t".repeat(4096) })).status).toBe(403);
    expect((await series({ campaign: slug, action: "enroll", user_id: "limits", user_token: "t".repeat(4097) })).status).toBe(400);
    const local = "e".repeat(64);
    const domain = `${"d".repeat(63)}.${"d".repeat(63)}.${"d".repeat(63)}.${"d".repeat(59)}.com`; // 255
    expect(`${local}@${domain}`.length).toBe(320);
    expect((await series({ campaign: slug, action: "enroll", email: `${local}@${domain}` })).status).toBe(202);
    expect((await series({ campaign: slug, action: "enroll", email: `${local}@${domain}x` })).status).toBe(400);
  });
});

describe("tenant boundary", () => {
  test("org B's key cannot name org A's campaigns (by id or slug) nor reach org A's customers", async () => {
    const c = await campaign(a, "active", [step("A only")], "a-only-series");
    const customerA = await seedCustomer(app, a.org_id, { email: "a-customer@example.com", externalId: "a-customer" });
    for (const ref of [c.id, c.slug]) {
      const res = await series({ campaign: ref, action: "enroll", user_id: "a-customer" }, b.widget_key);
      expect([res.status, res.body.error.code]).toEqual([404, "campaign_not_found"]);
      expect((await series({ campaign: ref, action: "remove", email: "a-customer@example.com" }, b.widget_key)).status).toBe(404);
    }
    const own = await campaign(b, "active", [step("B only")]);
    const byEmail = await series({ campaign: own.slug, action: "enroll", email: customerA.email! }, b.widget_key);
    expect(byEmail.status).toBe(202);
    expect((await listEnrolments(app.deps, b.org_id, own.id, {})).enrolments).toHaveLength(0);
    // A user_id of A's customer names, for B, a different person in B's own org.
    const byId = await series({ campaign: own.slug, action: "enroll", user_id: "a-customer" }, b.widget_key);
    expect(byId.status).toBe(200);
    expect(byId.body.customer_id).not.toBe(customerA.id);
    expect((await listEnrolments(app.deps, a.org_id, c.id, {})).enrolments).toHaveLength(0);
  });
});

describe("OpenAPI", () => {
  test("the series and campaign routes describe themselves with full schemas", async () => {
    const { openapiDocument } = await import("../../src/openapi.ts");
    const { seriesRoutes } = await import("../../src/sdk/series-routes.ts");
    const { campaignRoutes } = await import("../../src/campaigns/routes.ts");
    const info = { title: "t", version: "1", description: "d", serverUrl: app.deps.config.baseUrl };
    const doc = openapiDocument([...seriesRoutes(app.deps).routes, ...campaignRoutes(app.deps).routes], info) as Json;
    const series = doc.paths["/api/sdk/series"].post;
    expect(series.summary).toContain("email series");
    expect(series.requestBody.content["application/json"].schema.properties.action.anyOf.map((s: Json) => s.const)).toEqual(["enroll", "remove"]);
    expect(Object.keys(series.responses).sort()).toEqual(["200", "202", "400", "401", "403", "404", "409", "429"]);
    for (const [path, method] of [
      ["/api/campaigns", "get"],
      ["/api/campaigns", "post"],
      ["/api/campaigns/{id}", "get"],
      ["/api/campaigns/{id}", "patch"],
      ["/api/campaigns/{id}/preview", "post"],
      ["/api/campaigns/{id}/activate", "post"],
      ["/api/campaigns/{id}/pause", "post"],
      ["/api/campaigns/{id}/archive", "post"],
      ["/api/campaigns/{id}/enrolments", "get"],
      ["/api/campaigns/{id}/enrolments", "post"],
      ["/api/campaigns/{id}/enrolments/{customer}", "delete"],
      ["/api/campaigns/{id}/messages", "get"],
    ] as const) {
      const op = doc.paths[path]?.[method];
      expect([path, method, typeof op?.summary]).toEqual([path, method, "string"]);
      expect(op.tags).toContain("Email series");
      expect(Object.values(op.responses as Json).some((r: any) => r.content)).toBe(true);
    }
    expect(doc.paths["/api/campaigns"].post.requestBody.content["application/json"].schema.properties.steps.items.properties.body.description).toContain(
      "{{name}}",
    );
    // The served document carries the series endpoint.
    const served = (await (await app.request("/api/openapi.json")).json()) as Json;
    expect(served.paths["/api/sdk/series"].post.requestBody.content["application/json"].schema.required.sort()).toEqual(["action", "campaign"]);
  });
});
