// `npm run bench`: local, loopback-only benchmarks of svc-agents. See bench/README.md for what
// each figure means. Everything runs as child processes of this script (servers and the load
// generator), each killed when the run ends, fails or is interrupted.
//
// Order: startup first, because it leaves a migrated PGlite DATA_DIR behind that the throughput
// servers then reopen (saving a second first initialisation, several seconds); throughput second.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { childEnv, freePort } from "../test/support/process.ts";
import type { LoadOptions, LoadResult } from "./load.ts";

const ROOT = join(import.meta.dir, "..");
const BUN = process.execPath;

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

const options = {
  durationS: envNumber("BENCH_DURATION", 5, 0.5, false),
  warmupS: envNumber("BENCH_WARMUP", 1, 0, false),
  connections: envNumber("BENCH_CONNECTIONS", 32, 1, true),
  idleS: envNumber("BENCH_IDLE", 3, 0, false),
  /** Admin URL of a PostgreSQL server; "none" skips the PostgreSQL measurements. */
  databaseUrl: process.env.BENCH_DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres",
};

// ---------------------------------------------------------------------------------------------
// Throughput scenarios: each is run against every target that serves it. To compare a new
// endpoint, add it here (and to bench/baseline-server.ts if a raw equivalent makes sense).

interface Scenario {
  name: string;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  expectStatus: number;
  /** Whether the raw baseline serves it too, so the table can show ours/raw. */
  baseline: boolean;
}

const scenarios: Scenario[] = [{ name: "GET /healthz", method: "GET", path: "/healthz", expectStatus: 200, baseline: true }];

// ---------------------------------------------------------------------------------------------
// Child processes and cleanup

const children = new Set<Bun.Subprocess>();
const cleanups: (() => unknown)[] = [];

function spawnChild(command: string[], spawnOptions: Parameters<typeof Bun.spawn>[1]): Bun.Subprocess {
  const proc = Bun.spawn(command, { cwd: ROOT, stdin: "ignore", ...spawnOptions });
  children.add(proc);
  void proc.exited.then(() => children.delete(proc));
  return proc;
}

