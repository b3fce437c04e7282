// What tools/list says to a fresh org's token holding every scope (destructive tools allowed), byte for byte, against the
// stored answer (fixtures/tools-list.json): tool names, input and output schemas and annotations
// change only on purpose. After a deliberate change, regenerate the file with
// UPDATE_TOOLS_LIST=1 and read its diff.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { systemActor } from "../../src/kit/actor.ts";
import { SCOPES_SUPPORTED } from "../../src/oauth/scopes.ts";
import { setFeatureFlag } from "../../src/orgs/service.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { rpc, tokensFor } from "../support/oauth.ts";

const FIXTURE = join(import.meta.dir, "fixtures/tools-list.json");
let app: ServedTestApp;
let token: string;

beforeAll(async () => {
  app = await serveTestApp();
  const org = await seedOrg(app);
  // Destructive tools are listed over MCP only where the org allows them.
  await setFeatureFlag(app.deps, org.org_id, systemActor("test"), "mcp_destructive_tools", true);
  token = (await tokensFor(app, org, SCOPES_SUPPORTED.join(" "))).accessToken;
});
afterAll(() => app.close());

test("tools/list is what it was, in the oldest and the newest handshake revision", async () => {
  const listed: Record<string, unknown> = {};
  for (const version of ["2025-03-26", "2025-11-25"]) {
    const { res, body } = await rpc(app, token, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-protocol-version": version });
    expect(res.status).toBe(200);
    listed[version] = body.result.tools;
  }
  const text = `${JSON.stringify(listed, null, 1)}\n`;
  if (process.env.UPDATE_TOOLS_LIST === "1") writeFileSync(FIXTURE, text);
  expect((listed["2025-11-25"] as unknown[]).length).toBeGreaterThan(20);
  expect(text).toBe(readFileSync(FIXTURE, "utf8"));
});
