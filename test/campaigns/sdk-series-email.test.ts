// POST /api/sdk/series naming the customer by email alone (identity verification off). The widget
// key is public: it must not enrol or remove a verified customer (they prove who they are with a
// user_token), and its answer must not tell whoever holds it which addresses belong to the org's
// customers. An address no verified customer holds gets a double opt-in email (test/campaigns/opt-in
// has the SMTP round trip), within limits per address and per key + client IP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { OPT_IN, optInsOf } from "../../src/campaigns/opt-in.ts";
import { enrolCustomer } from "../../src/campaigns/enrolments.ts";
import { createCampaign, setCampaignStatus } from "../../src/campaigns/lifecycle.ts";
import { listEnrolments } from "../../src/campaigns/queries.ts";
import { queryRows } from "../../src/db/client.ts";
import { createSender } from "../../src/compose.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { recordingTransport, seedCustomer, seedSeriesOrg, type SeriesOrg, step } from "./helpers.ts";

let app: TestApp;
let org: SeriesOrg;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedSeriesOrg(app);
  expect((await app.request("/api/widget/identity", { method: "PUT", headers: org.auth, json: { enabled: false } })).status).toBe(200);
}, 60_000);
afterAll(() => app.close());

let count = 0;
const acting = () => ({ orgId: org.org_id, actor: { kind: "system" as const, name: "test" } });
async function campaign(status: "draft" | "active") {
  const c = await createCampaign(app.deps, { ...acting(), input: { name: "Enumeration", slug: `enum-${++count}`, steps: [step("Hello")] } });
  if (status === "active") return setCampaignStatus(app.deps, { ...acting(), ref: c.id, to: "active" });
  return c;
}

let ips = 0;
/** A request from its own client IP unless one is given (the per key + IP limit is tested on its own). */
async function series(body: Record<string, unknown>, ip = `198.51.100.${++ips}`) {
  return app.request("/api/sdk/series", { json: body, headers: { authorization: `Bearer ${org.widget_key}` }, ip });
}

/** Everything an answer says, but the request's own id. */
async function answer(res: Response) {
  const headers = [...res.headers].filter(([name]) => name !== "x-request-id").sort();
  return { status: res.status, headers, body: await res.text() };
}

/** What the request may not change: every customer and enrolment row, as stored. */
async function snapshot() {
  const rows = async (table: string) =>
    (await queryRows<{ r: string }>(app.deps.db, sql.raw(`select row_to_json(t)::text as r from ${table} t order by id`))).map((x) => x.r);
  return { customers: await rows("end_users"), enrolments: await rows("campaign_enrolments") };
}

