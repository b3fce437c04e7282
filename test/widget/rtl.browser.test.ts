// Arabic in a real headless Chromium (README "Languages"): the widget's host says dir="rtl" and
// lang="ar", and the whole widget is mirrored — launcher and panel in the bottom-left corner where
// an English widget has them bottom-right, the close button on the header's left, the customer's
// bubbles on the left and the assistant's on the right, the chat icon flipped — its words are the
// Arabic catalogue's with no English sentence left, and axe-core finds no serious or critical
// violation in light and dark. identify()'s locale switches every label at once and wins over the
// snippet's; a queued identify() is read before the first config request; each chat message
// carries the widget's language. Screenshots go to docs/screenshots/. Skipped when chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { CATALOGUES, WIDGET_KEYS } from "../../src/i18n/catalogue.ts";
import { createDoc } from "../../src/knowledge/docs.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser, SCREENSHOTS, seriousAxeViolations } from "../support/browser.ts";
import { englishLeft, widgetWords } from "../support/widget-words.ts";

const TIMEOUT = 180_000;
const missing = !browserAvailable();
if (missing) console.log(`rtl.browser.test.ts: ${browserMissingReason()}`);
const ar = CATALOGUES.ar!;
const en = CATALOGUES.en!;
const VIEWPORT = { width: 1000, height: 760 };

let app: ServedTestApp;
let browser: Browser | undefined;
let site: ReturnType<typeof Bun.serve> | undefined;

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  const org = await seedOrg(app, { name: "Shop" });
  await createDoc(app.deps, org.org_id, {
    title: "إعادة تعيين كلمة المرور",
    url: "https://help.shop.example/ar/reset-password",
    body: "لإعادة تعيين كلمة المرور، افتح صفحة تسجيل الدخول واختر «نسيت كلمة المرور». نرسل إليك رابطًا لإعادة التعيين صالحًا لمدة 60 دقيقة.",
  });
  // The snippet's data-locale from the query: ?locale=ar, ?locale=en.
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const query = new URL(request.url).searchParams;
      const locale = query.get("locale") ?? "en";
      // ?queued=ja: the snippet's stub queues identify() with that locale before the script has loaded.
      const queued = query.get("queued");
      const stub = queued
        ? `<script>window.SvcAgents=window.SvcAgents||function(){(SvcAgents.q=SvcAgents.q||[]).push(arguments)};SvcAgents("identify",{user_id:"queued-1",locale:"${queued}"})</script>`
        : "";
      const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title><link rel="icon" href="data:,">${stub}
<script src="${app.url}/widget.js" data-key="${org.widget_key}" data-org="${org.org_id}" data-locale="${locale}" async></script></head><body><main><h1>Shop</h1></main></body></html>`;
      return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  browser = await launchBrowser();
}, TIMEOUT);
afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  if (app) await app.close();
});

const box = async (l: Locator) => (await l.boundingBox())!;
const settled = (page: Page) =>
  page.evaluate(() =>
    Promise.all(
      document
        .querySelector("svc-agents-widget")
        ?.shadowRoot?.getAnimations()
        .map((a) => a.finished) ?? [],
    ),
  );

async function open(locale: string, openChat: string) {
  const context = await browser!.newContext({ viewport: VIEWPORT });
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${site!.port}/?locale=${locale}`);
  await page.getByRole("button", { name: openChat, exact: true }).click();
  await page.getByRole("dialog").waitFor();
  await settled(page);
  return { context, page, errors };
}

