// The Reports page in a real headless Chromium: seeded figures shown, the charts' numbers in
// tables (first responses in business hours too, the period's knowledge gaps), the hours in the
// org's business-hours zone or the one asked for, no serious or critical axe violation in light and dark, no console or CSP error;
// photographed into docs/screenshots/ (dashboard-reports.png, dashboard-reports-dark.png).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext } from "playwright-core";
import { sha256Hex } from "../../src/crypto/tokens.ts";
import { conversationMessages, conversations, members } from "../../src/db/schema/index.ts";
import { eq } from "drizzle-orm";
import { backfillReportFacts } from "../../src/conversations/report-facts.ts";
import { addTicketMessage, createTicket } from "../../src/inbox/ticket-writes.ts";
import { setBusinessHours } from "../../src/orgs/business-hours.ts";
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
if (missing) console.log(`reports.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser;
let org: Awaited<ReturnType<typeof seedOrg>>;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  org = await seedOrg(app, { name: "Acme Support" });
  const now = app.deps.now().getTime();
  for (let i = 0; i < 12; i++) {
    const id = crypto.randomUUID();
    const at = now - 2 * 86_400_000 - i * 3_600_000 * 2;
    await app.deps.db
      .insert(conversations)
      .values({ id, orgId: org.org_id, sessionHash: sha256Hex(id), anonymous: true, routed: i % 4 === 0, createdAt: new Date(at), updatedAt: new Date(at) });
    await app.deps.db.insert(conversationMessages).values([
      {
        id: Bun.randomUUIDv7("hex", at),
        orgId: org.org_id,
        conversationId: id,
        role: "customer",
        text: "How do I reset my password?",
        createdAt: new Date(at),
      },
      {
        id: Bun.randomUUIDv7("hex", at + 1000),
        orgId: org.org_id,
        conversationId: id,
        role: "agent",
        text: "Open Settings, then Security.",
        confidence: i % 4 === 1 ? 0.2 : 0.9,
        helpful: i % 3 === 0 ? true : null,
        helpfulAt: new Date(at + 2000),
        createdAt: new Date(at + 1000),
      },
    ]);
    if (i % 4 === 0)
      await createTicket(app.deps, {
        orgId: org.org_id,
        actor: { kind: "customer", endUserId: null, sessionId: id },
        input: { subject: "Help", message: "A person, please", source: "chat", conversationId: id, chatReason: i === 0 ? "frustration" : "live_help" },
      });
  }
  // Rows written straight to the tables: their report facts as the migration fills them.
  await backfillReportFacts(app.deps.db);
  const weekday: [string, string][] = [["09:00", "18:00"]];
  await setBusinessHours(
    app.deps,
    org.org_id,
    { kind: "system", name: "test" },
    { time_zone: "Europe/Paris", weekly: { mon: weekday, tue: weekday, wed: weekday, thu: weekday, fri: weekday }, holidays: [] },
  );
  // One more ticket, opened on a Friday at 17:30 in Paris two weeks ago and answered on the Monday at
  // 09:30: 64 hours of calendar time, one hour of business hours.
  const [admin] = await app.deps.db.select({ id: members.id }).from(members).where(eq(members.email, org.admin_email));
  const today = new Date(now);
  const friday = Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - ((today.getUTCDay() + 2) % 7) - 14, 16, 30);
  app.clock.now = new Date(friday);
  const late = await createTicket(app.deps, {
    orgId: org.org_id,
    actor: { kind: "agent", agentId: null },
    input: { subject: "Invoice", message: "Where is my invoice?", source: "api" },
  });
  app.clock.now = new Date(friday + 64 * 3_600_000);
  await addTicketMessage(app.deps, {
    orgId: org.org_id,
    actor: { kind: "member", memberId: admin!.id },
    ticketId: late.id,
    kind: "reply",
    body: "Here it is.",
  });
  app.clock.now = new Date(now);
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  if (app) await app.close();
});

for (const scheme of ["light", "dark"] as const)
  test.skipIf(missing)(
    `the Reports page, ${scheme}`,
    async () => {
      const { context, page, errors } = await watchedPage(browser, { baseURL: app.url, colorScheme: scheme });
      contexts.push(context);
      await signInThroughForm(page, { email: org.admin_email, password: org.password });
      await page.goto("/dashboard/reports?period=30d");
      await page.getByRole("heading", { name: "Hand-off reasons" }).waitFor();
      expect(await page.getByRole("row", { name: /^Conversations 12$/ }).count()).toBe(1);
      expect(await page.getByRole("row", { name: "Frustration 1" }).count()).toBe(1);
      expect(await page.getByRole("row", { name: /^Tickets 4$/ }).count()).toBe(1); // three opened at this very moment: a preset includes them
      // The hours in the org's business-hours zone, described by their busiest hours; the numbers folded under the chart.
      const chart = page.getByRole("img", { name: "Conversations by hour of day, Europe/Paris time" });
      expect(await chart.count()).toBe(1);
      expect(await chart.getAttribute("aria-describedby")).toBe("hours-busiest");
      expect(await page.locator("#hours-busiest").textContent()).toMatch(/^Busiest: /);
      expect(await page.getByRole("table", { name: "Conversations by hour of day, Europe/Paris time" }).isVisible()).toBe(false);
      expect(
        await page
          .getByText(/^An answer counts as an assumed resolution once 24 hours pass/)
          .first()
          .isVisible(),
      ).toBe(true);
      expect(await page.getByRole("row", { name: /^First response by a person, median \(1 answered\) 2\.7 d$/ }).count()).toBe(1);
      expect(await page.getByRole("row", { name: /^First response by a person in business hours, median 1\.0 h$/ }).count()).toBe(1);
      await page.getByRole("heading", { name: "Top knowledge gaps" }).waitFor();
      expect(await page.getByRole("row", { name: /^How do I reset my password\? 3 / }).count()).toBe(1);
      await checkDashboardPage(page, scheme === "light" ? "reports" : "reports-dark", true);
      await page.getByText("The numbers by hour").click();
      expect(await page.getByRole("table", { name: "Conversations by hour of day, Europe/Paris time" }).isVisible()).toBe(true);
      await checkDashboardPage(page, scheme === "light" ? "reports with the hours' numbers" : "reports with the hours' numbers, dark");
      await page.goto("/dashboard/reports?period=30d&tz=America/New_York");
      expect(await page.getByRole("img", { name: "Conversations by hour of day, America/New_York time" }).count()).toBe(1);
      await page.goto("/dashboard");
      expect(await page.getByRole("heading", { name: /Last 7 days/ }).count()).toBe(1);
      await checkDashboardPage(page, scheme === "light" ? "overview-figures" : "overview-figures-dark");
      expect(unexpectedConsoleErrors(errors)).toEqual([]);
    },
    TIMEOUT,
  );
