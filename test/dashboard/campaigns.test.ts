// Dashboard campaign pages through the app, as a browser with a session cookie: roles allowed and
// denied, create with a field error, steps edited in one form (delay notation, a field error next to
// its step, values kept), activate and pause, a preview for a customer (its HTML part served
// sandboxed), the outbox messages, the audience rule form (its limits at their boundaries), archive
// after a confirmation, enrol and remove by hand, and another org's campaign answering 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { memberActor } from "../../src/kit/actor.ts";
import { enrolCustomer } from "../../src/campaigns/enrolments.ts";
import { campaignOr404, createCampaign, setCampaignStatus } from "../../src/campaigns/lifecycle.ts";
import { queueDueSteps } from "../../src/campaigns/progress.ts";
import { activityLog, campaignEnrolments, campaignMessages, outbox } from "../../src/db/schema/index.ts";
import { findCustomer, upsertCustomers } from "../../src/inbox/customer-profiles.ts";
import { DASHBOARD_CSP } from "../../src/dashboard/shell.ts";
import { formatDelay, parseDelay, PREVIEW_HTML_CSP } from "../../src/dashboard/campaigns.ts";
import { audienceVersion, formatConditionValue, parseConditionValue } from "../../src/dashboard/campaigns-audience.ts";
import { identifyEndUser } from "../../src/customers/records.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post, withFlash } from "./helpers.ts";
import { seedInbox } from "./seed.ts";

let app: TestApp;
let admin: Member;
let other: Member;
beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app, "Mail Org");
  other = await adminOf(app, "Other Org");
  await seedInbox(app, admin.orgId, admin.agentId!, "Ada");
});
afterAll(() => app.close());

