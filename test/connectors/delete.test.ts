// DELETE /api/integrations/mcp/servers/{id} (docs/interface.md 2.2, 3, docs/interface.md 8.2.5): a soft delete — the row
// stays for the audit trail with its credentials column emptied, every discovered tool leaves the
// registry (tools/list, toggles), and action executions keep resolving to the row.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq, like } from "drizzle-orm";
import { actionExecutions, agentActionToggles, connectors } from "../../src/db/schema/index.ts";
import { SNAPSHOT_TTL_MS } from "../../src/tools/registry.ts";
import type { TestApp } from "../support/app.ts";
import { bearerServer, type McpFixture } from "../support/mcp-servers.ts";
import { rpc, tokensFor } from "../support/oauth.ts";
import { agentActions, api, connectOk, connectorRow, devApp, enableConnector, fixtures, listServers, type Org } from "./helpers.ts";

let app: TestApp;
let org: Org;
let auth: Record<string, string>;
let token: string;
let server: McpFixture;
const TOKEN = `bearer-${crypto.randomUUID()}`;
const running = fixtures();

beforeAll(async () => {
  ({ app, org, auth } = await devApp());
  token = (await tokensFor(app, org, "actions:read actions:write")).accessToken;
  server = await running.start(bearerServer({ token: TOKEN }));
});
afterAll(async () => {
  await running.stopAll();
  await app.close();
});

const listNames = async () => {
  const { body } = await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/list" });
  return (body.result.tools as { name: string }[]).map((t) => t.name);
};
const callEcho = (text: string) =>
  rpc(app, token, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "mcp.gone.secret_echo", arguments: { text } } });

describe("DELETE", () => {
  test("204; row kept with deleted_at and EMPTY credentials; tools gone; the audit trail still resolves", async () => {
    const created = await connectOk(app, auth, { name: "To delete", slug: "gone", url: server.url, auth_method: "bearer", credentials: { token: TOKEN } });
    expect(created.status).toBe("connected");
    await enableConnector(app, auth, org.agent_id, created.id);
    expect(await listNames()).toContain("mcp.gone.secret_echo");
    const before = await callEcho("before the delete");
    expect(before.body.result.isError).toBe(false);
    const [execution] = await app.deps.db.select().from(actionExecutions).where(eq(actionExecutions.tool, "mcp.gone.secret_echo"));
    expect(execution).toMatchObject({ sourceKind: "connector", sourceId: created.id, outcome: "ok" });
    expect(Object.keys((await connectorRow(app, created.id)).credentials)).toEqual(["token"]);

    const res = await api(app, auth).disconnect(created.id);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");

    const row = await connectorRow(app, created.id);
    expect(row.deletedAt).not.toBeNull();
    expect(row.credentials).toEqual({});
    expect(JSON.stringify(row)).not.toContain(TOKEN);

    // Gone from the list, the toggles (rows too) and the tool server.
    expect((await listServers(app, auth)).servers.map((s) => s.id)).not.toContain(created.id);
    expect((await agentActions(app, auth, org.agent_id)).filter((a) => a.id.startsWith("mcp.gone."))).toEqual([]);
    const toggles = await app.deps.db
      .select()
      .from(agentActionToggles)
      .where(and(eq(agentActionToggles.agentId, org.agent_id), like(agentActionToggles.actionId, "mcp.gone.%")));
    expect(toggles).toEqual([]);
    app.clock.advance(SNAPSHOT_TTL_MS);
    expect((await listNames()).filter((n) => n.startsWith("mcp.gone."))).toEqual([]);
    const after = await callEcho("after the delete");
    expect(after.body.error.code).toBe(-32601);

    // The execution written before the delete still points at the row, and the row still resolves.
    const [still] = await app.deps.db.select().from(actionExecutions).where(eq(actionExecutions.id, execution!.id));
    expect(still!.sourceId).toBe(created.id);
    const [resolved] = await app.deps.db.select().from(connectors).where(eq(connectors.id, still!.sourceId!));
    expect(resolved).toMatchObject({ id: created.id, slug: "gone", name: "To delete", url: server.url });
  });

  test("a deleted connector is 404 for PATCH and DELETE", async () => {
    const created = await connectOk(app, auth, { name: "Twice", slug: "twice", url: server.url, auth_method: "bearer", credentials: { token: TOKEN } });
    expect((await api(app, auth).disconnect(created.id)).status).toBe(204);
    expect((await api(app, auth).disconnect(created.id)).status).toBe(404);
    expect((await api(app, auth).refresh(created.id)).status).toBe(404);
  });

  test("reconnecting needs the credentials again, and its tools start disabled", async () => {
    const created = await connectOk(app, auth, { name: "Again", slug: "again", url: server.url, auth_method: "bearer", credentials: { token: TOKEN } });
    await enableConnector(app, auth, org.agent_id, created.id);
    expect((await api(app, auth).disconnect(created.id)).status).toBe(204);
    const without = await api(app, auth).connect({ name: "Again", slug: "again", url: server.url, auth_method: "bearer" });
    expect(without.status).toBe(400);
    const again = await connectOk(app, auth, { name: "Again", slug: "again", url: server.url, auth_method: "bearer", credentials: { token: TOKEN } });
    expect(again.id).not.toBe(created.id);
    const actions = (await agentActions(app, auth, org.agent_id)).filter((a) => a.id.startsWith("mcp.again."));
    expect(actions.map((a) => [a.id, a.enabled, a.source.id])).toEqual([["mcp.again.secret_echo", false, again.id]]);
  });
});
