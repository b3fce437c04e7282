// Chat: with the builtin provider (no network), POST /api/sdk/chat req/s
// and p99, and POST /api/sdk/chat/stream time to first byte, ours on PGlite and on PostgreSQL next
// to a raw Bun.serve answering the same requests with fixed bodies (bench/baseline-server.ts),
// printed as ratios. Every request is a customer's first message: a new session, the message
// stored, full-text retrieval over the org's docs, the builtin answer, the reply stored.
// Each row of ours on PostgreSQL also gets its light-load and open-loop figures (bench/figures.ts),
// where the targets are read; the closed-loop latencies here are for information.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { childEnv } from "../../test/support/process.ts";
import { summarize, type LoadResult } from "../load.ts";
import { BENCH_PASSWORD, seedDocs } from "../mcp.ts";
import { hotPath, machine } from "../figures.ts";
import { CHAT_REFERENCE_FILE, type ChatReference } from "../chat-reference.ts";
import { fixed, type Measurement, printComparison, printEmbeddedRatio, printTable } from "../report.ts";
import { referenceCheckout } from "../reference.ts";
import {
  baselineServer,
  type BenchContext,
  BUN,
  createBenchOrg,
  freshPostgresDatabase,
  options,
  ourServer,
  ROOT,
  type Running,
  rssMiB,
  runLoad,
  type Scenario,
  type ServerSpec,
  spawnChild,
  startServer,
} from "../runner.ts";

const RAW = "raw Bun.serve";
const STREAM_FIRST_BYTE = "POST /api/sdk/chat/stream (first byte)";
const QUESTION = "How do I reset my password if I no longer have access to my email?";
export const HIGH_SDK_LIMITS = { SDK_RATE_LIMIT_PER_KEY_IP_PER_MINUTE: "100000000", SDK_RATE_LIMIT_PER_ORG_PER_MINUTE: "100000000" };
export const ADMIN = "chat-bench@example.com";

/** `org create` against a database no server holds yet; returns the org's widget key. */
export async function createOrg(env: Record<string, string>, label: string): Promise<string> {
  const proc = spawnChild(
    [BUN, join(ROOT, "src/main.ts"), "org", "create", "--name", "Chat bench", "--admin-email", ADMIN, "--admin-password", BENCH_PASSWORD],
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
  return (JSON.parse(stdout) as { widget_key: string }).widget_key;
}

export function chatScenario(key: string): Scenario {
  return {
    name: "POST /api/sdk/chat",
    method: "POST",
    path: "/api/sdk/chat",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ message: QUESTION, user_id: "anonymous" }),
    expectStatus: 200,
    baseline: true,
    check: (body) => (body.includes('"session_id"') && body.includes("password") ? undefined : `unexpected answer: ${body.slice(0, 300)}`),
  };
}

/** The stream as one load scenario (bench/load.ts), timed to its first body byte: light load and open loop. */
export function streamScenario(key: string): Scenario {
  return {
    name: STREAM_FIRST_BYTE,
    method: "POST",
    path: "/api/sdk/chat/stream",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ message: QUESTION }),
    expectStatus: 200,
    baseline: true,
    firstByte: true,
    check: (body) => (body.includes("\x1e__ACTIONS__") ? undefined : `unexpected stream: ${body.slice(0, 300)}`),
  };
}

/**
 * Closed loop over `connections` keep-alive connections on /api/sdk/chat/stream, timing each
 * request's first body byte (the latency sample) and reading the body to its end (req/s counts
 * whole streams). Runs in this process: the servers are children, so nothing is shared with them.
 */
async function streamLoad(server: Running, key: string, connections: number): Promise<{ ttfb: LoadResult; full: LoadResult }> {
  const init = { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify({ message: QUESTION }) };
  const probe = await fetch(`${server.url}/api/sdk/chat/stream`, init);
  const probeBody = await probe.text();
  if (probe.status !== 200 || !probeBody.includes("\x1e__ACTIONS__"))
    throw new Error(`chat/stream on ${server.url}: ${probe.status} ${probeBody.slice(0, 300)}`);
  const begin = performance.now();
  const measureFrom = begin + options.warmupS * 1000;
  const until = measureFrom + options.durationS * 1000;
  const firstByte: number[] = [];
  const whole: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const worker = async () => {
    while (performance.now() < until) {
      const start = performance.now();
      let failure: string | undefined;
      let first = Number.NaN;
      try {
        const res = await fetch(`${server.url}/api/sdk/chat/stream`, init);
        const reader = res.body!.getReader();
        let body = "";
        const decoder = new TextDecoder();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          if (Number.isNaN(first) && value.length > 0) first = performance.now() - start;
          body += decoder.decode(value, { stream: true });
        }
        if (res.status !== 200) failure = `status ${res.status}`;
        else if (!body.endsWith("\x1e")) failure = "stream did not end with a record";
      } catch (error) {
        failure = String(error);
      }
      if (start < measureFrom) continue;
      if (failure) {
        errors++;
        firstError ??= failure;
      } else {
        firstByte.push(first);
        whole.push(performance.now() - start);
      }
    }
  };
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = performance.now() - measureFrom;
  return { ttfb: summarize(firstByte, errors, firstError, elapsed), full: summarize(whole, errors, firstError, elapsed) };
}

