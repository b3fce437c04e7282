// The admin activity log: connector create, refresh and delete,
// agent action toggles, feature flags, OAuth grants (created on consent, revoked by the member, by the client, or on
// reuse) are recorded with who acted; only org:manage reads the log; pages, filters and
// retention at their boundaries; one org never sees another's rows.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { systemActor } from "../../src/kit/actor.ts";
import { ACTIVITY_PAGE, deleteExpiredActivity, recordActivity } from "../../src/activity/log.ts";
import { activityLog, memberships } from "../../src/db/schema/index.ts";
import { createOrg, setFeatureFlag } from "../../src/orgs/service.ts";
import { seedOrg, signIn, type TestApp } from "../support/app.ts";
import { statelessJsonServer } from "../support/mcp-servers.ts";
import { tokensFor, verifyAccessToken } from "../support/oauth.ts";
import { connectOk, devApp, fixtures, type Org, SERVERS, serverById } from "../connectors/helpers.ts";

interface Entry {
  id: string;
  action: string;
  object_type: string;
  object_id: string;
  actor: { kind: string; id: string; member: { id: string; email: string | null } | null; client_id: string | null };
  summary: Record<string, unknown>;
  created_at: string;
}
interface Page {
  items: Entry[];
  next_cursor: string | null;
}

let app: TestApp;
let org: Org;
let auth: Record<string, string>;
let adminId: string;
const running = fixtures();

async function activity(query = "", headers = auth): Promise<Page> {
  const res = await app.request(`/api/activity${query}`, { headers });
  expect(res.status).toBe(200);
  return (await res.json()) as Page;
}

beforeAll(async () => {
  ({ app, org, auth } = await devApp());
  const [membership] = await app.deps.db.select().from(memberships).where(eq(memberships.orgId, org.org_id));
  adminId = membership!.memberId;
});
afterAll(async () => {
  await running.stopAll();
  await app.close();
});

