// The activity log page in a real headless Chromium: reached from the settings sections, filtered
// through its form, paged with the kit's pager; no serious or critical axe violation in light and
// dark, no console or CSP error; photographed into docs/screenshots/ (dashboard-activity.png,
// dashboard-activity-dark.png).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Browser, BrowserContext } from "playwright-core";
import { recordActivity } from "../../src/activity/log.ts";
import { members } from "../../src/db/schema/index.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import {
  browserAvailable,
  browserMissingReason,
  checkDashboardPage,
  launchBrowser,
  signInThroughForm,
  unexpectedConsoleErrors,
  watchedPage,
} from "../support/browser.ts";

const TIMEOUT = 90_000;
const missing = !browserAvailable();
if (missing) console.log(`activity.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser;
let org: Awaited<ReturnType<typeof seedOrg>>;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  org = await seedOrg(app, { name: "Acme Support" });
  const [admin] = await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, org.admin_email));
  const start = app.deps.now().getTime() - 2 * 3_600_000;
  const rows = [
    { action: "feature_flag.changed", objectType: "feature_flag", objectId: "mcp_external_servers", summary: { before: false, after: true } },
    {
      action: "connector.created",
      objectType: "connector",
      objectId: crypto.randomUUID(),
      summary: { name: "Orders", slug: "orders", url_host: "orders.example" },
    },
    {
      action: "member_invitation.created",
      objectType: "member_invitation",
      objectId: crypto.randomUUID(),
      summary: { email: "grace@acme.example", roles: ["inbox:manage"] },
    },
    { action: "agent.disabled", objectType: "agent", objectId: org.agent_id, summary: { name: "Support", previous_status: "active" } },
  ];
  for (let i = 0; i < 24; i++) {
    app.clock.now = new Date(start + i * 240_000);
    const row = rows[i % rows.length]!;
    await recordActivity(app.deps, {
      orgId: org.org_id,
      actor: i % 3 === 0 ? { kind: "system", name: "cli" } : { kind: "member", memberId: admin!.id },
      ...row,
    });
  }
  app.clock.now = new Date(start + 2 * 3_600_000);
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  if (app) await app.close();
});

for (const scheme of ["light", "dark"] as const)
  test.skipIf(missing)(
    `the activity log page, ${scheme}`,
    async () => {
      const { context, page, errors } = await watchedPage(browser, { baseURL: app.url, colorScheme: scheme });
      contexts.push(context);
      await signInThroughForm(page, { email: org.admin_email, password: org.password });
      await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Settings" }).click();
      await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Activity log" }).click();
      await page.getByRole("heading", { name: "Activity log" }).waitFor();
      const table = page.getByRole("table", { name: "Activity, newest first" });
      expect(await table.getByRole("row").count()).toBe(21); // the head and 20 rows
      await checkDashboardPage(page, scheme === "light" ? "activity" : "activity-dark", true);
      await page.getByRole("link", { name: "Next page →" }).click();
      await page.getByRole("link", { name: "← First page" }).waitFor();
      expect(await table.getByRole("row").count()).toBeGreaterThanOrEqual(5); // the 4 left, and what creating the org recorded
      await page.getByLabel("Action").fill("connector.created");
      await page.getByRole("button", { name: "Filter" }).click();
      await page.getByRole("link", { name: "Clear the filters" }).waitFor();
      expect(await table.getByRole("row").count()).toBe(7);
      expect(await table.getByRole("cell", { name: "connector.created" }).count()).toBe(6);
      await checkDashboardPage(page, scheme === "light" ? "activity filtered" : "activity filtered, dark");
      expect(unexpectedConsoleErrors(errors)).toEqual([]);
    },
    TIMEOUT,
  );
