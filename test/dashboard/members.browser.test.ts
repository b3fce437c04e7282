// Members and invitations in a real headless Chromium: the admin invites someone from the settings
// page (email and role checkboxes), copies the link shown once, the invitee opens it in another
// browser, creates an account and lands signed in on /dashboard with the invited roles; the admin
// then changes that member's roles and removes them. The settings page (members section open) and
// the invitation page are checked with axe-core (no serious or critical violation, light and dark)
// and photographed into docs/screenshots/.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import {
  browserAvailable,
  browserMissingReason,
  launchBrowser,
  checkDashboardPage,
  SCREENSHOTS,
  unexpectedConsoleErrors,
  watchedPage,
  signInThroughForm,
} from "../support/browser.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";

const TIMEOUT = 90_000;
const missing = !browserAvailable();
if (missing) console.log(`members.browser.test.ts: ${browserMissingReason()}`);

let app: ServedTestApp;
let browser: Browser;
let org: Awaited<ReturnType<typeof seedOrg>>;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  org = await seedOrg(app, { name: "Acme Support", email: "ada@acme.example" });
  browser = await launchBrowser();
}, TIMEOUT);

afterAll(async () => {
  for (const c of contexts) await c.close();
  await browser?.close();
  if (app) await app.close();
});

async function newPage(colorScheme: "light" | "dark" = "light"): Promise<{ page: Page; errors: string[] }> {
  const { context, page, errors } = await watchedPage(browser, { baseURL: app.url, colorScheme });
  contexts.push(context);
  return { page, errors };
}

async function signedIn(colorScheme: "light" | "dark" = "light") {
  const { page, errors } = await newPage(colorScheme);
  // No return path: sign-in lands on the dashboard itself.
  await signInThroughForm(page, { email: org.admin_email, password: org.password }, "/signin");
  return { page, errors };
}

