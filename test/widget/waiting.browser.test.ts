// The widget after an escalation the customer did not ask for, in a real headless Chromium: two
// low-confidence answers open a ticket; a "waiting for a person" line shows and the button that asks
// for a person is gone, the customer's next question is still answered by the assistant, and a
// member's reply reaches the widget and ends the waiting line. axe-core finds no serious or critical
// violation while it waits. Skipped when Debian's chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { createDoc } from "../../src/knowledge/docs.ts";
import { seedOrg, serveTestApp, signIn, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser, seriousAxeViolations } from "../support/browser.ts";

const TIMEOUT = 60_000;
const missing = !browserAvailable();
if (missing) console.log(`waiting.browser.test.ts: ${browserMissingReason()}`);

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
  "after an automatic escalation the assistant still answers, the waiting state shows and the person button is gone, until a member replies",
  async () => {
    const context = await browser!.newContext({ viewport: { width: 1000, height: 760 } });
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
      return page.locator(".msg.agent").nth(before).innerText();
    };
    const person = page.getByRole("button", { name: "Talk to a person" });
    const waiting = page.locator(".waiting");

    await ask("What is the airspeed of a swallow?");
    expect(await person.isVisible()).toBe(true);
    expect(await ask("What is the capital of Peru?")).toContain("I've opened ticket #");
    await waiting.waitFor({ state: "visible" });
    expect(await waiting.innerText()).toMatch(/^Waiting for a person \(ticket #\d+\)\. Our assistant keeps answering meanwhile\.$/);
    expect(await person.count()).toBe(0); // hidden: not in the accessibility tree

    expect(await ask("How do I reset my password?")).toContain("Forgot password");
    expect(await waiting.isVisible()).toBe(true);
    expect(await person.count()).toBe(0);
    await page.evaluate(() =>
      Promise.all(
        document
          .querySelector("svc-agents-widget")
          ?.shadowRoot?.getAnimations()
          .map((a) => a.finished) ?? [],
      ),
    );
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
    await page.screenshot({ path: join(tmpdir(), "widget-waiting.png") });

    // A member replies: it reaches the widget live, and the waiting line ends (the ticket is still open).
    const admin = await signIn(app, org.admin_email, org.password);
    const tickets = (await (await app.request("/api/tickets", { headers: { authorization: `Bearer ${admin}` } })).json()) as {
      tickets?: { id: string }[];
      data?: { id: string }[];
    };
    const ticketId = (tickets.tickets ?? tickets.data)![0]!.id;
    expect(
      (await app.request(`/api/tickets/${ticketId}/replies`, { headers: { authorization: `Bearer ${admin}` }, json: { body: "Hello, a person here." } }))
        .status,
    ).toBeLessThan(300);
    await page.locator(".msg.person").waitFor();
    await waiting.waitFor({ state: "hidden" });
    expect(await person.count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  },
  TIMEOUT,
);
