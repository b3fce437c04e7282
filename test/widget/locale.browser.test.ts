// A conversation in Spanish and one in Japanese, through the widget in a real headless Chromium and
// the email a real loopback SMTP server receives (README "Languages"): a question the knowledge
// base answers, one it cannot, "talk to a person", the waiting line, the email left at hand-off, a
// member's reply in the widget and another by email once the customer has left, and the rating —
// in the widget (when the widget's locale is set by the snippet's data-locale, the browser being
// English) or from the resolution email's link (when only the browser's language says it). Every
// sentence the product writes is asserted from the catalogue (src/i18n/) and no English catalogue
// sentence may appear. Screenshots go to docs/screenshots/. Skipped when Debian's chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { simpleParser } from "mailparser";
import type { Browser, Page } from "playwright-core";
import { createSender } from "../../src/compose.ts";
import { type MessageKey, MESSAGE_KEYS, type Params, t } from "../../src/i18n/catalogue.ts";
import { REPLY_SEEN_GRACE_MS } from "../../src/inbox/reply-mail.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { seedOrg, serveTestApp, signIn, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser, SCREENSHOTS } from "../support/browser.ts";
import { emailEnv } from "../support/email.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { englishLeft, widgetWords } from "../support/widget-words.ts";

const TIMEOUT = 240_000;
const missing = !browserAvailable();
if (missing) console.log(`locale.browser.test.ts: ${browserMissingReason()}`);

/** What each customer asks and what the help centre holds, in their language; the product's own sentences come from the catalogue. */
const CASES = {
  es: {
    doc: {
      title: "Restablecer la contraseña",
      url: "https://help.shop.example/es/restablecer-contrasena",
      body: "Para restablecer tu contraseña, abre la página de inicio de sesión y elige «¿Olvidaste tu contraseña?». Te enviamos un enlace de restablecimiento que funciona durante 60 minutos.",
    },
    question: "¿Cómo restablezco mi contraseña?",
    answered: "enlace de restablecimiento",
    unknown: "¿Cuál es la capital de Mongolia?",
    replies: ["Hola, soy Dana: miro tu cuenta ahora mismo.", "Listo: tu cuenta ya está desbloqueada."],
  },
  ja: {
    doc: {
      title: "パスワードのリセット",
      url: "https://help.shop.example/ja/reset-password",
      body: "パスワードをリセットするには、サインインページを開いて「パスワードをお忘れですか」を選んでください。60分間有効なリセット用のリンクをメールでお送りします。",
    },
    question: "パスワードをリセットするにはどうすればいいですか？",
    answered: "リセット用のリンク",
    unknown: "モンゴルの首都はどこですか？",
    replies: ["こんにちは、ダナです。アカウントを確認します。", "完了しました。アカウントのロックを解除しました。"],
  },
} as const;
type Language = keyof typeof CASES;

let smtp: TestSmtp;
let app: ServedTestApp;
let sender: Sender;
let org: Awaited<ReturnType<typeof seedOrg>>;
let auth: Record<string, string>;
let browser: Browser | undefined;
let site: ReturnType<typeof Bun.serve> | undefined;

