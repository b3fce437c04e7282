// A real headless Chromium for end-to-end tests, driven by playwright-core. The browser is
// Debian's package (/usr/bin/chromium, `apt-get install chromium`), never one downloaded by
// `playwright install`. CI installs it; where it is missing, browser tests skip (see
// `browserMissingReason`).
import { expect } from "bun:test";
import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];

/** Whether Debian's chromium is installed and executable here. */
export function browserAvailable(): boolean {
  try {
    accessSync(CHROMIUM_PATH, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** One line saying why browser tests are skipped, for the test output. */
export function browserMissingReason(): string {
  return `${CHROMIUM_PATH} is not installed (apt-get install -y chromium); browser tests are skipped`;
}

/**
 * Launches headless Chromium. Each test should open its own `browser.newContext()` (a fresh,
 * in-memory profile: no cookies carried between tests) and the caller closes the browser.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!browserAvailable()) throw new Error(browserMissingReason());
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });
}

const AXE_SOURCE = join(import.meta.dir, "../../node_modules/axe-core/axe.min.js");

export interface AxeViolation {
  id: string;
  impact: string;
  targets: unknown[];
}

/**
 * axe-core's serious and critical violations on the page, or inside the element `include` selects.
 * axe is injected through the DevTools protocol, which the page's CSP (script-src 'self') does not govern.
 */
export async function seriousAxeViolations(page: Page, include?: string): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(await Bun.file(AXE_SOURCE).text());
  return page.evaluate(async (selector) => {
    const axe = (
      window as unknown as {
        axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: unknown }[] }[] }> };
      }
    ).axe;
    const result = await axe.run(selector ? { include: [[selector]] } : document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.slice(0, 5).map((n) => n.target) }));
  }, include);
}

/**
 * A page in a fresh context (desktop viewport, the given colour scheme) whose page errors and
 * console errors are collected in `errors`. The context is the caller's to close.
 */
export async function watchedPage(
  browser: Browser,
  options: { baseURL: string; colorScheme?: "light" | "dark" },
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ baseURL: options.baseURL, viewport: { width: 1280, height: 900 }, colorScheme: options.colorScheme ?? "light" });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  return { context, page, errors };
}

/** Signs in through the /signin form from `start` (a dashboard page redirects there) and waits for the dashboard. */
export async function signInThroughForm(page: Page, member: { email: string; password: string }, start = "/dashboard"): Promise<void> {
  await page.goto(start);
  await page.getByLabel("Email").fill(member.email);
  await page.getByLabel("Password").fill(member.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL("**/dashboard");
}

/** Where the pages' screenshots go (linked from the README). */
export const SCREENSHOTS = join(import.meta.dir, "../../docs/screenshots");

/** Console errors other than the browser's note on a 4xx answer (a form re-rendered with its errors answers 400). */
export function unexpectedConsoleErrors(errors: string[]): string[] {
  return errors.filter((e) => !/Failed to load resource: the server responded with a status of 4\d\d/.test(e));
}

/**
 * A dashboard page has no serious or critical axe violation (the failure names `name`); with
 * `shoot`, it is photographed whole into docs/screenshots/dashboard-<name>.png.
 */
export async function checkDashboardPage(page: Page, name: string, shoot = false): Promise<void> {
  expect({ page: name, violations: await seriousAxeViolations(page) }).toEqual({ page: name, violations: [] });
  if (shoot) await page.screenshot({ path: join(SCREENSHOTS, `dashboard-${name}.png`), fullPage: true });
}

/** A desktop context of `baseURL` already signed in: it carries a dashboard session cookie (`name=value`). */
export async function signedInContext(browser: Browser, baseURL: string, cookie: string, colorScheme: "light" | "dark" = "light"): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 900 }, colorScheme });
  const [name, value] = cookie.split("=") as [string, string];
  await context.addCookies([{ name, value, url: baseURL }]);
  return context;
}

/** Opens `path` in a new page of `context` and expects `status`; the page's console and script errors go to `problems`, each prefixed with the path. */
export async function openWatched(context: BrowserContext, path: string, problems: string[], status = 200): Promise<Page> {
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`${path}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`${path}: ${e.message}`));
  const res = await page.goto(path);
  expect(res?.status(), path).toBe(status);
  return page;
}
