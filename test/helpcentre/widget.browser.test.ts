// The help centre in the widget on a customer's page, in a real headless Chromium: articles
// suggested for the page (its title and path), a search, an article opened in the panel, and
// "Still need help?" opening the chat with the article named; the articles read reach the
// conversation and, once a person is asked, the ticket's page. Drafts and internal articles never
// show. No serious or critical axe violation inside the widget.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { and, eq } from "drizzle-orm";
import { tickets } from "../../src/db/schema/index.ts";
import { serveTestApp, signIn, type ServedTestApp } from "../support/app.ts";
import { join } from "node:path";
import { browserAvailable, browserMissingReason, launchBrowser, SCREENSHOTS, seriousAxeViolations } from "../support/browser.ts";
import { seedHelpCentre } from "./seed.ts";

const TIMEOUT = 90_000;
const missing = !browserAvailable();
if (missing) console.log(`widget.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser | undefined;
let site: ReturnType<typeof Bun.serve> | undefined;
let seed: Awaited<ReturnType<typeof seedHelpCentre>>;

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  seed = await seedHelpCentre(app);
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Your refund</title><link rel="icon" href="data:,">
<script src="${app.url}/widget.js" data-key="${seed.org.widget_key}" data-org="${seed.orgId}" async></script></head><body><main><h1>Your order</h1></main></body></html>`;
  site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }) });
  browser = await launchBrowser();
}, TIMEOUT);
afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  if (app) await app.close();
});

test.skipIf(missing)(
  "suggestions for the page, a search, an article in the panel, and Still need help? into the chat with the article named",
  async () => {
    const context = await browser!.newContext({ viewport: { width: 1000, height: 900 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${site!.port}/account/refund`);
    await page.getByRole("button", { name: "Open chat" }).click();
    await page.getByRole("button", { name: "Help articles" }).click();
    const help = page.getByRole("region", { name: "Help articles" });
    await help.getByRole("heading", { name: "Suggested for this page" }).waitFor();
    await help.getByRole("button", { name: /Getting a refund/ }).waitFor();
    expect(await help.getByText("Refund policy draft").count()).toBe(0);
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);

    await help.getByRole("searchbox", { name: "Search help articles" }).fill("refund");
    await help.getByRole("button", { name: "Search", exact: true }).click();
    await help.getByRole("heading", { name: "Results for “refund”" }).waitFor();
    const titles = await help.locator("ul.hits button").allTextContents();
    expect(titles.some((t) => t.startsWith("Getting a refund"))).toBe(true);
    for (const hidden of ["Refund policy draft", "Refund fraud checklist", "Refund desk rota"]) expect(titles.some((t) => t.startsWith(hidden))).toBe(false);

    await help.getByRole("button", { name: /Getting a refund/ }).click();
    await help.getByRole("heading", { name: "Getting a refund" }).waitFor();
    expect(await help.locator(".article table tr").count()).toBe(3);
    expect(await help.locator(".article pre code").textContent()).toContain("curl -X POST");
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, "help-centre-widget-article.png") });

    await help.getByRole("button", { name: "Still need help?" }).click();
    await page.locator(".msg.user").filter({ hasText: "I read “Getting a refund” and still need help." }).waitFor();
    await page.locator(".msg.agent").first().waitFor();
    // A person, please: the ticket lists the article read before asking.
    await page.getByRole("button", { name: "Talk to a person" }).click();
    let ticketId: string | undefined;
    for (let i = 0; i < 50 && !ticketId; i++) {
      [{ id: ticketId } = { id: undefined }] = await app.deps.db
        .select({ id: tickets.id })
        .from(tickets)
        .where(and(eq(tickets.orgId, seed.orgId)));
      if (!ticketId) await Bun.sleep(100);
    }
    expect(ticketId).toBeDefined();
    const token = await signIn(app, seed.org.admin_email, seed.org.password);
    const ticketPage = await (await app.request(`/dashboard/inbox/${ticketId}`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(ticketPage).toContain("Help articles read before asking");
    expect(ticketPage).toContain(">Getting a refund</a>");
    expect(errors).toEqual([]);
    await context.close();
  },
  TIMEOUT,
);
