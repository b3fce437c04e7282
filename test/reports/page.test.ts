// The Reports page and the overview as plain requests: the AI resolution rate says next to it that
// assumed resolutions count only 24 h on; hours of the day in the viewer's zone (tz, else the org's
// business-hours zone, else UTC) with their numbers folded under the chart, not a second table shown.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { conversations } from "../../src/db/schema/index.ts";
import { setBusinessHours } from "../../src/orgs/business-hours.ts";
import { createTestApp, type TestApp } from "../support/app.ts";
import { adminOf, get, type Member } from "../dashboard/helpers.ts";

let app: TestApp;
let admin: Member;
let paris: Member;

beforeAll(async () => {
  app = await createTestApp();
  admin = await adminOf(app);
  paris = await adminOf(app, "Paris Org");
  const at = new Date(Date.UTC(2026, 0, 5, 10, 0));
  app.clock.now = new Date(at.getTime() + 3 * 86_400_000);
  for (const orgId of [admin.orgId, paris.orgId]) {
    const id = crypto.randomUUID();
    await app.deps.db.insert(conversations).values({ id, orgId, sessionHash: sha256Hex(id), anonymous: true, createdAt: at, updatedAt: at });
  }
  const weekday: [string, string][] = [["09:00", "18:00"]];
  await setBusinessHours(app.deps, paris.orgId, { kind: "system", name: "test" }, { time_zone: "Europe/Paris", weekly: { mon: weekday }, holidays: [] });
}, 60_000);
afterAll(() => app.close());

const page = async (who: Member, path: string) => {
  const response = await get(app, who, path);
  expect(response.status).toBe(200);
  return response.text();
};
/** The hours section of the page. */
const hours = (text: string) => text.slice(text.indexOf('id="hours-h"'), text.indexOf("</section>", text.indexOf('id="hours-h"')));

describe("the AI resolution rate", () => {
  test("says next to it, on the overview and the Reports page, that assumed resolutions count 24 h on", async () => {
    for (const path of ["/dashboard", "/dashboard/reports"]) {
      const text = await page(admin, path);
      expect(text).toMatch(
        /<dt>AI resolution rate<\/dt><dd aria-describedby="ai-rate-note"><strong>[^<]*<\/strong> <span class="muted">[^<]*<\/span><p class="hint" id="ai-rate-note">An answer counts as an assumed resolution once 24 hours pass without a reply, so the most recent day’s rate is low until then\.<\/p><\/dd>/,
      );
    }
    const report = await page(admin, "/dashboard/reports");
    expect(report).toContain(
      "An answer counts as an assumed resolution once 24 hours pass without a reply, so the rate of the last 24 hours is low until then.",
    );
  });
});

describe("hours of the day", () => {
  test("UTC for an org without business hours; one chart, its numbers folded under it", async () => {
    const section = hours(await page(admin, "/dashboard/reports?period=30d"));
    expect(section).toContain("Conversations by hour of day (UTC)");
    expect(section).toContain('aria-label="Conversations by hour of day, UTC"');
    expect(section.match(/<table/g)).toHaveLength(1);
    expect(section).toMatch(/<details><summary>The numbers by hour<\/summary><table>/);
    expect(section).toMatch(/<tr><th scope="row">10:00<\/th><td>1<\/td><\/tr>/);
    expect(section).toContain("Busiest: 10:00 (1 conversation).");
  });

  test("the org's business-hours zone by default; tz chooses another; a bad tz is said, never a 5xx", async () => {
    const own = hours(await page(paris, "/dashboard/reports?period=30d"));
    expect(own).toContain("Conversations by hour of day (Europe/Paris time)");
    expect(own).toMatch(/<tr><th scope="row">11:00<\/th><td>1<\/td><\/tr>/); // 10:00 UTC in January
    const asked = hours(await page(paris, "/dashboard/reports?period=30d&tz=Asia/Kolkata"));
    expect(asked).toContain("Conversations by hour of day (Asia/Kolkata time)");
    expect(asked).toMatch(/<tr><th scope="row">15:00<\/th><td>1<\/td><\/tr>/);
    const bad = await page(paris, "/dashboard/reports?period=30d&tz=%2B05%3A30");
    expect(bad).toContain("tz must be an IANA time zone, like Europe/Paris.");
    expect(bad).toContain('value="+05:30"');
    expect((await get(app, paris, `/dashboard/reports?tz=${"x".repeat(65)}`)).status).toBe(400);
  });
});