beforeAll(async () => {
  if (missing) return;
  smtp = await startSmtp();
  app = await serveTestApp(emailEnv(smtp.url));
  org = await seedOrg(app, { name: "Shop" });
  for (const c of Object.values(CASES)) await createDoc(app.deps, org.org_id, c.doc);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
  // CSAT on, with no question of the org's own: the catalogue's is asked.
  expect((await app.request("/api/widget/csat", { method: "PUT", json: { csat_enabled: true }, headers: auth })).status).toBe(200);
  sender = createSender(app.deps);
  // The page: ?locale=xx puts data-locale on the snippet; without it only the browser's language tells.
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const locale = new URL(request.url).searchParams.get("locale");
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">
<script src="${app.url}/widget.js" data-key="${org.widget_key}" data-org="${org.org_id}"${locale ? ` data-locale="${locale}"` : ""} async></script></head><body><main><h1>Shop</h1></main></body></html>`;
      return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  browser = await launchBrowser();
}, TIMEOUT);
afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  await sender?.stop();
  if (app) await app.close();
  await smtp?.close();
});

const busy = (page: Page) =>
  page.waitForFunction(() => document.querySelector("svc-agents-widget")?.shadowRoot?.querySelector(".log")?.getAttribute("aria-busy") === "false");
const commonPrefix = (a: string, b: string) => {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return a.slice(0, i);
};
const keysOf = (...prefixes: string[]) => MESSAGE_KEYS.filter((k) => prefixes.some((p) => k.startsWith(p)));

async function newestTicket(): Promise<{ id: string; number: number }> {
  const list = (await (await app.request("/api/tickets", { headers: auth })).json()) as { tickets: { id: string; number: number }[] };
  return list.tickets[0]!;
}
const reply = async (ticketId: string, body: string) =>
  expect((await app.request(`/api/tickets/${ticketId}/replies`, { headers: auth, json: { body } })).status).toBe(201);

for (const language of ["es", "ja"] as const)
  for (const how of ["snippet", "browser"] as const)
    test.skipIf(missing)(
      `${language}, the widget's locale from the ${how === "snippet" ? "snippet (an English browser)" : "browser's language alone"}: every sentence in ${language}, widget and email`,
      () => conversation(language, how),
      TIMEOUT,
    );

async function conversation(language: Language, how: "snippet" | "browser") {
  const c = CASES[language];
  const T = (key: MessageKey, params?: Params) => t(language, key, params);
  const email = `${language}-${how}@customer.example`;
  const context = await browser!.newContext({ viewport: { width: 1000, height: 900 }, locale: how === "browser" ? language : "en-US" });
  context.setDefaultTimeout(20_000);
  const url = `http://127.0.0.1:${site!.port}/${how === "snippet" ? `?locale=${language}` : ""}`;
  let page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  await page.getByRole("button", { name: T("widget.open_chat"), exact: true }).click();
  expect(await page.locator("svc-agents-widget").getAttribute("lang")).toBe(language);
  expect(await page.getByText(T("widget.greeting")).isVisible()).toBe(true);
  const ask = async (question: string) => {
    const before = await page.locator(".msg.agent").count();
    await page.getByLabel(T("widget.your_message")).fill(question);
    await page.getByRole("button", { name: T("widget.send"), exact: true }).click();
    await page.locator(".msg.agent").nth(before).waitFor();
    await busy(page);
    return (await page.locator(".msg.agent").nth(before).locator(".text").textContent()) ?? "";
  };
  const noEnglish = async (keys: readonly MessageKey[] = MESSAGE_KEYS) => expect(englishLeft(await widgetWords(page), language, keys)).toEqual([]);

  // A question the help centre answers, from the page in the customer's language.
  expect(await ask(c.question)).toContain(c.answered);
  await page
    .getByRole("group", { name: T("widget.did_it_help") })
    .last()
    .waitFor();
  // One it cannot: the assistant says so, in the customer's language.
  const noAnswer = await ask(c.unknown);
  expect(noAnswer.startsWith(commonPrefix(T("agent.no_answer"), T("agent.no_answer_near", { title: "\u0000" })))).toBe(true);
  await noEnglish();

  // "Talk to a person": a ticket, the hand-off said, the waiting line.
  await page.getByRole("button", { name: T("widget.live_help"), exact: true }).click();
  await page.locator(".waiting").waitFor({ state: "visible" });
  await busy(page);
  const ticket = await newestTicket();
  const handoff = (await page.locator(".msg.agent").last().locator(".text").textContent()) ?? "";
  expect(handoff).toContain(T("agent.handoff_asked", { number: ticket.number }));
  expect(handoff).toContain(T("agent.handoff_soon"));
  expect(await page.locator(".waiting").textContent()).toBe(`${T("widget.waiting", { number: ticket.number })} ${T("widget.waiting_here")}`);
  // The address left for the answer.
  await page.getByLabel(T("widget.contact_label")).fill(email);
  await page.getByRole("button", { name: T("widget.contact_save"), exact: true }).click();
  await page.getByText(T("widget.contact_thanks", { email })).waitFor();
  expect(await page.locator(".waiting").textContent()).toBe(`${T("widget.waiting", { number: ticket.number })} ${T("widget.waiting_email")}`);

  // A member's reply, live in the widget.
  await reply(ticket.id, c.replies[0]);
  await page.locator(".msg.person").filter({ hasText: c.replies[0] }).waitFor();
  await noEnglish();
  await page.screenshot({ path: join(SCREENSHOTS, `widget-${language}-${how}.png`) });

  // The customer leaves; the next reply goes by email, in their language.
  await page.close();
  // Gone once the service has seen its event stream end (a reply handed to a still-open stream counts as seen in the widget, and is not emailed).
  while (app.deps.live.open > 0) await Bun.sleep(20);
  await reply(ticket.id, c.replies[1]);
  app.clock.advance(REPLY_SEEN_GRACE_MS);
  await sender.tick();
  const replyMail = smtp.received.find((m) => m.to.includes(email) && m.parts.get("text/plain")?.includes(c.replies[1]));
  expect(replyMail).toBeDefined();
  const replyText = `${(await simpleParser(replyMail!.raw)).subject}\n${replyMail!.parts.get("text/plain")}`;
  expect(replyText).toContain(T("mail.reply_footer", { number: ticket.number }));
  expect(englishLeft(replyText, language, keysOf("mail.", "rating.", "agent."))).toEqual([]);

  // The ticket resolved: the rating, in the widget or from the email.
  page = await context.newPage();
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(url);
  // The panel was open when the customer left: a reload opens it again.
  await page
    .getByRole("button", { name: T("widget.close_chat"), exact: true })
    .first()
    .waitFor();
  await page.locator(".msg.person").filter({ hasText: c.replies[1] }).waitFor();
  expect((await app.request(`/api/tickets/${ticket.id}`, { method: "PATCH", headers: auth, json: { status: "resolved" } })).status).toBe(200);
  await page.getByText(T("widget.ticket_done", { status: "resolved", number: ticket.number })).waitFor();
  const rating = page.getByRole("form", { name: T("widget.rate_ticket", { number: ticket.number }) });
  await rating.waitFor();
  expect(await rating.locator("legend").textContent()).toBe(T("rating.question"));
  if (how === "snippet") {
    await rating.locator("label").nth(4).click();
    await rating.getByRole("button", { name: T("widget.rating_send"), exact: true }).click();
    await page.getByText(T("widget.rating_thanks")).waitFor();
    await noEnglish();
    await page.screenshot({ path: join(SCREENSHOTS, `widget-${language}-rated.png`) });
  } else {
    await rating.getByRole("button", { name: T("widget.rating_later"), exact: true }).click();
    await noEnglish();
    await page.close();
    app.clock.advance(REPLY_SEEN_GRACE_MS);
    await sender.tick();
    const mail = smtp.received.find((m) => m.to.includes(email) && m !== replyMail);
    expect(mail).toBeDefined();
    // The subject decoded from its RFC 2047 encoded words.
    const text = `${(await simpleParser(mail!.raw)).subject}\n${mail!.parts.get("text/plain")}`;
    expect(text).toContain(T("mail.resolution_subject", { number: ticket.number }));
    expect(text).toContain(T("rating.question"));
    for (const n of [1, 2, 3, 4, 5] as const) expect(text).toContain(T(`rating.score_${n}`));
    expect(englishLeft(text, language, keysOf("mail.", "rating.", "agent."))).toEqual([]);
    // The link's page, and the thanks, in the customer's language.
    const link = text.match(/(http\S+\/r\/[A-Za-z0-9_-]+)\?score=5/)![1]!;
    const path = new URL(link).pathname;
    const ask = await (await app.request(`${path}?score=5`)).text();
    expect(ask).toContain(T("rating.heading", { number: ticket.number }));
    expect(englishLeft(ask, language, keysOf("rating."))).toEqual([]);
    const thanks = await (await app.request(path, { method: "POST", form: { score: "5" } })).text();
    expect(thanks).toContain(T("rating.thanks_title"));
    expect(englishLeft(thanks, language, keysOf("rating."))).toEqual([]);
  }
  expect(errors).toEqual([]);
  await context.close();
}
