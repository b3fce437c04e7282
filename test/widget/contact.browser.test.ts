// The widget's email prompt at hand-off, in a real headless Chromium (README "Live conversation"):
// an anonymous visitor who asks for a person is offered an optional email field under the waiting
// line; an invalid address is refused in the widget (nothing sent), a valid one is stored on the
// ticket unverified, and the prompt does not come back after a reload; "Skip" hides it for that
// ticket; identify() afterwards gives the ticket its customer; an identified visitor is never
// asked. A person's reply shows their avatar (https, no Referer), or their initials when the
// picture fails. axe-core finds no serious or critical violation, light and dark; screenshots go
// to docs/screenshots/. Skipped when Debian's chromium is missing.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { seedOrg, serveTestApp, signIn, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser, SCREENSHOTS, seriousAxeViolations } from "../support/browser.ts";

const TIMEOUT = 120_000;
const missing = !browserAvailable();
if (missing) console.log(`contact.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let browser: Browser | undefined;
let site: ReturnType<typeof Bun.serve> | undefined;
let auth: Record<string, string>;

// A 2×2 PNG, served for the member's avatar.
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGNkaPjPwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==", "base64");

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  org = await seedOrg(app, { name: "Shop" });
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
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

type TicketJson = { id: string; number: number; customer: { email: string | null; external_id: string | null; verified: boolean } | null };
async function newestTicket(): Promise<TicketJson> {
  const list = (await (await app.request("/api/tickets", { headers: auth })).json()) as { tickets: { id: string }[] };
  return (await (await app.request(`/api/tickets/${list.tickets[0]!.id}`, { headers: auth })).json()) as TicketJson;
}

async function openWidget(page: Page) {
  await page.goto(`http://127.0.0.1:${site!.port}/`);
  await page.getByRole("button", { name: "Open chat" }).click();
}
async function askForPerson(page: Page) {
  await page.getByRole("button", { name: "Talk to a person" }).click();
  await page.locator(".waiting").waitFor({ state: "visible" });
  await page.waitForFunction(() => document.querySelector("svc-agents-widget")?.shadowRoot?.querySelector(".log")?.getAttribute("aria-busy") === "false");
}
const settled = (page: Page) =>
  page.evaluate(() =>
    Promise.all(
      document
        .querySelector("svc-agents-widget")
        ?.shadowRoot?.getAnimations()
        .map((a) => a.finished) ?? [],
    ),
  );

