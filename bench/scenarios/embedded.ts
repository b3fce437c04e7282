// The embedded database (PGlite, on its worker thread) next to PostgreSQL, side by side: both
// servers are up at once and the same load alternates between them — PostgreSQL, PGlite,
// PostgreSQL, … , PostgreSQL — so that a change in what else the machine runs touches both. Each
// PGlite round is divided by the mean of the two PostgreSQL rounds around it; the figure is the
// median of those ratios. Scenarios: MCP `tools/call search_docs` (at the tool-server
// concurrency) and `POST /api/sdk/chat` (builtin provider, at the chat concurrency). During the
// PGlite rounds the CPU of its server's threads is read from /proc: the HTTP thread and the
// busiest other thread (the database's), in % of one core, so the table says which was the limit.
// And for both, the CPU a request cost: the server process's, plus on PostgreSQL its backends'
// (the bench database's sessions, from pg_stat_activity), in core-milliseconds per request. On a
// machine shared with other work, req/s measures the scheduler's share as much as our cost (a
// two-thread process gets two threads' share; PostgreSQL gets one per backend too); CPU per
// request does not depend on that share, so it is the figure to compare capacities with.
import { readdirSync, readFileSync } from "node:fs";
import postgres from "postgres";
import { join } from "node:path";
import { BENCH_PASSWORD, HIGH_LIMITS_ENV, mintGrants, seedDocs } from "../mcp.ts";
import { EMBEDDED_VS_POSTGRES, fixed, printTable } from "../report.ts";
import { type BenchContext, cpuSeconds, freshPostgresDatabase, options, ourServer, type Running, runLoad, type Scenario, startServer } from "../runner.ts";
import { ADMIN, chatScenario, createOrg, HIGH_SDK_LIMITS } from "./chat.ts";
import { mcpScenario } from "./tool-server.ts";

const ROUNDS = 3; // PGlite rounds; PostgreSQL runs one more
const PG = "ours, PostgreSQL";
const LITE = "ours, PGlite";

/** CPU seconds of each thread of `pid`, by thread id, with its name (Linux only; empty elsewhere). */
function threadCpu(pid: number): Map<string, { name: string; s: number }> {
  const threads = new Map<string, { name: string; s: number }>();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      threads.set(tid, { name: stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")")), s: (Number(fields[11]) + Number(fields[12])) / 100 });
    }
  } catch {}
  return threads;
}

interface Round {
  target: string;
  rps: number;
  p99Ms: number;
  errors: number;
  /** PGlite rounds: the HTTP thread's and the busiest other thread's CPU, % of one core. */
  threads?: { http: number; other: number; otherName: string };
  /** Core-milliseconds per request: the server process, plus PostgreSQL's backends for it. */
  cpuMsPerRequest?: number;
}

/** Process ids of `database`'s PostgreSQL sessions, when PostgreSQL runs on this machine (else none are readable). */
async function backends(sql: postgres.Sql | undefined, database: string): Promise<number[]> {
  if (!sql) return [];
  return (await sql<{ pid: number }[]>`select pid from pg_stat_activity where datname = ${database}`).map((r) => r.pid);
}

async function round(server: Running, target: string, scenario: Scenario, connections: number, pg?: { sql: postgres.Sql; database: string }): Promise<Round> {
  const before = threadCpu(server.pid);
  const pids = [server.pid, ...(await backends(pg?.sql, pg?.database ?? ""))];
  const cpuBefore = pids.map(cpuSeconds);
  const started = performance.now();
  const { result } = await runLoad(server, scenario, connections);
  const wallS = (performance.now() - started) / 1000;
  const cpuS = pids.reduce((sum, pid, i) => sum + ((cpuSeconds(pid) ?? 0) - (cpuBefore[i] ?? 0)), 0);
  // Requests over the whole wall time (warm-up included) at the measured rate: an estimate.
  const r: Round = {
    target,
    rps: result.rps,
    p99Ms: result.p99Ms,
    errors: result.errors,
    cpuMsPerRequest: result.rps > 0 ? (cpuS * 1000) / (result.rps * (options.warmupS + options.durationS)) : undefined,
  };
  if (target === LITE && before.size > 0) {
    const used = [...threadCpu(server.pid)].map(([tid, t]) => ({ tid, name: t.name, pct: ((t.s - (before.get(tid)?.s ?? 0)) / wallS) * 100 }));
    const http = used.find((t) => t.tid === String(server.pid));
    const other = used.filter((t) => t !== http).sort((a, b) => b.pct - a.pct)[0];
    if (http && other) r.threads = { http: http.pct, other: other.pct, otherName: other.name };
  }
  return r;
}

