// The shared runner of the benchmark scenarios (bench/scenarios/*.ts): options from the
// environment, child processes (servers, load generator, SDK clients) that are always killed when
// the run ends, fails or is interrupted, starting and timing servers, the closed-loop load, and
// the PostgreSQL database a run uses.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { messageOf } from "../src/errors.ts";
import { childEnv, freePort } from "../test/support/process.ts";
import type { LoadOptions, LoadResult } from "./load.ts";
import { BENCH_PASSWORD } from "./mcp.ts";

export const ROOT = join(import.meta.dir, "..");
export const BUN = process.execPath;

// ---------------------------------------------------------------------------------------------
// Options (environment)

function envNumber(name: string, fallback: number, min: number, integer: boolean): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    process.stderr.write(`bench: ${name} must be ${integer ? "a whole number" : "a number"} ≥ ${min} (got ${JSON.stringify(raw)})\n`);
    process.exit(2);
  }
  return value;
}

export const options = {
  durationS: envNumber("BENCH_DURATION", 5, 0.5, false),
  warmupS: envNumber("BENCH_WARMUP", 1, 0, false),
  connections: envNumber("BENCH_CONNECTIONS", 32, 1, true),
  /** The tool-server, bearer and refresh rows: 64 connections (the p99 target's), or BENCH_CONNECTIONS when set. */
  toolConnections: process.env.BENCH_CONNECTIONS ? envNumber("BENCH_CONNECTIONS", 32, 1, true) : 64,
  /** The connector tools/call rows: 16 connections, or BENCH_CONNECTIONS when set. */
  connectorConnections: process.env.BENCH_CONNECTIONS ? envNumber("BENCH_CONNECTIONS", 32, 1, true) : 16,
  /** Sequential discoveries timed per upstream server and target (after CONNECTOR_WARMUP_RUNS not counted). */
  connectorRuns: envNumber("BENCH_CONNECTOR_RUNS", 30, 1, true),
  idleS: envNumber("BENCH_IDLE", 3, 0, false),
  /** Admin URL of a PostgreSQL server; "none" skips the PostgreSQL measurements. */
  databaseUrl: process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres",
};

// ---------------------------------------------------------------------------------------------
// Load scenarios: one HTTP request shape, driven by bench/load.ts against a running server.

export interface Scenario {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  expectStatus: number;
  /** Whether the raw baseline serves it too, so the table can show ours/raw. */
  baseline: boolean;
  /** Per-connection headers (LoadOptions.connectionHeaders), e.g. one bearer token per connection. */
  connectionHeaders?: Record<string, string>[];
  /** Bodies that count as failures despite the expected status (LoadOptions.failIfBodyIncludes). */
  failIfBodyIncludes?: string[];
  /** OAuth refresh chains (LoadOptions.refreshChain); the probe spends and replaces the first token. */
  refreshChain?: { clientId: string; refreshTokens: string[] };
  /** Latency to the answer's first body byte instead of its last (LoadOptions.firstByte). */
  firstByte?: boolean;
  /** Checks the probe's body: a problem, or undefined when it is the answer expected. */
  check?: (body: string) => string | undefined;
}

/** The unauthenticated floor every target serves: throughput and the bearer-cost comparison start from it. */
export const HEALTHZ: Scenario = { name: "GET /healthz", method: "GET", path: "/healthz", expectStatus: 200, baseline: true };

// ---------------------------------------------------------------------------------------------
// Child processes and cleanup

const children = new Set<Bun.Subprocess>();
export const cleanups: (() => unknown)[] = [];

export function spawnChild(command: string[], spawnOptions: Parameters<typeof Bun.spawn>[1]): Bun.Subprocess {
  const proc = Bun.spawn(command, { cwd: ROOT, stdin: "ignore", ...spawnOptions });
  children.add(proc);
  void proc.exited.then(() => children.delete(proc));
  return proc;
}

/** Kills what is still running and runs the registered cleanups (latest first), each once. */
export async function cleanUp(): Promise<void> {
  for (const child of children) child.kill("SIGKILL");
  await Promise.all([...children].map((child) => child.exited));
  for (let task = cleanups.pop(); task; task = cleanups.pop()) {
    try {
      await task();
    } catch (error) {
      process.stderr.write(`bench: cleanup failed: ${messageOf(error)}\n`);
    }
  }
}