test.skipIf(missing)(
  "the prompt is shown at hand-off, refuses an invalid address, stores a valid one unverified, and is accessible in light and dark",
  async () => {
    const context = await browser!.newContext({ viewport: { width: 1000, height: 760 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const contactCalls: string[] = [];
    page.on("request", (r) => r.url().endsWith("/contact") && contactCalls.push(r.postData() ?? ""));
    await openWidget(page);
    const field = page.getByLabel("Your email (optional)");
    expect(await field.isVisible()).toBe(false); // nothing to follow up before a hand-off
    await askForPerson(page);
    await field.waitFor({ state: "visible" });
    // The ticket is said once in the log (the reply) and held in the waiting line, not in a note too.
    const waiting = page.locator(".waiting");
    expect(await waiting.textContent()).toMatch(/^Waiting for a person \(ticket #\d+\)\. They will answer here\.$/);
    expect(await page.locator(".msg.note").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Skip" }).isVisible()).toBe(true);

    // An invalid address: refused in the widget, said in an alert, nothing sent.
    await field.fill("someone@localhost");
    await page.locator("form.contact").getByRole("button", { name: "Save email" }).click();
    await page.getByRole("alert").filter({ hasText: "does not look like an email address" }).waitFor();
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    expect(contactCalls).toEqual([]);
    expect((await newestTicket()).customer).toBeNull();
    await settled(page);
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, "widget-contact-invalid.png") });

    await page.emulateMedia({ colorScheme: "dark" });
    await field.fill("");
    await settled(page);
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, "widget-contact-dark.png") });
    await page.emulateMedia({ colorScheme: "light" });
    await page.screenshot({ path: join(SCREENSHOTS, "widget-contact.png") });

    // A valid address: sent, stored on the ticket as unverified, and thanked for.
    await field.fill("Walk.In@Customer.example");
    await page.locator("form.contact").getByRole("button", { name: "Save email" }).click();
    await page.getByText("Thank you. If you leave, we will answer at walk.in@customer.example.").waitFor();
    expect(await field.isVisible()).toBe(false);
    expect(await waiting.textContent()).toMatch(/They will answer here and by email\.$/);
    expect(contactCalls).toHaveLength(1);
    expect((await newestTicket()).customer).toMatchObject({ email: "walk.in@customer.example", external_id: null, verified: false });

    // A reload keeps the conversation and does not ask again.
    await page.reload();
    await page
      .getByRole("button", { name: "Open chat" })
      .click()
      .catch(() => {});
    await page.locator(".waiting").waitFor({ state: "visible" });
    expect(await field.isVisible()).toBe(false);
    expect(errors).toEqual([]);
    await context.close();
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "skippable; identify() afterwards gives the waiting ticket its customer; an identified visitor is never asked",
  async () => {
    const context = await browser!.newContext({ viewport: { width: 1000, height: 760 } });
    context.setDefaultTimeout(15_000);
    const page = await context.newPage();
    await openWidget(page);
    await askForPerson(page);
    const field = page.getByLabel("Your email (optional)");
    await field.waitFor({ state: "visible" });
    await page.getByRole("button", { name: "Skip" }).click();
    await field.waitFor({ state: "hidden" });
    expect((await newestTicket()).customer).toBeNull();

    await page.evaluate(() =>
      (window as unknown as { SvcAgents: { identify(u: unknown): Promise<unknown> } }).SvcAgents.identify({
        user_id: "shopper-9",
        email: "shopper9@customer.example",
      }),
    );
    expect((await newestTicket()).customer).toMatchObject({ external_id: "shopper-9", email: "shopper9@customer.example", verified: false });
    await context.close();

    // Identified before the hand-off: no prompt.
    const known = await browser!.newContext({ viewport: { width: 1000, height: 760 } });
    known.setDefaultTimeout(15_000);
    const page2 = await known.newPage();
    await page2.goto(`http://127.0.0.1:${site!.port}/`);
    await page2.waitForFunction(() => (window as unknown as { SvcAgents?: { loaded?: boolean } }).SvcAgents?.loaded === true);
    await page2.evaluate(() => (window as unknown as { SvcAgents: { identify(u: unknown): Promise<unknown> } }).SvcAgents.identify({ user_id: "known-1" }));
    await page2.getByRole("button", { name: "Open chat" }).click();
    await askForPerson(page2);
    expect(await page2.getByLabel("Your email (optional)").isVisible()).toBe(false);
    expect((await newestTicket()).customer).toMatchObject({ external_id: "known-1" });
    await known.close();
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "a person's reply shows their avatar, fetched without a Referer; a picture that fails gives their initials",
  async () => {
    const context = await browser!.newContext({ viewport: { width: 1000, height: 760 } });
    context.setDefaultTimeout(15_000);
    const avatarRequests: Record<string, string>[] = [];
    await context.route("https://avatars.example/**", async (route) => {
      avatarRequests.push(route.request().headers());
      if (route.request().url().endsWith("/broken.png")) return route.fulfill({ status: 404, body: "" });
      return route.fulfill({ status: 200, contentType: "image/png", body: PNG });
    });
    const page = await context.newPage();
    await openWidget(page);
    await askForPerson(page);
    await page.getByRole("button", { name: "Skip" }).click();
    const ticket = await newestTicket();
    const reply = async (body: string) => expect((await app.request(`/api/tickets/${ticket.id}/replies`, { headers: auth, json: { body } })).status).toBe(201);

    expect(
      (await app.request("/api/me/profile", { method: "PATCH", headers: auth, json: { name: "Dana Smith", avatar_url: "https://avatars.example/dana.png" } }))
        .status,
    ).toBe(200);
    await reply("Hello, Dana here.");
    const first = page.locator(".msg.person").nth(0);
    await first.waitFor();
    const img = first.locator("img.face-sm");
    await img.waitFor();
    expect(await img.getAttribute("referrerpolicy")).toBe("no-referrer");
    expect(await img.getAttribute("alt")).toBe("");
    await page.waitForFunction(() => {
      const el = document.querySelector("svc-agents-widget")?.shadowRoot?.querySelector(".msg.person img.face-sm") as HTMLImageElement | null;
      return Boolean(el?.complete && el.naturalWidth > 0);
    });
    expect(await first.locator(".author").innerText()).toContain("Dana Smith");
    expect(avatarRequests.length).toBeGreaterThan(0);
    expect(avatarRequests.every((h) => h.referer === undefined)).toBe(true);

    expect(
      (await app.request("/api/me/profile", { method: "PATCH", headers: auth, json: { name: "Dana Smith", avatar_url: "https://avatars.example/broken.png" } }))
        .status,
    ).toBe(200);
    await reply("A second answer.");
    const second = page.locator(".msg.person").nth(1);
    await second.waitFor();
    await second.locator("span.face-sm").waitFor();
    expect(await second.locator("span.face-sm").getAttribute("data-initials")).toBe("DS");
    expect(await second.locator("span.face-sm").evaluate((el) => getComputedStyle(el, "::before").content)).toBe('"DS"');
    expect(await second.locator("img").count()).toBe(0);
    await settled(page);
    expect(await seriousAxeViolations(page, "svc-agents-widget")).toEqual([]);
    await page.screenshot({ path: join(SCREENSHOTS, "widget-person-avatar.png") });
    await context.close();
  },
  TIMEOUT,
);
