// The member's answer on the consent page (RFC 6749 section 4.1.2, section 4.1.2.1, section 10.12 CSRF; RFC 9207;
// docs/interface.md 4.4 POST /api/mcp/oauth/consent) and when consent may be skipped.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mintToken } from "../../../src/crypto/tokens.ts";
import { CONSENT_TTL_MS } from "../../../src/oauth/authorize.ts";
import { createTestApp, type TestApp } from "../../support/app.ts";
import { Browserless, pkcePair } from "../../support/oauth.ts";
import {
  AUTHORIZE_PATH,
  authorizeQuery,
  CODE,
  CONSENT_PATH,
  consentFields,
  issuerOf,
  obtainTokens,
  REDIRECT,
  redeem,
  redirectParams,
  registerClient,
  revoke,
  signedInMember,
  SETUP_TIMEOUT,
} from "./helpers.ts";

let app: TestApp;
let member: Awaited<ReturnType<typeof signedInMember>>;
let browser: Browserless;

beforeAll(async () => {
  app = await createTestApp();
  member = await signedInMember(app);
  browser = member.browser;
}, SETUP_TIMEOUT);
afterAll(() => app.close());

/**
 * Opens the consent page and returns its form fields (and the query, for state). Each call uses a
 * client of its own unless told otherwise: once a client holds a live grant, consent is skipped.
 */
async function openConsent(b: Browserless, client?: string, extra: Record<string, string> = {}) {
  client ??= (await registerClient(app)).client_id;
  const { verifier, challenge } = pkcePair();
  const query = authorizeQuery(client, challenge, extra);
  const res = await b.get(`${AUTHORIZE_PATH}?${new URLSearchParams(query)}`);
  expect(res.status).toBe(200);
  const fields = consentFields(await res.text());
  expect(fields.csrf_token).toMatch(/^svc_csrf_/);
  expect(fields.request_id).toMatch(/^[0-9a-f-]{36}$/);
  return { fields, query, verifier, client };
}

/** POSTs the consent form with the browser's cookie and any extra headers. */
function postConsent(b: Browserless, form: Record<string, string>, headers: Record<string, string> = {}) {
  return app.request(CONSENT_PATH, { form, headers: { ...(b.cookie ? { cookie: b.cookie } : {}), ...headers } });
}

/** Refused: our own page, no redirect, so no code reaches anyone. */
async function expectRefused(res: Response, status: number, text: string) {
  const page = await res.text();
  expect({ status: res.status, location: res.headers.get("location") }).toEqual({ status, location: null });
  expect(res.headers.get("content-type")).toContain("text/html");
  expect(page).toContain(text);
  expect(page).not.toContain("svc_ac_");
}

describe("the answer", () => {
  test("RFC 6749 section 4.1.2 / RFC 9207 section 2: Allow → 303 to the redirect_uri with code, state and iss", async () => {
    const { fields, query, verifier, client } = await openConsent(browser);
    const res = await postConsent(browser, { ...fields, decision: "allow" });
    expect(res.status).toBe(303);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const params = redirectParams(res.headers.get("location"), REDIRECT);
    expect(params.get("code")).toMatch(CODE);
    expect(params.get("state")).toBe(query.state!);
    expect(params.get("iss")).toBe(issuerOf(app));
    expect(params.get("error")).toBeNull();
    // The code is genuine.
    expect((await redeem(app, client, { code: params.get("code")!, verifier, redirectUri: REDIRECT })).status).toBe(200);
  });

  test("RFC 6749 section 4.1.2.1: Deny → redirect with error=access_denied, state and iss, and the form is spent", async () => {
    const { fields, query } = await openConsent(browser);
    const res = await postConsent(browser, { ...fields, decision: "deny" });
    expect(res.status).toBe(303);
    const params = redirectParams(res.headers.get("location"), REDIRECT);
    expect(params.get("error")).toBe("access_denied");
    expect(params.get("error_description") ?? "").toMatch(/denied/);
    expect(params.get("state")).toBe(query.state!);
    expect(params.get("iss")).toBe(issuerOf(app));
    expect(params.get("code")).toBeNull();
    await expectRefused(await postConsent(browser, { ...fields, decision: "allow" }), 400, "expired or was already answered");
  });

  test("RFC 6749 section 4.1.2.1: without state, the answer carries no state but still iss", async () => {
    const { client_id } = await registerClient(app);
    const { challenge } = pkcePair();
    const { state: _, ...query } = authorizeQuery(client_id, challenge);
    const page = await (await browser.get(`${AUTHORIZE_PATH}?${new URLSearchParams(query)}`)).text();
    const res = await postConsent(browser, { ...consentFields(page), decision: "allow" });
    const params = redirectParams(res.headers.get("location"), REDIRECT);
    expect(params.has("state")).toBe(false);
    expect(params.get("iss")).toBe(issuerOf(app));
  });

  test("docs/interface.md 4.4: a decision other than allow or deny issues nothing and leaves the form usable", async () => {
    const { fields } = await openConsent(browser);
    await expectRefused(await postConsent(browser, { ...fields, decision: "maybe" }), 400, "Choose Allow or Deny");
    expect((await postConsent(browser, { ...fields, decision: "allow" })).status).toBe(303);
  });

  test("RFC 6749 section 4.1.1: an org the member does not belong to is refused", async () => {
    const { fields } = await openConsent(browser);
    await expectRefused(await postConsent(browser, { ...fields, decision: "allow", org_id: crypto.randomUUID() }), 400, "Choose one of your organisations");
  });
});