// Last resort: never leave a server behind, even when this process dies abruptly.
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping\n`);
    void cleanUp().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------------------------------------
// Servers

export interface ServerSpec {
  name: string;
  command: string[];
  env: Record<string, string>;
  /** Polled until it answers 200: that moment is "ready". */
  readyPath: string;
}

export interface Running {
  url: string;
  pid: number;
  /** From spawn to the first 200 on readyPath. */
  readyMs: number;
  /** The PostgreSQL database it serves (DATABASE_URL), if any: analysed before each row (`analyzeIfNoAutovacuum`). */
  databaseUrl?: string;
  /** SIGTERM (graceful, so PGlite closes its files and lock), SIGKILL after 10 s. */
  stop(): Promise<void>;
}

export function baselineServer(): ServerSpec {
  return { name: "raw Bun.serve", command: [BUN, join(import.meta.dir, "baseline-server.ts")], env: {}, readyPath: "/healthz" };
}

/** Our server; `root`: another checkout of it (bench/reference.ts). */
export function ourServer(
  name: string,
  env: { DATA_DIR?: string; DATABASE_URL?: string; SECRET_KEY?: string; LOG_LEVEL: string } & Record<string, string>,
  root = ROOT,
): ServerSpec {
  return { name, command: [BUN, join(root, "src/main.ts"), "serve"], env: { SEED_DEMO: "0", NODE_ENV: "production", ...env }, readyPath: "/readyz" };
}

let logCounter = 0;

export async function startServer(spec: ServerSpec, work: string): Promise<Running> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  // stderr (where our logs go) to a file: a pipe would make this process spend CPU reading it
  // during the load test, and the tail of the file explains a failed start.
  const logFile = join(work, `server-${++logCounter}.log`);
  const started = performance.now();
  const proc = spawnChild(spec.command, {
    env: childEnv({ ...spec.env, PORT: String(port), HOST: "127.0.0.1" }),
    stdout: "ignore",
    stderr: Bun.file(logFile),
  });
  const logTail = () => {
    try {
      return readFileSync(logFile, "utf8").slice(-2000);
    } catch {
      return "";
    }
  };
  // A busy machine can take longer to start a server (PGlite's first initialisation): BENCH_READY_S.
  const readyS = Number(process.env.BENCH_READY_S ?? 60);
  const deadline = Date.now() + readyS * 1000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${spec.name}: exited with code ${proc.exitCode} before it was ready\n${logTail()}`);
    try {
      const res = await fetch(url + spec.readyPath, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`${spec.name}: not ready after ${readyS} s\n${logTail()}`);
    await Bun.sleep(10); // the poll interval bounds the startup figure's resolution
  }
  const readyMs = performance.now() - started;
  return {
    url,
    pid: proc.pid,
    readyMs,
    databaseUrl: spec.env.DATABASE_URL || undefined,
    stop: () => stopProcess(proc),
  };
}

/** Whether each PostgreSQL server (by URL without its database) runs autovacuum: asked once. */
const autovacuumOn = new Map<string, Promise<boolean>>();

/**
 * `ANALYZE` on the server's database before a measured row, when that PostgreSQL server's
 * autovacuum is off (docs/decisions.md "Table statistics"): a default server would have analysed
 * tables that grew since, and plans made for empty tables would otherwise be measured. Ours and
 * the reference alike; the run prints a note once.
 */
