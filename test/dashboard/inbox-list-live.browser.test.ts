// The inbox list follows the org's ticket events (GET /api/tickets/events): a ticket created through
// the SDK shows in an open list without a reload, and the queue counts in the nav move; a status
// change by another member moves them back. On any other page the nav's counts follow the same
// events on their own. Skipped when chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext } from "playwright-core";
import { updateTicket } from "../../src/inbox/tickets.ts";
import { browserAvailable, browserMissingReason, launchBrowser, signedInContext } from "../support/browser.ts";
import { serveTestApp, type ServedTestApp } from "../support/app.ts";
import { adminOf, type Member } from "./helpers.ts";

const missing = !browserAvailable();
if (missing) console.log(`inbox-list-live.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser | undefined;
let context: BrowserContext;
let admin: Member;

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  admin = await adminOf(app, "Live List");
  browser = await launchBrowser();
  context = await signedInContext(browser, app.url, admin.cookie);
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  if (!missing) await app.close();
}, 60_000);

test.skipIf(missing)(
  "a ticket created through the SDK appears in the open list and the open count moves, without a reload",
  async () => {
    const problems: string[] = [];
    const page = await context.newPage();
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    page.on("pageerror", (e) => problems.push(e.message));
    const following = page.waitForResponse((res) => res.url().endsWith("/api/tickets/events"));
    expect((await page.goto("/dashboard/inbox"))!.status()).toBe(200);
    expect((await following).status()).toBe(200);
    expect(await page.locator('[data-count="open"]').textContent()).toBe("0");
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 7));

    const res = await fetch(`${app.url}/api/sdk/tickets/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin.widgetKey}`, "content-type": "application/json" },
      body: JSON.stringify({ user_id: "live-customer", subject: "Parcel never came", message: "Where is my parcel?" }),
    });
    expect(res.status).toBe(201);
    const { id: ticketId } = (await res.json()) as { id: string };
    await page.locator("#inbox-live tbody tr", { hasText: "Parcel never came" }).waitFor({ timeout: 2_000 });
    await page.locator('[data-count="open"]', { hasText: "1" }).waitFor({ timeout: 2_000 });
    expect(await page.locator('[data-count="unassigned"]').textContent()).toBe("1");

    // Another member resolves it: the counts go back to nothing waiting.
    await updateTicket(app.deps, { orgId: admin.orgId, actor: { kind: "system", name: "test" }, ticketId, patch: { status: "resolved" } });
    await page.locator('[data-count="open"]', { hasText: "0" }).waitFor({ timeout: 2_000 });
    expect(await page.locator("#inbox-live tbody tr", { hasText: "Parcel never came" }).textContent()).toContain("resolved");
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(7); // the same page: no reload
    expect(problems).toEqual([]);
    await page.close();
  },
  60_000,
);

test.skipIf(missing)(
  "on a page that is not the inbox, the nav's queue counts move with a new ticket, over one stream of the org's events",
  async () => {
    const problems: string[] = [];
    const page = await context.newPage();
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    page.on("pageerror", (e) => problems.push(e.message));
    const streams: string[] = [];
    page.on("request", (req) => req.url().endsWith("/api/tickets/events") && streams.push(req.url()));
    const following = page.waitForResponse((res) => res.url().endsWith("/api/tickets/events"));
    expect((await page.goto("/dashboard/account"))!.status()).toBe(200);
    expect((await following).status()).toBe(200);
    const open = page.locator('#nav-queues [data-count="open"]');
    const before = Number(await open.textContent());
    const res = await fetch(`${app.url}/api/sdk/tickets/create`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin.widgetKey}`, "content-type": "application/json" },
      body: JSON.stringify({ user_id: "nav-customer", subject: "Where is my refund", message: "It has been two weeks." }),
    });
    expect(res.status).toBe(201);
    await open.filter({ hasText: String(before + 1) }).waitFor({ timeout: 2_000 });
    expect(await page.locator('#nav-queues [data-count="unassigned"]').textContent()).toBe(String(before + 1));
    expect(streams).toHaveLength(1);
    await page.screenshot({ path: "docs/screenshots/nav-queues.png" });
    expect(problems).toEqual([]);
    await page.close();
  },
  60_000,
);
