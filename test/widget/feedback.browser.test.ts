// "Did that help?" and the rating prompt in a real headless Chromium: a yes on an answer is stored
// on it; a no offers a person, whose ticket, once resolved by a member, brings the rating prompt
// (the org's question); the rating lands on the ticket. axe-core finds no serious or critical
// violation with the prompt open. Skipped when Debian's chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import type { Browser, Page } from "playwright-core";
import { conversationMessages, tickets } from "../../src/db/schema/index.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import { seedOrg, serveTestApp, signIn, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser, seriousAxeViolations } from "../support/browser.ts";

const TIMEOUT = 60_000;
const missing = !browserAvailable();
if (missing) console.log(`feedback.browser.test.ts: ${browserMissingReason()}`);

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
  const admin = await signIn(app, org.admin_email, org.password);
  await app.request("/api/widget/csat", {
    method: "PUT",
    json: { csat_enabled: true, csat_question: "How did we do today?" },
    headers: { authorization: `Bearer ${admin}` },
  });
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
<script src="${app.url}/widget.js" data-key="${org.widget_key}" data-org="${org.org_id}" async></script></head><body><main><h1>Shop</h1></main></body></html>`;
  site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }) });
  browser = await launchBrowser();
}, TIMEOUT);
afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  if (app) await app.close();
});

test.skipIf(missing)(
  "a yes is stored on the answer; a no offers a person; the resolved ticket asks for a rating, which lands on it",
  async () => {
    const context = await browser!.newContext({ viewport: { width: 1000, height: 900 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${site!.port}/`);
    await page.getByRole("button", { name: "Open chat" }).click();
    const ask = async (question: string) => {
      const before = await page.locator(".msg.agent").count();
      await page.getByLabel("Your message").fill(question);
      await page.getByLabel("Your message").press("Enter");
      await page.locator(".msg.agent").nth(before).waitFor();
      await page.waitForFunction(() => document.querySelector("svc-agents-widget")?.shadowRoot?.querySelector(".log")?.getAttribute("aria-busy") === "false");
      return page.locator(".msg.agent").nth(before);
    };

    await ask("How do I reset my password?");
    const first = page.getByRole("group", { name: "Did that help?" }).first();
    await first.getByRole("button", { name: "Yes" }).click();
    await first.getByText("Thanks for telling us.").waitFor();
    const helpful = await app.deps.db
      .select({ helpful: conversationMessages.helpful })
      .from(conversationMessages)
      .where(eq(conversationMessages.orgId, org.org_id));
    expect(helpful.filter((m) => m.helpful === true).length).toBe(1);

    await ask("How long does the reset link work?");
    const second = page.getByRole("group", { name: "Did that help?" }).nth(1);
    await second.getByRole("button", { name: "No" }).click();
    await second.getByRole("button", { name: "Talk to a person" }).click();
    await page.locator(".waiting").waitFor({ state: "visible" });

    const [ticket] = await app.deps.db.select().from(tickets).where(eq(tickets.orgId, org.org_id));
    expect(ticket!.handoffReason).toBe("live_help");
    const admin = await signIn(app, org.admin_email, org.password);
    expect(
      (await app.request(`/api/tickets/${ticket!.id}`, { method: "PATCH", headers: { authorization: `Bearer ${admin}` }, json: { status: "resolved" } }))
        .status,
    ).toBe(200);
    const rating = page.getByRole("form", { name: `Rate ticket #${ticket!.number}` });
    await rating.waitFor();
    expect(await rating.getByText("How did we do today?").count()).toBe(1);
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
    await rating.getByLabel("4").check();
    await rating.getByLabel("Anything to add? (optional)").fill("Quick, thanks");
    await page.screenshot({ path: join(tmpdir(), "widget-rating.png") });
    await rating.getByRole("button", { name: "Send rating" }).click();
    await page.getByText("Thank you for your rating.").waitFor();
    const [rated] = await app.deps.db.select().from(tickets).where(eq(tickets.id, ticket!.id));
    expect(rated).toMatchObject({ csatScore: 4, csatComment: "Quick, thanks", csatHandledBy: "ai" });
    // Answered: a reload does not ask again.
    expect(await reloadAndCountRatingChecks(page)).toBe(0);
    expect(await rating.count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  },
  TIMEOUT,
);

/** Reloads the page and waits until the widget follows its conversation again; how many times it asked whether to show the rating prompt meanwhile. */
async function reloadAndCountRatingChecks(page: Page): Promise<number> {
  let checks = 0;
  const count = (r: { url(): string; method(): string }) => {
    if (r.method() === "GET" && /\/rating(\?|$)/.test(r.url())) checks++;
  };
  page.on("request", count);
  const following = page.waitForRequest((r) => r.url().endsWith("/events"));
  await page.reload();
  await following;
  await page.getByRole("log").waitFor();
  page.off("request", count);
  return checks;
}

test.skipIf(missing)(
  "the rating prompt survives a reload until it is answered or dismissed; a dismissal survives a reload too",
  async () => {
    const context = await browser!.newContext({ viewport: { width: 1000, height: 900 } });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`http://127.0.0.1:${site!.port}/`);
    await page.getByRole("button", { name: "Open chat" }).click();
    await page.getByRole("button", { name: "Talk to a person" }).click();
    const waiting = page.locator(".waiting");
    await waiting.waitFor({ state: "visible" });
    const number = Number((await waiting.textContent())!.match(/ticket #(\d+)/)![1]);
    const [ticket] = await app.deps.db
      .select()
      .from(tickets)
      .where(and(eq(tickets.orgId, org.org_id), eq(tickets.number, number)));
    const admin = await signIn(app, org.admin_email, org.password);
    const resolved = await app.request(`/api/tickets/${ticket!.id}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${admin}` },
      json: { status: "resolved" },
    });
    expect(resolved.status).toBe(200);
    const rating = page.getByRole("form", { name: `Rate ticket #${number}` });
    await rating.waitFor();

    // A reload (the panel reopens by itself): the prompt is asked again, with the org's question.
    expect(await reloadAndCountRatingChecks(page)).toBe(1);
    await rating.waitFor();
    expect(await rating.getByText("How did we do today?").count()).toBe(1);
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
    await page.screenshot({ path: join(tmpdir(), "widget-rating-reloaded.png") });

    // Dismissed: gone, the message box has focus, and a reload does not bring it back.
    await rating.getByRole("button", { name: "Not now" }).click();
    expect(await rating.count()).toBe(0);
    expect(await page.evaluate(() => document.querySelector("svc-agents-widget")?.shadowRoot?.activeElement?.id)).toBe("svc-input");
    expect(await reloadAndCountRatingChecks(page)).toBe(0);
    expect(await rating.count()).toBe(0);
    const [unrated] = await app.deps.db.select().from(tickets).where(eq(tickets.id, ticket!.id));
    expect(unrated!.csatScore).toBeNull();
    expect(errors).toEqual([]);
    await context.close();
  },
  TIMEOUT,
);
