// Dashboard campaign pages through the app, as a browser with a session cookie: roles allowed and
// denied, create with a field error, steps edited in one form (delay notation, a field error next to
// its step, values kept), activate and pause, a preview for a customer, the outbox messages, and
// another org's campaign answering 404.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { memberActor } from "../../src/activity/actor.ts";
import { campaignOr404, enrolCustomer, queueDueSteps } from "../../src/campaigns/service.ts";
import { findCustomer } from "../../src/inbox/customers.ts";
import { formatDelay, parseDelay } from "../../src/web/dashboard/campaigns.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member, memberWith, post, withFlash } from "../dashboard/helpers.ts";
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
    for (const path of ["/dashboard/campaigns", "/dashboard/campaigns/onboarding", "/dashboard/campaigns/onboarding/preview", "/dashboard/campaigns/onboarding/messages", "/dashboard/campaigns/onboarding/enrolments"]) {
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

    const added = await post(app, admin, path, { count: "0", name: "Welcome", sender_name: "Acme", reply_to: "", s0_delay: "0", s0_from: "enrolment", s0_subject: "Hello {{name}}", s0_body: "Welcome aboard." });
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

    const two = await post(app, admin, path, { count: "1", name: "Welcome", sender_name: "Acme", reply_to: "", s0_id: campaign.steps[0]!.id, s0_delay: "0", s0_from: "enrolment", s0_subject: "Hello {{name}}", s0_body: "Welcome aboard.", s1_delay: "3d", s1_from: "previous", s1_subject: "Tips", s1_body: "Here are tips." });
    expect(two.status).toBe(303);
    campaign = await campaignOr404(app.deps, admin.orgId, "welcome");
    expect(campaign.steps.map((s) => s.delaySeconds)).toEqual([0, 259_200]);
    expect(await (await get(app, admin, path)).text()).toContain('value="3d"');

    // The service's own check (an unknown template variable) also lands next to its field.
    const unknownVar = await post(app, admin, path, { count: "2", name: "Welcome", sender_name: "Acme", reply_to: "", s0_id: campaign.steps[0]!.id, s0_remove: "on", s0_delay: "0", s0_subject: "x", s0_body: "x", s1_id: campaign.steps[1]!.id, s1_delay: "3d", s1_subject: "Hi {{bogus}}", s1_body: "Here are tips." });
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
    await enrolCustomer(app.deps, { orgId: admin.orgId, actor: memberActor("00000000-0000-4000-8000-000000000000"), campaign: (await campaignOr404(app.deps, admin.orgId, "welcome"))!, endUser: ada, source: "test" });
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
    const step = (delay: string, subject: string) => ({ count: "0", name: "Limits", sender_name: "", reply_to: "", s0_delay: delay, s0_from: "previous", s0_subject: subject, s0_body: "Body." });
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
    expect((await post(app, admin, path, { version, count: "0", name: "Race", sender_name: "", reply_to: "", s0_delay: "0", s0_from: "previous", s0_subject: "First", s0_body: "One." })).status).toBe(303);
    const stale = await post(app, admin, path, { version, count: "0", name: "Race renamed", sender_name: "", reply_to: "", s0_delay: "", s0_from: "previous", s0_subject: "", s0_body: "" });
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
    }
    expect((await campaignOr404(app.deps, other.orgId, "theirs")).name).toBe("Theirs");
  });
});
