// Connectors: discovery and tools/call through ours, next to the official SDK client calling the
// same third-party servers directly (SDK servers run by bench/connector-upstream.ts, the client
// by bench/sdk-client.ts).
import { join } from "node:path";
import { messageOf } from "../../src/errors.ts";
import type { UpstreamCounters, UpstreamKind } from "../connector-upstream.ts";
import { awaitEcho, CONNECTORS_FLAG, Dashboard, ECHO_TEXT, echoCall, echoProblem, timeDiscovery } from "../connectors.ts";
import type { LoadResult } from "../load.ts";
import { BENCH_PASSWORD, HIGH_LIMITS_ENV, MCP_FAILURE_MARKERS, MCP_HEADERS, mintGrants, sessionBearer } from "../mcp.ts";
import { fixed, printTable, stats } from "../report.ts";
import {
  type BenchContext,
  BUN,
  createBenchOrg,
  fileTail,
  options,
  ourServer,
  ROOT,
  runLoad,
  type Scenario,
  spawnChild,
  startServer,
  stopProcess,
  withCpu,
} from "../runner.ts";
import type { SdkClientOptions, SdkDiscoveryResult } from "../sdk-client.ts";

/** Discoveries run before the timed ones, per upstream and target, not counted (first-use costs). */
const CONNECTOR_WARMUP_RUNS = 3;
const UPSTREAMS: { kind: UpstreamKind; label: string }[] = [
  { kind: "stateless", label: "stateless JSON" },
  { kind: "stateful", label: "stateful SSE" },
];
/** A second org, with the connectors flag, so that the tool-server org stays as it was measured. */
const CONNECTOR_ORG = { name: "Bench connectors org", email: "bench-connectors@example.com", flags: [CONNECTORS_FLAG] };
const SDK_DIRECT = "SDK client, direct";
const PER_CALL = "direct: SDK client, session per call";
const REUSED = "direct: SDK client, one session reused";
const viaOurs = (target: string) => `via ${target}`;
/** The target for a connector tools/call through ours, against the SDK client's per-call row. */
const CALL_TARGET = 0.9;

interface Upstream {
  kind: UpstreamKind;
  label: string;
  /** Its MCP endpoint. */
  url: string;
  pid: number;
  counters(): Promise<UpstreamCounters>;
  stop(): Promise<void>;
}

/** bench/connector-upstream.ts in its own process; ready once it printed its URLs. */
async function startUpstream(kind: UpstreamKind, label: string, work: string): Promise<Upstream> {
  const logFile = join(work, `upstream-${kind}.log`);
  const proc = spawnChild([BUN, join(ROOT, "bench", "connector-upstream.ts"), kind], { stdout: "pipe", stderr: Bun.file(logFile) });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let line = "";
  const timer = setTimeout(() => proc.kill("SIGKILL"), 20_000); // then read() ends: not started in time
  try {
    while (!line.includes("\n")) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`upstream MCP server (${kind}) did not start\n${fileTail(logFile)}`);
      line += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(timer);
    reader.releaseLock();
  }
  const { url, control } = JSON.parse(line) as { url: string; control: string };
  return {
    kind,
    label,
    url,
    pid: proc.pid,
    counters: async () => (await (await fetch(control)).json()) as UpstreamCounters,
    stop: () => stopProcess(proc),
  };
}

/** bench/sdk-client.ts in its own process (killed if it overruns `limitMs`); its JSON answer and the CPU it used. */
async function runSdkClient<T>(sdk: SdkClientOptions, limitMs: number): Promise<{ result: T; cpuPct: number }> {
  const started = performance.now();
  const proc = spawnChild([BUN, join(ROOT, "bench", "sdk-client.ts"), JSON.stringify(sdk)], { stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), limitMs);
  const [output, errors, code] = await Promise.all([
    new Response(proc.stdout as ReadableStream<Uint8Array>).text(),
    new Response(proc.stderr as ReadableStream<Uint8Array>).text(),
    proc.exited,
  ]);
  clearTimeout(timer);
  const wallMs = performance.now() - started;
  if (code !== 0 || proc.signalCode)
    throw new Error(
      `bench/sdk-client.ts (${sdk.mode}) ${proc.signalCode ? `killed by ${proc.signalCode} (time limit ${limitMs} ms)` : `exited with code ${code}`}: ${errors.slice(-500)}`,
    );
  const cpuUs = proc.resourceUsage()?.cpuTime.total;
  return { result: JSON.parse(output) as T, cpuPct: cpuUs === undefined ? Number.NaN : (Number(cpuUs) / 1000 / wallMs) * 100 };
}

