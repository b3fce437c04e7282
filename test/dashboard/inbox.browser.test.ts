// The inbox pages in a real headless Chromium (Debian's chromium through playwright-core): each
// page loads under the dashboard CSP without console errors, axe-core finds no serious or
// critical violation, a reply and an internal note go through the forms with the keyboard-free
// default (no JavaScript needed), and screenshots go to docs/screenshots/ for the README.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { browserAvailable, browserMissingReason, launchBrowser, openWatched, SCREENSHOTS, seriousAxeViolations, signedInContext } from "../support/browser.ts";
import { serveTestApp, type ServedTestApp } from "../support/app.ts";
import { adminOf, type Member } from "./helpers.ts";
import { type InboxFixture, seedInbox } from "./seed.ts";
import { createSavedReply, type SavedReply } from "../../src/inbox/saved-replies.ts";
import { findTicket } from "../../src/inbox/tickets.ts";

const TIMEOUT = 60_000;
const missing = !browserAvailable();
if (missing) console.log(`inbox.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser | undefined;
let context: BrowserContext;
let admin: Member;
let fixture: InboxFixture;
let grace: InboxFixture;
let snippet: SavedReply;
const problems: string[] = [];

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  admin = await adminOf(app, "Acme Support");
  fixture = await seedInbox(app, admin.orgId, admin.agentId!, "Ada");
  grace = await seedInbox(app, admin.orgId, admin.agentId!, "Grace");
  snippet = await createSavedReply(app.deps, admin.orgId, {
    name: "Refund done",
    body: "Hi {{customer.name}}, ticket #{{ticket.number}} is refunded. {{agent.name}}",
  });
  browser = await launchBrowser();
  context = await signedInContext(browser, app.url, admin.cookie);
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  if (!missing) await app.close();
}, 60_000);

const open = (path: string, status = 200) => openWatched(context, path, problems, status);

describe.skipIf(missing)("inbox pages in Chromium", () => {
  test(
    "reply and internal note through the forms; the thread marks the note internal; an empty reply is a field error (keyboard only)",
    async () => {
      const page = await open(`/dashboard/inbox/${fixture.ticketNumber}`);
      await page.getByLabel("Reply", { exact: true }).fill("We have refunded order 42.");
      await Promise.all([page.waitForURL(`**/dashboard/inbox/${fixture.ticketNumber}`), page.getByRole("button", { name: "Send reply" }).click()]);
      expect(await page.getByRole("status").textContent()).toBe("Reply sent.");
      await page.getByLabel("Note", { exact: true }).fill("Refund approved by finance.");
      await Promise.all([page.waitForURL(`**/dashboard/inbox/${fixture.ticketNumber}`), page.getByRole("button", { name: "Add note" }).click()]);
      const note = page.getByRole("article", { name: /^Internal note by / });
      expect(await note.textContent()).toContain("Refund approved by finance.");
      expect(await note.textContent()).toContain("not visible to the customer");
      // An empty reply: answered again with the error next to the field, by keyboard alone.
      await page.getByLabel("Reply", { exact: true }).focus();
      await page.keyboard.type("   ");
      await page.keyboard.press("Tab");
      await Promise.all([page.waitForLoadState("load"), page.keyboard.press("Enter")]);
      await page.waitForSelector("#f-reply-error");
      expect(await page.locator("#f-reply-error").textContent()).toBe("Write something first.");
      expect(await page.getByLabel("Reply", { exact: true }).getAttribute("aria-invalid")).toBe("true");
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, "dashboard-inbox-field-error.png"), fullPage: true });
      await page.close();
      // Chromium logs the expected 400 answer as a console error; nothing else may have been logged.
      expect(problems.filter((p) => !p.includes("status of 400"))).toEqual([]);
      problems.length = 0;
    },
    TIMEOUT,
  );

  test(
    "a saved reply is inserted with its variables filled (the / shortcut, then the choice) and sent with Send and resolve, which resolves the ticket",
    async () => {
      const page = await open(`/dashboard/inbox/${grace.ticketNumber}`);
      expect(await page.locator("[data-insert-saved]").count()).toBe(0); // the script inserts on choice
      const reply = page.getByLabel("Reply", { exact: true });
      await reply.focus();
      await page.keyboard.press("/");
      expect(await page.evaluate(() => document.activeElement?.getAttribute("name"))).toBe("saved_reply");
      expect(await reply.inputValue()).toBe(""); // the / itself is not typed
      await page.getByLabel("Saved reply").selectOption(snippet.id);
      // A member without a display name signs as the widget shows them: "Support team", never their email.
      expect(await reply.inputValue()).toBe(`Hi Grace <Lovelace>, ticket #${grace.ticketNumber} is refunded. Support team`);
      // The page posts to its own address and comes back to it: wait for the post's answer and the new page
      // (waiting for the URL alone would end at once, the address being the same).
      const posted = page.waitForResponse((r) => r.request().method() === "POST" && r.url().includes(`/dashboard/inbox/${grace.ticketNumber}`));
      await page.getByRole("button", { name: "Send and resolve" }).click();
      await posted;
      await page.waitForLoadState("load");
      expect(await page.getByRole("status").textContent()).toBe("Reply sent; ticket resolved.");
      expect(
        await page
          .getByRole("article", { name: /^Team by / })
          .last()
          .textContent(),
      ).toContain(`ticket #${grace.ticketNumber} is refunded.`);
      expect((await findTicket(app.deps, admin.orgId, grace.ticketId))!.status).toBe("resolved");
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    },
    TIMEOUT,
  );

  const pages: [string, () => string, string][] = [
    ["saved replies (Settings)", () => "/dashboard/settings/saved-replies", "dashboard-saved-replies.png"],
    ["one saved reply", () => `/dashboard/settings/saved-replies/${snippet.id}`, "dashboard-saved-reply.png"],
    ["the inbox search over tickets and conversations", () => "/dashboard/inbox?q=refund", "dashboard-inbox-search.png"],
    ["ticket list", () => "/dashboard/inbox", "dashboard-inbox.png"],
    ["a ticket with its thread", () => `/dashboard/inbox/${fixture.ticketNumber}`, "dashboard-inbox-ticket.png"],
    ["conversation list", () => "/dashboard/conversations", "dashboard-conversations.png"],
    ["a conversation", () => `/dashboard/conversations/${fixture.conversationId}`, "dashboard-conversation.png"],
    ["customer list", () => "/dashboard/customers", "dashboard-customers.png"],
    ["a customer", () => `/dashboard/customers/${fixture.customerId}`, "dashboard-customer.png"],
    ["company list", () => "/dashboard/companies", "dashboard-customers-companies.png"],
    ["a company", () => "/dashboard/companies/co-Ada", "dashboard-customer-company.png"],
  ];
  test(
    "dark mode: no serious or critical axe violation on any of these pages",
    async () => {
      const dark = await signedInContext(browser!, app.url, admin.cookie, "dark");
      try {
        for (const [label, path] of pages) {
          const page = await dark.newPage();
          expect((await page.goto(path()))?.status(), label).toBe(200);
          expect(await seriousAxeViolations(page), label).toEqual([]);
          if (path() === `/dashboard/inbox/${fixture.ticketNumber}`)
            await page.screenshot({ path: join(SCREENSHOTS, "dashboard-inbox-ticket-dark.png"), fullPage: true });
          if (path() === "/dashboard/inbox") await page.screenshot({ path: join(SCREENSHOTS, "dashboard-inbox-dark.png"), fullPage: true });
          if (path() === "/dashboard/settings/saved-replies")
            await page.screenshot({ path: join(SCREENSHOTS, "dashboard-saved-replies-dark.png"), fullPage: true });
          await page.close();
        }
      } finally {
        await dark.close();
      }
    },
    TIMEOUT * 2,
  );

  for (const [name, path, shot] of pages) {
    test(
      `${name}: no serious or critical axe violation, no console error; screenshot`,
      async () => {
        const page = await open(path());
        expect(await seriousAxeViolations(page)).toEqual([]);
        await page.screenshot({ path: join(SCREENSHOTS, shot), fullPage: true });
        expect(problems).toEqual([]);
        await page.close();
      },
      TIMEOUT,
    );
  }
});