export async function embedded({ work, pg }: BenchContext): Promise<void> {
  if (!("url" in pg)) {
    console.log(`\nembedded vs PostgreSQL: skipped (${pg.skipped})`);
    return;
  }
  const db = await freshPostgresDatabase(options.databaseUrl);
  if (!("url" in db)) {
    console.log(`\nembedded vs PostgreSQL: skipped (${db.skipped})`);
    return;
  }
  const common = { LOG_LEVEL: "error", LLM_PROVIDER: "builtin", ...HIGH_LIMITS_ENV, ...HIGH_SDK_LIMITS };
  const envs = { [PG]: { ...common, DATABASE_URL: db.url, SECRET_KEY: pg.secretKey }, [LITE]: { ...common, DATA_DIR: join(work, "embedded-data") } };
  const servers: Record<string, { server: Running; search: Scenario; chat: Scenario }> = {};
  const dbName = new URL(db.url).pathname.slice(1);
  const admin = postgres(options.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    for (const [target, env] of Object.entries(envs)) {
      const key = await createOrg(env, target);
      const server = await startServer(ourServer(target, env), work);
      servers[target] = { server, search: mcpScenario("tools/call search_docs", "/api/mcp"), chat: chatScenario(key) };
      await seedDocs(server.url, ADMIN, BENCH_PASSWORD);
      const grants = await mintGrants(server.url, ADMIN, BENCH_PASSWORD, options.toolConnections);
      servers[target]!.search = mcpScenario(
        "tools/call search_docs",
        "/api/mcp",
        grants.grants.map((g) => g.accessToken),
      );
    }
    const rows: string[][] = [];
    const summary: string[] = [];
    for (const [label, pick, connections] of [
      ["MCP tools/call search_docs", (s: (typeof servers)[string]) => s.search, options.toolConnections],
      ["POST /api/sdk/chat", (s: (typeof servers)[string]) => s.chat, options.connections],
    ] as const) {
      const rounds: Round[] = [];
      for (let i = 0; i < ROUNDS * 2 + 1; i++) {
        const target = i % 2 === 0 ? PG : LITE;
        rounds.push(
          await round(servers[target]!.server, target, pick(servers[target]!), connections, target === PG ? { sql: admin, database: dbName } : undefined),
        );
      }
      const ratios = rounds.flatMap((r, i) => (r.target === LITE ? [r.rps / ((rounds[i - 1]!.rps + rounds[i + 1]!.rps) / 2)] : []));
      for (const [i, r] of rounds.entries())
        rows.push([
          label,
          String(connections),
          String(i + 1),
          r.target,
          fixed(r.rps, 0),
          fixed(r.p99Ms, 1),
          String(r.errors),
          r.target === LITE ? `${fixed(ratios[(i - 1) / 2], 2)}×` : "",
          fixed(r.cpuMsPerRequest, 2),
          r.threads ? `${fixed(r.threads.http, 0)} / ${fixed(r.threads.other, 0)} (${r.threads.otherName})` : "",
        ]);
      const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
      const cpu = (target: string) => {
        const costs = rounds.filter((r) => r.target === target && r.cpuMsPerRequest !== undefined).map((r) => r.cpuMsPerRequest!);
        return costs.length ? costs.reduce((a, b) => a + b, 0) / costs.length : undefined;
      };
      const [cpuPg, cpuLite] = [cpu(PG), cpu(LITE)];
      summary.push(
        `- ${label}: median ${fixed(median, 2)}× (rounds: ${ratios.map((x) => `${fixed(x, 2)}×`).join(", ")}) — ${median >= EMBEDDED_VS_POSTGRES ? "target met" : "target NOT met"}; ` +
          `CPU per request ${fixed(cpuLite, 2)} vs ${fixed(cpuPg, 2)} core-ms (PostgreSQL's ÷ PGlite's: ${cpuPg && cpuLite ? `${fixed(cpuPg / cpuLite, 2)}×` : "—"})`,
      );
    }
    printTable(
      `Embedded database vs PostgreSQL, side by side (both servers up, rounds alternating; ${options.warmupS} s warm-up + ${options.durationS} s each)`,
      ["scenario", "conns", "round", "target", "req/s", "p99 ms", "errors", "PGlite ÷ PostgreSQL around it", "CPU ms/req", "CPU % HTTP thread / busiest other"],
      rows,
      "lrrlrrrrrl",
    );
    console.log(`\nEmbedded ÷ PostgreSQL req/s ≥ ${EMBEDDED_VS_POSTGRES}× (a goal to read, never asserted)`);
    for (const line of summary) console.log(line);
  } finally {
    await admin.end({ timeout: 1 });
    for (const { server } of Object.values(servers)) await server.stop();
  }
}
