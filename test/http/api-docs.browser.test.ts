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

test.skipIf(missing)("/api/docs shows every operation of the document, grouped under its tags", async () => {
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
  await page.locator(".opblock-tag-section").first().waitFor({ timeout: 60_000 });
  const sections = await page.locator(".opblock-tag-section").evaluateAll((els) =>
    els.map((el) => ({ tag: el.querySelector(".opblock-tag")?.getAttribute("data-tag") ?? "", operations: el.querySelectorAll(".opblock").length })),
  );
  // Every tag of the document is a section holding its operations; no "default" section of untagged ones.
  expect(Object.fromEntries(sections.map((s) => [s.tag, s.operations]))).toEqual(Object.fromEntries(byTag));
  expect(sections.map((s) => s.tag)).not.toContain("default");
  expect(sections.reduce((n, s) => n + s.operations, 0)).toBeGreaterThanOrEqual(operations);
  await page.screenshot({ path: join(SCREENSHOTS, "api-docs.png"), fullPage: false });
  expect(unexpectedConsoleErrors(errors)).toEqual([]);
  expect(foreign).toEqual([]);
  await context.close();
}, TIMEOUT);
