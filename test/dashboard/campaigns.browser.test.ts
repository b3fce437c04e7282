// The campaign pages in a real headless Chromium (Debian's chromium through playwright-core): each
// page loads under the dashboard CSP without console errors and axe-core finds no serious or
// critical violation (light and dark); the audience rule, enrol and remove, and archive go through
// the forms; the HTML preview is framed, and neither a script in a template nor markup in a
// customer's name runs anywhere (a window flag stays unset). Screenshots go to docs/screenshots/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext, Frame, Page } from "playwright-core";
import { memberActor } from "../../src/kit/actor.ts";
import { enrolCustomer, removeCustomer } from "../../src/campaigns/enrolments.ts";
import { createCampaign, setCampaignStatus } from "../../src/campaigns/lifecycle.ts";
import { queueDueSteps } from "../../src/campaigns/progress.ts";
import { findCustomer, upsertCustomers } from "../../src/inbox/customer-profiles.ts";
import { browserAvailable, browserMissingReason, launchBrowser, openWatched, SCREENSHOTS, seriousAxeViolations, signedInContext } from "../support/browser.ts";
import { serveTestApp, type ServedTestApp } from "../support/app.ts";
import { adminOf, type Member } from "./helpers.ts";
import { seedInbox } from "./seed.ts";

const TIMEOUT = 60_000;
const missing = !browserAvailable();
if (missing) console.log(`campaigns.browser.test.ts: ${browserMissingReason()}`);

/** Markup in a customer's name: it must stay text on every page and in the previewed email. */
const HOSTILE_NAME = `<img src=x onerror="window.pwned='name'">Eve<script>window.pwned='name-script'</script>`;

let app: ServedTestApp;
let browser: Browser | undefined;
let context: BrowserContext;
let admin: Member;
const problems: string[] = [];

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  admin = await adminOf(app, "Acme Support");
  await seedInbox(app, admin.orgId, admin.agentId!, "Ada");
  await seedInbox(app, admin.orgId, admin.agentId!, "Grace");
  const system = { kind: "system", name: "test" } as const;
  await upsertCustomers(app.deps, admin.orgId, system, [
    { external_id: "cust-Ada", traits: { plan: "pro" } },
    { external_id: "cust-Grace", traits: { plan: "team" } },
    { external_id: "cust-Lin", email: "lin@example.com", name: "Lin Chen", traits: { plan: "pro" } },
    { external_id: "cust-Eve", email: "eve@example.com", name: HOSTILE_NAME, traits: { plan: "free" } },
  ]);
  // An active campaign with two steps and an audience rule; Ada and Lin enrolled (the first email
  // queued), Grace removed. A draft, and an archived campaign behind the list's filter.
  const actor = memberActor("00000000-0000-4000-8000-000000000000");
  const created = await createCampaign(app.deps, {
    orgId: admin.orgId,
    actor,
    input: {
      name: "Onboarding",
      slug: "onboarding",
      audience: { all: [{ trait: "plan", op: "in", value: ["pro", "team"] }] },
      sender: { name: "Acme Support", reply_to: "help@example.com" },
      steps: [
        {
          delay_seconds: 0,
          delay_from: "enrolment",
          subject: "Welcome, {{first_name}}",
          body: 'Hi {{first_name | "there"}},\n\nThanks for signing up for **Acme**. Three things to try first:\n\n1. Invite your team.\n2. Add your help articles.\n3. Install the chat widget.\n\n<p style="padding:12px;background:#eef2ff;border-radius:8px">Reply to this email with any question: a person reads it.</p>',
        },
        { delay_seconds: 3 * 86_400, subject: "Three tips", body: "1. Invite your team.\n2. Add your docs.\n3. Install the widget." },
      ],
    },
  });
  const campaign = await setCampaignStatus(app.deps, { orgId: admin.orgId, actor, ref: created.id, to: "active" });
  for (const ref of ["cust-Ada", "cust-Lin", "cust-Grace"])
    await enrolCustomer(app.deps, { orgId: admin.orgId, actor, campaign, endUser: (await findCustomer(app.deps, admin.orgId, ref))!, source: "api" });
  await removeCustomer(app.deps, { orgId: admin.orgId, actor, campaign, endUser: (await findCustomer(app.deps, admin.orgId, "cust-Grace"))! });
  await queueDueSteps(app.deps);
  await createCampaign(app.deps, { orgId: admin.orgId, actor, input: { name: "Win-back", slug: "win-back" } });
  const old = await createCampaign(app.deps, {
    orgId: admin.orgId,
    actor,
    input: { name: "Spring newsletter", slug: "spring-newsletter", steps: [{ delay_seconds: 0, subject: "Spring", body: "News." }] },
  });
  await setCampaignStatus(app.deps, { orgId: admin.orgId, actor, ref: old.id, to: "archived" });
  // A campaign whose template carries script, an event handler and a javascript: link: the preview
  // must run none of them. Active, so customers can be enrolled by hand.
  const hostile = await createCampaign(app.deps, {
    orgId: admin.orgId,
    actor,
    input: {
      name: "Re-engagement",
      slug: "re-engagement",
      steps: [
        {
          delay_seconds: 0,
          subject: "For {{name}}",
          body: `Hello **{{name}}**.\n\n<script>window.pwned = "template"; try { parent.pwned = "template"; top.document.title = "pwned" } catch (e) {}</script>\n\n<img src="data:image/png;base64,AAAA" alt="" onerror="window.pwned = 'img'; parent.pwned = 'img'">\n\n<a href="javascript:parent.pwned='link'">a link</a>`,
        },
      ],
    },
  });
  await setCampaignStatus(app.deps, { orgId: admin.orgId, actor, ref: hostile.id, to: "active" });
  browser = await launchBrowser();
  context = await signedInContext(browser, app.url, admin.cookie);
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  if (!missing) await app.close();
}, 60_000);