describe("anti-CSRF (RFC 6749 section 10.12)", () => {
  test("RFC 6749 section 10.12: a consent post without the CSRF token is refused and issues no code", async () => {
    const { fields } = await openConsent(browser);
    const { csrf_token: _, ...withoutToken } = fields;
    await expectRefused(await postConsent(browser, { ...withoutToken, decision: "allow" }), 400, "expired or was already answered");
  });

  test("RFC 6749 section 10.12: a consent post with a wrong CSRF token is refused", async () => {
    const { fields } = await openConsent(browser);
    await expectRefused(
      await postConsent(browser, { ...fields, csrf_token: mintToken("svc_csrf_"), decision: "allow" }),
      400,
      "expired or was already answered",
    );
  });

  test("RFC 6749 section 10.12: the same consent form posted twice is refused the second time (one-time token)", async () => {
    const { fields } = await openConsent(browser);
    const first = await postConsent(browser, { ...fields, decision: "allow" });
    expect(first.status).toBe(303);
    await expectRefused(await postConsent(browser, { ...fields, decision: "allow" }), 400, "expired or was already answered");
    await expectRefused(await postConsent(browser, { ...fields, decision: "deny" }), 400, "expired or was already answered");
  });

  test(
    "RFC 6749 section 10.12: a consent token bound to one session is refused from another session",
    async () => {
      const otherSession = new Browserless(app);
      await otherSession.signIn(member.org.admin_email, member.org.password); // same member, another session
      expect(otherSession.cookie).not.toBe(browser.cookie);
      const { fields } = await openConsent(browser);
      await expectRefused(await postConsent(otherSession, { ...fields, decision: "allow" }), 400, "expired or was already answered");
      // The refusal was about the session: the owner of the form can still answer it.
      expect((await postConsent(browser, { ...fields, decision: "allow" })).status).toBe(303);
    },
    SETUP_TIMEOUT,
  );

  test("RFC 6749 section 10.12: a cross-site consent post (Sec-Fetch-Site: cross-site) is 403", async () => {
    const { fields } = await openConsent(browser);
    await expectRefused(await postConsent(browser, { ...fields, decision: "allow" }, { "sec-fetch-site": "cross-site" }), 403, "posted from another site");
    await expectRefused(await postConsent(browser, { ...fields, decision: "allow" }, { "sec-fetch-site": "same-site" }), 403, "posted from another site");
    await expectRefused(await postConsent(browser, { ...fields, decision: "allow" }, { origin: "https://evil.example" }), 403, "posted from another site");
    // A same-origin post of the same form is accepted: the refusals did not spend it.
    expect((await postConsent(browser, { ...fields, decision: "allow" }, { "sec-fetch-site": "same-origin", origin: app.deps.config.baseUrl })).status).toBe(
      303,
    );
  });

  test("RFC 6749 section 10.12: a consent post without a session is refused", async () => {
    const { fields } = await openConsent(browser);
    await expectRefused(await postConsent(new Browserless(app), { ...fields, decision: "allow" }), 401, "session has ended");
  });

  test("docs/interface.md 4.4: a consent form left open longer than 10 minutes is refused", async () => {
    const { fields } = await openConsent(browser);
    app.clock.advance(CONSENT_TTL_MS);
    await expectRefused(await postConsent(browser, { ...fields, decision: "allow" }), 400, "expired or was already answered");
  });
});

