// Preparing our server for the tool-server and OAuth rows of `npm run bench`, over HTTP only, the
// way a person and an MCP client would: seed knowledge-base documents through the dashboard API,
// and obtain OAuth grants through the real authorization-code flow (register a public client,
// sign in with a cookie, authorize, answer the consent form, exchange the code with PKCE).
// Nothing here imports the server's code: the bench is a client of the running process.
import { createHash } from "node:crypto";

/** Password of the org admin the bench creates with the CLI. */
export const BENCH_PASSWORD = "bench-password-not-secret";

/** High per-token and per-action limits: the limiter's code runs on every request but never refuses. */
export const HIGH_LIMITS_ENV = {
  MCP_TOKEN_LIMIT_LIST_PER_MINUTE: "100000000",
  MCP_TOKEN_LIMIT_CALL_PER_MINUTE: "100000000",
  MCP_TOKEN_LIMIT_OTHER_PER_MINUTE: "100000000",
  ACTION_RATE_LIMIT_PER_MINUTE: "100000000",
};

/** What a Streamable HTTP client sends with every POST after initialization. */
export const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-03-26",
};

/** The question every tools/call search_docs row asks (its words are OR-ed by our full-text search). */
export const SEARCH_QUERY = "How do I reset my password if I no longer have access to my email?";

