// The knowledge base by language in a real headless Chromium: the list's Language column and filter
// (choosing Spanish lists the Spanish document only), a document's page with its other-language
// versions and the form that links them. No serious or critical axe violation, no console error;
// photographed into docs/screenshots/ (dashboard-knowledge-languages.png,
// dashboard-knowledge-translations.png).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type { Browser, BrowserContext } from "playwright-core";
import { docs } from "../../src/db/schema/index.ts";
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
if (missing) console.log(`knowledge-languages.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser;
let org: Awaited<ReturnType<typeof seedOrg>>;
const contexts: BrowserContext[] = [];
const ids: Record<string, string> = {};

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  org = await seedOrg(app, { name: "Acme Support" });
  const auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  for (const [key, title, language] of [
    ["en", "Reset your password", "en"],
    ["es", "Restablecer la contraseña", "es"],
    ["ja", "パスワードの再設定", "ja"],
    ["ship", "Shipping times", null],
  ] as const) {
    const res = await app.request("/api/docs", { method: "POST", headers: auth, json: { title, body: `${title}.\n\nThe steps, one by one.` } });
    ids[key] = ((await res.json()) as { id: string }).id;
    await app.deps.db.update(docs).set({ language }).where(eq(docs.id, ids[key]!));
  }
  const res = await app.request(`/api/docs/${ids.es}`, { method: "PATCH", headers: auth, json: { translation_of: ids.en } });
  if (res.status !== 200) throw new Error(`link: ${res.status}`);
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  if (app) await app.close();
});

test.skipIf(missing)(
  "the knowledge list's Language column and filter; a document's other languages, linked from its page",
  async () => {
    const { context, page, errors } = await watchedPage(browser, { baseURL: app.url });
    contexts.push(context);
    await signInThroughForm(page, { email: org.admin_email, password: org.password });
    await page.goto("/dashboard/knowledge");
    const table = page.getByRole("table", { name: "Documents" });
    await table.waitFor();
    expect(await table.getByRole("columnheader", { name: "Language" }).count()).toBe(1);
    expect(await table.getByRole("row").filter({ hasText: "パスワードの再設定" }).getByRole("cell", { name: "Japanese (ja)" }).count()).toBe(1);
    expect(await table.getByRole("row").filter({ hasText: "Shipping times" }).getByRole("cell", { name: "Unknown" }).count()).toBe(1);
    await page.getByLabel("Language").selectOption("es");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL(/language=es/);
    expect(await table.getByRole("row").count()).toBe(2); // the head and the Spanish document
    expect(await table.getByText("Restablecer la contraseña").count()).toBe(1);
    await checkDashboardPage(page, "knowledge-languages", true);
    await table.getByRole("link", { name: "Restablecer la contraseña" }).click();
    const others = page.getByRole("region", { name: "Other languages" });
    await others.waitFor();
    await others.getByRole("link", { name: "Reset your password" }).waitFor();
    // Link the Japanese version too, through the form.
    await others.getByLabel("Same article as").selectOption(ids.ja!);
    await others.getByRole("button", { name: "Save link" }).click();
    await page.getByText("Linked as the same article in another language.").waitFor();
    expect(await page.getByRole("region", { name: "Other languages" }).getByRole("listitem").count()).toBe(2);
    await checkDashboardPage(page, "knowledge-translations", true);
    expect(unexpectedConsoleErrors(errors)).toEqual([]);
  },
  TIMEOUT,
);
