// The dashboard's ticket page shows a customer's new message without a reload: the thread follows
// GET /api/tickets/{id}/events and is fetched again on each event. Skipped when chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext } from "playwright-core";
import { addTicketMessage } from "../../src/inbox/tickets.ts";
import { browserAvailable, browserMissingReason, launchBrowser, signedInContext } from "../support/browser.ts";
import { serveTestApp, type ServedTestApp } from "../support/app.ts";
import { adminOf, type Member } from "./helpers.ts";
import { type InboxFixture, seedInbox } from "./seed.ts";

const missing = !browserAvailable();
if (missing) console.log(`inbox-live.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser | undefined;
let context: BrowserContext;
let admin: Member;
let fixture: InboxFixture;

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  admin = await adminOf(app, "Live Support");
  fixture = await seedInbox(app, admin.orgId, admin.agentId!, "Lin");
  browser = await launchBrowser();
  context = await signedInContext(browser, app.url, admin.cookie);
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  if (!missing) await app.close();
}, 60_000);

test.skipIf(missing)(
  "a customer's new message appears in the open ticket page's thread without a reload",
  async () => {
    const problems: string[] = [];
    const page = await context.newPage();
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    page.on("pageerror", (e) => problems.push(e.message));
    const following = page.waitForResponse((res) => res.url().includes(`/api/tickets/${fixture.ticketId}/events`));
    expect((await page.goto(`/dashboard/inbox/${fixture.ticketNumber}`))!.status()).toBe(200);
    expect((await following).status()).toBe(200);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    await addTicketMessage(app.deps, {
      orgId: admin.orgId,
      actor: { kind: "system", name: "email" },
      ticketId: fixture.ticketId,
      kind: "customer",
      body: "Live from the customer",
    });
    await page.locator("#thread article", { hasText: "Live from the customer" }).waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42); // the same page: no reload
    expect(problems).toEqual([]);
    await page.close();
  },
  60_000,
);
