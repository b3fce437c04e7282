// The widget's layout in a real headless Chromium, with voice on (a stand-in recognition: headless
// Chromium cannot reach its vendor's): the "Did that help?" row under the newest answer is in full
// view, never under the "Talk to a person" bar, however long the conversation; while the customer
// waits for a person neither "Talk to a person" nor "Video call" is offered, and both are back once
// the ticket is resolved. Screenshots go to the temporary directory. Skipped when chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { createDoc } from "../../src/knowledge/docs.ts";
import { seedOrg, serveTestApp, signIn, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser, seriousAxeViolations } from "../support/browser.ts";
import { fakeRecognition } from "../support/fake-recognition.ts";

const TIMEOUT = 90_000;
const missing = !browserAvailable();
if (missing) console.log(`layout.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let browser: Browser | undefined;
let site: ReturnType<typeof Bun.serve> | undefined;

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  org = await seedOrg(app, { name: "Shop" });
  await createDoc(app.deps, org.org_id, {
    title: "Resetting your password",
    url: "https://help.shop.example/articles/reset-password",
    body: "To reset your password, open the sign-in page and choose Forgot password. We email you a reset link that works for 60 minutes.",
  });
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
<script src="${app.url}/widget.js" data-key="${org.widget_key}" data-org="${org.org_id}" data-voice="on" async></script></head><body><main><h1>Shop</h1></main></body></html>`;
  site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }) });
  browser = await launchBrowser();
}, TIMEOUT);
afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  if (app) await app.close();
});

type Box = { x: number; y: number; width: number; height: number };
const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
const box = async (l: Locator): Promise<Box> => (await l.boundingBox())!;

async function ask(page: Page, question: string) {
  const before = await page.locator(".msg.agent").count();
  await page.getByLabel("Your message").fill(question);
  await page.getByLabel("Your message").press("Enter");
  await page.locator(".msg.agent").nth(before).waitFor();
  await page.waitForFunction(() => document.querySelector("svc-agents-widget")?.shadowRoot?.querySelector(".log")?.getAttribute("aria-busy") === "false");
}

test.skipIf(missing)(
  'the newest answer\'s "Did that help?" row is in full view above the bar; waiting for a person hides Talk to a person and Video call',
  async () => {
    const context = await browser!.newContext({ viewport: { width: 1000, height: 720 } });
    context.setDefaultTimeout(15_000);
    await context.addInitScript(fakeRecognition, { transcript: "How do I reset my password?" });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${site!.port}/`);
    await page.getByRole("button", { name: "Open chat" }).click();
    const video = page.getByRole("button", { name: "Video call" });
    const person = page.getByRole("button", { name: "Talk to a person", exact: true });
    await video.waitFor(); // the config has loaded, voice is on

    // Enough answers for the log to scroll: each time, the newest row is inside the log's view and
    // clear of the bar under it (the buttons and the composer).
    for (const question of ["How do I reset my password?", "How long does the reset link work?", "Where do I choose Forgot password?"]) {
      await ask(page, question);
      const row = page.getByRole("group", { name: "Did that help?" }).last();
      await row.getByRole("button", { name: "Yes" }).waitFor();
      const [r, log, tools] = [await box(row), await box(page.getByRole("log")), await box(page.locator(".tools"))];
      expect(r.y + r.height).toBeLessThanOrEqual(log.y + log.height);
      expect(r.y).toBeGreaterThanOrEqual(log.y);
      expect(overlap(r, tools)).toBe(false);
      expect(overlap(r, await box(person))).toBe(false);
      expect(overlap(r, await box(video))).toBe(false);
    }
    expect(await page.getByRole("log").evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    await page.getByLabel("Your message").blur();
    await page.screenshot({ path: join(tmpdir(), "widget-layout-feedback.png") });

    // The customer asks for a person: while the ticket waits, neither a person nor a call is offered.
    await person.click();
    const waiting = page.locator(".waiting");
    await waiting.waitFor({ state: "visible" });
    expect(await person.count()).toBe(0);
    expect(await video.count()).toBe(0);
    expect(await page.getByRole("button", { name: "Speak your question" }).isVisible()).toBe(true);
    // The email prompt under the waiting line keeps to the same width (its row of controls fits).
    const [line, prompt] = [await box(waiting), await box(page.getByRole("form", { name: "Follow-up by email" }))];
    expect(prompt.x + prompt.width).toBeLessThanOrEqual(line.x + line.width + 0.5);
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
    await page.screenshot({ path: join(tmpdir(), "widget-layout-waiting.png") });

    // A reload while it waits: the same.
    await page.reload();
    await waiting.waitFor({ state: "visible" });
    await page.getByRole("button", { name: "Speak your question" }).waitFor();
    expect(await video.count()).toBe(0);

    // Resolved: the waiting ends, and both are offered again.
    const number = Number((await waiting.textContent())!.match(/ticket #(\d+)/)![1]);
    const admin = await signIn(app, org.admin_email, org.password);
    const list = (await (await app.request("/api/tickets", { headers: { authorization: `Bearer ${admin}` } })).json()) as {
      tickets: { id: string; number: number }[];
    };
    const ticket = list.tickets.find((t) => t.number === number)!;
    const resolved = await app.request(`/api/tickets/${ticket.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${admin}` },
      json: { status: "resolved" },
    });
    expect(resolved.status).toBe(200);
    await waiting.waitFor({ state: "hidden" });
    await person.waitFor();
    await video.waitFor();
    expect(errors).toEqual([]);
    await context.close();
  },
  TIMEOUT,
);
