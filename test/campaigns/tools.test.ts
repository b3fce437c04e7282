// The official MCP SDK client, after the OAuth flow, creates, previews and
// activates a campaign through the automation_* tools, and a customer enrolled through
// POST /api/sdk/series receives the first step on a real SMTP server. Also (raw JSON-RPC, where
// the error code is the point): honest annotations, scopes, input validation, customer binding
// and the tenant boundary.
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { activityLog } from "../../src/db/schema/index.ts";
import { createSender } from "../../src/compose.ts";
import type { Sender } from "../../src/outbox/loop.ts";
import { serveTestApp, type ServedTestApp } from "../support/app.ts";
import { connectWithOAuth, TestOAuthProvider } from "../support/mcp-client.ts";
import { Browserless, consentFields, rpc, tokensFor } from "../support/oauth.ts";
import { startSmtp, type TestSmtp } from "../support/smtp.ts";
import { seedCustomer, seedSeriesOrg, type SeriesOrg, step } from "./helpers.ts";

let smtp: TestSmtp;
let app: ServedTestApp;
let a: SeriesOrg;
let b: SeriesOrg;
let client: Client;
let sender: Sender;
type Json = Record<string, any>;

beforeAll(async () => {
  smtp = await startSmtp();
  app = await serveTestApp({ SMTP_URL: smtp.url, MAIL_FROM: "series@mail.example.com" });
  a = await seedSeriesOrg(app);
  b = await seedSeriesOrg(app);
  const { orgs } = await import("../../src/db/schema/index.ts");
  // Activation reaches customers (destructiveHint): MCP clients may call it only where the org allows destructive tools.
  await app.deps.db
    .update(orgs)
    .set({ featureFlags: { mcp_destructive_tools: true } })
    .where(eq(orgs.id, a.org_id));
  const authorize = async (url: URL) => {
    const ua = new Browserless(app);
    await ua.signIn(a.admin_email, a.password);
    const page = await (await ua.get(url.pathname + url.search)).text();
    const answer = await ua.post("/api/mcp/oauth/consent", { ...consentFields(page), decision: "allow" });
    return new URL(answer.headers.get("location")!).searchParams.get("code")!;
  };
  ({ client } = await connectWithOAuth(
    app.url,
    new TestOAuthProvider("http://127.0.0.1:53692/callback", async () => {}, { scope: "automation:read automation:write" }),
    authorize,
  ));
  sender = createSender(app.deps);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await sender.stop();
  await app.close();
  await smtp.close();
}, 30_000);

async function sdkCall(name: string, args: Json): Promise<Json> {
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError).toBe(false);
  return JSON.parse((result.content as { text: string }[])[0]!.text) as Json;
}