async function analyzeIfNoAutovacuum(server: Running): Promise<void> {
  if (!server.databaseUrl) return;
  const sql = postgres(server.databaseUrl, { max: 1, connect_timeout: 3, onnotice: () => {} });
  try {
    const host = new URL(server.databaseUrl).host;
    let on = autovacuumOn.get(host);
    if (!on) {
      on = sql`show autovacuum`.then(([row]) => row?.autovacuum === "on");
      autovacuumOn.set(host, on);
      if (!(await on))
        process.stderr.write(`bench: autovacuum is off on the PostgreSQL server at ${host}: each database measured is analysed before each row\n`);
    }
    if (!(await on)) await sql`analyze`;
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Resident memory of a process in MiB, from /proc (Linux only; undefined elsewhere). */
export function rssMiB(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export function fileTail(path: string): string {
  try {
    return readFileSync(path, "utf8").slice(-2000);
  } catch {
    return "";
  }
}

export async function stopProcess(proc: Bun.Subprocess): Promise<void> {
  proc.kill("SIGTERM");
  const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
  if (!exited) {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}

/** CPU time a process has used so far, in seconds, from /proc (Linux only; undefined elsewhere). */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" "); // fields from the 3rd (state) on
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime, in USER_HZ ticks (100 on Linux)
  } catch {
    return undefined;
  }
}

/** Runs `work`; returns its value and the CPU each of `pids` used meanwhile, in % of one core. */
export async function withCpu<T>(pids: number[], work: () => Promise<T>): Promise<{ value: T; cpuPct: (number | undefined)[] }> {
  const before = pids.map(cpuSeconds);
  const started = performance.now();
  const value = await work();
  const wallS = (performance.now() - started) / 1000;
  const cpuPct = pids.map((pid, i) => {
    const [a, b] = [before[i], cpuSeconds(pid)];
    return a === undefined || b === undefined ? undefined : ((b - a) / wallS) * 100;
  });
  return { value, cpuPct };
}

// ---------------------------------------------------------------------------------------------
// Load and databases

/** `open`: an open loop at `rate` requests per second (bench/open-loop.ts) instead of the closed loop. */
export async function runLoad(
  server: Running,
  scenario: Scenario,
  connections = options.connections,
  open?: { rate: number },
): Promise<{ result: LoadResult; loadCpuPct: number }> {
  // One request first, so a wrong status fails loudly instead of as a table full of errors.
  const chain = scenario.refreshChain;
  const probe = await fetch(server.url + scenario.path, {
    method: scenario.method,
    headers: { ...scenario.headers, ...scenario.connectionHeaders?.[0] },
    body: chain
      ? new URLSearchParams({ grant_type: "refresh_token", refresh_token: chain.refreshTokens[0]!, client_id: chain.clientId }).toString()
      : scenario.body,
  });
  const probeBody = await probe.text();
  if (probe.status !== scenario.expectStatus)
    throw new Error(`${scenario.name} answered ${probe.status}, expected ${scenario.expectStatus}: ${probeBody.slice(0, 300)}`);
  const problem = scenario.failIfBodyIncludes?.some((m) => probeBody.includes(m))
    ? `unexpected answer: ${probeBody.slice(0, 300)}`
    : scenario.check?.(probeBody);
  if (problem) throw new Error(`${scenario.name} on ${server.url}: ${problem}`);
  // The probe spent the first chain's token: continue that chain from its successor.
  if (chain) chain.refreshTokens[0] = (JSON.parse(probeBody) as { refresh_token: string }).refresh_token;
  await analyzeIfNoAutovacuum(server);

  const load: LoadOptions = {
    url: server.url + scenario.path,
    method: scenario.method,
    headers: scenario.headers ?? {},
    body: scenario.body,
    expectStatus: scenario.expectStatus,
    connections,
    connectionHeaders: scenario.connectionHeaders,
    failIfBodyIncludes: scenario.failIfBodyIncludes,
    refreshChain: chain,
    serverTiming: true,
    rate: open?.rate,
    firstByte: scenario.firstByte,
    warmupMs: options.warmupS * 1000,
    durationMs: options.durationS * 1000,
  };
  const started = performance.now();
  const proc = spawnChild([BUN, join(import.meta.dir, "load-process.ts"), JSON.stringify(load)], { stdout: "pipe", stderr: "inherit" });
  const output = await new Response(proc.stdout as ReadableStream<Uint8Array>).text();
  const code = await proc.exited;
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`load generator exited with code ${code}`);
  const result = JSON.parse(output) as LoadResult;
  if (result.errors > 0) process.stderr.write(`bench: ${scenario.name}: ${result.errors} failed requests (first: ${result.firstError})\n`);
  const cpuUs = proc.resourceUsage()?.cpuTime.total;
  return { result, loadCpuPct: cpuUs === undefined ? Number.NaN : (Number(cpuUs) / 1000 / wallMs) * 100 };
}

/** A fresh database on the PostgreSQL server at adminUrl, dropped at cleanup; or why there is none. */
export async function freshPostgresDatabase(adminUrl: string): Promise<{ url: string } | { skipped: string }> {
  if (adminUrl === "none") return { skipped: "BENCH_DATABASE_URL=none" };
  const admin = postgres(adminUrl, { max: 1, connect_timeout: 3, onnotice: () => {} });
  const name = `svc_bench_${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex")}`;
  try {
    await admin.unsafe(`create database "${name}"`);
  } catch (error) {
    await admin.end({ timeout: 1 });
    return { skipped: `PostgreSQL unreachable at BENCH_DATABASE_URL (${messageOf(error)})` };
  }
  cleanups.push(async () => {
    try {
      await admin.unsafe(`drop database if exists "${name}" with (force)`); // force: in case a killed server left sessions
    } catch {
      await admin.unsafe(`drop database if exists "${name}"`); // before PostgreSQL 13
    } finally {
      await admin.end({ timeout: 1 });
    }
  });
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString() };
}

/**
 * `bun src/main.ts org create …` against a database no server holds yet (with `--flag` for each
 * of `org.flags`); returns the admin's email and the org's agent id.
 */
export async function createBenchOrg(
  env: Record<string, string>,
  label: string,
  org: { name: string; email: string; flags: string[] } = { name: "Bench org", email: "bench-admin@example.com", flags: [] },
  root = ROOT,
): Promise<{ email: string; agentId: string; widgetKey: string }> {
  const flags = org.flags.flatMap((flag) => ["--flag", flag]);
  const proc = spawnChild(
    [BUN, join(root, "src/main.ts"), "org", "create", "--name", org.name, "--admin-email", org.email, "--admin-password", BENCH_PASSWORD, ...flags],
    {
      env: childEnv({ ...env, SEED_DEMO: "0", NODE_ENV: "production", LOG_LEVEL: "error" }),
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream<Uint8Array>).text(),
    new Response(proc.stderr as ReadableStream<Uint8Array>).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`org create (${label}) exited with code ${code}: ${stderr.slice(0, 500)}`);
  const created = JSON.parse(stdout) as { admin_email: string; agent_id: string; widget_key: string };
  return { email: created.admin_email, agentId: created.agent_id, widgetKey: created.widget_key };
}

/** What every scenario gets: a scratch directory, the PGlite DATA_DIR, and the PostgreSQL database (or why there is none). */
export interface BenchContext {
  work: string;
  dataDir: string;
  pg: { url: string; secretKey: string } | { skipped: string };
}
