// POST /api/sdk/series naming the customer by email alone (identity verification off): the widget
// key is public, so the answer must not tell whoever holds it which addresses belong to the org's
// customers. Known (verified, unverified, enrolled or not, unsubscribed) and unknown addresses get
// the same status and the same body; the work is done only for a verified customer.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createCampaign, listEnrolments, setCampaignStatus } from "../../src/campaigns/service.ts";
import { endUsers, mailUnsubscribes } from "../../src/db/schema/index.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { seedCustomer, seedSeriesOrg, type SeriesOrg, step } from "./helpers.ts";

let app: TestApp;
let org: SeriesOrg;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedSeriesOrg(app);
}, 60_000);
afterAll(() => app.close());

let count = 0;
async function campaign(status: "draft" | "active") {
  const acting = { orgId: org.org_id, actor: { kind: "system" as const, name: "test" } };
  const c = await createCampaign(app.deps, { ...acting, input: { name: "Enumeration", slug: `enum-${++count}`, steps: [step("Hello")] } });
  if (status === "active") await setCampaignStatus(app.deps, { ...acting, ref: c.id, to: "active" });
  return c;
}

async function series(body: Record<string, unknown>) {
  const res = await app.request("/api/sdk/series", { json: body, headers: { authorization: `Bearer ${org.widget_key}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const stateOf = async (campaignId: string) => (await listEnrolments(app.deps, org.org_id, campaignId, {})).enrolments.map((e) => [e.customer.id, e.state]);

describe("known and unknown addresses are answered alike", () => {
  test("enroll and remove: verified, unverified, already enrolled, unsubscribed and unknown addresses get one status and one body", async () => {
    const c = await campaign("active");
    const verified = await seedCustomer(app, org.org_id, { email: "verified@example.com" });
    const unsubscribed = await seedCustomer(app, org.org_id, { email: "gone@example.com" });
    await app.deps.db.insert(mailUnsubscribes).values({ orgId: org.org_id, endUserId: unsubscribed.id, createdAt: app.clock.now });
    // An unverified visitor who typed an address (verification off: anyone may).
    const typed = await app.request("/api/sdk/users/identify", { json: { user_id: "typist", email: "typed@example.com" }, headers: { authorization: `Bearer ${org.widget_key}` } });
    expect(typed.status).toBe(200);

    for (const action of ["enroll", "remove"] as const) {
      const answers = [];
      for (const email of ["verified@example.com", "VERIFIED@example.com", "gone@example.com", "typed@example.com", "nobody@example.com"]) answers.push([email, await series({ campaign: c.slug, action, email })]);
      for (const [email, answer] of answers) expect([action, email, answer]).toEqual([action, email, { status: 202, body: { campaign: { id: c.id, slug: c.slug }, action, accepted: true } }]);
    }
    // The work was done for the verified customer only (enrolled, then removed); the unsubscribed
    // one is recorded as such and never mailed; nobody was created for the unknown address.
    const states = new Map((await stateOf(c.id)) as [string, string][]);
    expect(states.get(verified.id)).toBe("removed");
    expect(states.get(unsubscribed.id)).toBe("unsubscribed");
    expect(states.size).toBe(2);
    const all = await app.deps.db.select({ email: endUsers.email }).from(endUsers);
    expect(all.map((u) => u.email)).not.toContain("nobody@example.com");
  });

  test("what does not depend on the address is still refused plainly, for known and unknown alike: a draft campaign 409, an unknown campaign 404", async () => {
    const draft = await campaign("draft");
    await seedCustomer(app, org.org_id, { email: "draft-known@example.com" });
    for (const email of ["draft-known@example.com", "draft-unknown@example.com"]) {
      const res = await series({ campaign: draft.slug, action: "enroll", email });
      expect([email, res.status, (res.body.error as { code: string }).code]).toEqual([email, 409, "campaign_not_active"]);
      const none = await series({ campaign: "no-such-series", action: "enroll", email });
      expect([email, none.status]).toEqual([email, 404]);
    }
    expect(await stateOf(draft.id)).toEqual([]);
  });
});