describe("a verified customer without their user_token and an unknown address are answered alike", () => {
  test("enroll and remove: byte-identical answers; no customer created, changed, enrolled or removed; nothing mailed to the customer", async () => {
    const c = await campaign("active");
    const enrolledOne = await seedCustomer(app, org.org_id, { email: "member@example.com", externalId: "member" });
    await enrolCustomer(app.deps, { ...acting(), campaign: c, endUser: enrolledOne, source: "api" });
    const notEnrolled = await seedCustomer(app, org.org_id, { email: "outsider@example.com", externalId: "outsider" });

    const cases = [
      { action: "enroll", verified: notEnrolled.email!, unknown: "stranger-1@example.com" },
      { action: "enroll", verified: "MEMBER@example.com", unknown: "STRANGER-2@example.com" },
      { action: "remove", verified: enrolledOne.email!, unknown: "stranger-3@example.com" },
    ];
    for (const { action, verified, unknown } of cases) {
      const before = await snapshot();
      const forCustomer = await answer(await series({ campaign: c.slug, action, email: verified }, "203.0.113.7"));
      const forStranger = await answer(await series({ campaign: c.slug, action, email: unknown }, "203.0.113.7"));
      expect([action, forCustomer.status]).toEqual([action, 202]);
      expect([action, forCustomer]).toEqual([action, forStranger]);
      expect(JSON.parse(forCustomer.body)).toEqual({ campaign: { id: c.id, slug: c.slug }, action, accepted: true });
      expect([action, await snapshot()]).toEqual([action, before]);
      expect(await optInsOf(app.deps, org.org_id, verified)).toEqual([]);
    }
    expect((await listEnrolments(app.deps, org.org_id, c.id, {})).enrolments.map((e) => [e.customer.email, e.state])).toEqual([
      ["member@example.com", "active"],
    ]);

    // Only the strangers' addresses are asked to confirm (remove asks no one); no customer gets mail.
    const transport = recordingTransport();
    const sender = createSender(app.deps, { transport });
    await sender.tick();
    await sender.stop();
    const confirmations = transport.sent.filter((m) => m.subject.startsWith("Confirm your subscription"));
    expect(confirmations.map((m) => m.to).sort()).toEqual(["stranger-1@example.com", "stranger-2@example.com"]);
    // The enrolled customer gets the series the org enrolled them in, and nothing else.
    expect(transport.sent.filter((m) => m.to === "member@example.com").map((m) => m.subject)).toEqual(["Hello"]);
    expect(transport.sent.filter((m) => m.to === "outsider@example.com")).toEqual([]);
  });

  test("what does not depend on the address is still refused plainly, for known and unknown alike: a draft campaign 409, an unknown campaign 404", async () => {
    const draft = await campaign("draft");
    await seedCustomer(app, org.org_id, { email: "draft-known@example.com" });
    for (const email of ["draft-known@example.com", "draft-unknown@example.com"]) {
      const res = await series({ campaign: draft.slug, action: "enroll", email });
      expect([email, res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([email, 409, "campaign_not_active"]);
      expect([email, (await series({ campaign: "no-such-series", action: "enroll", email })).status]).toEqual([email, 404]);
    }
    expect((await listEnrolments(app.deps, org.org_id, draft.id, {})).enrolments).toEqual([]);
  });
});

describe("limits on requests by email", () => {
  test(`per address: ${OPT_IN.perAddress.limit} a day pass, one more is 429 — the same for a verified customer's address and an unknown one`, async () => {
    const c = await campaign("active");
    await seedCustomer(app, org.org_id, { email: "limited-customer@example.com" });
    for (const email of ["limited-customer@example.com", "limited-stranger@example.com"]) {
      for (let i = 1; i <= OPT_IN.perAddress.limit; i++)
        expect([email, i, (await series({ campaign: c.slug, action: "enroll", email })).status]).toEqual([email, i, 202]);
      const over = await series({ campaign: c.slug, action: "enroll", email: email.toUpperCase() });
      expect([email, over.status, ((await over.json()) as { error: { code: string } }).error.code]).toEqual([email, 429, "rate_limited"]);
      expect(Number(over.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    // Each accepted request for the stranger asked once; the refused one asked nothing.
    expect(await optInsOf(app.deps, org.org_id, "limited-stranger@example.com")).toHaveLength(OPT_IN.perAddress.limit);
    // Removing by email changes nothing, so it is not charged.
    for (let i = 0; i < OPT_IN.perAddress.limit + 2; i++)
      expect((await series({ campaign: c.slug, action: "remove", email: "limited-stranger@example.com" })).status).toBe(202);
  });

  test(`per widget key and client IP: ${OPT_IN.perKeyIp.limit} an hour pass, one more is 429; another IP is still served`, async () => {
    const c = await campaign("active");
    const ip = "192.0.2.99";
    for (let i = 1; i <= OPT_IN.perKeyIp.limit; i++)
      expect([i, (await series({ campaign: c.slug, action: "enroll", email: `burst-${i}@example.com` }, ip)).status]).toEqual([i, 202]);
    const over = await series({ campaign: c.slug, action: "enroll", email: "burst-over@example.com" }, ip);
    expect([over.status, ((await over.json()) as { error: { code: string } }).error.code]).toEqual([429, "rate_limited"]);
    expect(await optInsOf(app.deps, org.org_id, "burst-over@example.com")).toEqual([]);
    expect((await series({ campaign: c.slug, action: "enroll", email: "burst-over@example.com" }, "192.0.2.100")).status).toBe(202);
  });
});
