// Translation in a real headless Chromium (Debian's chromium through playwright-core), against a
// loopback DeepL: the ticket page shows a Spanish customer's message in English with the original
// one click away, the reply goes out in Spanish through the form with what the member wrote kept
// beside it, and the account and Settings → Translation pages work — each axe-clean, with no
// console error, photographed into docs/screenshots/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext } from "playwright-core";
import { createTicket } from "../../src/inbox/tickets.ts";
import { setTranslation } from "../../src/translation/settings.ts";
import { serveTestApp, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, checkDashboardPage, launchBrowser, openWatched, SCREENSHOTS, signedInContext } from "../support/browser.ts";
import { adminOf, type Member } from "../dashboard/helpers.ts";
import { seedCustomer } from "../inbox/helpers.ts";
import { fakeDeepl, type FakeTranslator } from "./fakes.ts";

const TIMEOUT = 60_000;
const missing = !browserAvailable();
if (missing) console.log(`ticket.browser.test.ts: ${browserMissingReason()}`);

const SPANISH = "Hola, me cobraron dos veces la factura de marzo y necesito que me devuelvan el dinero.";
const ENGLISH = "Hello, I was charged twice for the March invoice and I need my money back.";

let app: ServedTestApp;
let fake: FakeTranslator;
let browser: Browser | undefined;
let context: BrowserContext;
let admin: Member;
let ticketNumber: number;
const problems: string[] = [];

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp({ NODE_ENV: "development" });
  fake = await fakeDeepl();
  admin = await adminOf(app, "Acme Support");
  const [adminMember] = (await app.deps.db.query.members.findMany({ where: (m, { eq }) => eq(m.email, admin.email) })) as { id: string }[];
  await setTranslation(app.deps, admin.orgId, { kind: "member", memberId: adminMember!.id }, { provider: "deepl", base_url: fake.baseUrl, api_key: fake.key });
  const customer = await seedCustomer(app, admin.orgId, { name: "Lucía Fernández", email: "lucia@cliente.example" });
  const ticket = await createTicket(app.deps, {
    orgId: admin.orgId,
    actor: { kind: "customer", endUserId: customer.id },
    input: { subject: "Factura de marzo", message: SPANISH, customerId: customer.id, source: "widget" },
  });
  ticketNumber = ticket.number;
  browser = await launchBrowser();
  context = await signedInContext(browser, app.url, admin.cookie);
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  if (!missing) {
    await fake.close();
    await app.close();
  }
}, 60_000);

describe.skipIf(missing)("translation in Chromium", () => {
  test(
    "the Spanish message in English, the original one click away; the reply sent in Spanish, the original kept",
    async () => {
      fake.next(ENGLISH);
      const page = await openWatched(context, `/dashboard/inbox/${ticketNumber}`, problems);
      const turn = page.getByRole("article", { name: /^Customer by Lucía/ });
      expect(await turn.locator('.turn-text[lang="en"]').textContent()).toBe(ENGLISH);
      const original = turn.locator("details.original");
      expect(await original.locator('.turn-text[lang="es"]').isVisible()).toBe(false);
      await original.locator("summary").click();
      expect(await original.locator('.turn-text[lang="es"]').textContent()).toBe(SPANISH);
      const option = page.getByLabel("Send in the customer's language (Spanish)");
      expect(await option.isChecked()).toBe(true);
      await checkDashboardPage(page, "ticket-translated", true);

      fake.next("Su reembolso está en camino.");
      await page.getByLabel("Reply", { exact: true }).fill("Your refund is on its way.");
      await Promise.all([page.waitForURL(`**/dashboard/inbox/${ticketNumber}`), page.getByRole("button", { name: "Send reply" }).click()]);
      expect(await page.getByRole("status").first().textContent()).toBe("Reply sent.");
      const reply = page.getByRole("article", { name: /^Team by / });
      expect(await reply.locator('.turn-text[lang="en"]').textContent()).toBe("Your refund is on its way.");
      await reply.locator("details.original summary").click();
      expect(await reply.locator('.turn-text[lang="es"]').textContent()).toBe("Su reembolso está en camino.");
      await checkDashboardPage(page, "ticket-translated-reply", true);
      expect(fake.requests).toHaveLength(2); // the second view read the stored translation
      expect(problems).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "the account's language and Settings → Translation",
    async () => {
      const account = await openWatched(context, "/dashboard/account", problems);
      await account.getByLabel("Language you read").selectOption("de");
      await Promise.all([account.waitForURL("**/dashboard/account"), account.getByRole("button", { name: "Save profile" }).click()]);
      expect(await account.getByLabel("Language you read").inputValue()).toBe("de");
      await checkDashboardPage(account, "account-language");
      const settings = await openWatched(context, "/dashboard/settings/translation", problems);
      expect(await settings.getByLabel("Translator").inputValue()).toBe("deepl");
      expect(await settings.getByText("A key is stored (never shown)").count()).toBe(1);
      expect(await settings.content()).not.toContain(fake.key);
      await checkDashboardPage(settings, "settings-translation", true);
      await settings.screenshot({ path: join(SCREENSHOTS, "dashboard-settings-translation.png"), fullPage: true });
      expect(problems).toEqual([]);
    },
    TIMEOUT,
  );
});
