// The authorization endpoint (RFC 6749 section 4.1.1–4.1.2.1 with PKCE RFC 7636, RFC 8707 resource,
// RFC 9207 iss, RFC 8252 loopback redirects; docs/interface.md 4.4; docs/interface.md A.9, A.10).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createOrg } from "../../../src/orgs/service.ts";
import { DEFAULT_SCOPES, SCOPES, type Scope } from "../../../src/oauth/scopes.ts";
import { createTestApp, seedOrg, type TestApp } from "../../support/app.ts";
import { Browserless, pkcePair, verifyAccessToken } from "../../support/oauth.ts";
import {
  AUTHORIZE_PATH,
  authorizeQuery,
  CODE,
  CONSENT_PATH,
  consentFields,
  issuerOf,
  redeem,
  redirectParams,
  registerClient,
  resourceOf,
  signedInMember,
  unescapeHtml,
  SETUP_TIMEOUT,
} from "./helpers.ts";

const CB = "http://127.0.0.1:9/cb";

let app: TestApp;
let browser: Browserless;
let clientId: string;
let challenge: string;

beforeAll(async () => {
  app = await createTestApp();
  ({ browser } = await signedInMember(app));
  ({ client_id: clientId } = await registerClient(app, { client_name: "Acme Agent", redirect_uris: [CB] }));
  ({ challenge } = pkcePair());
}, SETUP_TIMEOUT);
afterAll(() => app.close());

function authorizeUrl(params: Record<string, string> | URLSearchParams): string {
  return `${AUTHORIZE_PATH}?${params instanceof URLSearchParams ? params : new URLSearchParams(params)}`;
}

const query = (extra: Record<string, string> = {}) => authorizeQuery(clientId, challenge, { redirect_uri: CB, ...extra });

/** An error page of our own: HTML, the given status, and no redirect anywhere. */
async function expectErrorPage(res: Response, status: number, text: string) {
  const page = await res.text();
  expect({ status: res.status, location: res.headers.get("location") }).toEqual({ status, location: null });
  expect(res.headers.get("content-type")).toContain("text/html");
  expect(page).toContain(text);
  return page;
}

/** RFC 6749 section 4.1.2.1 + RFC 9207: an error sent back to the client with state and iss. */
async function expectErrorRedirect(res: Response, redirectUri: string, error: string, description: RegExp, state: string | undefined) {
  expect(res.status).toBe(302);
  expect(res.headers.get("cache-control")).toBe("no-store");
  const params = redirectParams(res.headers.get("location"), redirectUri);
  expect(params.get("error")).toBe(error);
  expect(params.get("error_description") ?? "").toMatch(description);
  expect(params.get("state")).toBe(state ?? null);
  expect(params.get("iss")).toBe(issuerOf(app));
  expect(params.get("code")).toBeNull();
  return params;
}