interface DiscoveryRow {
  upstream: string;
  operation: string;
  by: string;
  samplesMs: number[];
}

interface Bracket {
  upstream: string;
  path: string;
  /** Ours, req/s. */
  ours: number;
  /** The SDK per-call row right before and right after ours, req/s (those measured). */
  sdk: number[];
}

interface CallRow {
  upstream: string;
  path: string;
  result: LoadResult;
  clientCpuPct: number;
  serverCpuPct?: number;
  upstreamCpuPct?: number;
  /** HTTP requests the upstream received per tools/call it answered, over the whole run. */
  upstreamPerCall?: number;
}

/** Upstream HTTP requests per tools/call between two counter readings. */
function perCall(before: UpstreamCounters, after: UpstreamCounters): number | undefined {
  const calls = (after["tools/call"] ?? 0) - (before["tools/call"] ?? 0);
  return calls > 0 ? (after.http - before.http) / calls : undefined;
}

export async function connectors({ work, dataDir, pg }: BenchContext): Promise<void> {
  const connections = options.connectorConnections;
  const runs = options.connectorRuns;
  const discovery: DiscoveryRow[] = [];
  const calls: CallRow[] = [];
  const notes: string[] = [];
  const upstreams: Upstream[] = [];
  const sdkTools = new Map<string, number>();
  const loadLimitMs = (options.warmupS + options.durationS) * 1000 + 90_000; // the SDK's own request timeout is 60 s
  /** SDK per-call rows measured right before and right after each row of ours (the target's comparison). */
  const brackets: Bracket[] = [];

  /** The SDK client calling echo on `upstream` for one measurement (a closed loop at `connections`). */
  async function sdkCalls(upstream: Upstream, session: "per-call" | "reused", path: string): Promise<CallRow> {
    const before = await upstream.counters();
    const { value, cpuPct } = await withCpu([upstream.pid], () =>
      runSdkClient<LoadResult>(
        {
          mode: "call",
          url: upstream.url,
          tool: "echo",
          text: ECHO_TEXT,
          session,
          connections,
          warmupMs: options.warmupS * 1000,
          durationMs: options.durationS * 1000,
        },
        loadLimitMs,
      ),
    );
    const after = await upstream.counters();
    const r = value.result;
    if (r.errors > 0) process.stderr.write(`bench: ${upstream.label}, ${path}: ${r.errors} failed calls (first: ${r.firstError})\n`);
    if (after.sessions) notes.push(`${upstream.label}: ${after.sessions} sessions still open upstream after the ${path} calls`);
    return { upstream: upstream.label, path, result: r, clientCpuPct: value.cpuPct, upstreamCpuPct: cpuPct[0], upstreamPerCall: perCall(before, after) };
  }

  /** The SDK per-call row again, for the bracket around a row of ours; a failure is a note, not an abort. */
  async function bracketRps(upstream: Upstream): Promise<number | undefined> {
    try {
      return (await sdkCalls(upstream, "per-call", PER_CALL)).result.rps;
    } catch (error) {
      notes.push(`SDK per-call bracket for ${upstream.label} not measured: ${messageOf(error)}`);
      return undefined;
    }
  }

  try {
    for (const u of UPSTREAMS) upstreams.push(await startUpstream(u.kind, u.label, work));

    // Direct: the SDK client against each upstream, no server of ours in between. Not ours: a
    // failure becomes a note and the rows of ours are still measured.
    for (const upstream of upstreams) {
      try {
        const { result } = await runSdkClient<SdkDiscoveryResult>(
          { mode: "discovery", url: upstream.url, runs, warmupRuns: CONNECTOR_WARMUP_RUNS },
          60_000 + (runs + CONNECTOR_WARMUP_RUNS) * 1000,
        );
        discovery.push({ upstream: upstream.label, operation: "connect + tools/list + close", by: SDK_DIRECT, samplesMs: result.samplesMs });
        sdkTools.set(upstream.label, result.tools);
        for (const [session, path] of [
          ["per-call", PER_CALL],
          ["reused", REUSED],
        ] as const)
          calls.push(await sdkCalls(upstream, session, path));
      } catch (error) {
        notes.push(`SDK client rows for ${upstream.label} incomplete: ${messageOf(error)}`);
      }
    }

    // Ours, in development mode (loopback connector URLs allowed), on PostgreSQL then PGlite.
    const ours: { name: string; env: Record<string, string> }[] = [];
    if ("url" in pg) ours.push({ name: "ours, PostgreSQL", env: { DATABASE_URL: pg.url, SECRET_KEY: pg.secretKey } });
    else notes.push(`PostgreSQL rows skipped: ${pg.skipped}`);
    ours.push({ name: "ours, PGlite", env: { DATA_DIR: dataDir } });
    for (const target of ours) {
      const org = await createBenchOrg(target.env, `${target.name}, connectors`, CONNECTOR_ORG);
      const server = await startServer(ourServer(target.name, { ...target.env, NODE_ENV: "development", LOG_LEVEL: "error", ...HIGH_LIMITS_ENV }), work);
      try {
        const dashboard = new Dashboard(server.url, await sessionBearer(server.url, org.email, BENCH_PASSWORD));
        const grants = await mintGrants(server.url, org.email, BENCH_PASSWORD, connections);
        const bearers = grants.grants.map((g) => g.accessToken);
        for (const upstream of upstreams) {
          const times = await timeDiscovery(dashboard, upstream.url, `disc_${upstream.kind}`, runs, CONNECTOR_WARMUP_RUNS);
          const listed = sdkTools.get(upstream.label);
          if (listed !== undefined && listed !== times.tools)
            notes.push(`${upstream.label}: ${target.name} discovered ${times.tools} tools, the SDK client listed ${listed}`);
          discovery.push({ upstream: upstream.label, operation: "connect: POST /api/integrations/mcp/servers", by: target.name, samplesMs: times.connectMs });
          discovery.push({ upstream: upstream.label, operation: "refresh: PATCH …/servers/{id}", by: target.name, samplesMs: times.refreshMs });
        }
        console.log(
          `\n${target.name}, NODE_ENV=development, connectors org: ${runs + CONNECTOR_WARMUP_RUNS} connect/refresh/disconnect rounds per upstream server, ${grants.grants.length} grants obtained`,
        );
        for (const upstream of upstreams) {
          // The connector whose echo the load calls; its tool switched on for the org's agent.
          await dashboard.connect(`Bench ${upstream.label}`, upstream.kind, upstream.url);
          await dashboard.enableActions(org.agentId, [`mcp.${upstream.kind}.echo`]);
          await awaitEcho(server.url, bearers[0]!, upstream.kind);
          const scenario: Scenario = {
            name: `tools/call mcp.${upstream.kind}.echo`,
            method: "POST",
            path: "/api/mcp",
            headers: MCP_HEADERS,
            body: JSON.stringify(echoCall(upstream.kind)),
            expectStatus: 200,
            baseline: false,
            connectionHeaders: bearers.map((token) => ({ authorization: `Bearer ${token}` })),
            failIfBodyIncludes: MCP_FAILURE_MARKERS,
            check: echoProblem,
          };
          // The machine is shared: the SDK per-call row is measured again right before and right
          // after ours, so that the target's ratio compares figures taken minutes apart no more.
          const sdkBefore = await bracketRps(upstream);
          const before = await upstream.counters();
          const { value, cpuPct } = await withCpu([server.pid, upstream.pid], () => runLoad(server, scenario, connections));
          const after = await upstream.counters();
          const sdkAfter = await bracketRps(upstream);
          brackets.push({
            upstream: upstream.label,
            path: viaOurs(target.name),
            ours: value.result.rps,
            sdk: [sdkBefore, sdkAfter].filter((x): x is number => x !== undefined),
          });
          calls.push({
            upstream: upstream.label,
            path: viaOurs(target.name),
            result: value.result,
            clientCpuPct: value.loadCpuPct,
            serverCpuPct: cpuPct[0],
            upstreamCpuPct: cpuPct[1],
            upstreamPerCall: perCall(before, after),
          });
          if (after.sessions) notes.push(`${upstream.label}: ${after.sessions} sessions still open upstream after ${target.name}'s calls`);
        }
      } finally {
        await server.stop();
      }
    }
  } finally {
    await Promise.all(upstreams.map((u) => u.stop()));
  }

  printConnectorTables(discovery, calls, connections, runs);
  printCallTarget(brackets, connections);
  for (const note of notes) console.log(`note: ${note}`);
}

