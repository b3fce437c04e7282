// The OAuth flow with a real person's browser: the official MCP SDK client discovers, registers
// and asks to open the authorization URL; headless Chromium opens it, signs in by label, reads the
// consent page and clicks Allow (or Deny); the consent form's redirect must reach the client's
// loopback redirect URI (a real listener on another port), which proves the consent page's
// Content-Security-Policy `form-action` lets it through. Skipped when Debian's chromium is missing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { SCOPES, type Scope } from "../../src/oauth/scopes.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { browserAvailable, browserMissingReason, launchBrowser } from "../support/browser.ts";
import { connectWithOAuth, TestOAuthProvider } from "../support/mcp-client.ts";

const TIMEOUT = 60_000;
const missing = !browserAvailable();
if (missing) console.log(`oauth-browser.test.ts: ${browserMissingReason()}`);

/** The SDK sends `state` only when the provider supplies one; a real client does. */
class StatefulProvider extends TestOAuthProvider {
  readonly states: string[] = [];
  state(): string {
    const value = randomBytes(16).toString("base64url");
    this.states.push(value);
    return value;
  }
}

/** One request that reached the client's redirect URI. */
interface CallbackHit {
  path: string;
  code: string | null;
  state: string | null;
  iss: string | null;
  error: string | null;
  errorDescription: string | null;
}

let app: ServedTestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let browser: Browser | undefined;
let callbackServer: ReturnType<typeof Bun.serve> | undefined;
let redirectUrl: string;
const hits: CallbackHit[] = [];
const contexts: BrowserContext[] = [];

const CALLBACK_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Back in the app</title><link rel="icon" href="data:,"></head>
<body><h1>You can close this window</h1></body></html>
`;

beforeAll(async () => {
  if (missing) return;
  app = await serveTestApp();
  org = await seedOrg(app, { name: "Acme Support" });
  // The client's loopback redirect URI (RFC 8252 section 7.3): records what the authorization server sends.
  callbackServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
      const q = url.searchParams;
      hits.push({
        path: url.pathname,
        code: q.get("code"),
        state: q.get("state"),
        iss: q.get("iss"),
        error: q.get("error"),
        errorDescription: q.get("error_description"),
      });
      return new Response(CALLBACK_PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  redirectUrl = `http://127.0.0.1:${callbackServer.port}/callback`;
  browser = await launchBrowser();
}, 120_000);

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  callbackServer?.stop(true);
  await app?.close();
}, 60_000);

interface Watched {
  page: Page;
  /** Console errors and warnings, page errors, failed requests and HTTP errors, in order. */
  problems: string[];
  /** `securitypolicyviolation` events from every document the page showed, reported as they happen. */
  violations: string[];
}