/** Kills what is still running and runs the registered cleanups (latest first), each once. */
async function cleanUp(): Promise<void> {
  for (const child of children) child.kill("SIGKILL");
  await Promise.all([...children].map((child) => child.exited));
  for (let task = cleanups.pop(); task; task = cleanups.pop()) {
    try {
      await task();
    } catch (error) {
      process.stderr.write(`bench: cleanup failed: ${error instanceof Error ? error.message : String(error)}\n`);
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

interface ServerSpec {
  name: string;
  command: string[];
  env: Record<string, string>;
  /** Polled until it answers 200: that moment is "ready". */
  readyPath: string;
}

interface Running {
  url: string;
  pid: number;
  /** From spawn to the first 200 on readyPath. */
  readyMs: number;
  /** SIGTERM (graceful, so PGlite closes its files and lock), SIGKILL after 10 s. */
  stop(): Promise<void>;
}

function baselineServer(): ServerSpec {
  return { name: "raw Bun.serve", command: [BUN, join(import.meta.dir, "baseline-server.ts")], env: {}, readyPath: "/healthz" };
}

function ourServer(name: string, env: { DATA_DIR?: string; DATABASE_URL?: string; SECRET_KEY?: string; LOG_LEVEL: string }): ServerSpec {
  return { name, command: [BUN, join(ROOT, "src/main.ts"), "serve"], env: { SEED_DEMO: "0", NODE_ENV: "production", ...env }, readyPath: "/readyz" };
}

let logCounter = 0;

async function startServer(spec: ServerSpec, work: string): Promise<Running> {
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
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${spec.name}: exited with code ${proc.exitCode} before it was ready\n${logTail()}`);
    try {
      const res = await fetch(url + spec.readyPath, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`${spec.name}: not ready after 60 s\n${logTail()}`);
    await Bun.sleep(10); // the poll interval bounds the startup figure's resolution
  }
  const readyMs = performance.now() - started;
  return {
    url,
    pid: proc.pid,
    readyMs,
    async stop() {
      proc.kill("SIGTERM");
      const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(10_000).then(() => false)]);
      if (!exited) {
        proc.kill("SIGKILL");
        await proc.exited;
      }
    },
  };
}

/** Resident memory of a process in MiB, from /proc (Linux only; undefined elsewhere). */
function rssMiB(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// Tables

const fixed = (value: number | null | undefined, digits: number) =>
  typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "—";

/** Prints aligned columns. `align` has one letter per column, l or r; the default is text first, numbers after. */
function printTable(title: string, header: string[], rows: string[][], align = `l${"r".repeat(header.length - 1)}`): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells.map((cell, i) => (align[i] === "l" ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ").trimEnd();
  console.log(`\n${title}\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}`);
  for (const row of rows) console.log(line(row));
}

interface Measurement {
  scenario: string;
  target: string;
  result: LoadResult;
  /** CPU the load generator used over its whole run, in % of one core (can pass 100: Bun's fetch has its own thread). */
  loadCpuPct: number;
  rssAfterMiB?: number;
}

/** One row per scenario × target, with req/s relative to the reference target's for the same scenario. */
function printComparison(title: string, measurements: Measurement[], reference: string): void {
  const rows = measurements.map((m) => {
    const ref = measurements.find((r) => r.scenario === m.scenario && r.target === reference);
    const ratio = ref && ref.result.rps > 0 ? `${fixed(m.result.rps / ref.result.rps, 2)}×` : "—";
    return [
      m.scenario, m.target, fixed(m.result.rps, 0), fixed(m.result.p50Ms, 2), fixed(m.result.p99Ms, 2),
      String(m.result.errors), ratio, fixed(m.loadCpuPct, 0), fixed(m.rssAfterMiB, 1),
    ];
  });
  printTable(title, ["scenario", "target", "req/s", "p50 ms", "p99 ms", "errors", `vs ${reference}`, "loadgen CPU %", "RSS after MiB"], rows, "llrrrrrrr");
}

// ---------------------------------------------------------------------------------------------
// Measurements

async function runLoad(server: Running, scenario: Scenario): Promise<{ result: LoadResult; loadCpuPct: number }> {
  // One request first, so a wrong status fails loudly instead of as a table full of errors.
  const probe = await fetch(server.url + scenario.path, { method: scenario.method, headers: scenario.headers, body: scenario.body });
  await probe.arrayBuffer();
  if (probe.status !== scenario.expectStatus) throw new Error(`${scenario.name} answered ${probe.status}, expected ${scenario.expectStatus}`);

  const load: LoadOptions = {
    url: server.url + scenario.path,
    method: scenario.method,
    headers: scenario.headers ?? {},
    body: scenario.body,
    expectStatus: scenario.expectStatus,
    connections: options.connections,
    warmupMs: options.warmupS * 1000,
    durationMs: options.durationS * 1000,
  };
  const started = performance.now();
  const proc = spawnChild([BUN, join(import.meta.dir, "load.ts"), JSON.stringify(load)], { stdout: "pipe", stderr: "inherit" });
  const output = await new Response(proc.stdout as ReadableStream<Uint8Array>).text();
  const code = await proc.exited;
  const wallMs = performance.now() - started;
  if (code !== 0) throw new Error(`load generator exited with code ${code}`);
  const result = JSON.parse(output) as LoadResult;
  if (result.errors > 0) process.stderr.write(`bench: ${scenario.name}: ${result.errors} failed requests (first: ${result.firstError})\n`);
  const cpuUs = proc.resourceUsage()?.cpuTime.total;
  return { result, loadCpuPct: cpuUs === undefined ? Number.NaN : (Number(cpuUs) / 1000 / wallMs) * 100 };
}

interface StartupRow {
  mode: string;
  readyMs?: number;
  idleRssMiB?: number;
  note?: string;
}

/** Starts a server, times it to ready, lets it idle, reads its RSS, stops it. */
async function measureStartup(mode: string, spec: ServerSpec, work: string): Promise<StartupRow> {
  const server = await startServer(spec, work);
  try {
    await Bun.sleep(options.idleS * 1000);
    return { mode, readyMs: server.readyMs, idleRssMiB: rssMiB(server.pid) };
  } finally {
    await server.stop();
  }
}

/** A fresh database on the PostgreSQL server at adminUrl, dropped at cleanup; or why there is none. */
async function freshPostgresDatabase(adminUrl: string): Promise<{ url: string } | { skipped: string }> {
  if (adminUrl === "none") return { skipped: "BENCH_DATABASE_URL=none" };
  const admin = postgres(adminUrl, { max: 1, connect_timeout: 3, onnotice: () => {} });
  const name = `svc_bench_${Buffer.from(crypto.getRandomValues(new Uint8Array(6))).toString("hex")}`;
  try {
    await admin.unsafe(`create database "${name}"`);
  } catch (error) {
    await admin.end({ timeout: 1 });
    return { skipped: `PostgreSQL unreachable at BENCH_DATABASE_URL (${error instanceof Error ? error.message : String(error)})` };
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

async function main(): Promise<void> {
  const began = performance.now();
  console.log(
    `svc-agents benchmarks — bun ${Bun.version}, ${cpus().length} CPUs; ` +
      `${options.connections} connections, ${options.warmupS} s warm-up + ${options.durationS} s per measurement, ${options.idleS} s idle before RSS`,
  );
  const work = mkdtempSync(join(tmpdir(), "svc-bench-"));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const dataDir = join(work, "data");

  // 1+2. Startup time and idle memory.
  const startup: StartupRow[] = [];
  startup.push(await measureStartup("raw Bun.serve (reference)", baselineServer(), work));
  const pglite = ourServer("ours (PGlite)", { DATA_DIR: dataDir, LOG_LEVEL: "error" });
  startup.push(await measureStartup("ours, PGlite, new DATA_DIR", pglite, work));
  startup.push(await measureStartup("ours, PGlite, same DATA_DIR again", pglite, work));
  const pg = await freshPostgresDatabase(options.databaseUrl);
  if ("url" in pg) {
    const secretKey = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
    const spec = ourServer("ours (PostgreSQL)", { DATABASE_URL: pg.url, SECRET_KEY: secretKey, LOG_LEVEL: "error" });
    startup.push(await measureStartup("ours, PostgreSQL, new database", spec, work));
    startup.push(await measureStartup("ours, PostgreSQL, same database again", spec, work));
  } else {
    startup.push({ mode: "ours, PostgreSQL", note: `skipped: ${pg.skipped}` });
  }
  const notes = startup.some((row) => row.note);
  printTable(
    "Startup: spawn → first 200 from /readyz (raw: /healthz); RSS after idling",
    ["mode", "ready ms", "idle RSS MiB", ...(notes ? ["note"] : [])],
    startup.map((row) => [row.mode, fixed(row.readyMs, 0), fixed(row.idleRssMiB, 1), ...(notes ? [row.note ?? ""] : [])]),
    notes ? "lrrl" : "lrr",
  );

  // 3. Throughput, target by target (one server running at a time).
  const reference = "raw Bun.serve";
  const targets: { spec: ServerSpec; baseline: boolean }[] = [
    { spec: baselineServer(), baseline: true },
    { spec: ourServer("ours, PGlite, LOG_LEVEL=error", { DATA_DIR: dataDir, LOG_LEVEL: "error" }), baseline: false },
    // info is the default level: one JSON access-log line per request, written to a file here.
    { spec: ourServer("ours, PGlite, LOG_LEVEL=info", { DATA_DIR: dataDir, LOG_LEVEL: "info" }), baseline: false },
  ];
  const measurements: Measurement[] = [];
  for (const target of targets) {
    const server = await startServer(target.spec, work);
    try {
      for (const scenario of scenarios) {
        if (target.baseline && !scenario.baseline) continue;
        const { result, loadCpuPct } = await runLoad(server, scenario);
        measurements.push({ scenario: scenario.name, target: target.spec.name, result, loadCpuPct, rssAfterMiB: rssMiB(server.pid) });
      }
    } finally {
      await server.stop();
    }
  }
  printComparison("Throughput: closed loop over keep-alive connections (bench/load.ts)", measurements, reference);
  if (measurements.some((m) => m.loadCpuPct > 90))
    console.log("note: loadgen CPU near or above 100 % means the generator was likely the bottleneck there; that req/s is a lower bound for the server.");
  console.log(`\ndone in ${((performance.now() - began) / 1000).toFixed(0)} s`);
}

let exitCode = 0;
try {
  await main();
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n`);
  exitCode = 1;
} finally {
  await cleanUp();
}
process.exit(exitCode);