function printConnectorTables(discovery: DiscoveryRow[], calls: CallRow[], connections: number, runs: number): void {
  const order = (upstream: string) => UPSTREAMS.findIndex((u) => u.label === upstream);
  const sdkP50 = (upstream: string) => {
    const row = discovery.find((d) => d.upstream === upstream && d.by === SDK_DIRECT);
    return row ? stats(row.samplesMs).p50 : undefined;
  };
  printTable(
    `Connector discovery against the SDK servers of test/support/mcp-servers.ts (bench/connector-upstream.ts): ${runs} sequential runs each, after ${CONNECTOR_WARMUP_RUNS} not counted${runs < 100 ? ` (so p99 is the slowest of the ${runs})` : ""} — ours: NODE_ENV=development, LOG_LEVEL=error`,
    ["upstream", "operation", "by", "p50 ms", "p99 ms", "p50 ÷ SDK p50", "p50 − SDK p50 ms"],
    [...discovery]
      .sort((a, b) => order(a.upstream) - order(b.upstream))
      .map((d) => {
        const s = stats(d.samplesMs);
        const sdk = d.by === SDK_DIRECT ? undefined : sdkP50(d.upstream);
        return [d.upstream, d.operation, d.by, fixed(s.p50, 2), fixed(s.p99, 2), sdk ? `${fixed(s.p50 / sdk, 1)}×` : "—", sdk ? fixed(s.p50 - sdk, 2) : "—"];
      }),
    "lllrrrr",
  );
  console.log(
    "note: ours is the dashboard request as its client saw it: authentication, the connector saved (connect) or read (refresh), our MCP client's session (initialize, notifications/initialized, tools/list, DELETE when the server gave a session id), the icon attempt (GET /favicon.ico, 404 here), the snapshot stored. The SDK row is the SDK client's session alone, with DELETE when there is a session id.",
  );

  const find = (upstream: string, path: string) => calls.find((c) => c.upstream === upstream && c.path === path)?.result;
  const ratio = (a: number | undefined, b: number | undefined, digits = 2) => (a !== undefined && b !== undefined && b > 0 ? `${fixed(a / b, digits)}×` : "—");
  printTable(
    `Connector tools/call echo: closed loop, ${connections} connections — via ours: POST /api/mcp tools/call mcp.<slug>.echo, one bearer per connection, NODE_ENV=development, LOG_LEVEL=error, limits raised to 100000000/min; direct: the SDK client (Bun) calling echo on the same server`,
    [
      "upstream",
      "path",
      "req/s",
      "p50 ms",
      "p99 ms",
      "errors",
      "upstream HTTP/call",
      "req/s ÷ per-call SDK",
      "req/s ÷ reused SDK",
      "client CPU %",
      "server CPU %",
      "upstream CPU %",
    ],
    [...calls]
      .sort((a, b) => order(a.upstream) - order(b.upstream))
      .map((c) => [
        c.upstream,
        c.path,
        fixed(c.result.rps, 0),
        fixed(c.result.p50Ms, 2),
        fixed(c.result.p99Ms, 2),
        String(c.result.errors),
        fixed(c.upstreamPerCall, 2),
        ratio(c.result.rps, find(c.upstream, PER_CALL)?.rps),
        ratio(c.result.rps, find(c.upstream, REUSED)?.rps),
        fixed(c.clientCpuPct, 0),
        fixed(c.serverCpuPct, 0),
        fixed(c.upstreamCpuPct, 0),
      ]),
    "llrrrrrrrrrr",
  );
  console.log("\nConnector tools/call, ours ÷ direct, at the same concurrency (req/s: below 1× is slower; p50: above 1× is slower):");
  const short: Record<string, string> = { [PER_CALL]: "SDK session per call", [REUSED]: "SDK session reused" };
  for (const c of calls.filter((row) => row.path.startsWith("via "))) {
    const parts = [PER_CALL, REUSED].map((path) => {
      const direct = find(c.upstream, path);
      if (!direct) return `÷ ${short[path]}: not measured`;
      return `÷ ${short[path]}: req/s ${ratio(c.result.rps, direct.rps)} (${fixed(c.result.rps, 0)} vs ${fixed(direct.rps, 0)}), p50 ${ratio(c.result.p50Ms, direct.p50Ms, 1)} (${fixed(c.result.p50Ms, 2)} vs ${fixed(direct.p50Ms, 2)} ms)`;
    });
    console.log(`- ${c.upstream} ${c.path}: ${parts.join("; ")}`);
  }
  console.log(
    "note: our service opens a session per call by design (no MCP session shared between calls): initialize, notifications/initialized, tools/call, and DELETE when the server gave a session id — except read-only or idempotent tools (echo is one) on a server that issued no session id, which are called on the handshake kept from an earlier call while the org's tool snapshot lives (at most 1 s; src/connectors/calls.ts) — over keep-alive connections pinned to the checked address (src/net/guard.ts, src/net/pool.ts: the guard still resolves and checks every request). The per-call SDK row does the same handshake (plus the SDK's optional GET stream) over keep-alive connections; the reused-session row is what a long-lived client pays per call. Ours also has one more process in the path (the load generator → us → upstream) on the same cores.",
  );
}

