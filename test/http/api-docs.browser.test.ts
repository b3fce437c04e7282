// /api/docs in a real headless Chromium: the OpenAPI document rendered by the self-hosted viewer,
// every operation under a tag, with no console error, no CSP violation and no request to another
// origin; photographed into docs/screenshots/api-docs.png.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { browserAvailable, browserMissingReason, launchBrowser, SCREENSHOTS, unexpectedConsoleErrors, watchedPage } from "../support/browser.ts";
import { serveTestApp, type ServedTestApp } from "../support/app.ts";

const TIMEOUT = 90_000;
const missing = !browserAvailable();
if (missing) console.log(`api-docs.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser;

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  await browser?.close();
  if (app) await app.close();
});

test.skipIf(missing)(
  "/api/docs shows every operation of the document, grouped under its tags",
  async () => {
    const doc = (await (await fetch(`${app.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { tags?: string[] }>> };
    const byTag = new Map<string, number>();
    let operations = 0;
    for (const ops of Object.values(doc.paths))
      for (const op of Object.values(ops)) {
        operations++;
        for (const tag of op.tags ?? []) byTag.set(tag, (byTag.get(tag) ?? 0) + 1);
      }
    const { context, page, errors } = await watchedPage(browser, { baseURL: app.url });
    const foreign: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(app.url)) foreign.push(r.url());
    });
    const res = await page.goto("/api/docs");
    expect(res?.status()).toBe(200);
    expect(res?.headers()["content-security-policy"]).toContain("script-src 'self'");
    // Swagger UI parses and lays out the whole document first (some 200 operations): slow on a busy machine.
    await page.locator(".opblock-tag").first().waitFor({ timeout: 60_000 });
    // Past 100 operations it renders only what is near the viewport (a virtual list whose items are a
    // tag's heading or one operation, each with its data-index): scroll the page through, keep every
    // item once by its index, then count each tag's operations in order.
    const items = new Map<number, { tag: string | null; operations: number }>();
    for (let step = 0; step < 600; step++) {
      const visible = await page.evaluate(() =>
        [...document.querySelectorAll(".operations-virtual__item")].map((el) => ({
          index: Number(el.getAttribute("data-index")),
          tag: el.querySelector(".opblock-tag")?.getAttribute("data-tag") ?? null,
          operations: el.querySelectorAll(".opblock").length,
        })),
      );
      for (const v of visible) items.set(v.index, { tag: v.tag, operations: v.operations });
      const atEnd = await page.evaluate(() => {
        window.scrollBy(0, window.innerHeight / 2);
        return window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 2;
      });
      if (atEnd && step > 0) break;
      await page.waitForTimeout(50);
    }
    const seen = new Map<string, number>();
    let current = "default";
    for (const [, item] of [...items].sort(([a], [b]) => a - b)) {
      if (item.tag) current = item.tag;
      seen.set(current, (seen.get(current) ?? 0) + item.operations);
    }
    // A document under the virtual list's threshold is laid out whole, a section per tag.
    if (items.size === 0)
      for (const v of await page
        .locator(".opblock-tag-section")
        .evaluateAll((els) =>
          els.map((el) => ({ tag: el.querySelector(".opblock-tag")?.getAttribute("data-tag") ?? "", operations: el.querySelectorAll(".opblock").length })),
        ))
        seen.set(v.tag, v.operations);
    const sections = [...seen].map(([tag, operations]) => ({ tag, operations }));
    await page.evaluate(() => window.scrollTo(0, 0));
    // Every tag of the document is a section holding its operations; no "default" section of untagged ones.
    expect(Object.fromEntries(sections.map((s) => [s.tag, s.operations]))).toEqual(Object.fromEntries(byTag));
    expect(sections.map((s) => s.tag)).not.toContain("default");
    expect(sections.reduce((n, s) => n + s.operations, 0)).toBeGreaterThanOrEqual(operations);
    await page.screenshot({ path: join(SCREENSHOTS, "api-docs.png"), fullPage: false });
    expect(unexpectedConsoleErrors(errors)).toEqual([]);
    expect(foreign).toEqual([]);
    await context.close();
  },
  TIMEOUT,
);
