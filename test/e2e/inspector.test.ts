// MCP Inspector's CLI mode (@modelcontextprotocol/inspector) lists and calls our tools with an
// Authorization header. The Inspector wants Node ≥ 22; it runs under our pinned Bun.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { createDoc } from "../../src/knowledge/docs.ts";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { tokensFor } from "../support/oauth.ts";
import { ROOT, tempDir } from "../support/process.ts";

const INSPECTOR = join(ROOT, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
let app: ServedTestApp;
let token: string;

beforeAll(async () => {
  app = await serveTestApp();
  const org = await seedOrg(app);
  token = (await tokensFor(app, org)).accessToken;
  await createDoc(app.deps, org.org_id, { title: "Opening hours", body: "Support is open Monday to Friday, nine to five." });
});
afterAll(() => app.close());

async function inspector(...args: string[]) {
  const proc = Bun.spawn(
    [process.execPath, INSPECTOR, "--cli", `${app.url}/api/mcp`, "--transport", "http", "--header", `Authorization: Bearer ${token}`, ...args],
    {
      env: { ...process.env, MCP_CATALOG_PATH: join(tempDir("svc-inspector-"), "mcp.json"), NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

test("Inspector CLI: tools/list with an Authorization header", async () => {
  const { stdout, stderr, code } = await inspector("--method", "tools/list");
  expect(code, stderr).toBe(0);
  const names = (JSON.parse(stdout) as { tools: { name: string }[] }).tools.map((t) => t.name);
  expect(names).toContain("search_docs");
  expect(names).toContain("read_doc");
}, 60_000);

test("Inspector CLI: tools/call search_docs", async () => {
  const { stdout, stderr, code } = await inspector("--method", "tools/call", "--tool-name", "search_docs", "--tool-arg", "query=when are you open");
  expect(code, stderr).toBe(0);
  const result = JSON.parse(stdout) as { content: { type: string; text: string }[]; isError?: boolean };
  expect(result.content).toHaveLength(1);
  expect(JSON.parse(result.content[0]!.text).results[0].title).toBe("Opening hours");
}, 60_000);

test("Inspector CLI without a token is sent to OAuth (401 challenge)", async () => {
  const proc = Bun.spawn([process.execPath, INSPECTOR, "--cli", `${app.url}/api/mcp`, "--transport", "http", "--method", "tools/list"], {
    env: { ...process.env, MCP_CATALOG_PATH: join(tempDir("svc-inspector-"), "mcp.json") },
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  expect(code).not.toBe(0);
  // The Inspector got our 401 challenge, discovered the authorization server and wants a person to sign in.
  expect(stderr).toContain("auth_required");
}, 60_000);