export const MCP_MESSAGES = {
  ping: { jsonrpc: "2.0", id: 1, method: "ping" },
  "tools/list": { jsonrpc: "2.0", id: 1, method: "tools/list" },
  "tools/call search_docs": { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_docs", arguments: { query: SEARCH_QUERY, limit: 5 } } },
} as const;

/** A JSON-RPC error, or a tool result flagged as an error: a 200 that must not count as a success. */
export const MCP_FAILURE_MARKERS = ['"error":{', '"isError":true'];

const REDIRECT_URI = "http://127.0.0.1:9/callback";

export async function expectStatus(res: Response, status: number, what: string): Promise<Response> {
  if (res.status !== status) throw new Error(`${what}: HTTP ${res.status}, expected ${status}: ${(await res.text()).slice(0, 300)}`);
  return res;
}

// ---------------------------------------------------------------------------------------------
// Knowledge base

const TOPICS: { title: string; tags: string[]; sentences: string[] }[] = [
  {
    title: "Resetting your password",
    tags: ["account", "password"],
    sentences: [
      "To reset your password, open the sign-in page and choose Forgot password.",
      "We send a reset link to the email address on your account; the link is valid for one hour.",
      "If you no longer have access to that email address, an administrator of your workspace can set a temporary password for you.",
      "After a reset every other session is signed out, so sign in again on your phone and tablet.",
    ],
  },
  {
    title: "Changing the email address on your account",
    tags: ["account", "email"],
    sentences: [
      "You can change your email address under Settings, Profile.",
      "We confirm the new address with a link before it replaces the old one, and we tell the old address about the change.",
      "If you lost access to your old email, contact support from the address you want to use and we will verify your identity.",
      "Your password stays the same when the email address changes.",
    ],
  },
  {
    title: "Two-factor authentication",
    tags: ["security", "account"],
    sentences: [
      "Two-factor authentication adds a one-time code from an authenticator app to your password.",
      "Keep your recovery codes somewhere safe: each code signs you in once if you lose your phone.",
      "Administrators can require two-factor authentication for everyone in the workspace.",
      "A lost device can be removed from your account by an administrator after they confirm who you are.",
    ],
  },
  {
    title: "Invoices and billing history",
    tags: ["billing"],
    sentences: [
      "Every invoice is listed under Billing, History, and each one can be downloaded as a PDF.",
      "Invoices are sent to the billing email address, which can differ from your own sign-in email.",
      "Add your VAT number before the next renewal so that it appears on the invoice.",
      "Past invoices cannot be edited, but we can issue a credit note and a corrected invoice.",
    ],
  },
  {
    title: "Refunds and cancellations",
    tags: ["billing"],
    sentences: [
      "You can cancel your subscription at any time; it stays active until the end of the paid period.",
      "Annual plans cancelled within fourteen days are refunded in full.",
      "Refunds go back to the card that was charged and usually arrive within five to ten business days.",
      "Deleting your workspace does not cancel the subscription by itself, so cancel first.",
    ],
  },
  {
    title: "API keys",
    tags: ["developers"],
    sentences: [
      "Create API keys under Settings, Developers; each key is shown once, so store it in a secret manager.",
      "A key acts with the permissions of the workspace, not of the person who created it.",
      "Rotate a key by creating a new one, deploying it, and then revoking the old one.",
      "Requests with a revoked key are refused with status 401 within a few seconds everywhere.",
    ],
  },
  {
    title: "Webhooks",
    tags: ["developers", "integrations"],
    sentences: [
      "Webhooks send an HTTP POST to your endpoint when a conversation is created, assigned or closed.",
      "Each delivery is signed with your webhook secret; verify the signature before trusting the body.",
      "Failed deliveries are retried with exponential backoff for up to twenty-four hours.",
      "You can replay any delivery from the last seven days from the webhook's page.",
    ],
  },
  {
    title: "Single sign-on with SAML",
    tags: ["security", "sso"],
    sentences: [
      "Single sign-on lets your team sign in with your identity provider instead of a password.",
      "Upload your provider's metadata and map the email attribute; we create accounts on first sign-in.",
      "When single sign-on is enforced, password resets are handled by your identity provider, not by us.",
      "Keep one administrator who can sign in with a password, in case the identity provider is unavailable.",
    ],
  },
  {
    title: "Exporting your data",
    tags: ["data", "privacy"],
    sentences: [
      "Administrators can export conversations, contacts and articles as CSV or JSON under Settings, Data.",
      "Large exports are prepared in the background and a download link is sent by email.",
      "Download links expire after seven days and require you to be signed in.",
      "Exports include attachments only when you ask for them, because they can be large.",
    ],
  },
  {
    title: "Email notifications",
    tags: ["notifications", "email"],
    sentences: [
      "Choose which events send you an email under Settings, Notifications.",
      "If notification emails do not arrive, check your spam folder and add our sending address to your contacts.",
      "Daily digests collect every unread conversation into one email each morning.",
      "Notifications are sent to your sign-in email address unless you add a different one.",
    ],
  },
];

const FILLER = [
  "This article applies to every plan unless it says otherwise.",
  "Changes take effect immediately and are recorded in the audit log.",
  "If something here does not match what you see, reload the page or contact support.",
  "Screenshots in this article show the web app; the mobile apps follow the same steps.",
];

/** Three documents per topic (30), each a few paragraphs: enough for ranking and snippets to do real work. */
export function benchDocs(): { title: string; body: string; tags: string[]; url: string }[] {
  return TOPICS.flatMap((topic, t) =>
    [0, 1, 2].map((variant) => {
      const paragraphs = [0, 1, 2].map((p) =>
        [
          ...topic.sentences.slice((p + variant) % topic.sentences.length),
          ...topic.sentences.slice(0, (p + variant) % topic.sentences.length),
          FILLER[(t + p + variant) % FILLER.length]!,
        ].join(" "),
      );
      return {
        title: variant === 0 ? topic.title : `${topic.title} (${["troubleshooting", "for administrators"][variant - 1]})`,
        body: paragraphs.join("\n\n"),
        tags: topic.tags,
        url: `https://help.example.com/articles/${t * 3 + variant + 1}`,
      };
    }),
  );
}

/** A dashboard session bearer for a member (`POST /api/auth/session`), as the dashboard obtains one. */
export async function sessionBearer(baseUrl: string, email: string, password: string): Promise<string> {
  const session = await expectStatus(
    await fetch(`${baseUrl}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) }),
    200,
    "POST /api/auth/session",
  );
  return ((await session.json()) as { token: string }).token;
}

/** Creates the bench documents through the dashboard API (`POST /api/docs`) with a session bearer. */
export async function seedDocs(baseUrl: string, email: string, password: string): Promise<number> {
  const token = await sessionBearer(baseUrl, email, password);
  const docs = benchDocs();
  for (const doc of docs) {
    const res = await fetch(`${baseUrl}/api/docs`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ ...doc, status: "published" }),
    });
    await expectStatus(res, 201, "POST /api/docs");
    await res.arrayBuffer();
  }
  return docs.length;
}

// ---------------------------------------------------------------------------------------------
// OAuth grants

export interface Grant {
  accessToken: string;
  refreshToken: string;
}

export interface Grants {
  clientId: string;
  grants: Grant[];
}

function pkcePair() {
  const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

/**
 * `count` independent grants for one public client and one signed-in member, each from its own
 * authorization-code flow: GET /api/mcp/oauth/authorize with the session cookie, answer the
 * consent form with decision=allow (the first time; once the client holds a live grant our server
 * skips consent and redirects with a code at once), then exchange the code at the token endpoint.
 * Each grant has its own access token and its own refresh-token chain.
 */
export async function mintGrants(baseUrl: string, email: string, password: string, count: number): Promise<Grants> {
  const registered = await expectStatus(
    await fetch(`${baseUrl}/api/mcp/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "svc-agents bench", redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: "none" }),
    }),
    201,
    "client registration",
  );
  const clientId = ((await registered.json()) as { client_id: string }).client_id;

  const signIn = await expectStatus(
    await fetch(`${baseUrl}/signin`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email, password, return_to: "/" }).toString(),
      redirect: "manual",
    }),
    303,
    "POST /signin",
  );
  const cookie = signIn.headers.get("set-cookie")?.split(";")[0];
  if (!cookie) throw new Error("POST /signin set no session cookie");

  const oneGrant = async (): Promise<Grant> => {
    const { verifier, challenge } = pkcePair();
    const query = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "bench",
    });
    const authorize = await fetch(`${baseUrl}/api/mcp/oauth/authorize?${query}`, { headers: { cookie }, redirect: "manual" });
    let location: string | null;
    if (authorize.status === 302) {
      location = authorize.headers.get("location"); // consent skipped: this client already holds a live grant
      await authorize.arrayBuffer();
    } else {
      const page = await (await expectStatus(authorize, 200, "GET /api/mcp/oauth/authorize")).text();
      const fields: Record<string, string> = {};
      for (const m of page.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) fields[m[1]!] = m[2]!;
      const consent = await expectStatus(
        await fetch(`${baseUrl}/api/mcp/oauth/consent`, {
          method: "POST",
          headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams({ ...fields, decision: "allow" }).toString(),
          redirect: "manual",
        }),
        303,
        "POST /api/mcp/oauth/consent",
      );
      location = consent.headers.get("location");
      await consent.arrayBuffer();
    }
    const code = location ? new URL(location).searchParams.get("code") : null;
    if (!code) throw new Error(`authorization gave no code (redirected to ${location})`);
    const token = await expectStatus(
      await fetch(`${baseUrl}/api/mcp/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          code_verifier: verifier,
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
        }).toString(),
      }),
      200,
      "authorization_code exchange",
    );
    const body = (await token.json()) as { access_token: string; refresh_token: string };
    return { accessToken: body.access_token, refreshToken: body.refresh_token };
  };

  // The first alone (it goes through the consent form), the rest a few at a time.
  const grants = [await oneGrant()];
  while (grants.length < count) grants.push(...(await Promise.all(Array.from({ length: Math.min(8, count - grants.length) }, oneGrant))));
  return { clientId, grants };
}

// ---------------------------------------------------------------------------------------------
// Tool server

/** POSTs one JSON-RPC message; returns the parsed answer (throws on a non-200 or a JSON-RPC error). */
export async function mcpCall(url: string, message: unknown, bearer?: string): Promise<{ result: Record<string, unknown> }> {
  const res = await expectStatus(
    await fetch(url, { method: "POST", headers: { ...MCP_HEADERS, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) }, body: JSON.stringify(message) }),
    200,
    `POST ${new URL(url).pathname}`,
  );
  const body = (await res.json()) as { result?: Record<string, unknown>; error?: unknown };
  if (!body.result) throw new Error(`POST ${new URL(url).pathname}: ${JSON.stringify(body).slice(0, 300)}`);
  return { result: body.result };
}