/** A fresh context (own cookie jar) whose page reports everything that went wrong in it. */
async function watchedPage(): Promise<Watched> {
  const context = await browser!.newContext();
  contexts.push(context);
  const problems: string[] = [];
  const violations: string[] = [];
  // Injected by the driver (not subject to the page's CSP); reports to the test at once, so a
  // violation on the consent page is seen even after the browser has left it.
  await context.exposeBinding("__reportCsp", (_source, text: string) => {
    violations.push(text);
  });
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      void (window as unknown as { __reportCsp(text: string): Promise<void> }).__reportCsp(`${location.href}: ${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const page = await context.newPage();
  page.on("console", (msg) => {
    if (msg.type() === "error" || msg.type() === "warning") problems.push(`console.${msg.type()} on ${page.url()}: ${msg.text()} (${msg.location().url})`);
  });
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("requestfailed", (req) => problems.push(`request failed: ${req.url()} ${req.failure()?.errorText}`));
  page.on("response", (r) => {
    if (r.status() >= 400) problems.push(`HTTP ${r.status()}: ${r.url()}`);
  });
  return { page, problems, violations };
}

interface ConsentRun extends Watched {
  /** The callback hit the answer produced. */
  hit: CallbackHit;
  /** The consent page's Content-Security-Policy header. */
  consentCsp: string;
  /** Problems reported before the consent page arrived (the sign-in page). */
  beforeConsent: string[];
  /** Problems reported from the consent page's arrival on (consent page, its redirect, the callback page). */
  fromConsent: string[];
}

/**
 * Plays the person in Chromium: opens the authorization URL, signs in by label, checks the
 * consent page, clicks `decision` and waits until the browser is on the client's redirect URI.
 */
async function answerInChromium(url: URL, clientName: string, decision: "Allow" | "Deny"): Promise<ConsentRun> {
  const watched = await watchedPage();
  const { page } = watched;
  const appOrigin = new URL(app.url).origin;
  const callbackOrigin = new URL(redirectUrl).origin;

  // Not signed in: the authorization endpoint sends the browser to /signin.
  const opened = await page.goto(url.href);
  expect(opened?.status()).toBe(200);
  expect(new URL(page.url()).origin).toBe(appOrigin);
  expect(new URL(page.url()).pathname).toBe("/signin");
  expect(await page.title()).toBe("Sign in · svc-agents");

  await page.getByLabel("Email", { exact: true }).fill(org.admin_email);
  await page.getByLabel("Password", { exact: true }).fill(org.password);
  const consentResponse = page.waitForResponse((r) => r.request().method() === "GET" && new URL(r.url()).pathname === "/api/mcp/oauth/authorize");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  const consent = await consentResponse;
  const consentArrived = watched.problems.length;
  await page.waitForLoadState("load");
  expect(consent.status()).toBe(200);
  // Back on the very authorization request the client started.
  expect(new URL(page.url()).origin).toBe(appOrigin);
  expect(new URL(page.url()).pathname).toBe("/api/mcp/oauth/authorize");
  expect(new URL(page.url()).searchParams.get("state")).toBe(url.searchParams.get("state"));
  expect(await page.title()).toBe("Allow access · svc-agents");

  // What the person is told: who asks, where they will be sent back, what it may do.
  expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe(`Allow ${clientName} to use svc-agents?`);
  const redirectHost = new URL(redirectUrl).host;
  expect(await page.getByText("After you answer, you will be sent back to").innerText()).toBe(`After you answer, you will be sent back to ${redirectHost}.`);
  expect(await page.getByText("Organisation:").innerText()).toBe("Organisation: Acme Support");
  expect(await page.getByText(`${clientName} will be able to:`).isVisible()).toBe(true);
  const requested = (url.searchParams.get("scope") ?? "").split(" ").filter(Boolean) as Scope[];
  expect(requested.length).toBeGreaterThan(0);
  const items = (await page.getByRole("listitem").allInnerTexts()).map((t) => t.trim());
  expect(items).toEqual(requested.map((s) => SCOPES[s]));
  // Plain words: no raw scope token is shown.
  for (const item of items) expect(item).not.toMatch(/\w:(read|write)\b/);

  // Exactly two buttons: Allow and Deny.
  expect(await page.getByRole("button").count()).toBe(2);
  const allow = page.getByRole("button", { name: "Allow", exact: true });
  const deny = page.getByRole("button", { name: "Deny", exact: true });
  expect(await allow.count()).toBe(1);
  expect(await deny.count()).toBe(1);
  expect(await allow.isVisible()).toBe(true);
  expect(await deny.isVisible()).toBe(true);

  const consentCsp = (await consent.allHeaders())["content-security-policy"] ?? "";
  expect(watched.violations).toEqual([]);
  expect(watched.problems.slice(consentArrived)).toEqual([]);

  const hitsBefore = hits.length;
  const landed = page
    .waitForURL((u) => u.origin === callbackOrigin, { timeout: 15_000 })
    .then(
      () => null,
      (error: Error) => error,
    );
  await (decision === "Allow" ? allow : deny).click();
  const stuck = await landed;
  // A consent page whose CSP form-action does not cover the redirect URI ends here (net::ERR_ABORTED).
  if (stuck)
    throw new Error(
      `after ${decision}, the browser did not reach ${redirectUrl}: ${stuck.message}\nCSP violations: ${JSON.stringify(watched.violations)}\nproblems: ${JSON.stringify(watched.problems)}`,
    );
  await page.waitForLoadState("load");
  // The browser really is on the client's redirect URI, showing the client's page.
  expect(new URL(page.url()).origin + new URL(page.url()).pathname).toBe(redirectUrl);
  expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("You can close this window");
  expect(hits.length).toBe(hitsBefore + 1);
  return {
    ...watched,
    hit: hits.at(-1)!,
    consentCsp,
    beforeConsent: watched.problems.slice(0, consentArrived),
    fromConsent: watched.problems.slice(consentArrived),
  };
}

/**
 * No CSP violation anywhere, and no console error or warning, page error, failed request or HTTP
 * error from the consent page on (the consent page, its redirect, the client's page). Before it,
 * on the sign-in page, the one thing tolerated is Chromium's own request for /favicon.ico, which
 * the app answers 404 (it serves no icon): the first page a fresh browser shows logs that, whatever
 * page it is. It is not part of the OAuth flow and is reported on its own.
 */
function expectClean(run: ConsentRun) {
  expect(run.violations).toEqual([]);
  expect(run.fromConsent).toEqual([]);
  expect(run.beforeConsent.filter((p) => !p.endsWith(`(${app.url}/favicon.ico)`))).toEqual([]);
}

describe("OAuth in Chromium with the official SDK client", () => {
  test.skipIf(missing)(
    "sign in, consent page, Allow: the browser reaches the loopback callback and the SDK lists tools",
    async () => {
      const clientName = "Chromium Allow client";
      let run: ConsentRun | undefined;
      const provider = new StatefulProvider(redirectUrl, async () => {}, { client_name: clientName });
      const { client } = await connectWithOAuth(app.url, provider, async (url) => {
        run = await answerInChromium(url, clientName, "Allow");
        expect(run.hit.code).toBeTruthy();
        return run.hit.code!;
      });
      try {
        expect(run).toBeDefined();
        const sent = provider.authorizationUrls.at(-1)!;
        expect(sent.origin + sent.pathname).toBe(`${app.url}/api/mcp/oauth/authorize`);
        expect(sent.searchParams.get("redirect_uri")).toBe(redirectUrl);
        expect(sent.searchParams.get("code_challenge_method")).toBe("S256");
        expect(provider.states).toHaveLength(1);
        expect(sent.searchParams.get("state")).toBe(provider.states[0]!);

        // The redirect back: code, the SDK's state, and our issuer (RFC 9207).
        expect(run!.hit.code).toMatch(/^svc_ac_[A-Za-z0-9_-]{43}$/);
        expect(run!.hit.state).toBe(provider.states[0]!);
        expect(run!.hit.iss).toBe(app.url);
        expect(run!.hit.error).toBeNull();

        // The consent page allowed the post-submit redirect to the loopback client, and nothing
        // on it (or on the way) complained.
        expect(run!.consentCsp).toContain("form-action 'self' http://127.0.0.1:*");
        expectClean(run!);

        // The code was exchanged and the SDK is connected.
        expect(provider.savedTokens?.access_token).toMatch(/^svc_at_/);
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain("search_docs");
      } finally {
        await client.close();
      }
    },
    TIMEOUT,
  );

  test.skipIf(missing)(
    "the same person clicking Deny: the callback gets access_denied with the SDK's state and iss",
    async () => {
      const clientName = "Chromium Deny client";
      let run: ConsentRun | undefined;
      const provider = new StatefulProvider(redirectUrl, async () => {}, { client_name: clientName });
      const denied = new Error("the person denied access");
      // Settled before expect() sees it: the authorize callback throws once the browser is back.
      const outcome = await connectWithOAuth(app.url, provider, async (url) => {
        run = await answerInChromium(url, clientName, "Deny");
        throw denied;
      }).then(
        () => "connected",
        (error: unknown) => error,
      );
      expect(outcome).toBe(denied);

      expect(run).toBeDefined();
      const sent = provider.authorizationUrls.at(-1)!;
      expect(provider.states).toHaveLength(1);
      expect(sent.searchParams.get("state")).toBe(provider.states[0]!);
      expect(run!.hit.error).toBe("access_denied");
      expect(run!.hit.errorDescription).toBeTruthy();
      expect(run!.hit.state).toBe(provider.states[0]!);
      expect(run!.hit.iss).toBe(app.url);
      expect(run!.hit.code).toBeNull();
      expect(run!.consentCsp).toContain("form-action 'self' http://127.0.0.1:*");
      expectClean(run!);
      expect(provider.savedTokens).toBeUndefined();
    },
    TIMEOUT,
  );
});
