// The email series dashboard API (/api/campaigns): lifecycle, sending rules (only active sends,
// pausing keeps everyone's place, an edit never resends a step, removal stops future steps),
// automatic enrolment by audience, roles, every limit at its boundary, and org B reaching none of
// org A's campaigns on any endpoint.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { createCampaign } from "../../src/campaigns/lifecycle.ts";
import { CAMPAIGN_LIMITS } from "../../src/campaigns/model.ts";
import { activityLog, campaigns } from "../../src/db/schema/index.ts";
import { createSender } from "../../src/compose.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { addMember, recordingTransport, type RecordingTransport, seedCustomer, seedSeriesOrg, type SeriesOrg, step } from "./helpers.ts";

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
async function call(method: string, path: string, json?: unknown, headers = a.auth): Promise<{ status: number; body: Json }> {
  const res = await app.request(path, { method, headers, ...(json !== undefined ? { json } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {} };
}
const post = (path: string, json?: unknown, headers = a.auth) => call("POST", path, json, headers);
const get = (path: string, headers = a.auth) => call("GET", path, undefined, headers);
const patch = (path: string, json: unknown, headers = a.auth) => call("PATCH", path, json, headers);
const sentTo = (email: string) => transport.sent.filter((m) => m.to === email).map((m) => m.subject);

let slugs = 0;
async function activeCampaign(steps: unknown[], extra: Json = {}, org = a) {
  const created = await post("/api/campaigns", { name: "Series", slug: `series-${++slugs}`, steps, ...extra }, org.auth);
  expect(created.status).toBe(201);
  expect((await post(`/api/campaigns/${created.body.id}/activate`, undefined, org.auth)).status).toBe(200);
  return created.body as Json;
}

describe("lifecycle", () => {
  test("create (draft), read by id and slug, list, edit, preview, activate, pause, archive — each recorded with its actor", async () => {
    const created = await post("/api/campaigns", {
      name: "Onboarding",
      slug: "onboarding",
      steps: [step('Hello {{first_name | "there"}}')],
      sender: { name: "Acme" },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug: "onboarding", name: "Onboarding", status: "draft", sender: { name: "Acme", reply_to: null }, audience: null });
    expect(created.body.steps[0]).toMatchObject({ position: 0, delay_seconds: 0, delay_from: "previous", subject: 'Hello {{first_name | "there"}}' });
    const id = created.body.id;
    expect((await get(`/api/campaigns/${id}`)).body.id).toBe(id);
    expect((await get("/api/campaigns/onboarding")).body.id).toBe(id);
    expect((await get("/api/campaigns")).body.campaigns.map((c: Json) => c.id)).toContain(id);
    expect((await get("/api/campaigns?status=active")).body.campaigns.map((c: Json) => c.id)).not.toContain(id);
    // A slug is unique per org, and a name alone gets one derived.
    expect((await post("/api/campaigns", { name: "Again", slug: "onboarding" })).status).toBe(409);
    const derived = await post("/api/campaigns", { name: "Trial ending!" });
    expect(derived.body.slug).toMatch(/^trial-ending-[0-9a-f]{6}$/);
    expect(derived.body.sender.name).toMatch(/^Org \d+$/); // the org's name when no sender is given

    const edited = await patch(`/api/campaigns/${id}`, {
      name: "Onboarding v2",
      steps: [{ id: created.body.steps[0].id, ...step("Hi {{name}}") }, step("Second", 86_400)],
    });
    expect(edited.status).toBe(200);
    expect(edited.body.steps.map((s: Json) => s.subject)).toEqual(["Hi {{name}}", "Second"]);
    expect(edited.body.steps[0].id).toBe(created.body.steps[0].id);

    const preview = await post(`/api/campaigns/${id}/preview`);
    expect(preview.status).toBe(200);
    expect(preview.body.customer).toMatchObject({ sample: true });
    expect(preview.body.steps.map((s: Json) => [s.subject, s.seconds_after_enrolment])).toEqual([
      ["Hi Alex Example", 0],
      ["Second", 86_400],
    ]);
    expect(preview.body.steps[0].html).toContain("Unsubscribe");
    expect(transport.sent).toHaveLength(0); // a preview sends nothing

    for (const [action, status] of [
      ["activate", "active"],
      ["pause", "paused"],
      ["activate", "active"],
      ["archive", "archived"],
    ] as const) {
      const res = await post(`/api/campaigns/${id}/${action}`);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe(status);
    }
    const actions = await app.deps.db
      .select()
      .from(activityLog)
      .where(and(eq(activityLog.orgId, a.org_id), eq(activityLog.objectId, id)));
    expect(actions.map((r) => r.action).sort()).toEqual(
      ["campaign.activated", "campaign.activated", "campaign.archived", "campaign.created", "campaign.paused", "campaign.updated"].sort(),
    );
    expect(actions.every((r) => r.actorKind === "member" && r.memberId === a.adminId)).toBe(true);
  });

  test("refused transitions: pause a draft, activate with no steps, anything on an archived campaign, enrol into draft or paused", async () => {
    const empty = await post("/api/campaigns", { name: "Empty" });
    expect((await post(`/api/campaigns/${empty.body.id}/activate`)).body.error.code).toBe("campaign_empty");
    expect((await post(`/api/campaigns/${empty.body.id}/pause`)).status).toBe(409);
    const customer = await seedCustomer(app, a.org_id, { externalId: "u-transitions" });
    const draft = await post("/api/campaigns", { name: "Draft", steps: [step("x")] });
    const enrolDraft = await post(`/api/campaigns/${draft.body.id}/enrolments`, { customer_id: customer.id });
    expect(enrolDraft.status).toBe(409);
    expect(enrolDraft.body.error.code).toBe("campaign_not_active");
    const paused = await activeCampaign([step("x")]);
    await post(`/api/campaigns/${paused.id}/pause`);
    expect((await post(`/api/campaigns/${paused.id}/enrolments`, { customer_id: customer.id })).body.error.code).toBe("campaign_not_active");
    await post(`/api/campaigns/${paused.id}/archive`);
    expect((await post(`/api/campaigns/${paused.id}/activate`)).body.error.code).toBe("campaign_archived");
    expect((await patch(`/api/campaigns/${paused.id}`, { name: "x" })).body.error.code).toBe("campaign_archived");
    expect((await get("/api/campaigns/no-such-campaign")).status).toBe(404);
  });

  test("templates are checked when saved: an unknown variable or a stray {{ is a 400 naming the step", async () => {
    const unknown = await post("/api/campaigns", { name: "Typo", steps: [step("Hi {{nmae}}")] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0]).toMatchObject({ path: "/steps/0/subject" });
    const stray = await post("/api/campaigns", { name: "Stray", steps: [{ ...step("ok"), body: "Hello {{ name" }] });
    expect(stray.status).toBe(400);
    expect(stray.body.error.details[0].path).toBe("/steps/0/body");
    const foreignId = await post("/api/campaigns", { name: "Ids", steps: [{ id: "not-mine", ...step("x") }] });
    expect(foreignId.status).toBe(400);
  });
});

describe("sending rules", () => {
  test("only active campaigns send; pausing keeps everyone's place; nothing is lost or sent twice on resume", async () => {
    const c = await activeCampaign([step("P1", 0), step("P2", 60), step("P3", 60)]);
    const customer = await seedCustomer(app, a.org_id, { email: "pause@example.com" });
    expect((await post(`/api/campaigns/${c.id}/enrolments`, { customer_id: customer.id })).status).toBe(201);
    await sender.tick();
    expect(sentTo("pause@example.com")).toEqual(["P1"]);
    await post(`/api/campaigns/${c.id}/pause`);
    app.clock.advance(3600_000);
    await sender.tick();
    expect(sentTo("pause@example.com")).toEqual(["P1"]);
    await post(`/api/campaigns/${c.id}/activate`);
    await sender.tick();
    expect(sentTo("pause@example.com")).toEqual(["P1", "P2"]);
    app.clock.advance(60_000);
    await sender.tick();
    expect(sentTo("pause@example.com")).toEqual(["P1", "P2", "P3"]);
  });

  test("a message queued before a pause is parked, shown as such, and sent once on resume", async () => {
    const c = await activeCampaign([step("Q1", 0)]);
    const customer = await seedCustomer(app, a.org_id, { email: "parked@example.com" });
    await post(`/api/campaigns/${c.id}/enrolments`, { customer_id: customer.id });
    // Queue without delivering: the campaign is paused between the two halves of a tick.
    const { queueDueSteps } = await import("../../src/campaigns/progress.ts");
    expect(await queueDueSteps(app.deps)).toBe(1);
    await post(`/api/campaigns/${c.id}/pause`);
    await sender.tick();
    const parked = await get(`/api/campaigns/${c.id}/messages`);
    expect(parked.body.messages).toEqual([expect.objectContaining({ status: "parked", reason: "campaign paused", to: "parked@example.com" })]);
    expect(sentTo("parked@example.com")).toEqual([]);
    await post(`/api/campaigns/${c.id}/activate`);
    await sender.tick();
    await sender.tick();
    expect(sentTo("parked@example.com")).toEqual(["Q1"]);
  });

  test("editing an active campaign never resends a step already sent; the customer keeps their place", async () => {
    const c = await activeCampaign([step("E1", 0), step("E2", 60)]);
    const customer = await seedCustomer(app, a.org_id, { email: "edit@example.com" });
    await post(`/api/campaigns/${c.id}/enrolments`, { customer_id: customer.id });
    await sender.tick();
    expect(sentTo("edit@example.com")).toEqual(["E1"]);
    const [e1, e2] = c.steps as Json[];
    // Reword E1, add a step before it and one between: E1 is never sent again, the step inserted
    // before their place is not sent to them, the one after is.
    const edited = await patch(`/api/campaigns/${c.id}`, {
      steps: [step("New first", 0), { id: e1!.id, ...step("E1 reworded", 0) }, step("Inserted", 30), { id: e2!.id, ...step("E2", 60) }],
    });
    expect(edited.status).toBe(200);
    await sender.tick();
    expect(sentTo("edit@example.com")).toEqual(["E1"]);
    app.clock.advance(30_000);
    await sender.tick();
    expect(sentTo("edit@example.com")).toEqual(["E1", "Inserted"]);
    app.clock.advance(60_000);
    await sender.tick();
    app.clock.advance(86_400_000);
    await sender.tick();
    expect(sentTo("edit@example.com")).toEqual(["E1", "Inserted", "E2"]);
    // Re-enrolling is idempotent (200, nothing new).
    const again = await post(`/api/campaigns/${c.id}/enrolments`, { customer_id: customer.id });
    expect(again.status).toBe(200);
    expect(again.body.state).toBe("completed");
  });

  test("removing a customer stops future steps at once, including one already queued", async () => {
    const c = await activeCampaign([step("R1", 0), step("R2", 0)]);
    const customer = await seedCustomer(app, a.org_id, { email: "remove@example.com", externalId: "u-remove" });
    await post(`/api/campaigns/${c.id}/enrolments`, { customer_id: "u-remove" });
    const { queueDueSteps } = await import("../../src/campaigns/progress.ts");
    await queueDueSteps(app.deps);
    const removed = await call("DELETE", `/api/campaigns/${c.id}/enrolments/u-remove`);
    expect(removed.status).toBe(200);
    expect(removed.body.state).toBe("removed");
    await sender.tick();
    expect(sentTo("remove@example.com")).toEqual([]);
    const messages = await get(`/api/campaigns/${c.id}/messages?customer=${customer.id}`);
    expect(messages.body.messages.map((m: Json) => [m.status, m.reason])).toEqual([
      ["cancelled", "customer removed from the series"],
      ["cancelled", "customer removed from the series"],
    ]);
    expect((await get(`/api/campaigns/${c.id}/enrolments?state=removed`)).body.enrolments.map((e: Json) => e.customer.id)).toEqual([customer.id]);
    expect((await call("DELETE", `/api/campaigns/${c.id}/enrolments/${crypto.randomUUID()}`)).status).toBe(404);
  });

  test("an audience rule enrols matching customers with an address on activation, and later ones at the next sweep", async () => {
    const pro = await seedCustomer(app, a.org_id, { email: "pro@example.com", traits: { plan: "pro", seats: 5 } });
    await seedCustomer(app, a.org_id, { email: "free@example.com", traits: { plan: "free", seats: 5 } });
    await seedCustomer(app, a.org_id, { email: null, traits: { plan: "pro", seats: 5 } });
    await seedCustomer(app, b.org_id, { email: "other-org@example.com", traits: { plan: "pro", seats: 5 } });
    const c = await activeCampaign([step("Pro tips")], {
      audience: {
        all: [
          { trait: "plan", op: "eq", value: "pro" },
          { trait: "seats", op: "in", value: [5, 10] },
        ],
      },
    });
    const enrolled = await get(`/api/campaigns/${c.id}/enrolments`);
    expect(enrolled.body.enrolments.map((e: Json) => e.customer.id)).toEqual([pro.id]);
    expect(enrolled.body.enrolments[0].source).toBe("audience");
    const logged = await app.deps.db
      .select()
      .from(activityLog)
      .where(and(eq(activityLog.objectId, c.id), eq(activityLog.action, "campaign.audience_enrolled")));
    expect(logged.map((r) => [r.actorKind, r.actorId, r.summary])).toEqual([["system", "campaign-sender", { enrolled: 1 }]]);
    const late = await seedCustomer(app, a.org_id, { email: "late@example.com", traits: { plan: "pro", seats: 10 } });
    await sender.tick();
    expect((await get(`/api/campaigns/${c.id}/enrolments`)).body.enrolments).toHaveLength(1);
    app.clock.advance(60_000);
    await sender.tick();
    expect((await get(`/api/campaigns/${c.id}/enrolments`)).body.enrolments.map((e: Json) => e.customer.id).sort()).toEqual([pro.id, late.id].sort());
    expect(sentTo("late@example.com")).toEqual(["Pro tips"]);
    expect(sentTo("free@example.com")).toEqual([]);
    expect(sentTo("other-org@example.com")).toEqual([]);
  });
});

describe("limits at their boundary", () => {
  const long = (n: number) => "x".repeat(n);
  test("name, slug, steps, subject, body, delay, sender, audience", async () => {
    const ok = async (body: Json) => (await post("/api/campaigns", { name: "Limits", ...body })).status;
    expect(await ok({ name: long(CAMPAIGN_LIMITS.name) })).toBe(201);
    expect(await ok({ name: long(CAMPAIGN_LIMITS.name + 1) })).toBe(400);
    expect(await ok({ slug: `s${long(CAMPAIGN_LIMITS.slug - 1)}` })).toBe(201);
    expect(await ok({ slug: `t${long(CAMPAIGN_LIMITS.slug)}` })).toBe(400);
    expect(await ok({ slug: "Not_A_Slug" })).toBe(400);
    expect(await ok({ steps: Array.from({ length: CAMPAIGN_LIMITS.steps }, (_, i) => step(`s${i}`)) })).toBe(201);
    expect(await ok({ steps: Array.from({ length: CAMPAIGN_LIMITS.steps + 1 }, (_, i) => step(`s${i}`)) })).toBe(400);
    expect(await ok({ steps: [step(long(CAMPAIGN_LIMITS.subject))] })).toBe(201);
    expect(await ok({ steps: [step(long(CAMPAIGN_LIMITS.subject + 1))] })).toBe(400);
    expect(await ok({ steps: [{ ...step("b"), body: long(CAMPAIGN_LIMITS.body) }] })).toBe(201);
    expect(await ok({ steps: [{ ...step("b"), body: long(CAMPAIGN_LIMITS.body + 1) }] })).toBe(400);
    expect(await ok({ steps: [step("d", CAMPAIGN_LIMITS.delaySeconds)] })).toBe(201);
    expect(await ok({ steps: [step("d", CAMPAIGN_LIMITS.delaySeconds + 1)] })).toBe(400);
    expect(await ok({ steps: [step("d", -1)] })).toBe(400);
    expect(await ok({ steps: [step("d", 1.5)] })).toBe(400);
    expect(await ok({ sender: { name: long(CAMPAIGN_LIMITS.senderName) } })).toBe(201);
    expect(await ok({ sender: { name: long(CAMPAIGN_LIMITS.senderName + 1) } })).toBe(400);
    expect(await ok({ sender: { name: "x", reply_to: "not an address" } })).toBe(400);
    const cond = (n: number) => ({ audience: { all: Array.from({ length: n }, () => ({ trait: "plan", op: "exists" })) } });
    expect(await ok(cond(CAMPAIGN_LIMITS.conditions))).toBe(201);
    expect(await ok(cond(CAMPAIGN_LIMITS.conditions + 1))).toBe(400);
    expect(await ok(cond(0))).toBe(400);
    const inList = (n: number) => ({ audience: { all: [{ trait: "plan", op: "in", value: Array.from({ length: n }, (_, i) => `p${i}`) }] } });
    expect(await ok(inList(CAMPAIGN_LIMITS.inValues))).toBe(201);
    expect(await ok(inList(CAMPAIGN_LIMITS.inValues + 1))).toBe(400);
    const value = (n: number) => ({ audience: { all: [{ trait: "plan", op: "eq", value: long(n) }] } });
    expect(await ok(value(CAMPAIGN_LIMITS.value))).toBe(201);
    expect(await ok(value(CAMPAIGN_LIMITS.value + 1))).toBe(400);
    expect(await ok({ audience: { all: [{ trait: "a.b.c.d", op: "exists" }] } })).toBe(201);
    expect(await ok({ audience: { all: [{ trait: "a.b.c.d.e", op: "exists" }] } })).toBe(400);
    expect(await ok({ audience: { all: [{ trait: "plan", op: "exists", value: 1 }] } })).toBe(400);
  });

  test("references: a campaign id or slug of 64 characters, a customer reference of 256", async () => {
    const c = await activeCampaign([step("x")]);
    expect((await get(`/api/campaigns/${"c".repeat(64)}`)).status).toBe(404);
    expect((await get(`/api/campaigns/${"c".repeat(65)}`)).status).toBe(400);
    expect((await post(`/api/campaigns/${c.id}/enrolments`, { customer_id: "u".repeat(256) })).status).toBe(404);
    expect((await post(`/api/campaigns/${c.id}/enrolments`, { customer_id: "u".repeat(257) })).status).toBe(400);
    expect((await post(`/api/campaigns/${c.id}/preview`, { customer_id: "u".repeat(256) })).status).toBe(404);
    expect((await post(`/api/campaigns/${c.id}/preview`, { customer_id: "u".repeat(257) })).status).toBe(400);
    expect((await call("DELETE", `/api/campaigns/${c.id}/enrolments/${"u".repeat(257)}`)).status).toBe(400);
  });

  test("page size 100 passes, 101 is refused; a bad cursor is a 400", async () => {
    const c = await activeCampaign([step("x", 3600)]);
    expect((await get(`/api/campaigns/${c.id}/enrolments?limit=${CAMPAIGN_LIMITS.pageSize}`)).status).toBe(200);
    expect((await get(`/api/campaigns/${c.id}/enrolments?limit=${CAMPAIGN_LIMITS.pageSize + 1}`)).status).toBe(400);
    expect((await get(`/api/campaigns/${c.id}/messages?limit=${CAMPAIGN_LIMITS.pageSize}`)).status).toBe(200);
    expect((await get(`/api/campaigns/${c.id}/messages?limit=${CAMPAIGN_LIMITS.pageSize + 1}`)).status).toBe(400);
    expect((await get(`/api/campaigns/${c.id}/messages?cursor=bogus`)).status).toBe(400);
  });

  test("the cursor pages through enrolments without gaps or repeats", async () => {
    const c = await activeCampaign([step("x", 3600)]);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const customer = await seedCustomer(app, a.org_id);
      ids.push(customer.id);
      await post(`/api/campaigns/${c.id}/enrolments`, { customer_id: customer.id });
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: Json } = await get(`/api/campaigns/${c.id}/enrolments?limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      seen.push(...page.body.enrolments.map((e: Json) => e.customer.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen.sort()).toEqual(ids.sort());
  });

  test(`an org has at most ${CAMPAIGN_LIMITS.campaignsPerOrg} campaigns`, async () => {
    const org = await seedSeriesOrg(app);
    for (let i = 0; i < CAMPAIGN_LIMITS.campaignsPerOrg - 1; i++)
      await createCampaign(app.deps, { orgId: org.org_id, actor: { kind: "system", name: "test" }, input: { name: `c${i}` } });
    expect((await post("/api/campaigns", { name: "last" }, org.auth)).status).toBe(201);
    const over = await post("/api/campaigns", { name: "one too many" }, org.auth);
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe("limit_reached");
    expect((await app.deps.db.select().from(campaigns).where(eq(campaigns.orgId, org.org_id))).length).toBe(CAMPAIGN_LIMITS.campaignsPerOrg);
  }, 60_000);
});

describe("roles", () => {
  test("401 without a session; automation:view reads and previews but changes nothing; other roles see nothing", async () => {
    const c = await activeCampaign([step("x")]);
    const customer = await seedCustomer(app, a.org_id);
    expect((await app.request("/api/campaigns")).status).toBe(401);
    const viewer = await addMember(app, a.org_id, ["automation:view"]);
    expect((await get("/api/campaigns", viewer)).status).toBe(200);
    expect((await get(`/api/campaigns/${c.id}`, viewer)).status).toBe(200);
    expect((await post(`/api/campaigns/${c.id}/preview`, {}, viewer)).status).toBe(200);
    expect((await get(`/api/campaigns/${c.id}/enrolments`, viewer)).status).toBe(200);
    expect((await get(`/api/campaigns/${c.id}/messages`, viewer)).status).toBe(200);
    for (const [method, path, body] of [
      ["POST", "/api/campaigns", { name: "x" }],
      ["PATCH", `/api/campaigns/${c.id}`, { name: "x" }],
      ["POST", `/api/campaigns/${c.id}/activate`, undefined],
      ["POST", `/api/campaigns/${c.id}/pause`, undefined],
      ["POST", `/api/campaigns/${c.id}/archive`, undefined],
      ["POST", `/api/campaigns/${c.id}/enrolments`, { customer_id: customer.id }],
      ["DELETE", `/api/campaigns/${c.id}/enrolments/${customer.id}`, undefined],
    ] as const)
      expect((await call(method, path, body, viewer)).status).toBe(403);
    const outsider = await addMember(app, a.org_id, ["inbox:manage"]);
    expect((await get("/api/campaigns", outsider)).status).toBe(403);
    expect((await get(`/api/campaigns/${c.id}`, outsider)).status).toBe(403);
    const manager = await addMember(app, a.org_id, ["automation:manage"]);
    expect((await get(`/api/campaigns/${c.id}`, manager)).status).toBe(200);
    expect((await post(`/api/campaigns/${c.id}/pause`, undefined, manager)).status).toBe(200);
  }, 30_000);
});

describe("tenant boundary: org B reaches none of org A's campaigns, customers or messages", () => {
  test("every endpoint", async () => {
    const c = await activeCampaign([step("Secret of A")], { slug: "secret-of-a" });
    const customerA = await seedCustomer(app, a.org_id, { email: "a-only@example.com" });
    await post(`/api/campaigns/${c.id}/enrolments`, { customer_id: customerA.id });
    await sender.tick();
    for (const ref of [c.id, "secret-of-a"]) {
      for (const [method, path, body] of [
        ["GET", `/api/campaigns/${ref}`, undefined],
        ["PATCH", `/api/campaigns/${ref}`, { name: "pwned" }],
        ["POST", `/api/campaigns/${ref}/preview`, {}],
        ["POST", `/api/campaigns/${ref}/activate`, undefined],
        ["POST", `/api/campaigns/${ref}/pause`, undefined],
        ["POST", `/api/campaigns/${ref}/archive`, undefined],
        ["GET", `/api/campaigns/${ref}/enrolments`, undefined],
        ["POST", `/api/campaigns/${ref}/enrolments`, { customer_id: customerA.id }],
        ["DELETE", `/api/campaigns/${ref}/enrolments/${customerA.id}`, undefined],
        ["GET", `/api/campaigns/${ref}/messages`, undefined],
      ] as const) {
        const res = await call(method, path, body, b.auth);
        expect([method, path, res.status]).toEqual([method, path, 404]);
      }
    }
    expect((await get("/api/campaigns", b.auth)).body.campaigns.map((x: Json) => x.id)).not.toContain(c.id);
    // B's own campaign cannot name A's customer, for enrolment or preview.
    const mine = await activeCampaign([step("B")], {}, b);
    expect((await post(`/api/campaigns/${mine.id}/enrolments`, { customer_id: customerA.id }, b.auth)).status).toBe(404);
    expect((await post(`/api/campaigns/${mine.id}/preview`, { customer_id: customerA.id }, b.auth)).status).toBe(404);
    expect((await get(`/api/campaigns/${mine.id}/messages?customer=${customerA.id}`, b.auth)).status).toBe(404);
    // A naming B's org explicitly is refused; A's campaign is untouched.
    expect((await get(`/api/campaigns/${c.id}`, { ...a.auth, "x-org-id": b.org_id })).status).toBe(403);
    const after = await get(`/api/campaigns/${c.id}`);
    expect(after.body).toMatchObject({ name: "Series", status: "active" });
    expect((await get(`/api/campaigns/${c.id}/messages`)).body.messages).toHaveLength(1);
  });
});