export async function chat({ work, pg }: BenchContext): Promise<void> {
  const connections = options.connections;
  const targets: { spec: ServerSpec; env?: Record<string, string> }[] = [{ spec: { ...baselineServer(), name: RAW } }];
  const pgliteEnv = { DATA_DIR: join(work, "chat-data"), LOG_LEVEL: "error", LLM_PROVIDER: "builtin", ...HIGH_SDK_LIMITS };
  targets.push({ spec: ourServer("ours, PGlite", pgliteEnv), env: pgliteEnv });
  if ("url" in pg) {
    // The shared run database may already hold orgs from other scenarios; this org is its own.
    const pgEnv = { DATABASE_URL: pg.url, SECRET_KEY: pg.secretKey, LOG_LEVEL: "error", LLM_PROVIDER: "builtin", ...HIGH_SDK_LIMITS };
    targets.push({ spec: ourServer("ours, PostgreSQL", pgEnv), env: pgEnv });
  } else console.log(`\nchat: PostgreSQL rows skipped: ${pg.skipped}`);

  let pgKey: string | undefined;
  const figuresOn = targets.at(-1)!.spec.name; // PostgreSQL when it runs: the targets' database
  const measurements: Measurement[] = [];
  const streams: { target: string; ttfb: LoadResult; full: LoadResult }[] = [];
  for (const target of targets) {
    const key = target.env ? await createOrg(target.env, target.spec.name) : `ab_live_${"c".repeat(32)}`;
    if (target.env?.DATABASE_URL) pgKey = key;
    const server = await startServer(target.spec, work);
    try {
      if (target.env) await seedDocs(server.url, ADMIN, BENCH_PASSWORD);
      const scenario = chatScenario(key);
      // A pass of the same load first, not counted: the rows are the steady state of a server that
      // has been answering (its code compiled, its tables holding conversations and, on
      // PostgreSQL, analysed: bench/runner.ts), not its first seconds on empty tables.
      if (target.env) await runLoad(server, scenario, connections);
      const { result, loadCpuPct } = await runLoad(server, scenario, connections);
      measurements.push({ scenario: scenario.name, target: target.spec.name, result, loadCpuPct, rssAfterMiB: rssMiB(server.pid) });
      const stream = await streamLoad(server, key, connections);
      streams.push({ target: target.spec.name, ...stream });
      if (target.spec.name === figuresOn) {
        // The three figures (bench/figures.ts); the stream's capacity is whole streams per second.
        const raw = measurements.find((m) => m.target === RAW && m.scenario === scenario.name)?.result;
        const rawStream = streams.find((s) => s.target === RAW)?.full;
        await hotPath(server, scenario, target.spec.name, result, connections, raw && { rps: raw.rps, scenario: scenario.name });
        await hotPath(
          server,
          streamScenario(key),
          target.spec.name,
          stream.full,
          connections,
          rawStream && { rps: rawStream.rps, scenario: "POST /api/sdk/chat/stream" },
        );
      }
      measurements.push({
        scenario: "POST /api/sdk/chat/stream (whole stream)",
        target: target.spec.name,
        result: stream.full,
        loadCpuPct: Number.NaN,
        rssAfterMiB: rssMiB(server.pid),
      });
    } finally {
      await server.stop();
    }
  }

  printComparison(
    `Chat, builtin provider, ${connections} connections, every request a new session — ours: LOG_LEVEL=error, SDK rate limits raised to 100000000/min (the limiter runs, never refuses)`,
    measurements,
    [RAW, "ours, PostgreSQL"],
  );
  printEmbeddedRatio(measurements, ["POST /api/sdk/chat", "POST /api/sdk/chat/stream (whole stream)"], "ours, PGlite", "ours, PostgreSQL");
  const raw = streams.find((s) => s.target === RAW);
  printTable(
    `POST /api/sdk/chat/stream time to first body byte, ${connections} connections`,
    ["target", "TTFB p50 ms", "TTFB p99 ms", `p50 vs ${RAW}`, "streams/s", "errors"],
    streams.map((s) => [
      s.target,
      fixed(s.ttfb.p50Ms, 2),
      fixed(s.ttfb.p99Ms, 2),
      raw ? `${fixed(s.ttfb.p50Ms / raw.ttfb.p50Ms, 1)}×` : "—",
      fixed(s.full.rps, 0),
      String(s.full.errors),
    ]),
  );

  const ourTarget = streams.some((s) => s.target === "ours, PostgreSQL") ? "ours, PostgreSQL" : "ours, PGlite";
  const ttfb = streams.find((s) => s.target === ourTarget)?.ttfb;
  const chatResult = measurements.find((m) => m.target === ourTarget && m.scenario === "POST /api/sdk/chat")?.result;
  // Closed-loop latency at this concurrency follows throughput: printed for information, no target
  // (the light-load and open-loop targets are printed at the end by bench/figures.ts).
  console.log(
    `\nChat at ${connections} connections (${ourTarget}), for information: stream first byte p50 ${fixed(ttfb?.p50Ms, 2)} ms, p99 ${fixed(ttfb?.p99Ms, 2)} ms; /api/sdk/chat p99 ${fixed(chatResult?.p99Ms, 2)} ms at ${fixed(chatResult?.rps, 0)} req/s`,
  );
  if ("url" in pg && pgKey && process.env.BENCH_REFERENCE && process.env.BENCH_REFERENCE !== "none") await lightLoadBesideReference(work, pg, pgKey);
}

