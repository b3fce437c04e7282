// "Join conversation" in a real headless Chromium, two pages at once: a member on the dashboard and
// a customer in the widget on /demo. The customer chats with the AI; the member sees them on the
// site, joins; the customer sees who joined, the member typing and the member's reply; the member
// sees the customer typing and their reply arrive without a reload; the AI says nothing after the
// join. Screenshots go to docs/screenshots/. Skipped when Debian's chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, desc, eq } from "drizzle-orm";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { createSession } from "../../src/auth/sessions.ts";
import { conversationMessages, conversations, members } from "../../src/db/schema/index.ts";
import { type DemoInfo, ensureDemo } from "../../src/orgs/demo.ts";
import { serveTestApp, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser, SCREENSHOTS, seriousAxeViolations, signedInContext } from "../support/browser.ts";

const TIMEOUT = 120_000;
const missing = !browserAvailable();
if (missing) console.log(`join.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let demo: DemoInfo;
let browser: Browser | undefined;
let cookie: string;

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  demo = (await ensureDemo(app.deps))!;
  const [member] = await app.deps.db.update(members).set({ name: "Sam Rivera" }).where(eq(members.email, demo.email)).returning();
  cookie = `svc_session=${(await createSession(app.deps, member!.id)).token}`;
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  await browser?.close();
  if (app) await app.close();
});

const watch = (page: Page, errors: string[]) => page.on("pageerror", (e) => errors.push(String(e)));

test.skipIf(missing)(
  "a member joins an AI conversation: join, typing and messages both ways, live; the AI stays quiet",
  async () => {
    const errors: string[] = [];
    // The customer chats with the AI.
    const customerContext = await browser!.newContext({ viewport: { width: 900, height: 760 } });
    customerContext.setDefaultTimeout(20_000);
    const customer = await customerContext.newPage();
    watch(customer, errors);
    await customer.goto(`${app.url}/demo`);
    await customer.getByRole("button", { name: "Open chat" }).click();
    await customer.getByLabel("Your message").fill("How do I reset my password?");
    await customer.getByLabel("Your message").press("Enter");
    await customer.locator(".msg.agent", { hasText: "password" }).waitFor();
    const agentAnswers = await customer.locator(".msg.agent").count();
    const [conversation] = await app.deps.db
      .select()
      .from(conversations)
      .where(eq(conversations.orgId, demo.orgId))
      .orderBy(desc(conversations.createdAt))
      .limit(1);

    // The member opens the conversation: the customer is on the site now.
    const memberContext = await signedInContext(browser!, app.url, cookie);
    memberContext.setDefaultTimeout(20_000);
    const member = await memberContext.newPage();
    watch(member, errors);
    expect((await member.goto(`/dashboard/conversations/${conversation!.id}`))!.status()).toBe(200);
    await member.locator(".presence .badge", { hasText: "on the site now" }).waitFor();
    await member.screenshot({ path: join(SCREENSHOTS, "dashboard-conversation-join.png"), fullPage: true });
    expect(await seriousAxeViolations(member)).toEqual([]);

    // Join: the ticket page, and the widget says who joined. (The test clock moves between steps, so the thread reads in order.)
    app.clock.advance(60_000);
    await member.getByRole("button", { name: "Join conversation" }).click();
    await member.waitForURL(/\/dashboard\/inbox\/\d+$/);
    await customer.locator(".msg.note", { hasText: "Sam Rivera joined the conversation." }).waitFor();
    await member.locator(".presence .badge", { hasText: "on the site now" }).waitFor();

    // The member types: the widget shows it; then the reply arrives.
    app.clock.advance(60_000);
    await member.getByLabel("Reply", { exact: true }).fill("Hi, I'm Sam from support. Which step fails?");
    const typing = customer.locator(".typing");
    await typing.waitFor({ state: "visible" });
    expect(await typing.textContent()).toBe("Sam Rivera is typing…");
    await customer.screenshot({ path: join(SCREENSHOTS, "widget-member-typing.png") });
    await member.getByRole("button", { name: "Send reply" }).click();
    await customer.locator(".msg.person", { hasText: "Which step fails?" }).waitFor();
    await typing.waitFor({ state: "hidden" });

    // The customer types: the member's page shows it; their message arrives on the ticket page live.
    app.clock.advance(60_000);
    const marker = await member.evaluate(() => ((window as unknown as { marker: number }).marker = 7));
    await customer.getByLabel("Your message").fill("The reset email never arrives");
    const customerTyping = member.locator("[data-typing-of=customer]");
    await customerTyping.waitFor({ state: "visible" });
    await customer.screenshot({ path: join(SCREENSHOTS, "widget-member-joined.png") });
    await member.screenshot({ path: join(SCREENSHOTS, "dashboard-conversation-live-typing.png"), fullPage: true });
    expect(await seriousAxeViolations(member)).toEqual([]);
    await customer.getByLabel("Your message").press("Enter");
    await member.locator("#thread article", { hasText: "The reset email never arrives" }).waitFor();
    await customerTyping.waitFor({ state: "hidden" });
    expect(await member.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(marker); // no reload

    // The AI said nothing after the join: no new answer in the widget, an empty one in the transcript.
    await customer.locator(".status", { hasText: /Sent to ticket #\d+/ }).waitFor();
    expect(await customer.locator(".msg.agent").count()).toBe(agentAnswers);
    const [last] = await app.deps.db
      .select()
      .from(conversationMessages)
      .where(and(eq(conversationMessages.conversationId, conversation!.id), eq(conversationMessages.role, "agent")))
      .orderBy(desc(conversationMessages.createdAt))
      .limit(1);
    expect(last!.text).toBe("");
    await member.screenshot({ path: join(SCREENSHOTS, "dashboard-conversation-live.png"), fullPage: true });
    expect(errors).toEqual([]);
    await customerContext.close();
    await memberContext.close();
  },
  TIMEOUT,
);
