// Agent action toggles: GET/PATCH /api/agents/{agent_id}/actions.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { memberships } from "../../src/db/schema/index.ts";
import { createTestApp, seedOrg, signIn, type TestApp } from "../support/app.ts";

/** Tests that sign in or run the OAuth flow (argon2, a fresh org) on a loaded machine. */
const SLOW_MS = 30_000;

/** Setup (a fresh database, an org, a token through the OAuth flow) on a loaded machine. */
const SETUP_MS = 30_000;

let app: TestApp;
let org: Awaited<ReturnType<typeof seedOrg>>;
let auth: Record<string, string>;

beforeAll(async () => {
  app = await createTestApp();
  org = await seedOrg(app);
  auth = { authorization: `Bearer ${await signIn(app, org.admin_email, org.password)}` };
}, SETUP_MS);
afterAll(() => app.close());

type Action = { id: string; source: { kind: string }; name: string; description: string; destructive: boolean; enabled: boolean };

describe("agent actions", () => {
  test("lists every action the org could use with id, source, name, description, destructive, enabled", async () => {
    const res = await app.request(`/api/agents/${org.agent_id}/actions`, { headers: auth });
    expect(res.status).toBe(200);
    const { actions } = (await res.json()) as { actions: Action[] };
    const search = actions.find((a) => a.id === "search_docs")!;
    expect(search).toMatchObject({ name: "search_docs", source: { kind: "builtin" }, destructive: false, enabled: true });
    expect(actions.map((a) => a.id)).toContain("data_update_company");
  });

  test("PATCH enables and disables; unknown ids and contradictions are 400 and change nothing", async () => {
    const off = await app.request(`/api/agents/${org.agent_id}/actions`, { method: "PATCH", json: { disable: ["search_docs", "read_doc"] }, headers: auth });
    expect(off.status).toBe(200);
    const actions = ((await off.json()) as { actions: Action[] }).actions;
    expect(actions.find((a) => a.id === "search_docs")!.enabled).toBe(false);
    const bad = await app.request(`/api/agents/${org.agent_id}/actions`, {
      method: "PATCH",
      json: { enable: ["search_docs", "nope"], disable: ["read_doc"] },
      headers: auth,
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { details: { path: string }[] } }).error.details.map((d) => d.path)).toEqual(["/enable/1"]);
    const both = await app.request(`/api/agents/${org.agent_id}/actions`, {
      method: "PATCH",
      json: { enable: ["read_doc"], disable: ["read_doc"] },
      headers: auth,
    });
    expect(both.status).toBe(400);
    const now = ((await (await app.request(`/api/agents/${org.agent_id}/actions`, { headers: auth })).json()) as { actions: Action[] }).actions;
    expect(now.find((a) => a.id === "search_docs")!.enabled).toBe(false); // nothing changed by the failed calls
    const on = await app.request(`/api/agents/${org.agent_id}/actions`, { method: "PATCH", json: { enable: ["search_docs"] }, headers: auth });
    expect(((await on.json()) as { actions: Action[] }).actions.find((a) => a.id === "search_docs")!.enabled).toBe(true);
  });

  test(
    "another org's agent is 404; integrations:view may read, not change",
    async () => {
      const other = await seedOrg(app);
      expect((await app.request(`/api/agents/${other.agent_id}/actions`, { headers: auth })).status).toBe(404);
      expect((await app.request(`/api/agents/${other.agent_id}/actions`, { method: "PATCH", json: { disable: ["search_docs"] }, headers: auth })).status).toBe(
        404,
      );
      expect((await app.request(`/api/agents/not-a-uuid/actions`, { headers: auth })).status).toBe(404);
      await app.deps.db
        .update(memberships)
        .set({ roles: ["integrations:view"] })
        .where(eq(memberships.orgId, other.org_id));
      const viewer = { authorization: `Bearer ${await signIn(app, other.admin_email, other.password)}` };
      expect((await app.request(`/api/agents/${other.agent_id}/actions`, { headers: viewer })).status).toBe(200);
      expect(
        (await app.request(`/api/agents/${other.agent_id}/actions`, { method: "PATCH", json: { disable: ["search_docs"] }, headers: viewer })).status,
      ).toBe(403);
    },
    SLOW_MS,
  );
});
