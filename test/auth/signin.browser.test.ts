// The dashboard sign-in page in a real headless Chromium, against a real server process: sign in
// by label and keyboard, the generic failure message, the session cookie's attributes, no console
// errors or CSP violations, keyboard order. Skipped when Debian's chromium is not installed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import type { Browser, BrowserContext, ConsoleMessage, Page } from "playwright-core";
import { browserAvailable, browserMissingReason, launchBrowser } from "../support/browser.ts";
import { createTestDatabase, type TestDatabase } from "../support/db.ts";
import { freePort, runCli, type RunningServer, startServer, tempDir } from "../support/process.ts";

const TIMEOUT = 60_000;
const missing = !browserAvailable();
if (missing) console.log(`signin.browser.test.ts: ${browserMissingReason()}`);

const email = `browser-${randomBytes(4).toString("hex")}@example.com`;
const password = `pw-${randomBytes(12).toString("base64url")}`;

let server: RunningServer | undefined;
let browser: Browser | undefined;
let database: TestDatabase | undefined;
let dataDir: string | undefined;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  if (missing) return;
  const port = freePort();
  const env: Record<string, string> = { PORT: String(port), HOST: "127.0.0.1", BASE_URL: `http://127.0.0.1:${port}`, SEED_DEMO: "0" };
  if (process.env.TEST_DATABASE_URL) {
    database = await createTestDatabase();
    env.DATABASE_URL = database.url!;
    env.SECRET_KEY = randomBytes(32).toString("base64");
  } else {
    dataDir = tempDir("svc-browser-");
    env.DATA_DIR = dataDir;
  }
  // Before the server: in embedded mode a running server holds the DATA_DIR lock.
  const created = await runCli(["org", "create", "--name", "Acme", "--admin-email", email, "--admin-password", password], env);
  if (created.code !== 0) throw new Error(`org create exited ${created.code}: ${created.stderr}`);
  expect(JSON.parse(created.stdout).admin_email).toBe(email);
  server = await startServer(env);
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  const code = await server?.stop();
  if (code !== undefined && code !== 0) console.log(`server exited ${code}:\n${server!.stderr()}`);
  await database?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

/** A fresh context (own cookie jar) and page, closed after the file. */
async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser!.newContext({ baseURL: server!.url });
  contexts.push(context);
  return { context, page: await context.newPage() };
}

/** Which element has focus, as "#id" or the tag name. */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    const el = document.activeElement;
    return el?.id ? `#${el.id}` : (el?.tagName.toLowerCase() ?? "none");
  });
}

interface Outcome {
  /** Status of the POST /signin response (303 when it signs in). */
  status: number;
  /** Where the browser is once the resulting page has loaded. */
  path: string;
  /** Texts of role=alert elements on that page. */
  alerts: string[];
}

/** Submits the sign-in form with `submit` (a click, a key) and reports where the browser ends up. */
async function submitSignIn(page: Page, submit: () => Promise<void>): Promise<Outcome> {
  const posted = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/signin");
  const loaded = page.waitForEvent("load");
  await submit();
  const status = (await posted).status();
  await loaded;
  return { status, path: new URL(page.url()).pathname, alerts: (await page.getByRole("alert").allInnerTexts()).map((t) => t.trim()) };
}