describe("campaign pages", () => {
  test("delay notation round-trips", () => {
    expect(parseDelay("3d")).toBe(259_200);
    expect(parseDelay("90m")).toBe(5_400);
    expect(parseDelay("45")).toBe(45);
    expect(parseDelay("0")).toBe(0);
    expect(parseDelay("3 weeks")).toBeNull();
    expect(formatDelay(5_400)).toBe("90m");
    expect(formatDelay(259_200)).toBe("3d");
    expect(formatDelay(61)).toBe("61s");
  });

  test("automation:view reads; without it 403; a viewer cannot change anything", async () => {
    const created = await post(app, admin, "/dashboard/campaigns", { name: "Onboarding", slug: "onboarding" });
    expect(created.status).toBe(303);
    expect(created.headers.get("location")).toBe("/dashboard/campaigns/onboarding");
    const viewer = await memberWith(app, admin.orgId, ["automation:view"]);
    for (const path of [
      "/dashboard/campaigns",
      "/dashboard/campaigns/onboarding",
      "/dashboard/campaigns/onboarding/preview",
      "/dashboard/campaigns/onboarding/messages",
      "/dashboard/campaigns/onboarding/enrolments",
    ]) {
      expect((await get(app, viewer, path)).status, path).toBe(200);
    }
    expect(await (await get(app, viewer, "/dashboard/campaigns")).text()).not.toContain("New campaign");
    const outsider = await memberWith(app, admin.orgId, ["inbox:view"]);
    expect((await get(app, outsider, "/dashboard/campaigns")).status).toBe(403);
    expect((await get(app, outsider, "/dashboard/campaigns/onboarding")).status).toBe(403);
    expect((await post(app, viewer, "/dashboard/campaigns", { name: "Nope" })).status).toBe(403);
    expect((await post(app, viewer, "/dashboard/campaigns/onboarding/status", { to: "active" })).status).toBe(403);
  });

  test("create: a missing name and a bad slug are field errors, values kept", async () => {
    const res = await post(app, admin, "/dashboard/campaigns", { name: " ", slug: "Bad Slug<" });
    expect(res.status).toBe(400);
    const body = await res.text();
    expect(body).toContain('id="f-name-error"');
    expect(body).toContain('id="f-slug-error"');
    expect(body).toContain('value="Bad Slug&#60;"');
  });

  test("steps: add, a field error next to its step, activate, pause, preview, outbox", async () => {
    await post(app, admin, "/dashboard/campaigns", { name: "Welcome", slug: "welcome" });
    const path = "/dashboard/campaigns/welcome";
    // Activating an empty campaign is refused in the flash.
    const empty = await post(app, admin, `${path}/status`, { to: "active" });
    expect(empty.status).toBe(303);
    expect(await (await get(app, withFlash(admin, empty), path)).text()).toContain("Add at least one step");

    const added = await post(app, admin, path, {
      count: "0",
      name: "Welcome",
      sender_name: "Acme",
      reply_to: "",
      s0_delay: "0",
      s0_from: "enrolment",
      s0_subject: "Hello {{name}}",
      s0_body: "Welcome aboard.",
    });
    expect(added.status).toBe(303);
    let campaign = await campaignOr404(app.deps, admin.orgId, "welcome");
    expect(campaign.steps).toHaveLength(1);
    expect(campaign.steps[0]).toMatchObject({ delaySeconds: 0, delayFrom: "enrolment", subject: "Hello {{name}}" });

    const bad = await post(app, admin, path, {
      count: "1",
      name: "Welcome",
      sender_name: "Acme",
      reply_to: "",
      s0_id: campaign.steps[0]!.id,
      s0_delay: "0",
      s0_from: "enrolment",
      s0_subject: "Hello {{name}}",
      s0_body: "Welcome aboard.",
      s1_delay: "2 weeks",
      s1_from: "previous",
      s1_subject: "Tips <kept>",
      s1_body: "",
    });
    expect(bad.status).toBe(400);
    const page = await bad.text();
    expect(page).toContain('id="f-s1_delay-error"');
    expect(page).toContain('id="f-s1_body-error"');
    expect(page).toContain('value="Tips &#60;kept&#62;"');

    const two = await post(app, admin, path, {
      count: "1",
      name: "Welcome",
      sender_name: "Acme",
      reply_to: "",
      s0_id: campaign.steps[0]!.id,
      s0_delay: "0",
      s0_from: "enrolment",
      s0_subject: "Hello {{name}}",
      s0_body: "Welcome aboard.",
      s1_delay: "3d",
      s1_from: "previous",
      s1_subject: "Tips",
      s1_body: "Here are tips.",
    });
    expect(two.status).toBe(303);
    campaign = await campaignOr404(app.deps, admin.orgId, "welcome");
    expect(campaign.steps.map((s) => s.delaySeconds)).toEqual([0, 259_200]);
    expect(await (await get(app, admin, path)).text()).toContain('value="3d"');

    // The service's own check (an unknown template variable) also lands next to its field.
    const unknownVar = await post(app, admin, path, {
      count: "2",
      name: "Welcome",
      sender_name: "Acme",
      reply_to: "",
      s0_id: campaign.steps[0]!.id,
      s0_remove: "on",
      s0_delay: "0",
      s0_subject: "x",
      s0_body: "x",
      s1_id: campaign.steps[1]!.id,
      s1_delay: "3d",
      s1_subject: "Hi {{bogus}}",
      s1_body: "Here are tips.",
    });
    expect(unknownVar.status).toBe(400);
    expect(await unknownVar.text()).toContain('<p class="field-error" id="f-s1_subject-error">unknown variable {{bogus}}');
    expect((await campaignOr404(app.deps, admin.orgId, "welcome")).steps).toHaveLength(2);

    const activated = await post(app, admin, `${path}/status`, { to: "active" });
    expect(activated.status).toBe(303);
    expect((await campaignOr404(app.deps, admin.orgId, "welcome")).status).toBe("active");

    const preview = await (await get(app, admin, `${path}/preview?customer=cust-Ada`)).text();
    expect(preview).toContain("Hello Ada &#60;Lovelace&#62;");
    expect(preview).toContain("3d after enrolment");
    const unknown = await get(app, admin, `${path}/preview?customer=nobody`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('id="f-customer-error"');

    const ada = (await findCustomer(app.deps, admin.orgId, "cust-Ada"))!;
    await enrolCustomer(app.deps, {
      orgId: admin.orgId,
      actor: memberActor("00000000-0000-4000-8000-000000000000"),
      campaign: (await campaignOr404(app.deps, admin.orgId, "welcome"))!,
      endUser: ada,
      source: "test",
    });
    await queueDueSteps(app.deps);
    const outbox = await (await get(app, admin, `${path}/messages`)).text();
    expect(outbox).toContain("ada@example.com");
    expect(outbox).toContain("Hello Ada &#60;Lovelace&#62;");

    const enrolled = await (await get(app, admin, `${path}/enrolments`)).text();
    expect(enrolled).toContain(`href="/dashboard/customers/${ada.id}"`);
    expect(enrolled).toContain("Ada &#60;Lovelace&#62;");
    expect(await (await get(app, admin, `${path}/enrolments?state=unsubscribed`)).text()).toContain("Nobody in this state.");
    const paused = await post(app, admin, `${path}/status`, { to: "paused" });
    expect(paused.status).toBe(303);
    expect((await campaignOr404(app.deps, admin.orgId, "welcome")).status).toBe("paused");
    expect(await (await get(app, admin, `${path}/messages?status=parked`)).text()).toContain("ada@example.com");
  });

  test("step limits at their boundary: a 365-day delay and a 200-character subject pass, one more fails", async () => {
    await post(app, admin, "/dashboard/campaigns", { name: "Limits", slug: "limits" });
    const path = "/dashboard/campaigns/limits";
    const step = (delay: string, subject: string) => ({
      count: "0",
      name: "Limits",
      sender_name: "",
      reply_to: "",
      s0_delay: delay,
      s0_from: "previous",
      s0_subject: subject,
      s0_body: "Body.",
    });
    expect((await post(app, admin, path, step("365d", "s".repeat(200)))).status).toBe(303);
    expect((await campaignOr404(app.deps, admin.orgId, "limits")).steps[0]).toMatchObject({ delaySeconds: 365 * 86_400 });
    const late = await post(app, admin, path, step("366d", "ok"));
    expect(late.status).toBe(400);
    expect(await late.text()).toContain("At most 365 days.");
    const long = await post(app, admin, path, step("1d", "s".repeat(201)));
    expect(long.status).toBe(400);
    expect(await long.text()).toContain('id="f-s0_subject-error"');
    expect((await campaignOr404(app.deps, admin.orgId, "limits")).steps).toHaveLength(1);
  });

  test("a steps form opened before someone else's edit is refused (409), nothing saved", async () => {
    await post(app, admin, "/dashboard/campaigns", { name: "Race", slug: "race" });
    const path = "/dashboard/campaigns/race";
    const version = /name="version" value="([^"]+)"/.exec(await (await get(app, admin, path)).text())![1]!;
    app.clock.advance(1_000);
    expect(
      (
        await post(app, admin, path, {
          version,
          count: "0",
          name: "Race",
          sender_name: "",
          reply_to: "",
          s0_delay: "0",
          s0_from: "previous",
          s0_subject: "First",
          s0_body: "One.",
        })
      ).status,
    ).toBe(303);
    const stale = await post(app, admin, path, {
      version,
      count: "0",
      name: "Race renamed",
      sender_name: "",
      reply_to: "",
      s0_delay: "",
      s0_from: "previous",
      s0_subject: "",
      s0_body: "",
    });
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain("This campaign changed after you opened it");
    const saved = await campaignOr404(app.deps, admin.orgId, "race");
    expect(saved.name).toBe("Race");
    expect(saved.steps.map((s) => s.subject)).toEqual(["First"]);
  });

  test("tenant boundary: another org's campaign answers 404 on every page and action", async () => {
    await post(app, other, "/dashboard/campaigns", { name: "Theirs", slug: "theirs" });
    const theirs = await campaignOr404(app.deps, other.orgId, "theirs");
    for (const ref of ["theirs", theirs.id]) {
      expect((await get(app, admin, `/dashboard/campaigns/${ref}`)).status).toBe(404);
      expect((await get(app, admin, `/dashboard/campaigns/${ref}/preview`)).status).toBe(404);
      expect((await get(app, admin, `/dashboard/campaigns/${ref}/messages`)).status).toBe(404);
      expect((await get(app, admin, `/dashboard/campaigns/${ref}/enrolments`)).status).toBe(404);
      expect((await post(app, admin, `/dashboard/campaigns/${ref}/status`, { to: "active" })).status).toBe(404);
      expect((await post(app, admin, `/dashboard/campaigns/${ref}`, { count: "0", name: "Hijack" })).status).toBe(404);
      expect((await post(app, admin, `/dashboard/campaigns/${ref}/audience`, { a_count: "0", a0_trait: "plan", a0_op: "exists", a0_value: "" })).status).toBe(
        404,
      );
      expect((await get(app, admin, `/dashboard/campaigns/${ref}/archive`)).status).toBe(404);
      expect((await post(app, admin, `/dashboard/campaigns/${ref}/archive`, { confirm: "archive" })).status).toBe(404);
      expect((await post(app, admin, `/dashboard/campaigns/${ref}/enrolments`, { do: "enrol", customer: "cust-Ada" })).status).toBe(404);
      expect((await get(app, admin, `/dashboard/campaigns/${ref}/preview/${theirs.steps[0]?.id ?? "x"}`)).status).toBe(404);
    }
    const after = await campaignOr404(app.deps, other.orgId, "theirs");
    expect(after.name).toBe("Theirs");
    expect(after.status).toBe("draft");
    expect(after.audience).toBeNull();
  });
});