describe("when consent is skipped", () => {
  test("RFC 6749 section 4.1.1 / docs/interface.md 4.4: skipped (direct 302 with a code, state and iss) when the client holds a live grant for the same member, org and scopes", async () => {
    const { client_id } = await registerClient(app);
    await obtainTokens(app, browser, client_id, { extra: { scope: "docs:read data:read" } });
    const { verifier, challenge } = pkcePair();
    // Same scopes in another order.
    const query = authorizeQuery(client_id, challenge, { scope: "data:read docs:read" });
    const res = await browser.get(`${AUTHORIZE_PATH}?${new URLSearchParams(query)}`);
    expect(res.status).toBe(302);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const params = redirectParams(res.headers.get("location"), REDIRECT);
    expect(params.get("code")).toMatch(CODE);
    expect(params.get("state")).toBe(query.state!);
    expect(params.get("iss")).toBe(issuerOf(app));
    const tokens = await redeem(app, client_id, { code: params.get("code")!, verifier, redirectUri: REDIRECT });
    expect(tokens.status).toBe(200);
    expect(((await tokens.json()) as { scope: string }).scope).toBe("docs:read data:read");
  });

  test("docs/interface.md 4.4: shown again for different scopes (narrower or wider)", async () => {
    const { client_id } = await registerClient(app);
    await obtainTokens(app, browser, client_id, { extra: { scope: "docs:read data:read" } });
    for (const scope of ["docs:read", "docs:read data:read data:write"]) {
      const { challenge } = pkcePair();
      const res = await browser.get(`${AUTHORIZE_PATH}?${new URLSearchParams(authorizeQuery(client_id, challenge, { scope }))}`);
      expect({ scope, status: res.status }).toEqual({ scope, status: 200 });
      expect(await res.text()).toContain('name="csrf_token"');
    }
  });

  test("docs/interface.md 4.4: shown for another client, even with the same member and scopes", async () => {
    const { client_id: a } = await registerClient(app);
    const { client_id: b } = await registerClient(app);
    await obtainTokens(app, browser, a, { extra: { scope: "docs:read" } });
    const { challenge } = pkcePair();
    const res = await browser.get(`${AUTHORIZE_PATH}?${new URLSearchParams(authorizeQuery(b, challenge, { scope: "docs:read" }))}`);
    expect(res.status).toBe(200);
  });

  test("RFC 7009 section 2.1 / docs/interface.md 4.4: shown again once the grant was revoked", async () => {
    const { client_id } = await registerClient(app);
    const tokens = await obtainTokens(app, browser, client_id, { extra: { scope: "docs:read" } });
    expect((await revoke(app, client_id, tokens.refresh_token)).status).toBe(200);
    const { challenge } = pkcePair();
    const res = await browser.get(`${AUTHORIZE_PATH}?${new URLSearchParams(authorizeQuery(client_id, challenge, { scope: "docs:read" }))}`);
    expect(res.status).toBe(200);
  });

  test(
    "docs/interface.md 4.4: shown for another member of the service holding no grant",
    async () => {
      const { client_id } = await registerClient(app);
      await obtainTokens(app, browser, client_id, { extra: { scope: "docs:read" } });
      const stranger = await signedInMember(app);
      const { challenge } = pkcePair();
      const res = await stranger.browser.get(`${AUTHORIZE_PATH}?${new URLSearchParams(authorizeQuery(client_id, challenge, { scope: "docs:read" }))}`);
      expect(res.status).toBe(200);
    },
    SETUP_TIMEOUT,
  );

  test("OpenID Connect Core docs/interface.md 3.1.2.1 (prompt=consent): the consent page is shown even with a live grant", async () => {
    const { client_id } = await registerClient(app);
    await obtainTokens(app, browser, client_id, { extra: { scope: "docs:read" } });
    const { challenge } = pkcePair();
    const res = await browser.get(`${AUTHORIZE_PATH}?${new URLSearchParams(authorizeQuery(client_id, challenge, { scope: "docs:read", prompt: "consent" }))}`);
    expect(res.status).toBe(200);
  });
});