test("SDK client creates, previews and activates; a customer enrolled through /api/sdk/series gets the first step", async () => {
  const tools = (await client.listTools()).tools;
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of [
    "automation_list_campaigns",
    "automation_get_campaign",
    "automation_create_campaign",
    "automation_edit_campaign",
    "automation_preview_campaign",
    "automation_activate_campaign",
    "automation_pause_campaign",
  ])
    expect(byName.has(name)).toBe(true);
  expect(byName.get("automation_activate_campaign")!.annotations?.destructiveHint).toBe(true);
  expect(byName.get("automation_create_campaign")!.annotations?.destructiveHint).toBe(false);

  const created = await sdkCall("automation_create_campaign", {
    name: "Trial onboarding",
    slug: "trial",
    sender: { name: "Acme" },
    steps: [step('Welcome {{first_name | "friend"}}', 0), step("Day two", 86_400)],
  });
  expect(created).toMatchObject({ slug: "trial", status: "draft" });
  const customer = await seedCustomer(app, a.org_id, { name: "Grace Hopper", email: "grace@example.com", externalId: "grace" });
  const preview = await sdkCall("automation_preview_campaign", { campaign: "trial", customer_id: "grace" });
  expect(preview.customer).toMatchObject({ sample: false, id: customer.id });
  expect(preview.steps.map((s: Json) => s.subject)).toEqual(["Welcome Grace", "Day two"]);
  expect((await sdkCall("automation_preview_campaign", { campaign: "trial" })).steps[0].subject).toBe("Welcome Alex");
  const edited = await sdkCall("automation_edit_campaign", { campaign: "trial", name: "Trial onboarding v2" });
  expect(edited.name).toBe("Trial onboarding v2");
  expect(smtp.received).toHaveLength(0);
  expect((await sdkCall("automation_activate_campaign", { campaign: created.id })).status).toBe("active");
  expect((await sdkCall("automation_get_campaign", { campaign: "trial" })).status).toBe("active");
  expect((await sdkCall("automation_list_campaigns", { status: "active" })).campaigns.map((c: Json) => c.slug)).toEqual(["trial"]);

  // The org's site enrols a new customer with the widget key and a user_token its backend signed
  // (email series reach verified customers only).
  const userToken = await new SignJWT({ user_id: "new-signup", email: "new.signup@example.com" })
    .setProtectedHeader({ alg: "HS256" })
    .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
    .sign(new TextEncoder().encode(a.identity_secret));
  const res = await fetch(`${app.url}/api/sdk/series`, {
    method: "POST",
    headers: { authorization: `Bearer ${a.widget_key}`, "content-type": "application/json", origin: "https://shop.example" },
    body: JSON.stringify({ campaign: "trial", action: "enroll", user_id: "new-signup", user_token: userToken }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("access-control-allow-origin")).toBe("*");
  await sender.tick();
  expect(smtp.received.map((m) => [m.to[0], m.headers.get("subject")])).toEqual([["new.signup@example.com", "Welcome friend"]]);
  expect(smtp.received[0]!.headers.get("list-unsubscribe")).toStartWith(`<${app.url}/u/`);

  expect((await sdkCall("automation_pause_campaign", { campaign: "trial" })).status).toBe("paused");
  // Every write was recorded with the token as the actor.
  const rows = await app.deps.db
    .select()
    .from(activityLog)
    .where(and(eq(activityLog.orgId, a.org_id), eq(activityLog.objectId, created.id)));
  expect(
    rows
      .filter((r) => r.actorKind === "token")
      .map((r) => r.action)
      .sort(),
  ).toEqual(["campaign.activated", "campaign.created", "campaign.paused", "campaign.updated"]);
}, 60_000);

describe("raw JSON-RPC", () => {
  async function call(token: string, name: string, args: Json, meta?: Json) {
    const { body } = await rpc(app, token, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
    });
    return body as Json;
  }

  test("scopes: a read-only token lists and previews but cannot create or activate", async () => {
    const { accessToken } = await tokensFor(app, a, "automation:read", "198.51.100.60");
    expect((await call(accessToken, "automation_list_campaigns", {})).result.isError).toBe(false);
    const denied = await call(accessToken, "automation_create_campaign", { name: "x" });
    expect(denied.error.code).toBe(-32002);
    expect(denied.error.data.reason).toBe("scope");
  });

  test("validation: schema limits and template problems are -32602", async () => {
    const { accessToken } = await tokensFor(app, a, "automation:read automation:write", "198.51.100.61");
    expect((await call(accessToken, "automation_create_campaign", { name: "x".repeat(201) })).error.code).toBe(-32602);
    expect((await call(accessToken, "automation_create_campaign", { name: "x", unknown: 1 })).error.code).toBe(-32602);
    expect((await call(accessToken, "automation_create_campaign", { name: "x", steps: [step("{{oops}}")] })).error.code).toBe(-32602);
    expect((await call(accessToken, "automation_edit_campaign", { campaign: "trial" })).error.code).toBe(-32602);
    expect((await call(accessToken, "automation_get_campaign", { campaign: "x".repeat(65) })).error.code).toBe(-32602);
  });

  test("customer binding: a bound call previews only for its customer", async () => {
    const { accessToken } = await tokensFor(app, a, "automation:read", "198.51.100.62");
    const bound = await seedCustomer(app, a.org_id, { name: "Bound Person", externalId: "bound" });
    await seedCustomer(app, a.org_id, { name: "Someone Else", externalId: "else" });
    const own = await call(accessToken, "automation_preview_campaign", { campaign: "trial" }, { bound_end_user_id: bound.id });
    expect(JSON.parse(own.result.content[0].text).steps[0].subject).toBe("Welcome Bound");
    const other = await call(accessToken, "automation_preview_campaign", { campaign: "trial", customer_id: "else" }, { bound_end_user_id: bound.id });
    expect(other.error.code).toBe(-32601);
  });

  test("tenant boundary: org B's token sees none of org A's campaigns or customers", async () => {
    const { accessToken } = await tokensFor(app, b, "automation:read automation:write", "198.51.100.63");
    expect(JSON.parse((await call(accessToken, "automation_list_campaigns", {})).result.content[0].text).campaigns).toEqual([]);
    for (const [name, args] of [
      ["automation_get_campaign", { campaign: "trial" }],
      ["automation_preview_campaign", { campaign: "trial" }],
      ["automation_edit_campaign", { campaign: "trial", name: "pwned" }],
      ["automation_pause_campaign", { campaign: "trial" }],
    ] as const)
      expect([name, (await call(accessToken, name, args)).error.code]).toEqual([name, -32601]);
    const mine = JSON.parse((await call(accessToken, "automation_create_campaign", { name: "B's", steps: [step("B")] })).result.content[0].text);
    expect((await call(accessToken, "automation_preview_campaign", { campaign: mine.id, customer_id: "grace" })).error.code).toBe(-32601);
  });
});