const SYSTEM = { kind: "system", name: "test" } as const;
const ACTOR = memberActor("00000000-0000-4000-8000-000000000000");

/** The audience form with these conditions: rows 0..n-2 as stored ones, the last as the "add" row. */
function rule(rows: [trait: string, op: string, value: string][], extra: Record<string, string> = {}): Record<string, string> {
  const form: Record<string, string> = { a_count: String(Math.max(rows.length - 1, 0)), do: "save", ...extra };
  rows.forEach(([trait, op, value], i) => Object.assign(form, { [`a${i}_trait`]: trait, [`a${i}_op`]: op, [`a${i}_value`]: value }));
  return form;
}

/** An active campaign of one step, made through the service. */
async function activeCampaign(orgId: string, slug: string, delaySeconds = 0, steps = 1) {
  const step = (i: number) => ({
    delay_seconds: i === 0 ? delaySeconds : 86_400,
    delay_from: "previous" as const,
    subject: `Hi {{name}} (${i + 1})`,
    body: "Hello {{name}}.",
  });
  const c = await createCampaign(app.deps, { orgId, actor: ACTOR, input: { name: slug, slug, steps: Array.from({ length: steps }, (_, i) => step(i)) } });
  return setCampaignStatus(app.deps, { orgId, actor: ACTOR, ref: c.id, to: "active" });
}