describe("what is recorded, and who did it", () => {
  test("connector created, refreshed and deleted by the signed-in member; no credential in the summary", async () => {
    const upstream = await running.start(statelessJsonServer());
    const created = await connectOk(app, auth, {
      name: "Orders",
      slug: "orders",
      url: `${upstream.url}?key=secret-in-query`,
      auth_method: "bearer",
      credentials: { token: "tok-secret" },
    });
    expect((await app.request(`${SERVERS}/${created.id}`, { method: "PATCH", json: { name: "Orders 2" }, headers: auth })).status).toBe(200);
    expect((await app.request(`${SERVERS}/${created.id}`, { method: "DELETE", headers: auth })).status).toBe(204);

    const { items } = await activity(`?object_id=${created.id}`);
    expect(items.map((e) => e.action)).toEqual(["connector.deleted", "connector.refreshed", "connector.created"]);
    for (const e of items) {
      expect(e.object_type).toBe("connector");
      expect(e.actor).toEqual({
        kind: "member",
        id: adminId,
        member: { id: adminId, email: org.admin_email, name: expect.any(String) },
        client_id: null,
      } as never);
    }
    expect(items[2]!.summary).toEqual({ name: "Orders", slug: "orders", host: new URL(upstream.url).host, auth_method: "bearer" });
    expect(items[1]!.summary).toMatchObject({ before: { name: "Orders" }, after: { name: "Orders 2" }, credentials_replaced: false });
    const raw = JSON.stringify(await app.deps.db.select().from(activityLog));
    expect(raw).not.toContain("tok-secret");
    expect(raw).not.toContain("secret-in-query");
  });

  test("agent action toggles: who switched which actions on and off", async () => {
    const upstream = await running.start(statelessJsonServer());
    const created = await connectOk(app, auth, { name: "Toggled", slug: "toggled", url: upstream.url, auth_method: "none" });
    const actions = (await serverById(app, auth, created.id))!.discovered_tools.map((t) => t.action_id);
    expect(actions.length).toBeGreaterThan(0);
    const res = await app.request(`/api/agents/${org.agent_id}/actions`, { method: "PATCH", json: { enable: actions }, headers: auth });
    expect(res.status).toBe(200);
    const [entry] = (await activity("?action=agent_actions.toggled")).items;
    expect(entry).toMatchObject({
      object_type: "agent",
      object_id: org.agent_id,
      actor: { kind: "member", member: { id: adminId } },
      summary: { enabled: actions, disabled: [] },
    });
  });

  test("a feature flag change records the actor and the value before and after", async () => {
    await setFeatureFlag(app.deps, org.org_id, systemActor("cli"), "mcp_destructive_tools", true);
    await setFeatureFlag(app.deps, org.org_id, systemActor("cli"), "mcp_destructive_tools", false);
    const { items } = await activity("?action=feature_flag.changed");
    expect(items.map((e) => [e.object_id, e.summary, e.actor.kind, e.actor.id])).toEqual([
      ["mcp_destructive_tools", { before: true, after: false }, "system", "cli"],
      ["mcp_destructive_tools", { before: false, after: true }, "system", "cli"],
    ]);
  });

  test("OAuth: consent creates a grant, the member revokes it from the dashboard, and its tokens stop working", async () => {
    const tokens = await tokensFor(app, org, "docs:read");
    const grants = (await (await app.request("/api/oauth/grants", { headers: auth })).json()) as { grants: { id: string; client: { id: string } }[] };
    const grant = grants.grants.find((g) => g.client.id === tokens.clientId)!;
    expect(grant).toBeDefined();
    expect((await app.request(`/api/oauth/grants/${grant.id}`, { method: "DELETE", headers: auth })).status).toBe(204);
    expect(await verifyAccessToken(app, tokens.accessToken)).toBeNull();
    expect((await app.request(`/api/oauth/grants/${grant.id}`, { method: "DELETE", headers: auth })).status).toBe(404);

    const { items } = await activity(`?object_id=${grant.id}`);
    expect(items.map((e) => e.action)).toEqual(["oauth_grant.revoked", "oauth_grant.created"]);
    expect(items[0]!.actor.member?.id).toBe(adminId);
    expect(items[0]!.summary).toEqual({ client_id: tokens.clientId, member_id: adminId, reason: "revoked_by_member" });
  });

  test("OAuth: a client revoking its refresh token (RFC 7009) is recorded with the token as the actor", async () => {
    const tokens = await tokensFor(app, org, "docs:read");
    const res = await app.request("/api/mcp/oauth/revoke", { form: { token: tokens.refreshToken, client_id: tokens.clientId } });
    expect(res.status).toBe(200);
    const [entry] = (await activity("?action=oauth_grant.revoked")).items;
    expect(entry!.actor).toMatchObject({ kind: "token", client_id: tokens.clientId, member: { id: adminId } });
    expect(entry!.summary.reason).toBe("revoked_by_client");
  });

  test("grants: another member's grant is invisible and cannot be revoked without org:manage", async () => {
    const other = await createOrg(app.deps, { name: "Elsewhere", adminEmail: `viewer-${crypto.randomUUID()}@example.com`, adminPassword: "password-1234" });
    const [theirs] = await app.deps.db.select().from(memberships).where(eq(memberships.orgId, other.org_id));
    await app.deps.db.insert(memberships).values({ orgId: org.org_id, memberId: theirs!.memberId, roles: ["integrations:view"] });
    const viewer = { authorization: `Bearer ${await signIn(app, other.admin_email, "password-1234")}`, "x-org-id": org.org_id };
    const mine = await tokensFor(app, org, "docs:read");
    const listed = (await (await app.request("/api/oauth/grants", { headers: viewer })).json()) as { grants: unknown[] };
    expect(listed.grants).toEqual([]);
    const [grant] = (
      (await (await app.request("/api/oauth/grants", { headers: auth })).json()) as { grants: { id: string; client: { id: string } }[] }
    ).grants.filter((g) => g.client.id === mine.clientId);
    expect((await app.request(`/api/oauth/grants/${grant!.id}`, { method: "DELETE", headers: viewer })).status).toBe(404);
    expect(await verifyAccessToken(app, mine.accessToken)).not.toBeNull();

    // A member without org:manage cannot read the log.
    const denied = await app.request("/api/activity", { headers: viewer });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    expect((await app.request("/api/activity")).status).toBe(401);
  });
});