test.skipIf(missing)(
  "invite → the invitee creates an account from the link and lands on the dashboard → the admin changes their roles and removes them",
  async () => {
    const { page, errors } = await signedIn();
    await page.goto("/dashboard/settings#members-h");
    const section = page.locator("section", { has: page.getByRole("heading", { name: "Members and roles" }) });

    // A field error first: no role chosen.
    await section.getByLabel("Email", { exact: true }).fill("grace@acme.example");
    await section.getByRole("button", { name: "Invite" }).click();
    await page.locator("#f-invite_roles-error").waitFor();
    expect(await page.locator("#f-invite_roles-error").innerText()).toBe("Choose at least one role.");
    expect(await section.getByLabel("Email", { exact: true }).inputValue()).toBe("grace@acme.example");
    await checkDashboardPage(page, "settings with a field error");

    await section.getByRole("checkbox", { name: "knowledge:view" }).last().check();
    await section.getByRole("checkbox", { name: "inbox:manage" }).last().check();
    await section.getByRole("button", { name: "Invite" }).click();
    const linkField = page.getByLabel("Invitation link");
    await linkField.waitFor();
    const link = await linkField.inputValue();
    expect(link).toStartWith(`${app.url}/invite/svc_inv_`);
    await page.getByRole("row", { name: /grace@acme\.example/ }).waitFor();
    // A second invitation, so the pending list shows more than one row in the picture.
    await section.getByLabel("Email", { exact: true }).fill("linus@acme.example");
    await section.getByRole("checkbox", { name: "agents:view" }).last().check();
    await section.getByRole("button", { name: "Invite" }).click();
    await page.getByLabel("Invitation link").waitFor();
    await checkDashboardPage(page, "settings with a new invitation link");

    // The invitee, in another browser.
    const invitee = await newPage();
    await invitee.page.goto(link);
    expect(await invitee.page.title()).toBe("Join Acme Support · svc-agents");
    await checkDashboardPage(invitee.page, "invitation");
    // The browser checks the password's length itself (minlength); a name of blanks gets past it
    // and comes back from the server as an error next to the field.
    await invitee.page.getByLabel("Your name").fill("   ");
    await invitee.page.getByLabel("Choose a password").fill("correct horse battery");
    await invitee.page.getByRole("button", { name: "Create account and join" }).click();
    await invitee.page.locator("#name-error").waitFor();
    await checkDashboardPage(invitee.page, "invitation with a field error");
    await invitee.page.screenshot({ path: join(SCREENSHOTS, "invite.png"), fullPage: true });
    await invitee.page.getByLabel("Your name").fill("Grace Hopper");
    await invitee.page.getByLabel("Choose a password").fill("correct horse battery");
    await invitee.page.getByRole("button", { name: "Create account and join" }).click();
    await invitee.page.waitForURL("**/dashboard");
    expect(await invitee.page.getByText("Your roles: Read the knowledge base, Answer tickets and edit customers").count()).toBe(1);
    expect(unexpectedConsoleErrors(invitee.errors)).toEqual([]);

    // The admin sees the new member, opens their role form, drops inbox:manage.
    await page.goto("/dashboard/settings#members-h");
    const row = page.getByRole("row").filter({ has: page.getByText("Edit roles of grace@acme.example") });
    await row.getByText("Edit roles of grace@acme.example").click();
    await row.getByRole("checkbox", { name: "inbox:manage" }).uncheck();
    await row.getByRole("checkbox", { name: "agents:view" }).check();
    await checkDashboardPage(page, "settings with a role form open");
    await page.locator("#members-h").scrollIntoViewIfNeeded();
    await section.screenshot({ path: join(SCREENSHOTS, "dashboard-settings-members.png") });
    await row.getByRole("button", { name: "Save roles" }).click();
    await page.getByText("Roles of grace@acme.example saved.").waitFor();
    await invitee.page.reload();
    expect(await invitee.page.getByText("Your roles: See agents, Read the knowledge base").count()).toBe(1);

    // Remove (the script asks to confirm first).
    page.once("dialog", (d) => d.accept());
    await page
      .getByRole("row")
      .filter({ has: page.getByRole("button", { name: "Remove" }) })
      .filter({ hasText: "grace@acme.example" })
      .getByRole("button", { name: "Remove" })
      .click();
    await page.getByText("Member removed").waitFor();
    expect(await page.getByRole("table", { name: "Members" }).getByText("grace@acme.example").count()).toBe(0);
    await invitee.page.reload();
    await invitee.page.waitForURL("**/signin**"); // no org left: signed out
    expect(unexpectedConsoleErrors(errors)).toEqual([]);
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "dark mode: the members section and the invitation page have no serious or critical axe violations",
  async () => {
    const { page } = await signedIn("dark");
    await page.goto("/dashboard/settings");
    const section = page.locator("section", { has: page.getByRole("heading", { name: "Members and roles" }) });
    await section.getByLabel("Email", { exact: true }).fill("dark@acme.example");
    await section.getByRole("checkbox", { name: "agents:view" }).last().check();
    await section.getByRole("button", { name: "Invite" }).click();
    const link = await page.getByLabel("Invitation link").inputValue();
    await page.getByText(`Edit roles of ${org.admin_email}`).click();
    await checkDashboardPage(page, "settings (dark)");
    const invitee = await newPage("dark");
    await invitee.page.goto(link);
    await checkDashboardPage(invitee.page, "invitation (dark)");
    await invitee.page.goto("/invite/svc_inv_unknown");
    expect(await invitee.page.getByRole("heading", { name: "Invitation not found" }).count()).toBe(1);
    await checkDashboardPage(invitee.page, "unknown invitation (dark)");
  },
  TIMEOUT,
);

test.skipIf(missing)(
  "the new invitation's link is at the top of the page that answers the invite, where the eye lands, and only there",
  async () => {
    const { page, errors } = await signedIn();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto("/dashboard/settings");
    const section = page.locator("section", { has: page.getByRole("heading", { name: "Members and roles" }) });
    await section.getByLabel("Email", { exact: true }).fill("top@acme.example");
    await section.getByRole("checkbox", { name: "agents:view" }).last().check();
    await section.getByRole("button", { name: "Invite" }).click();
    const linkField = page.getByLabel("Invitation link");
    await linkField.waitFor();
    expect(await page.locator("#invite-link").count()).toBe(1);
    // Visible without scrolling: the answer opens at its top, and the link is within the first screen.
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    const box = (await linkField.boundingBox())!;
    expect(box.y + box.height).toBeLessThanOrEqual(800);
    expect(await page.getByRole("status").filter({ hasText: "top@acme.example" }).count()).toBe(1);
    await page.screenshot({ path: join(SCREENSHOTS, "dashboard-settings-invite-link.png") });
    await checkDashboardPage(page, "settings answering an invitation");
    expect(unexpectedConsoleErrors(errors)).toEqual([]);
  },
  TIMEOUT,
);