describe("audience rule form", () => {
  beforeAll(async () => {
    await upsertCustomers(app.deps, admin.orgId, SYSTEM, [
      { external_id: "aud-1", email: "aud1@example.com", name: "Aud One", traits: { plan: "pro", seats: 12 } },
      { external_id: "aud-2", email: "aud2@example.com", name: "Aud Two", traits: { plan: "pro", seats: 3, org: { tier: "gold" } } },
      { external_id: "aud-3", email: "aud3@example.com", name: "Aud Three", traits: { plan: "free" } },
      // Not counted: no email address; and below, an unverified claim.
      { external_id: "aud-4", name: "Aud Four", traits: { plan: "pro" } },
    ]);
    await identifyEndUser(app.deps, admin.orgId, "aud-5", false, { email: "aud5@example.com", name: "Aud Five", traits: { plan: "pro" } });
  });

  test("values are written as text and read back to the same JSON value", () => {
    expect(parseConditionValue("eq", "pro")).toEqual({ value: "pro" });
    expect(parseConditionValue("eq", "42")).toEqual({ value: 42 });
    expect(parseConditionValue("eq", '"42"')).toEqual({ value: "42" });
    expect(parseConditionValue("eq", "true")).toEqual({ value: true });
    expect(parseConditionValue("eq", '""')).toEqual({ value: "" });
    expect(parseConditionValue("in", 'pro, 3, false, "a, b"')).toEqual({ value: ["pro", 3, false, "a, b"] });
    expect(parseConditionValue("exists", "")).toEqual({});
    expect(parseConditionValue("exists", "x")).toHaveProperty("error");
    expect(parseConditionValue("eq", "")).toHaveProperty("error");
    expect(parseConditionValue("eq", '"open')).toHaveProperty("error");
    expect(parseConditionValue("in", "a,,b")).toHaveProperty("error");
    for (const value of ["pro", "42", "true", "", " padded ", '"quoted"', "a\\b", 7, -1.5, false, ["x", "y, z", '"q"', 1, true, "1e3"]]) {
      const op = Array.isArray(value) ? "in" : "eq";
      expect(parseConditionValue(op, formatConditionValue(value)), JSON.stringify(value)).toEqual({ value });
    }
  });

  test("set a rule: stored as the API stores it, shown in words with how many customers match; cleared again", async () => {
    await post(app, admin, "/dashboard/campaigns", { name: "Audience", slug: "audience" });
    const path = "/dashboard/campaigns/audience";
    const saved = await post(app, admin, `${path}/audience`, rule([["plan", "eq", "pro"]]));
    expect(saved.status).toBe(303);
    expect((await campaignOr404(app.deps, admin.orgId, "audience")).audience).toEqual({ all: [{ trait: "plan", op: "eq", value: "pro" }] });
    let page = await (await get(app, withFlash(admin, saved), path)).text();
    expect(page).toContain("Audience saved");
    expect(page).toContain("<code>plan</code> is <code>pro</code>");
    // aud-1 and aud-2: aud-4 has no email address, aud-5 is unverified.
    expect(page).toMatch(/Matches <strong>2<\/strong> customers now/);
    expect(page).toContain('name="a0_trait" type="text" value="plan"');

    // Types: a number matches a number, quoted text does not; "is one of" a list; a dotted path.
    await post(app, admin, `${path}/audience`, rule([["seats", "eq", "12"]]));
    expect((await campaignOr404(app.deps, admin.orgId, "audience")).audience).toEqual({ all: [{ trait: "seats", op: "eq", value: 12 }] });
    expect(await (await get(app, admin, path)).text()).toMatch(/Matches <strong>1<\/strong> customer now/);
    await post(app, admin, `${path}/audience`, rule([["seats", "eq", '"12"']]));
    expect(await (await get(app, admin, path)).text()).toMatch(/Matches <strong>0<\/strong> customers now/);
    await post(
      app,
      admin,
      `${path}/audience`,
      rule([
        ["plan", "in", "pro, free"],
        ["org.tier", "not_exists", ""],
      ]),
    );
    expect((await campaignOr404(app.deps, admin.orgId, "audience")).audience).toEqual({
      all: [
        { trait: "plan", op: "in", value: ["pro", "free"] },
        { trait: "org.tier", op: "not_exists" },
      ],
    });
    page = await (await get(app, admin, path)).text();
    expect(page).toMatch(/Matches <strong>2<\/strong> customers now/); // aud-1, aud-3
    expect(page).toContain('value="pro, free"');

    // Removing one condition keeps the other.
    const removed = await post(app, admin, `${path}/audience`, {
      a_count: "2",
      do: "save",
      a0_trait: "plan",
      a0_op: "in",
      a0_value: "pro, free",
      a0_remove: "on",
      a1_trait: "org.tier",
      a1_op: "not_exists",
      a1_value: "",
      a2_trait: "",
      a2_op: "eq",
      a2_value: "",
    });
    expect(removed.status).toBe(303);
    expect((await campaignOr404(app.deps, admin.orgId, "audience")).audience).toEqual({ all: [{ trait: "org.tier", op: "not_exists" }] });

    const cleared = await post(app, admin, `${path}/audience`, { a_count: "1", do: "clear", a0_trait: "org.tier", a0_op: "not_exists", a0_value: "" });
    expect(cleared.status).toBe(303);
    expect((await campaignOr404(app.deps, admin.orgId, "audience")).audience).toBeNull();
    expect(await (await get(app, withFlash(admin, cleared), path)).text()).toContain("Audience rule removed");

    // Each change is in the activity log with the member who made it.
    const c = await campaignOr404(app.deps, admin.orgId, "audience");
    const logged = await app.deps.db
      .select()
      .from(activityLog)
      .where(and(eq(activityLog.orgId, admin.orgId), eq(activityLog.objectId, c.id), eq(activityLog.action, "campaign.updated")));
    expect(logged.length).toBe(6);
    expect(logged.every((r) => r.actorKind === "member" && (r.summary as { changed: string[] }).changed.includes("audience"))).toBe(true);
  });

  test("field errors next to their field, values kept; the service's own check lands next to its field", async () => {
    await post(app, admin, "/dashboard/campaigns", { name: "Audience errors", slug: "audience-errors" });
    const path = "/dashboard/campaigns/audience-errors/audience";
    const res = await post(
      app,
      admin,
      path,
      rule([
        ["", "eq", "x"],
        ["plan", "exists", "pro"],
        ["seats", "eq", '"open'],
        ["tier", "bogus", "x"],
      ]),
    );
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain('id="f-a0_trait-error"');
    expect(page).toContain('id="f-a1_value-error"');
    expect(page).toContain('id="f-a2_value-error"');
    expect(page).toContain('id="f-a3_op-error"');
    expect(page).toContain('value="&#34;open"');
    // A path the schema allows but the service does not (an empty segment).
    const service = await post(
      app,
      admin,
      path,
      rule([
        ["plan", "exists", ""],
        ["plan..tier", "exists", ""],
      ]),
    );
    expect(service.status).toBe(400);
    expect(await service.text()).toContain('<p class="field-error" id="f-a1_trait-error">must be a trait key');
    expect((await campaignOr404(app.deps, admin.orgId, "audience-errors")).audience).toBeNull();
  });

  test("limits at their boundary: 10 conditions, a 200-character trait, a 200-character value and 50 values pass; one more fails", async () => {
    await post(app, admin, "/dashboard/campaigns", { name: "Audience limits", slug: "audience-limits" });
    const path = "/dashboard/campaigns/audience-limits/audience";
    const stored = async () => (await campaignOr404(app.deps, admin.orgId, "audience-limits")).audience;
    const conditions = (n: number) => rule(Array.from({ length: n }, (_, i) => [`t${i}`, "exists", ""] as [string, string, string]));
    expect((await post(app, admin, path, conditions(10))).status).toBe(303);
    expect((await stored())!.all).toHaveLength(10);
    const eleven = await post(app, admin, path, conditions(11));
    expect(eleven.status).toBe(400);
    expect(await eleven.text()).toContain("A rule has at most 10 conditions.");

    const trait200 = `${"a".repeat(64)}.${"b".repeat(64)}.${"c".repeat(64)}.${"d".repeat(5)}`;
    expect(trait200).toHaveLength(200);
    expect((await post(app, admin, path, rule([[trait200, "exists", ""]]))).status).toBe(303);
    expect((await stored())!.all[0]!.trait).toBe(trait200);
    const trait201 = await post(app, admin, path, rule([[`${trait200}d`, "exists", ""]]));
    expect(trait201.status).toBe(400);
    expect(await trait201.text()).toContain('id="f-a0_trait-error"');

    expect((await post(app, admin, path, rule([["plan", "eq", "v".repeat(200)]]))).status).toBe(303);
    expect((await stored())!.all[0]!.value).toBe("v".repeat(200));
    const value201 = await post(app, admin, path, rule([["plan", "eq", "v".repeat(201)]]));
    expect(value201.status).toBe(400);
    expect(await value201.text()).toContain("A value has at most 200 characters (this has 201).");

    const list = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`).join(", ");
    expect((await post(app, admin, path, rule([["plan", "in", list(50)]]))).status).toBe(303);
    expect((await stored())!.all[0]!.value).toHaveLength(50);
    const fiftyOne = await post(app, admin, path, rule([["plan", "in", list(51)]]));
    expect(fiftyOne.status).toBe(400);
    expect(await fiftyOne.text()).toContain("At most 50 values (this has 51).");
    expect((await stored())!.all[0]!.value).toHaveLength(50);
  });

  test("a rule form opened before someone else changed the rule is refused (409), nothing saved; a viewer sees no form and cannot post", async () => {
    await post(app, admin, "/dashboard/campaigns", { name: "Audience race", slug: "audience-race" });
    const path = "/dashboard/campaigns/audience-race";
    const version = /name="audience_version" value="([^"]+)"/.exec(await (await get(app, admin, path)).text())![1]!;
    expect(version).toBe(audienceVersion(null));
    expect((await post(app, admin, `${path}/audience`, rule([["plan", "eq", "pro"]], { audience_version: version }))).status).toBe(303);
    const stale = await post(app, admin, `${path}/audience`, rule([["plan", "eq", "free"]], { audience_version: version }));
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain("The audience rule changed after you opened this page");
    expect((await campaignOr404(app.deps, admin.orgId, "audience-race")).audience).toEqual({ all: [{ trait: "plan", op: "eq", value: "pro" }] });
    const viewer = await memberWith(app, admin.orgId, ["automation:view"]);
    const seen = await (await get(app, viewer, path)).text();
    expect(seen).toContain("<code>plan</code> is <code>pro</code>");
    expect(seen).not.toContain("Save audience");
    expect((await post(app, viewer, `${path}/audience`, rule([["plan", "eq", "free"]]))).status).toBe(403);
  });
});

describe("archive", () => {
  test("a confirmation page says what is cancelled; archiving cancels queued and parked mail; archived campaigns are listed behind the filter", async () => {
    const c = await activeCampaign(admin.orgId, "to-archive", 0, 2);
    const ada = (await findCustomer(app.deps, admin.orgId, "cust-Ada"))!;
    await enrolCustomer(app.deps, { orgId: admin.orgId, actor: ACTOR, campaign: c, endUser: ada, source: "test" });
    await queueDueSteps(app.deps);
    await setCampaignStatus(app.deps, { orgId: admin.orgId, actor: ACTOR, ref: c.id, to: "paused" });
    const path = "/dashboard/campaigns/to-archive";
    expect(await (await get(app, admin, path)).text()).toContain(`href="${path}/archive">Archive…</a>`);

    const viewer = await memberWith(app, admin.orgId, ["automation:view"]);
    expect((await get(app, viewer, `${path}/archive`)).status).toBe(403);
    expect((await post(app, viewer, `${path}/archive`, { confirm: "archive" })).status).toBe(403);
    expect(await (await get(app, viewer, path)).text()).not.toContain("Archive…");

    const confirm = await get(app, admin, `${path}/archive`);
    expect(confirm.status).toBe(200);
    const text = await confirm.text();
    expect(text).toContain("<strong>1 queued message is cancelled</strong>");
    expect(text).toContain("The one customer still in the series receives no further step.");
    expect(text).toContain('name="confirm" value="archive"');

    // Without the confirmation field nothing happens.
    const unconfirmed = await post(app, admin, `${path}/archive`, { go: "1" });
    expect(unconfirmed.status).toBe(400);
    expect((await campaignOr404(app.deps, admin.orgId, "to-archive")).status).toBe("paused");

    const archived = await post(app, admin, `${path}/archive`, { confirm: "archive" });
    expect(archived.status).toBe(303);
    expect((await campaignOr404(app.deps, admin.orgId, "to-archive")).status).toBe("archived");
    const [row] = await app.deps.db
      .select({ status: outbox.status, reason: outbox.lastError })
      .from(campaignMessages)
      .innerJoin(outbox, eq(outbox.id, campaignMessages.outboxId))
      .where(eq(campaignMessages.campaignId, c.id));
    expect(row).toEqual({ status: "cancelled", reason: "campaign archived" });
    const page = await (await get(app, withFlash(admin, archived), path)).text();
    expect(page).toContain("archived: its queued mail is cancelled");
    expect(page).not.toContain("Save campaign");
    expect(page).not.toContain("Save audience");
    expect(page).not.toContain("Archive…");
    // Again: already archived, nothing changes.
    expect((await post(app, admin, `${path}/archive`, { confirm: "archive" })).status).toBe(303);
    expect((await get(app, admin, `${path}/archive`)).status).toBe(303);
    // No enrolment into an archived campaign.
    const enrol = await post(app, admin, `${path}/enrolments`, { do: "enrol", customer: "cust-Ada" });
    expect(enrol.status).toBe(409);

    const list = await (await get(app, admin, "/dashboard/campaigns")).text();
    expect(list).not.toContain(`href="${path}"`);
    expect(list).toMatch(/archived campaigns? (is|are) not listed/);
    expect(await (await get(app, admin, "/dashboard/campaigns?status=archived")).text()).toContain(`href="${path}"`);
    expect(await (await get(app, admin, "/dashboard/campaigns?status=all")).text()).toContain(`href="${path}"`);
    expect(await (await get(app, admin, "/dashboard/campaigns?status=all")).text()).toContain('href="/dashboard/campaigns/welcome"');
  });
});

describe("enrol and remove by hand", () => {
  test("by email, external id or our id; refusals next to the field; remove cancels queued mail", async () => {
    const c = await activeCampaign(admin.orgId, "manual");
    const path = "/dashboard/campaigns/manual/enrolments";
    const ada = (await findCustomer(app.deps, admin.orgId, "cust-Ada"))!;
    const enrolled = await post(app, admin, path, { do: "enrol", customer: "ada@example.com" });
    expect(enrolled.status).toBe(303);
    expect(await (await get(app, withFlash(admin, enrolled), path)).text()).toContain("Ada &#60;Lovelace&#62; enrolled.");
    const [row] = await app.deps.db
      .select()
      .from(campaignEnrolments)
      .where(and(eq(campaignEnrolments.campaignId, c.id), eq(campaignEnrolments.endUserId, ada.id)));
    expect(row).toMatchObject({ state: "active", source: "api" });
    const again = await post(app, admin, path, { do: "enrol", customer: "cust-Ada" });
    expect(await (await get(app, withFlash(admin, again), path)).text()).toContain("was already enrolled (active)");
    const { customerId: graceId } = await seedInbox(app, admin.orgId, admin.agentId!, "Grace");
    expect((await post(app, admin, path, { do: "enrol", customer: graceId })).status).toBe(303);

    const refusal = async (form: Record<string, string>, status: number, message: string) => {
      const res = await post(app, admin, path, form);
      expect(res.status, JSON.stringify(form).slice(0, 80)).toBe(status);
      const page = await res.text();
      expect(page).toContain('id="f-customer-error"');
      expect(page).toContain(message);
    };
    await refusal({ do: "enrol", customer: "  " }, 400, "Name a customer");
    await refusal({ do: "enrol", customer: "nobody@example.com" }, 404, "No customer with this email address, id or external id.");
    // The longest reference the API accepts (256) is looked up; one more is refused.
    await refusal({ do: "enrol", customer: "r".repeat(256) }, 404, "No customer with this email address");
    await refusal({ do: "enrol", customer: "r".repeat(257) }, 400, "At most 256 characters (this has 257).");
    await refusal({ do: "bogus", customer: "cust-Ada" }, 400, "Choose Enrol or Remove.");
    await identifyEndUser(app.deps, admin.orgId, "claimed", false, { email: "claimed@example.com", name: "Claimed" });
    await refusal({ do: "enrol", customer: "claimed" }, 403, "verified customers only");
    await post(app, admin, "/dashboard/campaigns", { name: "Draft one", slug: "draft-one" });
    const draft = await post(app, admin, "/dashboard/campaigns/draft-one/enrolments", { do: "enrol", customer: "cust-Ada" });
    expect(draft.status).toBe(409);
    expect(await draft.text()).toContain("customers can be enrolled only in an active campaign");

    // Remove: the queued step is cancelled, the state says removed; again, nothing more happens.
    await queueDueSteps(app.deps);
    const removed = await post(app, admin, path, { do: "remove", customer: "ada@example.com" });
    expect(removed.status).toBe(303);
    expect(await (await get(app, withFlash(admin, removed), path)).text()).toContain("removed: no further step is sent");
    const [after] = await app.deps.db
      .select()
      .from(campaignEnrolments)
      .where(and(eq(campaignEnrolments.campaignId, c.id), eq(campaignEnrolments.endUserId, ada.id)));
    expect(after!.state).toBe("removed");
    const [mail] = await app.deps.db
      .select({ status: outbox.status, reason: outbox.lastError })
      .from(campaignMessages)
      .innerJoin(outbox, eq(outbox.id, campaignMessages.outboxId))
      .where(eq(campaignMessages.enrolmentId, after!.id));
    expect(mail).toEqual({ status: "cancelled", reason: "customer removed from the series" });
    const twice = await post(app, admin, path, { do: "remove", customer: "cust-Ada" });
    expect(await (await get(app, withFlash(admin, twice), path)).text()).toContain("was already removed: nothing changed.");
    await refusal({ do: "remove", customer: "aud-3" }, 404, "is not enrolled in this campaign.");
    // Enrolled again: resumes (the step already queued is not queued twice).
    const back = await post(app, admin, path, { do: "enrol", customer: "cust-Ada" });
    expect(await (await get(app, withFlash(admin, back), path)).text()).toContain("enrolled again: they continue where they stopped");
    const [resumed] = await app.deps.db.select().from(campaignEnrolments).where(eq(campaignEnrolments.id, after!.id));
    expect(resumed!.state).toBe("active");

    const viewer = await memberWith(app, admin.orgId, ["automation:view"]);
    const seen = await (await get(app, viewer, path)).text();
    expect(seen).toContain("Ada &#60;Lovelace&#62;");
    expect(seen).not.toContain("Enrol or remove a customer");
    expect(seen).not.toContain(">Remove</button>");
    expect((await post(app, viewer, path, { do: "enrol", customer: "aud-1" })).status).toBe(403);
  });

  test("the list pages by 25 with each state, and a row's remove button returns to its page", async () => {
    const c = await activeCampaign(admin.orgId, "many", 86_400);
    const made = await upsertCustomers(
      app.deps,
      admin.orgId,
      SYSTEM,
      Array.from({ length: 26 }, (_, i) => ({ external_id: `many-${i}`, email: `many${i}@example.com`, name: `Many ${i}` })),
    );
    for (const { user } of made) {
      await enrolCustomer(app.deps, { orgId: admin.orgId, actor: ACTOR, campaign: c, endUser: user, source: "test" });
      app.clock.advance(1);
    }
    const path = "/dashboard/campaigns/many/enrolments";
    const first = await (await get(app, admin, path)).text();
    expect(first.match(/aria-label="Remove Many \d+ from this campaign"/g)).toHaveLength(25);
    const next = /href="([^"]+cursor=[^"]+)" rel="next"/.exec(first)![1]!.replaceAll("&#38;", "&");
    const second = await (await get(app, admin, next)).text();
    expect(second.match(/aria-label="Remove Many \d+ from this campaign"/g)).toHaveLength(1);
    expect(second).toContain("Many 0");
    const cursor = new URL(next, "http://x").searchParams.get("cursor")!;
    const res = await post(app, admin, path, { do: "remove", customer: made[0]!.user.id, cursor });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`${path}?cursor=${encodeURIComponent(cursor)}`);
    const after = await (await get(app, admin, next)).text();
    expect(after).toMatch(/Many 0<\/a> <span class="muted">many0@example.com<\/span><\/td><td><span class="badge">removed<\/span>/);
    expect(after).not.toContain('aria-label="Remove Many 0 from this campaign"');
    const removedOnly = await (await get(app, admin, `${path}?state=removed`)).text();
    expect(removedOnly).toContain("Many 0");
    expect(removedOnly).not.toContain("Many 1<");
  });
});

describe("HTML preview", () => {
  test("each step's HTML part is framed from a route that serves it sandboxed under a strict CSP; customer values are escaped", async () => {
    const c = await createCampaign(app.deps, {
      orgId: admin.orgId,
      actor: ACTOR,
      input: {
        name: "Preview",
        slug: "preview",
        steps: [
          {
            delay_seconds: 0,
            subject: "For {{name}}",
            body: 'Hello **{{name}}**.\n\n<script>window.pwned = "template"</script>\n\n<img src="x" onerror="window.pwned = 1">',
          },
        ],
      },
    });
    await upsertCustomers(app.deps, admin.orgId, SYSTEM, [{ external_id: "eve", email: "eve@example.com", name: '<img src=x onerror="window.pwned=2">Eve' }]);
    const eve = (await findCustomer(app.deps, admin.orgId, "eve"))!;
    const res = await get(app, admin, "/dashboard/campaigns/preview/preview?customer=eve@example.com");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(DASHBOARD_CSP.replace("frame-ancestors", "frame-src 'self'; frame-ancestors"));
    const page = await res.text();
    const src = `/dashboard/campaigns/preview/preview/${c.steps[0]!.id}?customer=${eve.id}`;
    expect(page).toContain(`<iframe sandbox class="mail-preview" src="${src}"`);
    expect(page).not.toContain("allow-scripts");
    expect(page).not.toContain('<img src=x onerror="window.pwned=2">');
    expect(page).toContain("&#60;img src=x onerror=&#34;window.pwned=2&#34;&#62;Eve");

    const frame = await get(app, admin, src);
    expect(frame.status).toBe(200);
    expect(frame.headers.get("content-security-policy")).toBe(PREVIEW_HTML_CSP);
    expect(PREVIEW_HTML_CSP.startsWith("sandbox;")).toBe(true);
    expect(PREVIEW_HTML_CSP).toContain("frame-ancestors 'self'");
    expect(PREVIEW_HTML_CSP).not.toContain("script-src");
    expect(frame.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    expect(frame.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const markup = await frame.text();
    // The customer's name is text wherever it lands (title, body); the org's own template markup stays
    // markup, and only the sandbox keeps its script from running (the browser test shows it does).
    expect(markup).toContain("<strong>&#60;img src=x onerror=&#34;window.pwned=2&#34;&#62;Eve</strong>");
    expect(markup).toContain("<title>For &#60;img src=x onerror=&#34;window.pwned=2&#34;&#62;Eve</title>");
    expect(markup).not.toContain('onerror="window.pwned=2"');
    expect(markup).toContain('<script>window.pwned = "template"</script>');

    const sample = await (await get(app, admin, `/dashboard/campaigns/preview/preview/${c.steps[0]!.id}`)).text();
    expect(sample).toContain("<strong>Alex Example</strong>");
    const viewer = await memberWith(app, admin.orgId, ["automation:view"]);
    expect((await get(app, viewer, src)).status).toBe(200);
    expect((await get(app, admin, "/dashboard/campaigns/preview/preview/no-such-step")).status).toBe(404);
    expect((await get(app, admin, `/dashboard/campaigns/preview/preview/${c.steps[0]!.id}?customer=nobody`)).status).toBe(404);
    // Another org's customer is nobody here.
    const [theirs] = await upsertCustomers(app.deps, other.orgId, SYSTEM, [{ external_id: "theirs-1", email: "t@example.com", name: "Theirs" }]);
    expect((await get(app, admin, `/dashboard/campaigns/preview/preview/${c.steps[0]!.id}?customer=${theirs!.user.id}`)).status).toBe(404);
    expect((await get(app, admin, `/dashboard/campaigns/preview/preview?customer=${theirs!.user.id}`)).status).toBe(404);
  });

  test("the customer field at its boundary: 256 characters are looked up, 257 are refused next to the field", async () => {
    const at = await get(app, admin, `/dashboard/campaigns/welcome/preview?customer=${"r".repeat(256)}`);
    expect(at.status).toBe(404);
    expect(await at.text()).toContain("No customer with this email address, id or external id.");
    const over = await get(app, admin, `/dashboard/campaigns/welcome/preview?customer=${"r".repeat(257)}`);
    expect(over.status).toBe(400);
    expect(await over.text()).toContain('<p class="field-error" id="f-customer-error">At most 256 characters (this has 257).</p>');
  });
});