describe("requests that must not be redirected (RFC 6749 section 4.1.2.1, section 3.1.2.4)", () => {
  test("RFC 6749 section 4.1.2.1: an unknown client_id gets an error page (400) and no redirect", async () => {
    const res = await browser.get(authorizeUrl({ ...query(), client_id: "mcp_not_a_registered_client" }));
    await expectErrorPage(res, 400, "not registered");
  });

  test("RFC 6749 section 4.1.2.1: a missing client_id gets an error page and no redirect", async () => {
    const { client_id: _, ...rest } = query();
    await expectErrorPage(await browser.get(authorizeUrl(rest)), 400, "client_id is missing");
  });

  test("RFC 6749 section 3.1.2.4: a redirect_uri the client did not register gets an error page and no redirect", async () => {
    const res = await browser.get(authorizeUrl(query({ redirect_uri: "https://evil.example/cb" })));
    const page = await expectErrorPage(res, 400, "not one it registered");
    expect(page).not.toContain("evil.example");
  });

  test("RFC 6749 section 3.1.2.3: with several registered redirect URIs, omitting redirect_uri gets an error page", async () => {
    const { client_id } = await registerClient(app, { redirect_uris: ["https://a.example.com/cb", "https://b.example.com/cb"] });
    const { redirect_uri: _, ...rest } = authorizeQuery(client_id, challenge);
    await expectErrorPage(await browser.get(authorizeUrl(rest)), 400, "redirect_uri is missing");
  });

  test("RFC 6749 section 3.1.2.3: with one registered redirect URI, redirect_uri may be omitted and errors go there", async () => {
    const { redirect_uri: _, ...rest } = query({ response_type: "token" });
    await expectErrorRedirect(await browser.get(authorizeUrl(rest)), CB, "unsupported_response_type", /response_type/, rest.state);
  });

  test("RFC 6749 section 3.1: a repeated client_id or redirect_uri gets an error page, not a redirect", async () => {
    const params = new URLSearchParams(query());
    params.append("redirect_uri", "https://evil.example/cb");
    await expectErrorPage(await browser.get(authorizeUrl(params)), 400, "repeats client_id or redirect_uri");
  });
});

describe("redirect URI matching (RFC 8252 section 7.3, RFC 9700 section 4.1.3)", () => {
  test("RFC 8252 section 7.3: a loopback redirect registered as http://127.0.0.1:9/cb matches http://127.0.0.1:<any port>/cb", async () => {
    for (const uri of ["http://127.0.0.1:51234/cb", "http://127.0.0.1:9/cb", "http://127.0.0.1/cb", "http://127.0.0.1:65535/cb"]) {
      const res = await browser.get(authorizeUrl(query({ redirect_uri: uri })));
      expect({ uri, status: res.status }).toEqual({ uri, status: 200 });
      expect(await res.text()).toContain(`<strong>${new URL(uri).host}</strong>`);
    }
  });

  test("RFC 8252 section 7.3: the code is sent to the port the request named", async () => {
    // Its own client: exchanging a code gives a live grant, after which consent would be skipped.
    const { client_id } = await registerClient(app, { redirect_uris: [CB] });
    const { verifier, challenge: c } = pkcePair();
    const q = authorizeQuery(client_id, c, { redirect_uri: "http://127.0.0.1:51234/cb" });
    const location = await browser.consent(q);
    expect(`${location.origin}${location.pathname}`).toBe("http://127.0.0.1:51234/cb");
    const code = location.searchParams.get("code")!;
    expect(code).toMatch(CODE);
    expect((await redeem(app, client_id, { code, verifier, redirectUri: "http://127.0.0.1:51234/cb" })).status).toBe(200);
  });

  test("RFC 8252 section 7.3: any port, but not another path, query or host", async () => {
    for (const uri of [
      "http://127.0.0.1:51234/other",
      "http://127.0.0.1:51234/cb/",
      "http://127.0.0.1:51234/cb?x=1",
      "http://localhost:51234/cb",
      "http://127.0.0.2:9/cb",
      "https://127.0.0.1:9/cb",
    ]) {
      const res = await browser.get(authorizeUrl(query({ redirect_uri: uri })));
      expect({ uri, status: res.status, location: res.headers.get("location") }).toEqual({ uri, status: 400, location: null });
    }
  });

  test("RFC 9700 section 4.1.3: a non-loopback redirect URI must match exactly (no port or path leeway)", async () => {
    const { client_id } = await registerClient(app, { redirect_uris: ["https://app.example.com/cb"] });
    for (const uri of [
      "https://app.example.com:8443/cb",
      "https://app.example.com/cb/",
      "https://app.example.com/cb?x=1",
      "https://app.example.com/CB",
      "http://app.example.com/cb",
    ]) {
      const res = await browser.get(authorizeUrl(authorizeQuery(client_id, challenge, { redirect_uri: uri })));
      expect({ uri, status: res.status, location: res.headers.get("location") }).toEqual({ uri, status: 400, location: null });
    }
    const exact = await browser.get(authorizeUrl(authorizeQuery(client_id, challenge, { redirect_uri: "https://app.example.com/cb" })));
    expect(exact.status).toBe(200);
  });

  test("RFC 6749 section 3.1.2: the query of a registered redirect URI is kept in the response", async () => {
    const uri = "https://app.example.com/cb?tenant=7";
    const { client_id } = await registerClient(app, { redirect_uris: [uri] });
    const q = authorizeQuery(client_id, challenge, { redirect_uri: uri, response_type: "token" });
    const params = await expectErrorRedirect(await browser.get(authorizeUrl(q)), uri, "unsupported_response_type", /response_type/, q.state);
    expect(params.get("tenant")).toBe("7");
  });
});