/**
 * The target for connector tools/call: ours at least CALL_TARGET× the SDK client doing the same
 * per-call handshake, req/s at the same concurrency. Each row of ours is compared with the mean of
 * the SDK per-call rows measured right before and right after it.
 */
function printCallTarget(brackets: Bracket[], connections: number): void {
  if (brackets.length === 0) return;
  // Like every target of this benchmark, read on PostgreSQL; on PGlite the database runs inside
  // our process and competes with it for one thread, so those rows are shown for information
  // (and count only when PostgreSQL was skipped).
  const onPostgres = brackets.some((b) => b.path.includes("PostgreSQL"));
  const counts = (b: Bracket) => !onPostgres || b.path.includes("PostgreSQL");
  console.log(
    `\nTarget: connector tools/call through ours at least ${CALL_TARGET}× the SDK client doing the same per-call handshake (req/s, ${connections} connections; ours ÷ the mean of the SDK per-call rows measured right before and right after it; read on ${onPostgres ? "PostgreSQL, PGlite rows for information" : "PGlite, PostgreSQL was skipped"}):`,
  );
  const missed: string[] = [];
  let counted = 0;
  for (const b of brackets) {
    const row = `${b.upstream} ${b.path}`;
    const verdict = (met: boolean | undefined) =>
      !counts(b) ? `for information (${met ? "≥" : "<"} ${CALL_TARGET}×)` : met === undefined ? "unknown" : met ? "met" : "not met";
    if (counts(b)) counted++;
    if (b.sdk.length === 0) {
      console.log(`- ${row}: ${fixed(b.ours, 0)} req/s; SDK per-call not measured — ${counts(b) ? "unknown" : "for information"}`);
      if (counts(b)) missed.push(row);
      continue;
    }
    const sdk = b.sdk.reduce((a, x) => a + x, 0) / b.sdk.length;
    const ratio = sdk > 0 ? b.ours / sdk : 0;
    const met = ratio >= CALL_TARGET;
    if (!met && counts(b)) missed.push(row);
    console.log(
      `- ${row}: ${fixed(ratio, 2)}× (${fixed(b.ours, 0)} req/s vs SDK per-call ${b.sdk.map((x) => fixed(x, 0)).join(" before, ")}${b.sdk.length === 2 ? " after" : ""}) — ${verdict(met)}`,
    );
  }
  console.log(
    missed.length === 0
      ? `Connector tools/call target (≥ ${CALL_TARGET}× the SDK client): met on ${counted === 1 ? "the" : `all ${counted}`} ${onPostgres ? "PostgreSQL " : ""}row${counted === 1 ? "" : "s"}.`
      : `Connector tools/call target (≥ ${CALL_TARGET}× the SDK client): NOT met on ${missed.length} of ${counted} ${onPostgres ? "PostgreSQL " : ""}rows (${missed.join("; ")}).`,
  );
}
