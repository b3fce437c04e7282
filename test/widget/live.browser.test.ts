// The live conversation in a real headless Chromium on /demo: "Talk to a person", then a member's
// reply through the inbox API appears in the open panel without a reload, with the person's name;
// a note never does; with the panel closed the launcher counts the unread reply (and its accessible
// name says so); a reload shows the replies; a reply written while the page was away arrives when
// it comes back; after the server cut the stream, the widget reconnects. Screenshots go to
// docs/screenshots/. Skipped when Debian's chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { stopLive } from "../../src/compose.ts";
import { members } from "../../src/db/schema/index.ts";
import { type DemoInfo, ensureDemo } from "../../src/orgs/demo.ts";
import { serveTestApp, signIn, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser, SCREENSHOTS } from "../support/browser.ts";

const TIMEOUT = 90_000;
const missing = !browserAvailable();
if (missing) console.log(`widget-ui live.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let demo: DemoInfo;
let browser: Browser | undefined;
let admin: string;

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  demo = (await ensureDemo(app.deps))!;
  await app.deps.db.update(members).set({ name: "Sam Rivera" }).where(eq(members.email, demo.email));
  admin = await signIn(app, demo.email, demo.password!);
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  await browser?.close();
  if (app) await app.close();
});

const asMember = (path: string, body: string) => app.request(path, { json: { body }, headers: { authorization: `Bearer ${admin}` } });
const visible = (page: Page, text: string) => page.locator(".msg.person", { hasText: text }).waitFor();

test.skipIf(missing)(
  "a person's reply appears live with their name, a note never; unread count on the closed launcher; reload, return and reconnect keep every reply",
  async () => {
    const context = await browser!.newContext({ viewport: { width: 1000, height: 760 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${app.url}/demo`);
    await page.getByRole("button", { name: "Open chat" }).click();
    await page.getByRole("button", { name: "Talk to a person" }).click();
    // Said once in the log (the assistant's reply), and held in the waiting line: no note repeats it.
    const waiting = page.locator(".waiting");
    await waiting.waitFor({ state: "visible" });
    expect(await waiting.textContent()).toMatch(/^Waiting for a person \(ticket #\d+\)\. They will answer here\.$/);
    expect(await page.locator(".msg.note", { hasText: "Ticket #" }).count()).toBe(0);
    const number = Number((await waiting.textContent())!.match(/ticket #(\d+)/)![1]);
    expect(await page.locator(".msg.agent").last().textContent()).toContain(`ticket #${number}`);
    const { tickets } = (await (await app.request(`/api/tickets?text=%23${number}`, { headers: { authorization: `Bearer ${admin}` } })).json()) as {
      tickets: { id: string }[];
    };
    const ticketId = tickets[0]!.id;

    // The panel is open: the reply shows at once, with the person's name; the note never.
    expect((await asMember(`/api/tickets/${ticketId}/notes`, "Internal: customer is on the legacy plan")).status).toBe(201);
    const sent = performance.now();
    expect((await asMember(`/api/tickets/${ticketId}/replies`, "Hi, I'm Sam. I can help with that.")).status).toBe(201);
    await visible(page, "I can help with that.");
    console.log(`reply visible in the open panel after ${Math.round(performance.now() - sent)} ms`);
    expect(await page.locator(".msg.person .author").first().textContent()).toBe("Sam Rivera");
    await page.getByLabel("Your message").blur();
    await page.screenshot({ path: join(SCREENSHOTS, "widget-live-reply.png") });

    // Closed: the launcher counts the reply, and says so to a screen reader.
    await page.getByRole("button", { name: "Close chat" }).first().click();
    expect((await asMember(`/api/tickets/${ticketId}/replies`, "Your refund is on its way.")).status).toBe(201);
    const launcher = page.getByRole("button", { name: "Open chat, 1 unread message" });
    await launcher.waitFor();
    expect(await page.locator(".badge").textContent()).toBe("1");
    await page.screenshot({ path: join(SCREENSHOTS, "widget-live-unread.png") });
    await launcher.click();
    await visible(page, "Your refund is on its way.");
    expect(await page.locator(".badge").isVisible()).toBe(false);

    // A reload shows the whole conversation, people's replies included.
    await page.reload();
    await page.getByRole("dialog").waitFor();
    expect(await page.locator(".msg.person").allTextContents()).toEqual([
      "Sam RiveraHi, I'm Sam. I can help with that.",
      "Sam RiveraYour refund is on its way.",
    ]);

    // A reply written while the page is away arrives when it comes back (Last-Event-ID).
    await page.close();
    expect((await asMember(`/api/tickets/${ticketId}/replies`, "Written while you were away.")).status).toBe(201);
    const back = await context.newPage();
    await back.goto(`${app.url}/demo`);
    await visible(back, "Written while you were away.");

    // The server ends every stream (as on shutdown): the widget reconnects and keeps receiving.
    await stopLive(app.deps);
    expect((await asMember(`/api/tickets/${ticketId}/replies`, "After the reconnect.")).status).toBe(201);
    await visible(back, "After the reconnect.");
    const all = await back.locator(".msg").allTextContents();
    expect(all.join("\n")).not.toContain("legacy plan");
    expect(all.filter((t) => t.includes("Written while you were away."))).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  },
  TIMEOUT,
);