const open = (path: string, status = 200) => openWatched(context, path, problems, status);

/** The preview frames of a page, once each has loaded its document. */
async function previewFrames(page: Page): Promise<Frame[]> {
  const frames = page.locator("iframe");
  const n = await frames.count();
  for (let i = 0; i < n; i++) await frames.nth(i).scrollIntoViewIfNeeded();
  await page.waitForFunction((count) => document.querySelectorAll("iframe").length === count, n);
  const loaded: Frame[] = [];
  for (let i = 0; i < n; i++) {
    const frame = await (await frames.nth(i).elementHandle())!.contentFrame();
    await frame!.waitForLoadState("load");
    loaded.push(frame!);
  }
  // Each frame's document laid out at its element's final width (a frame in another process can
  // lag behind the page's layout on a loaded machine, and a screenshot would catch it narrow).
  for (let i = 0; i < n; i++) {
    const width = await frames.nth(i).evaluate((el) => (el as HTMLIFrameElement).clientWidth);
    await loaded[i]!.waitForFunction((w) => Math.abs(innerWidth - w) <= 2, width);
  }
  return loaded;
}

describe.skipIf(missing)("campaign pages in Chromium", () => {
  test(
    "the audience rule through its form: a field error next to its field (aria-invalid), then saved and counted",
    async () => {
      const page = await open("/dashboard/campaigns/win-back");
      await page.getByLabel("Trait").fill("plan");
      await page.getByLabel("Comparison").selectOption("eq");
      await Promise.all([page.waitForLoadState("load"), page.getByRole("button", { name: "Save audience" }).click()]);
      await page.waitForSelector("#f-a0_value-error");
      expect(await page.locator("#f-a0_value-error").textContent()).toContain("Write a value");
      expect(await page.getByLabel("Value", { exact: true }).getAttribute("aria-invalid")).toBe("true");
      expect(await page.getByLabel("Trait").inputValue()).toBe("plan");
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, "dashboard-campaign-audience-error.png"), fullPage: true });
      await page.getByLabel("Value", { exact: true }).fill("pro");
      await Promise.all([page.waitForURL("**/dashboard/campaigns/win-back"), page.getByRole("button", { name: "Save audience" }).click()]);
      expect(await page.getByRole("status").textContent()).toContain("Audience saved");
      // Ada and Lin have plan "pro" (Eve is on free).
      expect(await page.locator("#audience-count").textContent()).toContain("Matches 2 customers now");
      await page.close();
      // Chromium logs the expected 400 answer as a console error; nothing else may have been logged.
      expect(problems.filter((p) => !p.includes("status of 400"))).toEqual([]);
      problems.length = 0;
    },
    TIMEOUT,
  );

  test(
    "enrol by email through the form, then remove with the row's button",
    async () => {
      const page = await open("/dashboard/campaigns/re-engagement/enrolments");
      await page.getByRole("textbox", { name: "Customer" }).fill("eve@example.com");
      await Promise.all([page.waitForURL("**/enrolments"), page.getByRole("button", { name: "Enrol", exact: true }).click()]);
      expect(await page.getByRole("status").textContent()).toBe(`${HOSTILE_NAME} enrolled.`);
      const remove = page.getByRole("button", { name: `Remove ${HOSTILE_NAME} from this campaign` });
      await Promise.all([page.waitForURL("**/enrolments"), remove.click()]);
      expect(await page.getByRole("status").textContent()).toContain("removed: no further step is sent");
      expect(await page.getByRole("button", { name: `Remove ${HOSTILE_NAME} from this campaign` }).count()).toBe(0);
      expect(await page.evaluate(() => (window as unknown as { pwned?: string }).pwned)).toBeUndefined();
      await page.close();
      expect(problems).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "the HTML preview: neither the template's script nor the customer's name runs, in the frame or opened on its own",
    async () => {
      const page = await open("/dashboard/campaigns/re-engagement/preview?customer=cust-Eve");
      const [frame] = await previewFrames(page);
      expect(frame).toBeDefined();
      // The name is text in the email, the template's own markup is there, and nothing ran.
      expect(await frame!.locator("strong").first().textContent()).toBe(HOSTILE_NAME);
      expect(await frame!.locator("script").count()).toBe(1);
      expect(await frame!.locator("img[onerror]").count()).toBe(1);
      await frame!.getByRole("link", { name: "a link" }).click({ noWaitAfter: true });
      expect(await page.evaluate(() => (window as unknown as { pwned?: string }).pwned)).toBeUndefined();
      expect(await page.title()).not.toBe("pwned");
      expect(await page.locator("main").textContent()).toContain(HOSTILE_NAME);
      expect(await frame!.evaluate(() => (window as unknown as { pwned?: string }).pwned).catch(() => undefined)).toBeUndefined();
      await page.close();

      // Opened on its own, the document is still sandboxed by its CSP.
      const src = await (async () => {
        const p = await open("/dashboard/campaigns/re-engagement/preview?customer=cust-Eve");
        const value = await p.locator("iframe").first().getAttribute("src");
        await p.close();
        return value!;
      })();
      const alone = await open(src);
      expect(await alone.locator("strong").first().textContent()).toBe(HOSTILE_NAME);
      expect(await alone.evaluate(() => (window as unknown as { pwned?: string }).pwned).catch(() => undefined)).toBeUndefined();
      await alone.close();
      // What the browser refused is logged (the sandbox, the CSP); nothing else may have been.
      expect(problems.filter((p) => !/sandboxed|Content Security Policy/.test(p))).toEqual([]);
      problems.length = 0;
    },
    TIMEOUT,
  );

  test(
    "the preview of a campaign frames each step's email; axe finds no serious or critical violation; screenshot",
    async () => {
      const page = await open("/dashboard/campaigns/onboarding/preview?customer=cust-Ada");
      const frames = await previewFrames(page);
      expect(frames).toHaveLength(2);
      expect(await frames[0]!.locator("body").textContent()).toContain("Hi Ada,");
      expect(await frames[0]!.locator("strong").first().textContent()).toBe("Acme");
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.screenshot({ path: join(SCREENSHOTS, "dashboard-campaign-preview.png"), fullPage: true });
      await page.close();
      expect(problems).toEqual([]);
    },
    TIMEOUT,
  );

  test(
    "archive: the link leads to a confirmation page; confirming archives; the list shows it behind the filter",
    async () => {
      const page = await open("/dashboard/campaigns/win-back");
      await Promise.all([page.waitForURL("**/win-back/archive"), page.getByRole("link", { name: "Archive…" }).click()]);
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Archive Win-back?");
      expect(await seriousAxeViolations(page)).toEqual([]);
      await Promise.all([page.waitForURL("**/dashboard/campaigns/win-back"), page.getByRole("button", { name: "Archive campaign" }).click()]);
      expect(await page.getByRole("status").textContent()).toContain("archived");
      expect(await page.getByRole("button", { name: "Save audience" }).count()).toBe(0);
      await page.goto("/dashboard/campaigns");
      expect(await page.getByRole("link", { name: "Win-back" }).count()).toBe(0);
      await Promise.all([page.waitForURL("**/dashboard/campaigns?status=archived"), page.getByRole("link", { name: "show archived campaigns" }).click()]);
      expect(await page.getByRole("link", { name: "Win-back" }).count()).toBe(1);
      expect(await page.getByRole("link", { name: "Spring newsletter" }).count()).toBe(1);
      await page.close();
      expect(problems).toEqual([]);
    },
    TIMEOUT,
  );

  const pages: [string, string, string | null][] = [
    ["campaign list", "/dashboard/campaigns", "dashboard-campaigns.png"],
    ["a campaign with its audience rule and steps", "/dashboard/campaigns/onboarding", "dashboard-campaign.png"],
    ["a campaign's enrolled customers, with enrol and remove", "/dashboard/campaigns/onboarding/enrolments", "dashboard-campaign-enrolments.png"],
    ["a campaign's outbox messages", "/dashboard/campaigns/onboarding/messages", "dashboard-campaign-messages.png"],
    ["the archive confirmation, with what it cancels", "/dashboard/campaigns/onboarding/archive", "dashboard-campaign-archive.png"],
    ["archived campaigns", "/dashboard/campaigns?status=archived", null],
    ["a sample preview", "/dashboard/campaigns/onboarding/preview", null],
  ];
  for (const [name, path, shot] of pages) {
    test(
      `${name}: no serious or critical axe violation, no console error${shot ? "; screenshot" : ""}`,
      async () => {
        const page = await open(path);
        expect(await seriousAxeViolations(page)).toEqual([]);
        if (shot) await page.screenshot({ path: join(SCREENSHOTS, shot), fullPage: true });
        expect(problems).toEqual([]);
        await page.close();
      },
      TIMEOUT,
    );
  }

  test(
    "dark mode: no serious or critical axe violation on any of these pages",
    async () => {
      const dark = await signedInContext(browser!, app.url, admin.cookie, "dark");
      try {
        for (const [label, path] of [...pages, ["preview for a customer", "/dashboard/campaigns/onboarding/preview?customer=cust-Ada"]] as [string, string][]) {
          const page = await dark.newPage();
          expect((await page.goto(path))?.status(), label).toBe(200);
          expect(await seriousAxeViolations(page), label).toEqual([]);
          await page.close();
        }
      } finally {
        await dark.close();
      }
    },
    TIMEOUT * 2,
  );
});
