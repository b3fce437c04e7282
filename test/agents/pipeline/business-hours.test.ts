// The hand-off acknowledgement and business hours, through the real chat endpoint with the clock
// moved (deps.now): inside the hours (or with none set) a person "will reply here as soon as they
// can"; outside them the customer is told when people are next there, in the org's time zone —
// across a weekend, a holiday and the spring DST change. The API refuses invalid hours with a 400.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestApp, signIn, type TestApp } from "../../support/app.ts";
import { chatJson, type ChatOrg, seedChatOrg } from "../../support/chat.ts";

let app: TestApp;
let org: ChatOrg;
let auth: Record<string, string>;

const hours = {
  time_zone: "Europe/Paris",
  weekly: { mon: [["09:00", "17:00"]], tue: [["09:00", "17:00"]], wed: [["09:00", "17:00"]], thu: [["09:00", "17:00"]], fri: [["09:00", "17:00"]] },
  holidays: ["2027-04-05"],
};

beforeAll(async () => {
  app = await createTestApp();
  org = await seedChatOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
}, 30_000);
afterAll(() => app.close());

let n = 0;
async function askForPerson(): Promise<string> {
  const answer = await chatJson(app, org, { message: "Can I talk to a human, please?", user_id: `bh-${++n}` });
  expect(answer.routing.action).toBe("live_help");
  return answer.text as string;
}
const setClock = (iso: string) => app.clock.advance(Date.parse(iso) - app.clock.now.getTime());

describe("the hand-off acknowledgement", () => {
  test("no hours set: a person will reply as soon as they can", async () => {
    expect(await askForPerson()).toMatch(/They will reply here as soon as they can\.$/);
  });

  test("hours set: inside them as before; outside, when people are next there", async () => {
    const put = await app.request("/api/business-hours", { method: "PUT", headers: auth, json: { business_hours: hours } });
    expect(put.status).toBe(200);
    expect(((await put.json()) as any).business_hours.time_zone).toBe("Europe/Paris");

    setClock("2027-03-24T10:00:00Z"); // Wednesday 11:00 CET
    expect(await askForPerson()).toContain("as soon as they can");
    setClock("2027-03-26T17:30:00Z"); // Friday 18:30 CET; clocks go forward on Sunday 28 March
    expect(await askForPerson()).toContain("a person will answer from Monday 29 March at 09:00 (Europe/Paris time)");
    setClock("2027-04-02T16:30:00Z"); // Friday 18:30 CEST; Easter Monday 5 April is a holiday
    expect(await askForPerson()).toContain("a person will answer from Tuesday 6 April at 09:00 (Europe/Paris time)");
  });

  test("invalid hours are refused with a detail per problem; null clears them", async () => {
    auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` }; // the clock moved past the session
    const bad = await app.request("/api/business-hours", {
      method: "PUT",
      headers: auth,
      json: { business_hours: { ...hours, time_zone: "Europe/Atlantis", holidays: ["2027-02-30"] } },
    });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { error: { details: { path: string }[] } };
    expect(body.error.details.map((d) => d.path)).toEqual(["/time_zone", "/holidays/0"]);
    const cleared = await app.request("/api/business-hours", { method: "PUT", headers: auth, json: { business_hours: null } });
    expect(((await cleared.json()) as any).business_hours).toBeNull();
    expect(await askForPerson()).toContain("as soon as they can");
  });
});
