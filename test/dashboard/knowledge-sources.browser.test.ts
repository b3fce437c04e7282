// The knowledge sources page in a real headless Chromium: add a website (a loopback site), watch
// its first sync's progress until the page shows it ready with its counts, sync now, delete it
// through the confirmation page. Each page is checked with axe-core (no serious or critical
// violation) in light and dark, and photographed into docs/screenshots/.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import {
  browserAvailable,
  browserMissingReason,
  checkDashboardPage,
  launchBrowser,
  signInThroughForm,
  unexpectedConsoleErrors,
  watchedPage,
} from "../support/browser.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { startTestSite, type TestSite } from "../sources/site.ts";

const TIMEOUT = 120_000;
const missing = !browserAvailable();
if (missing) console.log(`knowledge-sources.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser;
let org: Awaited<ReturnType<typeof seedOrg>>;
let site: TestSite;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (missing) return;
  // A delay between requests, so the sync's progress can be watched.
  app = await serveTestApp({ NODE_ENV: "development", WEBSITE_CRAWL_DELAY_MS: "400" });
  org = await seedOrg(app, { name: "Acme Support", email: "ada@acme.example" });
  site = startTestSite(12);
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  site?.stop();
  if (app) await app.close();
});

async function signedIn(colorScheme: "light" | "dark"): Promise<{ page: Page; errors: string[] }> {
  const { context, page, errors } = await watchedPage(browser, { baseURL: app.url, colorScheme });
  contexts.push(context);
  await signInThroughForm(page, { email: org.admin_email, password: org.password }, "/signin");
  return { page, errors };
}

const statusBadge = (page: Page) => page.locator("main .badge").first();

test.skipIf(missing)(
  "add a website, watch its sync, see its counts, sync now, delete it after the confirmation (light and dark)",
  async () => {
    const { page, errors } = await signedIn("light");
    await page.goto("/dashboard/knowledge/sources");
    await checkDashboardPage(page, "knowledge-sources-empty");
    await page.getByLabel("Name", { exact: true }).fill("Help centre");
    await page.getByLabel("Start page or sitemap").fill(`${site.origin}/sitemap.xml`);
    await page.getByLabel("Never paths matching").fill("/docs/page-12");
    await page.getByRole("button", { name: "Add and sync" }).click();
    await page.getByRole("heading", { name: "Help centre" }).waitFor();
    // The sync runs: progress shows, then the page reloads itself when it is done.
    expect(await statusBadge(page).innerText()).toBe("syncing");
    await page.locator("[data-sync-progress]").waitFor();
    expect(await page.locator("[data-sync-progress]").innerText()).toMatch(/^\d+ of \d+ pages done$/);
    await checkDashboardPage(page, "knowledge-source-syncing");
    await page.locator("main .badge.ok").waitFor({ timeout: 60_000 });
    expect(await page.locator("main").innerText()).toContain("13 found · 11 imported · 0 updated · 0 unchanged · 1 failed · 0 removed");
    await checkDashboardPage(page, "knowledge-source", true);
    await page.getByRole("link", { name: "← Knowledge sources" }).click();
    await checkDashboardPage(page, "knowledge-sources", true);
    await page.getByRole("link", { name: "Help centre" }).click();

    const dark = await signedIn("dark");
    await dark.page.goto("/dashboard/knowledge/sources");
    await checkDashboardPage(dark.page, "knowledge-sources (dark)");
    await dark.page.getByRole("link", { name: "Help centre" }).click();
    await checkDashboardPage(dark.page, "knowledge-source (dark)");

    await page.getByRole("button", { name: "Sync now" }).click();
    await page.getByText("Sync started.").waitFor();
    await page.locator("main .badge.ok").waitFor({ timeout: 60_000 });
    expect(await page.locator("main").innerText()).toContain("11 unchanged");

    await page.getByRole("link", { name: "Delete…" }).click();
    await page.getByRole("heading", { name: "Delete Help centre?" }).waitFor();
    await checkDashboardPage(page, "knowledge-source-delete", true);
    await dark.page.goto(page.url());
    await checkDashboardPage(dark.page, "knowledge-source-delete (dark)");
    await page.getByRole("button", { name: "Delete Help centre and its documents" }).click();
    await page.getByText("“Help centre” and its documents are deleted.").waitFor();
    expect(await page.locator("main").innerText()).toContain("No sources yet.");
    expect(unexpectedConsoleErrors([...errors, ...dark.errors])).toEqual([]);
  },
  TIMEOUT,
);