describe("sign-in page in Chromium", () => {
  test.skipIf(missing)(
    "signs in by label and keyboard, lands on return_to with an HttpOnly SameSite=Lax cookie",
    async () => {
      const { context, page } = await newPage();
      const res = await page.goto("/signin?return_to=/api/me");
      expect(res?.status()).toBe(200);
      expect(await page.title()).toBe("Sign in · svc-agents");

      const emailField = page.getByLabel("Email", { exact: true });
      const passwordField = page.getByLabel("Password", { exact: true });
      // The email field has autofocus: type straight into it, Tab to the password.
      expect(await focused(page)).toBe("#email");
      await page.keyboard.type(email);
      await page.keyboard.press("Tab");
      expect(await focused(page)).toBe("#password");
      await page.keyboard.type(password);
      expect(await emailField.inputValue()).toBe(email);
      expect(await passwordField.inputValue()).toBe(password);

      const me = page.waitForResponse((r) => new URL(r.url()).pathname === "/api/me");
      me.catch(() => {}); // awaited below only once sign-in succeeded
      const outcome = await submitSignIn(page, () => page.getByRole("button", { name: "Sign in" }).click());
      expect(outcome).toEqual({ status: 303, path: "/api/me", alerts: [] });
      expect(new URL(page.url()).search).toBe("");
      const meResponse = await me;
      expect(meResponse.status()).toBe(200);
      expect(meResponse.headers()["content-type"]).toContain("application/json");

      // Chromium shows the JSON as text; it names the signed-in member and their org.
      const shown = await page.locator("pre").first().innerText();
      const body = JSON.parse(shown) as { member: { email: string }; orgs: { name: string; roles: string[] }[] };
      expect(body.member.email).toBe(email);
      expect(body.orgs.map((o) => o.name)).toEqual(["Acme"]);

      const cookies = await context.cookies(server!.url);
      const session = cookies.find((c) => c.name === "svc_session");
      expect(session).toBeDefined();
      expect(session!.value).toMatch(/^svc_ses_[A-Za-z0-9_-]{43}$/);
      expect(session!.httpOnly).toBe(true);
      expect(session!.sameSite).toBe("Lax");
      expect(session!.path).toBe("/");
      expect(session!.secure).toBe(false); // BASE_URL is http here
      expect(session!.expires).toBeGreaterThan(Date.now() / 1000 + 3600); // a persistent cookie, not a session one
      // HttpOnly: the page's own script cannot read it.
      expect(await page.evaluate(() => document.cookie)).not.toContain("svc_session");
    },
    TIMEOUT,
  );

  test.skipIf(missing)(
    "a wrong password shows the generic message in an alert and sets no cookie",
    async () => {
      const { context, page } = await newPage();
      await page.goto("/signin?return_to=/api/me");
      await page.getByLabel("Email", { exact: true }).fill(email);
      await page.getByLabel("Password", { exact: true }).fill(`${password}-wrong`);

      const outcome = await submitSignIn(page, () => page.getByRole("button", { name: "Sign in" }).click());
      expect(outcome).toEqual({ status: 401, path: "/signin", alerts: ["Email or password is incorrect."] });
      // The form is ready for another try: email kept, password empty, return_to carried over.
      expect(await page.getByLabel("Email", { exact: true }).inputValue()).toBe(email);
      expect(await page.getByLabel("Password", { exact: true }).inputValue()).toBe("");
      expect(await page.locator('input[name="return_to"]').inputValue()).toBe("/api/me");

      const cookies = await context.cookies(server!.url);
      expect(cookies.find((c) => c.name === "svc_session")).toBeUndefined();
    },
    TIMEOUT,
  );

  test.skipIf(missing)(
    "loads without console errors or CSP violations and works by keyboard alone",
    async () => {
      const { context, page } = await newPage();
      const problems: string[] = [];
      page.on("console", (msg: ConsoleMessage) => {
        if (msg.type() === "error" || msg.type() === "warning") problems.push(`console.${msg.type()}: ${msg.text()}`);
      });
      page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
      page.on("requestfailed", (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
      page.on("response", (r) => {
        if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
      });
      // Injected by the browser driver (not subject to the page's CSP): records every violation.
      await context.addInitScript(() => {
        const seen: string[] = [];
        (window as unknown as { __csp: string[] }).__csp = seen;
        document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI}`));
      });

      const res = await page.goto("/signin");
      expect(res?.status()).toBe(200);
      expect(res?.headers()["content-security-policy"]).toContain("default-src 'none'");
      // The stylesheet loaded and applied under the CSP (the body is a centred grid).
      expect(await page.evaluate(() => getComputedStyle(document.body).display)).toBe("grid");
      expect(await page.evaluate(() => getComputedStyle(document.querySelector("main")!).borderTopLeftRadius)).toBe("12px");

      // Tab order: email (autofocused) → password → the button; Shift+Tab goes back.
      expect(await focused(page)).toBe("#email");
      await page.keyboard.press("Tab");
      expect(await focused(page)).toBe("#password");
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Sign in");
      expect(await page.evaluate(() => (document.activeElement as HTMLButtonElement | null)?.type)).toBe("submit");
      await page.keyboard.press("Shift+Tab");
      expect(await focused(page)).toBe("#password");
      await page.keyboard.press("Shift+Tab");
      expect(await focused(page)).toBe("#email");

      // And the whole sign-in by keyboard: type, Tab, type, Tab, Enter on the button.
      await page.keyboard.type(email);
      await page.keyboard.press("Tab");
      await page.keyboard.type(password);
      await page.keyboard.press("Tab");
      const outcome = await submitSignIn(page, () => page.keyboard.press("Enter"));
      // No return path: it lands on the dashboard itself.
      expect(outcome).toEqual({ status: 303, path: "/dashboard", alerts: [] });
      expect(await page.locator("header .who").innerText()).toBe(email);
      // The dashboard's first focusable control, reachable by Tab, is its skip link.
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content");

      const violations = await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp);
      expect(violations).toEqual([]);
      expect(problems).toEqual([]);
    },
    TIMEOUT,
  );
});
