// Widget SDK: POST /api/sdk/events with a batch of 50 events and
// POST /api/sdk/users/identify, req/s and p99 of ours next to a raw Bun.serve doing the least
// (bench/baseline-server.ts), printed as ratios. Ours runs with the SDK rate limits raised so
// the limiter runs on every request but never refuses. Events: one INSERT of 50 rows per request.
// Identify: the same customer with the same data, as a widget identifies on every page load, so
// after the first request it reads (key, identity setting, customer) and writes nothing.
import { join } from "node:path";
import { childEnv } from "../../test/support/process.ts";
import { hotPath } from "../figures.ts";
import { type Measurement, printComparison } from "../report.ts";
import {
  baselineServer,
  type BenchContext,
  BUN,
  options,
  ROOT,
  ourServer,
  rssMiB,
  runLoad,
  type Scenario,
  type ServerSpec,
  spawnChild,
  startServer,
} from "../runner.ts";
import { BENCH_PASSWORD } from "../mcp.ts";

const HIGH_SDK_LIMITS = {
  SDK_RATE_LIMIT_PER_KEY_IP_PER_MINUTE: "100000000",
  SDK_RATE_LIMIT_PER_ORG_PER_MINUTE: "100000000",
};

const RAW = "raw Bun.serve";

/** `org create` against a database no server holds yet; returns the org's widget key. */
async function widgetKeyOf(env: Record<string, string>, label: string): Promise<string> {
  const proc = spawnChild(
    [BUN, join(ROOT, "src/main.ts"), "org", "create", "--name", "SDK bench", "--admin-email", "sdk-bench@example.com", "--admin-password", BENCH_PASSWORD],
    { env: childEnv({ ...env, SEED_DEMO: "0", NODE_ENV: "production", LOG_LEVEL: "error" }), stdout: "pipe", stderr: "pipe" },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream<Uint8Array>).text(),
    new Response(proc.stderr as ReadableStream<Uint8Array>).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`org create (${label}) exited with code ${code}: ${stderr.slice(0, 500)}`);
  return (JSON.parse(stdout) as { widget_key: string }).widget_key;
}

function scenarios(key: string): Scenario[] {
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const events = Array.from({ length: 50 }, (_, i) => ({
    name: i % 5 === 0 ? "page_viewed" : "clicked",
    properties: { path: `/pricing/${i}`, button: "upgrade" },
  }));
  return [
    {
      name: "POST /api/sdk/events (50 events)",
      method: "POST",
      path: "/api/sdk/events",
      headers,
      body: JSON.stringify({ user_id: "bench-user", session_id: "bench-session", events }),
      expectStatus: 200,
      baseline: true,
      check: (body) => (body.includes('"accepted":50') ? undefined : `unexpected answer: ${body.slice(0, 200)}`),
    },
    {
      name: "POST /api/sdk/users/identify",
      method: "POST",
      path: "/api/sdk/users/identify",
      headers,
      body: JSON.stringify({ user_id: "bench-user", email: "bench-user@example.com", name: "Bench User", custom_fields: { plan: "pro", seats: 12 } }),
      expectStatus: 200,
      baseline: true,
      check: (body) => (body.includes('"user_id":"bench-user"') ? undefined : `unexpected answer: ${body.slice(0, 200)}`),
    },
  ];
}

export async function sdk({ work, pg }: BenchContext): Promise<void> {
  const measurements: Measurement[] = [];
  const targets: { spec: ServerSpec; env?: Record<string, string> }[] = [{ spec: { ...baselineServer(), name: RAW } }];
  // A data directory of its own: `org create` must run before the server holds it.
  const pgliteEnv = { DATA_DIR: join(work, "sdk-data"), LOG_LEVEL: "error", ...HIGH_SDK_LIMITS };
  targets.push({ spec: ourServer("ours, PGlite", pgliteEnv), env: pgliteEnv });
  if ("url" in pg) {
    const pgEnv = { DATABASE_URL: pg.url, SECRET_KEY: pg.secretKey, LOG_LEVEL: "error", ...HIGH_SDK_LIMITS };
    targets.push({ spec: ourServer("ours, PostgreSQL", pgEnv), env: pgEnv });
  } else {
    console.log(`\nsdk: PostgreSQL rows skipped: ${pg.skipped}`);
  }
  const figuresOn = targets.at(-1)!.spec.name; // PostgreSQL when it runs: the targets' database
  for (const target of targets) {
    const key = target.env ? await widgetKeyOf(target.env, target.spec.name) : `ab_live_${"b".repeat(32)}`;
    const server = await startServer(target.spec, work);
    try {
      for (const scenario of scenarios(key)) {
        const { result, loadCpuPct } = await runLoad(server, scenario);
        measurements.push({ scenario: scenario.name, target: target.spec.name, result, loadCpuPct, rssAfterMiB: rssMiB(server.pid) });
        if (target.spec.name === figuresOn) {
          const raw = measurements.find((m) => m.scenario === scenario.name && m.target === RAW)?.result;
          await hotPath(server, scenario, target.spec.name, result, options.connections, raw && { rps: raw.rps, scenario: scenario.name });
        }
      }
    } finally {
      await server.stop();
    }
  }
  printComparison(
    "Widget SDK: closed loop over keep-alive connections, one widget key, one identified user — ours: LOG_LEVEL=error, SDK rate limits raised to 100000000/min (the limiter runs, never refuses)",
    measurements,
    [RAW],
  );
}
