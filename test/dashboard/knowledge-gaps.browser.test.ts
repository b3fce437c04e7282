// The knowledge gaps page in a real headless Chromium: reached from the knowledge base, each group
// shows its counts by reason and links to the conversations behind it; a link opens that
// conversation. No serious or critical axe violation in light and dark, no console or CSP error;
// photographed into docs/screenshots/ (dashboard-knowledge-gaps.png, dashboard-knowledge-gaps-dark.png).
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser, BrowserContext } from "playwright-core";
import { askGapQuestions } from "../knowledge/gaps-seed.ts";
import { seedOrg, serveTestApp, signIn, type ServedTestApp } from "../support/app.ts";
import {
  browserAvailable,
  browserMissingReason,
  checkDashboardPage,
  launchBrowser,
  signInThroughForm,
  unexpectedConsoleErrors,
  watchedPage,
} from "../support/browser.ts";

const TIMEOUT = 120_000;
const missing = !browserAvailable();
if (missing) console.log(`knowledge-gaps.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser;
let org: Awaited<ReturnType<typeof seedOrg>>;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp({ LLM_PROVIDER: "builtin" });
  org = await seedOrg(app, { name: "Acme Support" });
  await askGapQuestions(app, { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` }, org.widget_key);
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  if (app) await app.close();
});

for (const scheme of ["light", "dark"] as const)
  test.skipIf(missing)(
    `the knowledge gaps page, ${scheme}`,
    async () => {
      const { context, page, errors } = await watchedPage(browser, { baseURL: app.url, colorScheme: scheme });
      contexts.push(context);
      await signInThroughForm(page, { email: org.admin_email, password: org.password });
      await page.goto("/dashboard/knowledge");
      await page.getByRole("link", { name: "Knowledge gaps" }).first().click();
      await page.getByRole("heading", { name: "Knowledge gaps" }).waitFor();
      const table = page.getByRole("table", { name: "Knowledge gaps, most asked first" });
      expect(await table.getByRole("row").count()).toBe(4); // the head and 3 groups
      const tokyo = table.getByRole("row").filter({ hasText: "Do you have an office in Tokyo?" });
      expect(await tokyo.getByRole("listitem").filter({ hasText: "2 low confidence" }).count()).toBe(1);
      expect(await tokyo.getByRole("listitem").filter({ hasText: "1 marked not helpful" }).count()).toBe(1);
      expect(await table.getByRole("listitem").filter({ hasText: "1 handed off" }).count()).toBe(1);
      expect(await table.getByRole("link", { name: "Write an article" }).count()).toBe(3);
      await checkDashboardPage(page, scheme === "light" ? "knowledge-gaps" : "knowledge-gaps-dark", true);
      const address = table.getByRole("row").filter({ hasText: "How do I change my delivery address?" });
      await address.getByRole("link", { name: /^Conversation of / }).click();
      await page.getByRole("heading", { name: /^Conversation of / }).waitFor();
      expect(await page.getByText("How do I change my delivery address?").count()).toBeGreaterThan(0);
      expect(await page.getByText("I want to talk to a human").count()).toBeGreaterThan(0);
      expect(unexpectedConsoleErrors(errors)).toEqual([]);
    },
    TIMEOUT,
  );