describe("reading the log", () => {
  test("tenant boundary: another org's admin sees none of these rows, and cannot name this org", async () => {
    const stranger = await seedOrg(app);
    const theirAuth = { authorization: `Bearer ${await signIn(app, stranger.admin_email, stranger.password)}` };
    // Only its own first agent, created and activated with the org.
    const theirs = await activity("", theirAuth);
    expect(theirs.items.map((e) => [e.action, e.object_id, e.actor.id])).toEqual([
      ["agent.activated", stranger.agent_id, "cli"],
      ["agent.created", stranger.agent_id, "cli"],
    ]);
    expect((await app.request("/api/activity", { headers: { ...theirAuth, "x-org-id": org.org_id } })).status).toBe(403);
  });

  test("pages of at most 100, newest first, with a cursor that walks every row once", async () => {
    const fresh = await seedOrg(app);
    const freshAuth = { authorization: `Bearer ${await signIn(app, fresh.admin_email, fresh.password)}` };
    for (let i = 0; i < 105; i++) {
      await recordActivity(app.deps, { orgId: fresh.org_id, actor: systemActor("test"), action: "test.step", objectType: "step", objectId: String(i) });
      if (i % 2 === 0) app.clock.advance(1); // some rows share a timestamp: the id breaks the tie
    }
    const first = await activity(`?action=test.step&limit=${ACTIVITY_PAGE.max}`, freshAuth);
    expect(first.items).toHaveLength(100);
    expect(first.items[0]!.object_id).toBe("104");
    const second = await activity(`?action=test.step&limit=100&cursor=${first.next_cursor}`, freshAuth);
    expect(second.items).toHaveLength(5);
    expect(second.next_cursor).toBeNull();
    expect(new Set([...first.items, ...second.items].map((e) => e.object_id)).size).toBe(105);
    expect((await activity("", freshAuth)).items).toHaveLength(ACTIVITY_PAGE.default);

    expect((await app.request("/api/activity?limit=101", { headers: freshAuth })).status).toBe(400);
    expect((await app.request("/api/activity?limit=0", { headers: freshAuth })).status).toBe(400);
    const bad = await app.request("/api/activity?cursor=bm90LWEtY3Vyc29y", { headers: freshAuth });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { details: { path: string }[] } }).error.details[0]!.path).toBe("/cursor");
    expect((await app.request(`/api/activity?action=${"x".repeat(101)}`, { headers: freshAuth })).status).toBe(400);
  });

  test("retention: a row exactly ACTIVITY_RETENTION_DAYS old stays; one millisecond older goes", async () => {
    const kept = await seedOrg(app);
    await recordActivity(app.deps, { orgId: kept.org_id, actor: systemActor("test"), action: "test.retained", objectType: "step", objectId: "old" });
    const days = app.deps.config.activityRetentionDays;
    expect(days).toBe(365);
    app.clock.advance(days * 86_400_000);
    await deleteExpiredActivity(app.deps);
    const count = async () =>
      (
        await app.deps.db
          .select()
          .from(activityLog)
          .where(and(eq(activityLog.orgId, kept.org_id), eq(activityLog.action, "test.retained")))
      ).length;
    expect(await count()).toBe(1);
    app.clock.advance(1);
    await deleteExpiredActivity(app.deps);
    expect(await count()).toBe(0);
  });
});