test.skipIf(missing)(
  "Arabic: dir=rtl and lang=ar on the widget, the panel mirrored against English, Arabic words only, axe-clean in light and dark",
  async () => {
    // English first: the reference corner, bottom right.
    const english = await open("en", en["widget.open_chat"]);
    const ltrPanel = await box(english.page.getByRole("dialog"));
    const ltrLauncher = await box(english.page.locator(".launcher"));
    expect(ltrPanel.x + ltrPanel.width).toBeGreaterThan(VIEWPORT.width - 40);
    expect(ltrLauncher.x).toBeGreaterThan(VIEWPORT.width / 2);
    expect(await english.page.locator("svc-agents-widget").getAttribute("dir")).toBe("ltr");
    await english.context.close();

    const { context, page, errors } = await open("ar", ar["widget.open_chat"]);
    const host = page.locator("svc-agents-widget");
    expect(await host.getAttribute("dir")).toBe("rtl");
    expect(await host.getAttribute("lang")).toBe("ar");
    const panel = page.getByRole("dialog");
    expect(await panel.evaluate((el) => getComputedStyle(el).direction)).toBe("rtl");
    // Mirrored: the panel and the launcher hug the left edge, as far from it as the English ones are from the right.
    const rtlPanel = await box(panel);
    const launcher = page.locator(".launcher");
    const rtlLauncher = await box(launcher);
    expect(rtlPanel.x).toBeCloseTo(VIEWPORT.width - (ltrPanel.x + ltrPanel.width), 0);
    expect(rtlLauncher.x).toBeCloseTo(VIEWPORT.width - (ltrLauncher.x + ltrLauncher.width), 0);
    expect(rtlPanel.width).toBeCloseTo(ltrPanel.width, 0);
    expect(await launcher.getAttribute("aria-label")).toBe(ar["widget.close_chat"]);
    // The chat icon points the other way.
    await launcher.click();
    await page.getByRole("button", { name: ar["widget.open_chat"], exact: true }).waitFor();
    expect(await launcher.locator("svg").evaluate((el) => getComputedStyle(el).transform)).toBe("matrix(-1, 0, 0, 1, 0, 0)");
    await launcher.click();
    await settled(page);
    // The header: the close button on the left of the title.
    const close = await box(panel.getByRole("button", { name: ar["widget.close_chat"] }));
    const title = await box(panel.locator("#svc-title"));
    expect(close.x + close.width).toBeLessThanOrEqual(title.x);

    // A question: the customer's bubble on the left, the assistant's on the right.
    const input = page.getByLabel(ar["widget.your_message"]);
    expect(await input.getAttribute("placeholder")).toBe(ar["widget.placeholder"]);
    await input.fill("كيف أعيد تعيين كلمة المرور؟");
    await input.press("Enter");
    const answer = page.locator(".msg.agent").first();
    await answer.waitFor();
    await page.waitForFunction(() => document.querySelector("svc-agents-widget")?.shadowRoot?.querySelector(".log")?.getAttribute("aria-busy") === "false");
    const [mine, theirs, log] = [await box(page.locator(".msg.user").first()), await box(answer), await box(page.getByRole("log"))];
    expect(mine.x).toBeLessThan(theirs.x);
    expect(mine.x - log.x).toBeLessThan(24);
    expect(log.x + log.width - (theirs.x + theirs.width)).toBeLessThan(24);
    expect(await page.getByRole("button", { name: ar["widget.send"], exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: ar["widget.live_help"], exact: true }).isVisible()).toBe(true);

    // Only Arabic: no English widget sentence anywhere a customer reads or hears.
    expect(englishLeft(await widgetWords(page), "ar", WIDGET_KEYS)).toEqual([]);

    await settled(page);
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, "widget-rtl-arabic.png") });
    await page.emulateMedia({ colorScheme: "dark" });
    await settled(page);
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, "widget-rtl-arabic-dark.png") });
    expect(errors).toEqual([]);
    await context.close();
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "identify({locale}) switches the widget at once, is not sent as a customer field, and chat messages carry the language; a queued one is the first config's",
  async () => {
    const context = await browser!.newContext({ viewport: VIEWPORT });
    context.setDefaultTimeout(20_000);
    const page = await context.newPage();
    const configs: string[] = [];
    const bodies: Record<string, Record<string, unknown>[]> = { identify: [], chat: [] };
    page.on("request", (r) => {
      if (r.url().includes("/api/sdk/config")) configs.push(new URL(r.url()).searchParams.get("locale") ?? "");
      if (r.url().endsWith("/api/sdk/users/identify")) bodies.identify!.push(JSON.parse(r.postData() ?? "{}"));
      if (r.url().endsWith("/api/sdk/chat/stream")) bodies.chat!.push(JSON.parse(r.postData() ?? "{}"));
    });
    await page.goto(`http://127.0.0.1:${site!.port}/?locale=en`);
    await page.getByRole("button", { name: en["widget.open_chat"], exact: true }).waitFor();
    const identified = page.waitForResponse((r) => r.url().endsWith("/api/sdk/users/identify"));
    await page.evaluate(() =>
      (window as unknown as { SvcAgents: (m: string, u: unknown) => unknown }).SvcAgents("identify", { user_id: "ar-1", locale: "ar" }),
    );
    expect((await identified).status()).toBe(200);
    expect(bodies.identify![0]).toEqual({ user_id: "ar-1" });
    await page.getByRole("button", { name: ar["widget.open_chat"], exact: true }).click();
    expect(await page.locator("svc-agents-widget").getAttribute("dir")).toBe("rtl");
    expect(await page.getByLabel(ar["widget.your_message"]).getAttribute("placeholder")).toBe(ar["widget.placeholder"]);
    expect(englishLeft(await widgetWords(page), "ar", WIDGET_KEYS)).toEqual([]);
    await page.getByLabel(ar["widget.your_message"]).fill("مرحبا");
    await page.getByLabel(ar["widget.your_message"]).press("Enter");
    await page.locator(".msg.agent").first().waitFor();
    expect(bodies.chat!.map((b) => b.locale)).toEqual(["ar"]);
    expect(configs).toEqual(["en", "ar"]);
    await context.close();

    // Queued before the script loaded: the first (and only) config asks for it.
    const queued = await browser!.newContext({ viewport: VIEWPORT });
    queued.setDefaultTimeout(20_000);
    const second = await queued.newPage();
    const asked: string[] = [];
    second.on("request", (r) => r.url().includes("/api/sdk/config") && asked.push(new URL(r.url()).searchParams.get("locale") ?? ""));
    await second.goto(`http://127.0.0.1:${site!.port}/?locale=en&queued=ja`);
    await second.getByRole("button", { name: CATALOGUES.ja!["widget.open_chat"], exact: true }).waitFor();
    expect(await second.locator("svc-agents-widget").getAttribute("lang")).toBe("ja");
    expect(asked).toEqual(["ja"]);
    await queued.close();
  },
  TIMEOUT,
);