describe("errors sent back to the client (RFC 6749 section 4.1.2.1, RFC 9207 section 2)", () => {
  test("RFC 6749 section 4.1.2.1: response_type=token is redirected with error=unsupported_response_type, state and iss", async () => {
    const q = query({ response_type: "token" });
    await expectErrorRedirect(await browser.get(authorizeUrl(q)), CB, "unsupported_response_type", /response_type must be code/, q.state);
  });

  test("RFC 6749 section 4.1.2.1: a missing response_type is invalid_request (a required parameter is missing)", async () => {
    const { response_type: _, ...q } = query();
    await expectErrorRedirect(await browser.get(authorizeUrl(q)), CB, "invalid_request", /response_type/, q.state);
  });

  test("RFC 7636 section 4.4.1: code_challenge_method=plain is invalid_request", async () => {
    const q = query({ code_challenge_method: "plain" });
    await expectErrorRedirect(await browser.get(authorizeUrl(q)), CB, "invalid_request", /code_challenge_method must be S256/, q.state);
  });

  test("RFC 7636 section 4.4.1: a missing code_challenge_method is invalid_request (S256 only, never defaulting to plain)", async () => {
    const { code_challenge_method: _, ...q } = query();
    await expectErrorRedirect(await browser.get(authorizeUrl(q)), CB, "invalid_request", /code_challenge_method must be S256/, q.state);
  });

  test("RFC 7636 section 4.4.1: a missing code_challenge is invalid_request", async () => {
    const { code_challenge: _, ...q } = query();
    await expectErrorRedirect(await browser.get(authorizeUrl(q)), CB, "invalid_request", /code_challenge is required/, q.state);
  });

  test("RFC 7636 section 4.2: a code_challenge that is not BASE64URL(SHA256(verifier)) in form is invalid_request", async () => {
    const q = query({ code_challenge: "too-short" });
    await expectErrorRedirect(await browser.get(authorizeUrl(q)), CB, "invalid_request", /43 characters/, q.state);
  });

  test("RFC 8707 section 2: a resource other than the tool server is invalid_target", async () => {
    for (const resource of ["https://evil.example/api/mcp", `${resourceOf(app)}/`, app.deps.config.baseUrl]) {
      const q = query({ resource });
      await expectErrorRedirect(await browser.get(authorizeUrl(q)), CB, "invalid_target", /resource must be http:\/\/localhost:3000\/api\/mcp/, q.state);
    }
  });

  test("RFC 8707 section 2 / docs/interface.md A.10: resource = <BASE_URL>/api/mcp is accepted", async () => {
    const res = await browser.get(authorizeUrl(query({ resource: resourceOf(app) })));
    expect(res.status).toBe(200);
  });

  test("RFC 6749 section 4.1.2.1: an unknown scope is invalid_scope", async () => {
    const q = query({ scope: "docs:read admin:everything" });
    await expectErrorRedirect(await browser.get(authorizeUrl(q)), CB, "invalid_scope", /admin:everything/, q.state);
  });

  test("RFC 6749 section 3.1: a repeated parameter is invalid_request", async () => {
    const q = query();
    const params = new URLSearchParams(q);
    params.append("scope", "docs:read");
    params.append("scope", "data:write");
    await expectErrorRedirect(await browser.get(authorizeUrl(params)), CB, "invalid_request", /scope is repeated/, q.state);
  });

  test("RFC 6749 section 4.1.2.1: without state, an error redirect carries no state but still iss", async () => {
    const { state: _, ...q } = query({ response_type: "token" });
    await expectErrorRedirect(await browser.get(authorizeUrl(q)), CB, "unsupported_response_type", /response_type/, undefined);
  });

  test("RFC 6749 section 4.1.2: state is returned byte for byte", async () => {
    const state = "a b&c=d/é?#+%20'\"<>";
    await expectErrorRedirect(
      await browser.get(authorizeUrl(query({ response_type: "token", state }))),
      CB,
      "unsupported_response_type",
      /response_type/,
      state,
    );
  });

  test("RFC 6749 section 3.1: unrecognised parameters are ignored", async () => {
    const res = await browser.get(authorizeUrl(query({ foo: "bar", nonce: "n-1", prompt: "login" })));
    expect(res.status).toBe(200);
  });

  test("RFC 6749 section 4.1.2.1: request errors are reported before asking a signed-out user to sign in", async () => {
    const anonymous = new Browserless(app);
    const q = query({ scope: "nope:nope" });
    await expectErrorRedirect(await anonymous.get(authorizeUrl(q)), CB, "invalid_scope", /nope:nope/, q.state);
  });
});

