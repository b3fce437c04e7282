// A connector's server learns, next to `_meta.bound_end_user_id`, whether the identity was vouched
// for: `_meta.bound_end_user_verified`. In a widget chat (a fake OpenAI-compatible model asks for
// the connector's tool), a customer proven by a valid user_token is true and a customer who only
// claimed a user_id is false; an MCP client of the org's member binding a customer with `_meta` is
// the org itself naming its customer: true. The third-party server is a real SDK MCP server that
// records every tools/call with its `_meta`.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type McpFixture, statelessJsonServer } from "../support/mcp-servers.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { fakeOpenAi, type FakeLlm } from "../support/fake-llm.ts";
import { userToken } from "../sdk/helpers.ts";
import { connectOk, enableConnector, FLAG, fixtures, type Org, sdkClient, sessionOf, textOf } from "./helpers.ts";

let app: ServedTestApp;
let fake: FakeLlm;
let org: Org;
let server: McpFixture;
const running = fixtures();

beforeAll(async () => {
  fake = await fakeOpenAi();
  app = await serveTestApp({ NODE_ENV: "development", LLM_PROVIDER: "openai", LLM_MODEL: "fake-model", LLM_BASE_URL: fake.baseUrl });
  org = await seedOrg(app, { flags: [FLAG] });
  const auth = await sessionOf(app, org);
  server = await running.start(statelessJsonServer());
  const created = await connectOk(app, auth, { name: "Recorder", slug: "recorder", url: server.url });
  expect(created.status).toBe("connected");
  // In a customer's chat a connector tool runs only when the agent's toggle is switched on.
  await enableConnector(app, auth, org.agent_id, created.id);
}, 60_000);
afterAll(async () => {
  await running.stopAll();
  await app.close();
  await fake.close();
});
beforeEach(() => fake.reset());

/** One chat message whose model asks for the connector's whoami, then answers; the `_meta` the server received. */
async function chatMeta(body: Record<string, unknown>) {
  const before = server.calls.length;
  fake.enqueue({ steps: [{ tool: { name: "mcp__recorder__whoami", arguments: {} } }] }, { steps: [{ text: "Done." }] });
  const res = await app.request("/api/sdk/chat", {
    json: { message: "Who am I over there?", ...body },
    headers: { authorization: `Bearer ${org.widget_key}` },
  });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as { actions: { type: string; name?: string; status?: string }[] };
  expect(answer.actions.filter((a) => a.type === "tool")).toEqual([{ type: "tool", name: "mcp.recorder.whoami", status: "succeeded" }]);
  expect(server.calls.length).toBe(before + 1);
  return server.calls.at(-1)!.meta;
}

describe("_meta.bound_end_user_verified", () => {
  test("a chat customer who only claimed a user_id: false", async () => {
    expect(await chatMeta({ user_id: "claims-to-be-42" })).toEqual({ bound_end_user_id: "claims-to-be-42", bound_end_user_verified: false });
  });

  test("a chat customer proven by a valid user_token: true", async () => {
    const user_token = await userToken(org.identity_secret, { user_id: "proven-42" }, { now: app.clock.now });
    expect(await chatMeta({ user_id: "proven-42", user_token })).toEqual({ bound_end_user_id: "proven-42", bound_end_user_verified: true });
  });

  test("an unverified claim on a verified customer's user_id is bound to its visitor (our id), still false", async () => {
    const user_token = await userToken(org.identity_secret, { user_id: "real-7" }, { now: app.clock.now });
    expect(
      (await app.request("/api/sdk/users/identify", { json: { user_id: "real-7", user_token }, headers: { authorization: `Bearer ${org.widget_key}` } }))
        .status,
    ).toBe(200);
    const meta = (await chatMeta({ user_id: "real-7" })) as Record<string, unknown>;
    expect(meta.bound_end_user_id).not.toBe("real-7");
    expect(meta.bound_end_user_verified).toBe(false);
  });

  test("an MCP client of the org's member binding a customer with _meta: true, even for a customer who was never verified", async () => {
    // The customer exists only as an unverified claim made through the widget key.
    expect(
      (await app.request("/api/sdk/users/identify", { json: { user_id: "walk-in" }, headers: { authorization: `Bearer ${org.widget_key}` } })).status,
    ).toBe(200);
    const client: Client = await sdkClient(app.url, org);
    try {
      const result = await client.callTool({ name: "mcp.recorder.whoami", arguments: {}, _meta: { bound_end_user_id: "walk-in" } });
      expect(JSON.parse(textOf(result))).toEqual({ bound_end_user_id: "walk-in", bound_end_user_verified: true });
      // Without a binding, nothing is said about anyone.
      const unbound = await client.callTool({ name: "mcp.recorder.whoami", arguments: {} });
      expect(JSON.parse(textOf(unbound))).toBeNull();
    } finally {
      await client.close();
    }
  });
});
