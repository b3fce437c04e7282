// @modelcontextprotocol/conformance (0.2.0-alpha.12, its newest) against the tool server: every
// server scenario that applies, each check SUCCESS unless listed below with why it does not apply.
// The scenarios speak to an endpoint without OAuth, so a loopback relay adds a member's Bearer
// token (read scopes) and maps /mcp to /api/mcp: the protocol is what is under test here.
// The package needs fs.globSync, so it runs under Bun (Node 20 lacks it).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { seedOrg, serveTestApp, type ServedTestApp } from "../support/app.ts";
import { tokensFor } from "../support/oauth.ts";

const CLI = join(import.meta.dir, "../../node_modules/@modelcontextprotocol/conformance/dist/index.js");

/** Scenarios that apply: the tool server offers tools only (no prompts, resources, logging, sampling or elicitation). */
const SCENARIOS = ["server-initialize", "server-session-lifecycle", "ping", "tools-list", "server-stateless", "caching"];

/** Checks that cannot apply here, and why (everything else must succeed). */
const NOT_APPLICABLE: Record<string, string> = {
  "sep-2575-server-rejects-undeclared-capability": "needs the suite's diagnostic tool test_missing_capability; we ask nothing of clients",
  "sep-2575-missing-capability-http-400": "the same diagnostic tool",
  "sep-2575-http-server-no-independent-requests-on-stream": "needs test_streaming_elicitation; we never stream nor ask for input",
  "sep-2575-server-no-log-without-loglevel": "needs test_logging_tool; we send no log notifications at all",
  "sep-2549-prompts-list-caching-hints": "no prompts (prompts/list is -32601)",
  "sep-2549-resources-list-caching-hints": "no resources",
  "sep-2549-resources-templates-list-caching-hints": "no resource templates",
};

let app: ServedTestApp;
let relay: Server<unknown>;
let out: string;

beforeAll(async () => {
  app = await serveTestApp();
  const org = await seedOrg(app);
  const token = (await tokensFor(app, org, "docs:read data:read inbox:read automation:read setup:read actions:read")).accessToken;
  relay = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const headers = new Headers(req.headers);
      headers.set("authorization", `Bearer ${token}`);
      headers.delete("host");
      const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
      return fetch(`${app.url}${url.pathname === "/mcp" ? "/api/mcp" : url.pathname}${url.search}`, { method: req.method, headers, body });
    },
  });
  out = mkdtempSync(join(tmpdir(), "svc-conformance-"));
}, 30_000);
afterAll(async () => {
  relay.stop(true);
  await app.close();
  rmSync(out, { recursive: true, force: true });
});

for (const scenario of SCENARIOS) {
  test(`conformance server scenario ${scenario}`, async () => {
    const dir = join(out, scenario);
    const proc = Bun.spawn([process.execPath, CLI, "server", "--url", `http://127.0.0.1:${relay.port}/mcp`, "--scenario", scenario, "-o", dir], {
      stdout: "pipe",
      stderr: "pipe",
      stdin: "ignore",
    });
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    const [run] = readdirSync(dir);
    expect(run, `${stdout}\n${stderr}`).toBeDefined();
    const checks = JSON.parse(readFileSync(join(dir, run!, "checks.json"), "utf8")) as { id: string; status: string; errorMessage?: string }[];
    expect(checks.length).toBeGreaterThan(0);
    const failed = checks
      .filter((c) => (c.status === "FAILURE" || c.status === "WARNING") && !(c.id in NOT_APPLICABLE))
      .map((c) => `${c.id}: ${c.errorMessage ?? c.status}`);
    expect(failed).toEqual([]);
  }, 60_000);
}
