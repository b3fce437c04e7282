// The three figures of every hot path (bench/README.md "Targets"): light load (one connection,
// p50/p99), capacity (req/s at saturation, next to raw Bun.serve measured in the same run) and
// open-loop latency (p99 at a fixed offered rate of half the measured capacity). Scenarios call
// hotPath() after their capacity row; run.ts prints the table and the targets last and stores
// everything as JSON for `npm run bench -- report` (bench/report-doc.ts).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform, release, totalmem } from "node:os";
import { dirname, join } from "node:path";
import type { LoadResult } from "./load.ts";
import { fixed, printTable } from "./report.ts";
import { ROOT, type Running, runLoad, type Scenario } from "./runner.ts";

/** Where a run stores its results and `report` reads them (git-ignored). */
export const RESULTS_FILE = join(ROOT, ".cache", "bench-latest.json");

/** Light-load p99 targets in ms, on PostgreSQL; a hot path not named here has only the open-loop target. */
export const LIGHT_P99_TARGET_MS: Record<string, number> = {
  "MCP ping": 1,
  "MCP tools/list": 1,
  "MCP tools/call search_docs": 3,
  "POST /api/sdk/chat/stream (first byte)": 5,
};
/** Open-loop p99 at OPEN_LOOP_SHARE of capacity must stay under this many times the light-load p99. */
export const OPEN_LOOP_FACTOR = 5;
export const OPEN_LOOP_SHARE = 0.5;

type Latency = Pick<LoadResult, "requests" | "errors" | "p50Ms" | "p99Ms" | "maxMs">;
export interface HotPath {
  path: string;
  target: string;
  light: Latency;
  capacity: { rps: number; connections: number; p99Ms: number };
  /** Raw Bun.serve's capacity on the same request (or on the path named in `scenario`), same run. */
  raw?: { rps: number; scenario: string };
  open: Latency & { offeredRps: number; achievedRps: number; scheduleLagMs: number };
}

export interface Machine {
  cpu: string;
  cpus: number;
  memoryGiB: number;
  os: string;
  bun: string;
  /** 1-minute load average when the run started: how busy the machine already was. */
  loadAverage: number;
}

export interface BenchResults {
  at: string;
  command: string;
  durationS: number;
  warmupS: number;
  machine: Machine;
  database: string;
  hotPaths: HotPath[];
}

const hotPaths: HotPath[] = [];
const pick = (r: LoadResult): Latency => ({ requests: r.requests, errors: r.errors, p50Ms: r.p50Ms, p99Ms: r.p99Ms, maxMs: r.maxMs });

/**
 * Light load and open loop for one hot path of one server, after its capacity row: one
 * connection in a closed loop, then an open loop at OPEN_LOOP_SHARE of `capacity.rps`.
 */
export async function hotPath(
  server: Running,
  scenario: Scenario,
  target: string,
  capacity: LoadResult,
  connections: number,
  raw?: HotPath["raw"],
): Promise<HotPath> {
  const light = (await runLoad(server, scenario, 1)).result;
  const rate = Math.max(1, Math.round(capacity.rps * OPEN_LOOP_SHARE));
  const open = (await runLoad(server, scenario, connections, { rate })).result;
  const row: HotPath = {
    path: scenario.name,
    target,
    light: pick(light),
    capacity: { rps: capacity.rps, connections, p99Ms: capacity.p99Ms },
    raw,
    open: { ...pick(open), offeredRps: rate, achievedRps: open.rps, scheduleLagMs: open.scheduleLagMs ?? Number.NaN },
  };
  hotPaths.push(row);
  return row;
}

export function machine(): Machine {
  let os = `${platform()} ${release()}`;
  try {
    const name = /^PRETTY_NAME="?([^"\n]*)"?/m.exec(readFileSync("/etc/os-release", "utf8"))?.[1];
    if (name) os = `${name}, kernel ${release()}`;
  } catch {}
  return {
    cpu: cpus()[0]?.model.trim() ?? "unknown",
    cpus: cpus().length,
    memoryGiB: totalmem() / 2 ** 30,
    os,
    bun: Bun.version,
    loadAverage: loadavg()[0] ?? Number.NaN,
  };
}

const verdict = (met: boolean | undefined) => (met === undefined ? "not measured" : met ? "met" : "NOT met");

/** The targets of one row, as text: light-load p99 (where a target exists) and open loop. */
export function targetsOf(row: HotPath): { light?: { limit: number; met: boolean }; open: { limit: number; met: boolean } } {
  const lightLimit = LIGHT_P99_TARGET_MS[row.path];
  const openLimit = OPEN_LOOP_FACTOR * row.light.p99Ms;
  return {
    light: lightLimit === undefined ? undefined : { limit: lightLimit, met: row.light.p99Ms < lightLimit },
    open: { limit: openLimit, met: row.open.errors === 0 && row.open.p99Ms < openLimit },
  };
}

/** The table of all hot paths and their targets, read on `database`; stores the results for `report`. */
export function printHotPaths(database: string, started: Machine, command: string, durationS: number, warmupS: number): void {
  if (hotPaths.length === 0) return;
  printTable(
    `Hot paths: light load (1 connection), capacity (closed loop at saturation) next to raw Bun.serve, open loop at ${OPEN_LOOP_SHARE * 100}% of capacity (latency from each scheduled send)`,
    [
      "path",
      "target",
      "light p50 ms",
      "light p99 ms",
      "capacity req/s",
      "raw req/s",
      "ours/raw",
      "offered req/s",
      "open p50 ms",
      "open p99 ms",
      "open errors",
      "max send lag ms",
    ],
    hotPaths.map((h) => [
      h.path,
      h.target,
      fixed(h.light.p50Ms, 2),
      fixed(h.light.p99Ms, 2),
      fixed(h.capacity.rps, 0),
      fixed(h.raw?.rps, 0),
      h.raw ? `${fixed(h.capacity.rps / h.raw.rps, 2)}×` : "—",
      String(h.open.offeredRps),
      fixed(h.open.p50Ms, 2),
      fixed(h.open.p99Ms, 2),
      String(h.open.errors),
      fixed(h.open.scheduleLagMs, 1),
    ]),
    "ll" + "r".repeat(10),
  );
  const measured = hotPaths.filter((h) => h.target === database);
  console.log(`\nHot-path targets (${database}; goals for people to read, never asserted — see bench/README.md "Targets")`);
  for (const h of measured) {
    const t = targetsOf(h);
    if (t.light) console.log(`- ${h.path}: light-load p99 < ${t.light.limit} ms: ${fixed(h.light.p99Ms, 2)} ms — ${verdict(t.light.met)}`);
    console.log(
      `- ${h.path}: open-loop p99 at ${h.open.offeredRps} req/s (${OPEN_LOOP_SHARE * 100}% of ${fixed(h.capacity.rps, 0)}) < ${OPEN_LOOP_FACTOR}× light-load p99 (${fixed(t.open.limit, 2)} ms): ${fixed(h.open.p99Ms, 2)} ms${h.open.errors ? `, ${h.open.errors} errors` : ""} — ${verdict(t.open.met)}`,
    );
  }
  const results: BenchResults = { at: new Date().toISOString(), command, durationS, warmupS, machine: started, database, hotPaths };
  mkdirSync(dirname(RESULTS_FILE), { recursive: true });
  writeFileSync(RESULTS_FILE, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nresults stored in ${RESULTS_FILE} (npm run bench -- report writes docs/performance.md from them)`);
}
