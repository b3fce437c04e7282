// The new pages in a real headless Chromium, light and dark, each checked with axe-core (no serious
// or critical violation) and photographed into docs/screenshots/: the account page (a member sets
// their display name and changes their password), the business hours page (a field error, then
// saved hours and "closed now"), the members page, "Forgot your password?" and the reset page.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { adminResetPassword } from "../../src/orgs/password-reset.ts";
import {
  browserAvailable,
  browserMissingReason,
  checkDashboardPage,
  launchBrowser,
  SCREENSHOTS,
  signInThroughForm,
  unexpectedConsoleErrors,
  watchedPage,
} from "../support/browser.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";

const TIMEOUT = 120_000;
const missing = !browserAvailable();
if (missing) console.log(`account.browser.test.ts: ${browserMissingReason()}`);

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

async function newPage(colorScheme: "light" | "dark"): Promise<{ page: Page; errors: string[] }> {
  const { context, page, errors } = await watchedPage(browser, { baseURL: app.url, colorScheme });
  contexts.push(context);
  return { page, errors };
}

let password = "";
for (const scheme of ["light", "dark"] as const) {
  test.skipIf(missing)(
    `account, business hours, forgot and reset pages (${scheme})`,
    async () => {
      password ||= org.password;
      const { page, errors } = await newPage(scheme);
      await signInThroughForm(page, { email: org.admin_email, password }, "/signin");
      const suffix = scheme === "dark" ? "-dark" : "";

      await page.getByRole("link", { name: org.admin_email }).click();
      await page.getByRole("heading", { name: "Your account" }).waitFor();
      await page.getByLabel("Display name").fill(scheme === "light" ? "Ada Lovelace" : "Ada L.");
      await page.getByRole("button", { name: "Save profile" }).click();
      await page.getByText("Profile saved.").waitFor();
      await page.getByLabel("Current password").fill("not my password");
      await page.getByLabel("New password").fill("another-password-1");
      await page.getByRole("button", { name: "Change password" }).click();
      await page.locator("#f-current_password-error").waitFor();
      await checkDashboardPage(page, `account with a field error${suffix}`);
      await page.getByLabel("Current password").fill(password);
      password = `${scheme}-new-password`;
      await page.getByLabel("New password").fill(password);
      await page.getByRole("button", { name: "Change password" }).click();
      await page.getByText("Password changed.").waitFor();
      await checkDashboardPage(page, `account${suffix}`, true);

      await page.goto("/dashboard/settings/hours");
      await page.getByLabel("Time zone").fill("Mars/Olympus");
      await page.getByRole("button", { name: "Save business hours" }).click();
      await page.locator("#f-time_zone-error").waitFor();
      await page.getByLabel("Time zone").fill("Europe/Paris");
      for (const day of ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]) await page.getByLabel(day, { exact: true }).fill("09:00-12:00, 14:00-17:00");
      await page.getByLabel("Holidays").fill("2026-12-25\n2027-01-01");
      await page.getByRole("button", { name: "Save business hours" }).click();
      await page.getByText("Business hours saved.").waitFor();
      expect(await page.getByLabel("Wednesday", { exact: true }).inputValue()).toBe("09:00-12:00, 14:00-17:00");
      await checkDashboardPage(page, `business-hours${suffix}`, true);
      await page.goto("/dashboard/settings/members");
      await page.getByRole("heading", { name: "Members and roles" }).waitFor();
      await checkDashboardPage(page, `settings-members-page${suffix}`);
      await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Widget" }).click();
      await page.getByRole("heading", { name: "Widget keys and install snippet" }).waitFor();
      await checkDashboardPage(page, `settings-widget-page${suffix}`);
      expect(unexpectedConsoleErrors(errors)).toEqual([]);

      const visitor = await newPage(scheme);
      await visitor.page.goto("/signin");
      await visitor.page.getByRole("link", { name: "Forgot your password?" }).click();
      await visitor.page.getByRole("heading", { name: "Forgot your password?" }).waitFor();
      await checkDashboardPage(visitor.page, `forgot-password${suffix}`, true);
      const { link } = (await adminResetPassword(app.deps, { email: org.admin_email })) as { link: string };
      await visitor.page.goto(new URL(link).pathname);
      await visitor.page.getByLabel("New password").fill("short");
      await checkDashboardPage(visitor.page, `reset-password${suffix}`, true);
      password = `${scheme}-reset-password`;
      await visitor.page.getByLabel("New password").fill(password);
      await visitor.page.getByRole("button", { name: "Set password" }).click();
      await visitor.page.getByText("Your password is set.").waitFor();
      expect(unexpectedConsoleErrors(visitor.errors)).toEqual([]);
    },
    TIMEOUT,
  );
}
