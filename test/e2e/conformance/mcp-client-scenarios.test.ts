// @modelcontextprotocol/conformance (0.2.0-alpha.12, pinned in package.json) client scenarios
// against OUR connector client: the package starts its own scenario server, runs
// test/support/conformance-client.ts (src/connectors/mcp-client.ts, mcp-modern.ts and rules.ts
// driven as discovery and calls drive them) with the server's URL, and checks what the client
// sent. Every check of every scenario that applies must succeed (SKIPPED ones are the package's
// own notes on methods a tools-only client never sends: resources/*, prompts/*, and the
// capability checks of a client that declares none). Run under Bun: the package needs
// fs.globSync (docs/decisions.md "Conformance client scenarios").
//
// Scenarios that do not apply, and why:
// - auth/* (metadata discovery, CIMD, scope selection and step-up, token endpoint methods,
//   pre-registration, iss checks, 2025-03-26 fallbacks, resource mismatch, offline access,
//   server migration; the extension ones too): our connector client does not authorize by
//   itself. An admin gives it a static bearer token or OAuth tokens obtained elsewhere
//   (docs/interface.md 2.1); it only refreshes them (src/connectors/oauth-refresh.ts).
// - sse-retry: the client never opens a GET stream nor resumes one with Last-Event-ID; a stream
//   that ends before our response is a failed operation under one total deadline
//   (docs/interface.md B.3, B.4), which is what the scenario's check refuses.
// - elicitation-sep1034-client-defaults and sep-2322-client-request-state: they answer a
//   server's elicitation (and 2026-07-28's input_required with requestState); the client
//   declares no capabilities, there is no person to ask, and an input_required result fails the
//   call (src/connectors/mcp-client.ts).
// - sep-2640-* (skills): an extension the connector client does not implement.
import { expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../../..");
const CLI = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const CLIENT = `${process.execPath} ${join(ROOT, "test/support/conformance-client.ts")}`;

/** [scenario, spec version] pairs: each scenario at every revision it applies to that the client speaks. */
const RUNS: [string, string][] = [
  ["initialize", "2025-11-25"],
  ["initialize", "2025-06-18"],
  ["tools_call", "2025-11-25"],
  ["tools_call", "2025-06-18"],
  ["tools_call", "2026-07-28"],
  ["request-metadata", "2026-07-28"],
  ["http-standard-headers", "2026-07-28"],
  ["http-custom-headers", "2026-07-28"],
  ["http-invalid-tool-headers", "2026-07-28"],
  ["json-schema-ref-no-deref", "2026-07-28"],
  ["json-schema-2020-12-preservation", "2025-11-25"],
  ["json-schema-2020-12-preservation", "2026-07-28"],
];

for (const [scenario, version] of RUNS) {
  test(`conformance client scenario ${scenario} at ${version}`, async () => {
    const out = mkdtempSync(join(tmpdir(), "svc-conformance-client-"));
    try {
      const proc = Bun.spawn([process.execPath, CLI, "client", "--command", CLIENT, "--scenario", scenario, "--spec-version", version, "-o", out], {
        cwd: ROOT,
        stdout: "pipe",
        stderr: "pipe",
        stdin: "ignore",
      });
      const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      const [run] = readdirSync(out);
      expect(run, `${stdout}\n${stderr}`).toBeDefined();
      const checks = JSON.parse(readFileSync(join(out, run!, "checks.json"), "utf8")) as { id: string; name: string; status: string; errorMessage?: string }[];
      const clientErr = readFileSync(join(out, run!, "stderr.txt"), "utf8");
      expect(checks.filter((c) => c.status === "SUCCESS").length, clientErr).toBeGreaterThan(0);
      const bad = checks
        .filter((c) => c.status !== "SUCCESS" && c.status !== "SKIPPED" && c.status !== "INFO")
        .map((c) => `${c.id}/${c.name}: ${c.status} ${c.errorMessage ?? ""}`);
      expect(bad, clientErr).toEqual([]);
      expect(code, `${stderr}\n${clientErr}`).toBe(0);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 90_000);
}