describe("signing in (docs/interface.md 4.4: unauthenticated users are sent through /signin)", () => {
  test(
    "RFC 6749 section 4.1.1 / docs/interface.md 4.4: a signed-out user gets 302 to /signin?return_to=…, and signing in leads back to the same authorize request",
    async () => {
      const member = await seedOrg(app);
      const anonymous = new Browserless(app);
      const url = authorizeUrl(query({ scope: "docs:read inbox:write" }));
      const first = await anonymous.get(url);
      expect(first.status).toBe(302);
      expect(first.headers.get("cache-control")).toBe("no-store");
      const location = first.headers.get("location")!;
      expect(location).toStartWith("/signin?return_to=");
      expect(new URL(location, app.deps.config.baseUrl).searchParams.get("return_to")).toBe(url);

      // The sign-in page carries return_to into its form…
      const signinPage = await (await anonymous.get(location)).text();
      const hidden = /<input type="hidden" name="return_to" value="([^"]*)">/.exec(signinPage);
      expect(hidden).not.toBeNull();
      const returnTo = unescapeHtml(hidden![1]!);
      expect(returnTo).toBe(url);
      // …and posting it brings the member back to the very same request.
      const signedIn = await anonymous.post("/signin", { email: member.admin_email, password: member.password, return_to: returnTo });
      expect(signedIn.status).toBe(303);
      expect(signedIn.headers.get("location")).toBe(url);
      const consent = await anonymous.get(signedIn.headers.get("location")!);
      expect(consent.status).toBe(200);
      const page = await consent.text();
      expect(page).toContain("Allow Acme Agent to use svc-agents?");
      expect(page).toContain(SCOPES["inbox:write"]);
    },
    SETUP_TIMEOUT,
  );
});

