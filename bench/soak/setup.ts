// Setting up what the load needs, the way an operator and an integrator would, over HTTP against
// a running instance: an org (the CLI's `org create`), a dashboard session, a published doc for the
// builtin model to answer from, an active one-step email series, one webhook endpoint per receiver,
// a ticket to add notes to, and an MCP access token from the full OAuth flow (register a public
// client, sign in, authorize, consent, exchange the code with PKCE).
import { createHash } from "node:crypto";
import { ROOT, MAIN, childEnv } from "../../test/support/process.ts";
import type { HookReceiver } from "./receivers.ts";

export interface SoakOrg {
  orgId: string;
  widgetKey: string;
  identitySecret: string;
  session: string;
  campaignId: string;
  endpointIds: string[];
  noteTicket: string;
  accessToken: string;
}

async function json(res: Response, expect: number, what: string): Promise<any> {
  const text = await res.text();
  if (res.status !== expect) throw new Error(`${what}: ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

const REDIRECT = "http://127.0.0.1:9/callback";

async function oauthToken(base: string, email: string, password: string, scope: string): Promise<string> {
  const client = await json(
    await fetch(`${base}/api/mcp/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Soak load generator", redirect_uris: [REDIRECT], token_endpoint_auth_method: "none" }),
    }),
    201,
    "client registration",
  );
  const signin = await fetch(`${base}/signin`, { method: "POST", body: new URLSearchParams({ email, password, return_to: "/" }), redirect: "manual" });
  if (signin.status !== 303) throw new Error(`sign-in form: ${signin.status}`);
  const cookie = signin.headers.get("set-cookie")!.split(";")[0]!;
  const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const challenge = createHash("sha256").update(verifier).digest("base64url");
  const query = new URLSearchParams({
    response_type: "code",
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    scope,
  });
  const page = await fetch(`${base}/api/mcp/oauth/authorize?${query}`, { headers: { cookie }, redirect: "manual" });
  if (page.status !== 200) throw new Error(`authorize: ${page.status}`);
  const fields: Record<string, string> = {};
  for (const m of (await page.text()).matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    fields[m[1]!] = m[2]!.replace(/&amp;/g, "&").replace(/&quot;/g, '"');
  const consent = await fetch(`${base}/api/mcp/oauth/consent`, {
    method: "POST",
    headers: { cookie },
    body: new URLSearchParams({ ...fields, decision: "allow" }),
    redirect: "manual",
  });
  if (consent.status !== 303) throw new Error(`consent: ${consent.status} ${(await consent.text()).slice(0, 300)}`);
  const code = new URL(consent.headers.get("location")!).searchParams.get("code");
  if (!code) throw new Error(`consent redirect without a code: ${consent.headers.get("location")}`);
  const token = await json(
    await fetch(`${base}/api/mcp/oauth/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: client.client_id, redirect_uri: REDIRECT }),
    }),
    200,
    "token exchange",
  );
  return token.access_token as string;
}

export async function setUpOrg(base: string, env: Record<string, string>, receivers: HookReceiver[]): Promise<SoakOrg> {
  const email = `soak-${Date.now()}@example.com`;
  const password = `soak-${crypto.randomUUID()}`;
  const cli = Bun.spawn([process.execPath, MAIN, "org", "create", "--name", "Soak", "--admin-email", email, "--admin-password", password], {
    env: childEnv(env),
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(cli.stdout).text(), new Response(cli.stderr).text(), cli.exited]);
  if (code !== 0) throw new Error(`org create: ${err}`);
  const org = JSON.parse(out) as { org_id: string; widget_key: string; identity_secret: string };
  const { token: session } = await json(
    await fetch(`${base}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) }),
    200,
    "session",
  );
  const api = (path: string, body: unknown, expect = 201) =>
    fetch(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${session}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }).then((r) => json(r, expect, path));
  await api("/api/docs", {
    title: "Resetting your password",
    body: "# Resetting your password\n\nOpen Settings, choose Security, then Reset password. A link arrives by email within a minute.",
    status: "published",
  });
  const campaign = await api("/api/campaigns", {
    name: "Soak welcome",
    slug: "soak-welcome",
    steps: [{ subject: 'Welcome, {{first_name | "there"}}', body: "Thanks for joining.", delay_seconds: 0 }],
  });
  await api(`/api/campaigns/${campaign.id}/activate`, {}, 200);
  const endpointIds: string[] = [];
  for (const r of receivers) {
    const ep = await api("/api/webhooks/endpoints", { url: r.url, description: `soak ${r.name}`, event_types: ["ticket.created", "campaign.message.sent"] });
    r.secrets.push(ep.secret);
    endpointIds.push(ep.id);
  }
  const ticket = await fetch(`${base}/api/sdk/tickets/create`, {
    method: "POST",
    headers: { authorization: `Bearer ${org.widget_key}`, "content-type": "application/json" },
    body: JSON.stringify({ subject: "Notes from the soak", message: "A ticket the MCP client adds notes to.", email: "notes@example.com" }),
  }).then((r) => json(r, 201, "ticket"));
  const accessToken = await oauthToken(base, email, password, "docs:read inbox:read inbox:write");
  return {
    orgId: org.org_id,
    widgetKey: org.widget_key,
    identitySecret: org.identity_secret,
    session,
    campaignId: campaign.id,
    endpointIds,
    noteTicket: ticket.id,
    accessToken,
  };
}