/** Light-load rounds per server in the comparison with the reference revision. */
const REFERENCE_ROUNDS = Number(process.env.BENCH_CHAT_ROUNDS ?? 3);

/**
 * `POST /api/sdk/chat` at light load (one connection), ours on PostgreSQL beside the revision
 * BENCH_REFERENCE (bench/reference.ts) on a PostgreSQL database of its own with the same help
 * articles: both servers up at once, measured in turns (ours, reference, then reference, ours, …) so
 * that what else runs on the machine weighs on both alike; the p99 ratio per round and its median.
 */
async function lightLoadBesideReference(work: string, pg: { url: string; secretKey: string }, key: string): Promise<void> {
  const reference = await referenceCheckout(work);
  const refDb = "root" in reference ? await freshPostgresDatabase(options.databaseUrl) : reference;
  if (!("root" in reference) || !("url" in refDb)) {
    console.log(`\nchat: reference rows skipped: ${"skipped" in refDb ? refDb.skipped : "no database"}`);
    return;
  }
  const env = (url: string) => ({ DATABASE_URL: url, SECRET_KEY: pg.secretKey, LOG_LEVEL: "error", LLM_PROVIDER: "builtin", ...HIGH_SDK_LIMITS });
  const refName = `${reference.label}, PostgreSQL`;
  const refOrg = await createBenchOrg(env(refDb.url), refName, { name: "Chat bench", email: ADMIN, flags: [] }, reference.root);
  const ours = await startServer(ourServer("ours, PostgreSQL", env(pg.url)), work);
  try {
    const ref = await startServer(ourServer(refName, env(refDb.url), reference.root), work);
    try {
      await seedDocs(ref.url, ADMIN, BENCH_PASSWORD);
      const rows: string[][] = [];
      const ratios: number[] = [];
      for (let round = 1; round <= REFERENCE_ROUNDS; round++) {
        const order = round % 2 === 1 ? [ours, ref] : [ref, ours];
        const results = new Map<Running, LoadResult>();
        for (const server of order) results.set(server, (await runLoad(server, chatScenario(server === ours ? key : refOrg.widgetKey), 1)).result);
        const a = results.get(ours)!;
        const r = results.get(ref)!;
        ratios.push(a.p99Ms / r.p99Ms);
        rows.push([String(round), fixed(a.p50Ms, 2), fixed(a.p99Ms, 2), fixed(r.p50Ms, 2), fixed(r.p99Ms, 2), `${fixed(a.p99Ms / r.p99Ms, 2)}×`]);
      }
      printTable(
        `POST /api/sdk/chat at light load (1 connection), ours beside ${refName}, rounds in turn`,
        ["round", "ours p50 ms", "ours p99 ms", "ref p50 ms", "ref p99 ms", "p99 ours ÷ ref"],
        rows,
      );
      const median = ratios.slice().sort((x, y) => x - y)[Math.floor(ratios.length / 2)]!;
      console.log(`\nChat light-load p99, ours ÷ ${reference.label}: median of ${ratios.length} rounds ${fixed(median, 2)}× (goal ≤ 1.5×, not asserted)`);
      const stored: ChatReference = { at: new Date().toISOString(), reference: reference.label, ratios, median, machine: machine() };
      mkdirSync(dirname(CHAT_REFERENCE_FILE), { recursive: true });
      writeFileSync(CHAT_REFERENCE_FILE, `${JSON.stringify(stored, null, 2)}\n`);
    } finally {
      await ref.stop();
    }
  } finally {
    await ours.stop();
  }
}