describe("the consent page (RFC 6749 section 4.1.1, docs/interface.md A.10)", () => {
  test("RFC 6749 section 4.1.1 / docs/interface.md A.10: shows the client name, the redirect host, each scope in plain words, and buttons Allow and Deny", async () => {
    const requested: Scope[] = ["docs:read", "inbox:write", "setup:read", "actions:write"];
    const res = await browser.get(authorizeUrl(query({ redirect_uri: "http://127.0.0.1:43210/cb", scope: requested.join(" ") })));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const page = await res.text();
    expect(page).toContain("Acme Agent");
    expect(page).toContain("<strong>127.0.0.1:43210</strong>");
    const items = [...page.matchAll(/<li>([^<]*)<\/li>/g)].map((m) => unescapeHtml(m[1]!));
    expect(items).toEqual(requested.map((s) => SCOPES[s]));
    for (const s of Object.keys(SCOPES) as Scope[]) if (!requested.includes(s)) expect(page).not.toContain(SCOPES[s]);
    // Scope identifiers are not what the member reads.
    expect(page).not.toContain("inbox:write");
    const buttons = Object.fromEntries([...page.matchAll(/<button[^>]*value="([^"]+)"[^>]*>([^<]*)<\/button>/g)].map((m) => [m[1]!, m[2]!]));
    expect(buttons).toEqual({ allow: "Allow", deny: "Deny" });
    expect(page).toContain(`<form method="post" action="${CONSENT_PATH}">`);
  });

  test("RFC 6749 section 3.3: without scope, the default (every read scope) is shown", async () => {
    const { scope: _, ...q } = query();
    const page = await (await browser.get(authorizeUrl(q))).text();
    const items = [...page.matchAll(/<li>([^<]*)<\/li>/g)].map((m) => unescapeHtml(m[1]!));
    expect(items).toEqual(DEFAULT_SCOPES.map((s) => SCOPES[s]));
    expect(DEFAULT_SCOPES.every((s) => s.endsWith(":read"))).toBe(true);
  });

  test("RFC 6749 section 10.13: the consent page cannot be framed (clickjacking)", async () => {
    const res = await browser.get(authorizeUrl(query()));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  test("RFC 6749 section 10.2: a client name with markup is shown as text", async () => {
    const { client_id } = await registerClient(app, { client_name: `Evil <script>alert("x")</script> & Co` });
    const page = await (await browser.get(authorizeUrl(authorizeQuery(client_id, challenge)))).text();
    expect(page).not.toContain("<script>");
    expect(page).toContain("Evil &#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; Co");
  });

  test(
    "RFC 6749 section 4.1.1 (docs/interface.md 4.4): a member of two orgs chooses the org, and the grant is for the chosen one",
    async () => {
      const first = await seedOrg(app, { name: "First Org" });
      const second = await createOrg(app.deps, { name: "Second Org", adminEmail: first.admin_email, adminPassword: first.password });
      const member = new Browserless(app);
      await member.signIn(first.admin_email, first.password);

      const { verifier, challenge: c } = pkcePair();
      const q = authorizeQuery(clientId, c, { redirect_uri: CB });
      const res = await member.get(authorizeUrl(q));
      expect(res.status).toBe(200);
      const page = await res.text();
      expect(page).toContain('<select id="org_id" name="org_id" required>');
      const options = [...page.matchAll(/<option value="([^"]+)">([^<]*)<\/option>/g)].map((m) => [m[1], m[2]]);
      expect(options).toEqual([
        [first.org_id, "First Org"],
        [second.org_id, "Second Org"],
      ]);
      const fields = consentFields(page);
      expect(fields.org_id).toBeUndefined(); // no pre-chosen org

      const answer = await member.post(CONSENT_PATH, { ...fields, decision: "allow", org_id: second.org_id });
      expect(answer.status).toBe(303);
      const params = redirectParams(answer.headers.get("location"), CB);
      const tokens = await redeem(app, clientId, { code: params.get("code")!, verifier, redirectUri: CB });
      expect(tokens.status).toBe(200);
      const { access_token } = (await tokens.json()) as { access_token: string };
      const context = await verifyAccessToken(app.deps, access_token);
      expect(context?.orgId).toBe(second.org_id);

      // A member of several orgs always chooses: the same request again shows the choice.
      const again = await member.get(authorizeUrl(authorizeQuery(clientId, c, { redirect_uri: CB })));
      expect(again.status).toBe(200);
      expect(await again.text()).toContain('<select id="org_id"');
    },
    SETUP_TIMEOUT,
  );
});
