// The tool server (MCP): ping, tools/list and tools/call search_docs through ours (PostgreSQL,
// then PGlite) next to raw Bun.serve and the official SDK's stateless server on Node; the cost of
// bearer verification; and the OAuth token endpoint refreshing many grants in parallel.
import { join } from "node:path";
import { readFileSync, writeFileSync } from "node:fs";
import { messageOf } from "../../src/errors.ts";
import type { LoadResult } from "../load.ts";
import { BENCH_PASSWORD, type Grants, HIGH_LIMITS_ENV, MCP_FAILURE_MARKERS, MCP_HEADERS, MCP_MESSAGES, mcpCall, mintGrants, seedDocs } from "../mcp.ts";
import { type HotPath, hotPath } from "../figures.ts";
import { fixed, type Measurement, printComparison, printEmbeddedRatio, printTable } from "../report.ts";
import { referenceCheckout } from "../reference.ts";
import {
  type BenchContext,
  baselineServer,
  createBenchOrg,
  freshPostgresDatabase,
  HEALTHZ,
  options,
  ourServer,
  ROOT,
  type Running,
  rssMiB,
  runLoad,
  type Scenario,
  spawnChild,
  startServer,
} from "../runner.ts";

/** The capacity target (bench/README.md "Targets"): printed as met / not met, never asserted. */
const TARGETS = { pingVsRaw: 0.25 };
const RAW = "raw Bun.serve";
const OURS_PG = "ours, PostgreSQL";
const OURS_PGLITE = "ours, PGlite";
const SDK = "SDK on Node";
const MCP_SCENARIOS = ["ping", "tools/list", "tools/call search_docs"] as const;
type McpScenario = (typeof MCP_SCENARIOS)[number];
/** Rounds per row when ours and the reference are measured in turns (each keeps its best). */
const ROUNDS = 4;
type Target = { name: string; env: Record<string, string>; root?: string };
type Prepared = { target: Target; server: Running; grants: Grants; bearers: string[] };
const mcpName = (name: McpScenario) => `MCP ${name}`;

export function mcpScenario(name: McpScenario, path: string, bearers?: string[]): Scenario {
  return {
    name: mcpName(name),
    method: "POST",
    path,
    headers: MCP_HEADERS,
    body: JSON.stringify(MCP_MESSAGES[name]),
    expectStatus: 200,
    baseline: name === "ping",
    connectionHeaders: bearers?.map((token) => ({ authorization: `Bearer ${token}` })),
    failIfBodyIncludes: MCP_FAILURE_MARKERS,
    check(body) {
      const answer = JSON.parse(body) as { result?: { tools?: unknown[]; content?: { text?: string }[] } };
      if (!answer.result) return `no result: ${body.slice(0, 300)}`;
      if (name === "tools/list" && !answer.result.tools?.length) return "tools/list listed no tool";
      if (name === "tools/call search_docs") {
        const hits = (JSON.parse(answer.result.content?.[0]?.text ?? "{}") as { results?: unknown[] }).results;
        if (!hits?.length) return `search_docs found nothing: ${body.slice(0, 300)}`;
      }
      return undefined;
    },
  };
}

export interface ToolServerRun {
  tools: Measurement[];
  refresh: Measurement[];
  /** The earlier revision measured beside ours (bench/reference.ts), if it ran. */
  referenceName?: string;
}

/** Prints the tool server's tables; returns its measurements, from which the run prints the targets last. */
export async function toolServer({ work, dataDir, pg }: BenchContext): Promise<ToolServerRun> {
  const connections = options.toolConnections;
  const tools: Measurement[] = [];
  const refresh: Measurement[] = [];
  const bearer: { target: string; healthz: LoadResult; ping: LoadResult }[] = [];
  const notes: string[] = [];
  const toolsFile = join(work, "tools.json");
  let stagesOn: { env: Record<string, string>; bearers: string[] } | undefined;
  let referenceName: string | undefined;
  let toolCount: number | undefined;
  const hot: HotPath[] = [];

  const measure = async (into: Measurement[], server: Running, target: string, scenario: Scenario) => {
    const { result, loadCpuPct } = await runLoad(server, scenario, connections);
    const m = { scenario: scenario.name, target, result, loadCpuPct, rssAfterMiB: rssMiB(server.pid) };
    into.push(m);
    return m;
  };

  // Ours: PostgreSQL (the targets' database) beside an earlier revision (bench/reference.ts) on a
  // database of its own — the "before" of the tool-server performance work — then PGlite alone.
  // Each: org by CLI before the server starts, docs and grants over HTTP, then the rows.
  const ours: Target[] = [];
  if ("url" in pg) {
    ours.push({ name: OURS_PG, env: { DATABASE_URL: pg.url, SECRET_KEY: pg.secretKey } });
    const reference = await referenceCheckout(work);
    const refDb = "root" in reference ? await freshPostgresDatabase(options.databaseUrl) : reference;
    if ("root" in reference && "url" in refDb) {
      referenceName = `${reference.label}, PostgreSQL`;
      ours.push({ name: referenceName, env: { DATABASE_URL: refDb.url, SECRET_KEY: pg.secretKey }, root: reference.root });
    } else notes.push(`reference rows skipped: ${"skipped" in refDb ? refDb.skipped : "no database"}`);
  } else notes.push(`PostgreSQL rows skipped: ${pg.skipped}`);
  const pglite: Target = { name: OURS_PGLITE, env: { DATA_DIR: dataDir } };
  /** Where the figures and stages are taken: PostgreSQL, or PGlite when PostgreSQL is skipped. */
  const first = ours[0] ?? pglite;

  /** Starts `target`'s server with its org, documents and grants. */
  const prepare = async (target: Target, rounds: number): Promise<Prepared> => {
    const { email } = await createBenchOrg(target.env, target.name, undefined, target.root);
    const server = await startServer(ourServer(target.name, { ...target.env, LOG_LEVEL: "error", ...HIGH_LIMITS_ENV }, target.root), work);
    try {
      const docs = await seedDocs(server.url, email, BENCH_PASSWORD);
      // One set of grants per round of the refresh row: a chain's tokens are spent by the round that rotates them.
      const grants: Grants = await mintGrants(server.url, email, BENCH_PASSWORD, connections * rounds);
      const bearers = grants.grants.slice(0, connections).map((g) => g.accessToken);
      const listed = (await mcpCall(`${server.url}/api/mcp`, MCP_MESSAGES["tools/list"], bearers[0])).result.tools as unknown[];
      if (toolCount === undefined) {
        toolCount = listed.length;
        writeFileSync(toolsFile, JSON.stringify({ tools: listed }));
      }
      console.log(`\n${target.name}: ${docs} docs seeded, ${grants.grants.length} grants obtained, tools/list lists ${listed.length} tools`);
      return { target, server, grants, bearers };
    } catch (error) {
      await server.stop();
      throw error;
    }
  };

  /**
   * The rows of `group`, measured in turns: with two servers up (ours and the reference), each row
   * runs ours, reference, then reference, ours — ROUNDS times in all — and each keeps its best
   * round, so that what else the machine does weighs on both alike (measured one after the other,
   * ours ran first and the machine's drift alone made rows differ by a fifth).
   */
  const measureGroup = async (group: Prepared[]) => {
    const rows: { name: string; scenario: (p: Prepared) => Scenario }[] = [
      { name: HEALTHZ.name, scenario: () => HEALTHZ },
      ...MCP_SCENARIOS.map((name) => ({ name: mcpName(name), scenario: (p: Prepared) => mcpScenario(name, "/api/mcp", p.bearers) })),
    ];
    const rounds = group.length > 1 ? ROUNDS : 1;
    for (const row of rows) {
      const best = new Map<Prepared, Measurement>();
      for (let round = 0; round < rounds; round++)
        for (const p of round % 2 === 0 ? group : [...group].reverse()) {
          const m = await measure([], p.server, p.target.name, row.scenario(p));
          const kept = best.get(p);
          if (!kept || m.result.rps > kept.result.rps) best.set(p, m);
        }
      for (const p of group) {
        const m = best.get(p)!;
        tools.push(m);
        // The three figures (bench/figures.ts) for the database the targets are read on.
        if (p.target === first && row.name !== HEALTHZ.name) hot.push(await hotPath(p.server, row.scenario(p), p.target.name, m.result, connections));
      }
    }
    for (const p of group) {
      const find = (name: string) => tools.find((m) => m.scenario === name && m.target === p.target.name)!.result;
      bearer.push({ target: p.target.name, healthz: find(HEALTHZ.name), ping: find(mcpName("ping")) });
    }
    // Last: the chains rotate these grants' refresh tokens (the access tokens above stay valid). In
    // turns too, each round on grants of its own, each target keeping its best.
    const best = new Map<Prepared, Measurement>();
    for (let round = 0; round < rounds; round++)
      for (const p of round % 2 === 0 ? group : [...group].reverse()) {
        const chains = p.grants.grants.slice(round * connections, (round + 1) * connections);
        const m = await measure([], p.server, p.target.name, {
          name: "POST /api/mcp/oauth/token refresh_token",
          method: "POST",
          path: "/api/mcp/oauth/token",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          expectStatus: 200,
          baseline: false,
          refreshChain: { clientId: p.grants.clientId, refreshTokens: chains.map((g) => g.refreshToken) },
        });
        const kept = best.get(p);
        if (!kept || m.result.rps > kept.result.rps) best.set(p, m);
      }
    for (const p of group) refresh.push(best.get(p)!);
  };

  for (const group of [ours, [pglite]]) {
    const started: Prepared[] = [];
    try {
      for (const target of group) started.push(await prepare(target, group.length > 1 ? ROUNDS : 1));
      if (started[0]?.target === first) stagesOn = { env: started[0].target.env, bearers: started[0].bearers };
      if (started.length > 0) await measureGroup(started);
    } finally {
      for (const p of started) await p.server.stop();
    }
  }

  // Where the time goes: the first of ours again (its database, documents and tokens), now with
  // SERVER_TIMING=1, in a pass of its own so the header's cost is in none of the rows compared above.
  const staged: Measurement[] = [];
  if (stagesOn) {
    const server = await startServer(
      ourServer(`${first.name} (stages)`, { ...stagesOn.env, LOG_LEVEL: "error", SERVER_TIMING: "1", ...HIGH_LIMITS_ENV }),
      work,
    );
    try {
      for (const name of MCP_SCENARIOS) await measure(staged, server, first.name, mcpScenario(name, "/api/mcp", stagesOn.bearers));
    } finally {
      await server.stop();
    }
  }

  // The raw floor for a ping.
  {
    const server = await startServer(baselineServer(), work);
    try {
      const raw = await measure(tools, server, RAW, mcpScenario("ping", "/api/mcp"));
      // Raw Bun.serve answers only ping: every MCP method of ours is put next to its ping.
      for (const row of hot) row.raw = { rps: raw.result.rps, scenario: "MCP ping" };
    } finally {
      await server.stop();
    }
  }

  // The official SDK, stateless Streamable HTTP, on Node, with as many tools as ours listed.
  const node = Bun.which("node");
  if (!node) notes.push("SDK rows skipped: no `node` on PATH");
  else {
    const version = (
      await new Response(spawnChild([node, "--version"], { stdout: "pipe", stderr: "ignore" }).stdout as ReadableStream<Uint8Array>).text()
    ).trim();
    const sdkVersion = (JSON.parse(readFileSync(join(ROOT, "node_modules/@modelcontextprotocol/sdk/package.json"), "utf8")) as { version: string }).version;
    notes.push(`${SDK}: @modelcontextprotocol/sdk ${sdkVersion} on Node ${version}, bench/sdk-reference-server.mjs, ${toolCount} tools, no authentication`);
    // Not ours: if it fails (another SDK version, another Node), say so and print the rest.
    try {
      const server = await startServer(
        { name: SDK, command: [node, join(ROOT, "bench", "sdk-reference-server.mjs")], env: { BENCH_TOOLS_FILE: toolsFile }, readyPath: "/healthz" },
        work,
      );
      try {
        for (const name of MCP_SCENARIOS) await measure(tools, server, SDK, mcpScenario(name, "/mcp"));
      } finally {
        await server.stop();
      }
    } catch (error) {
      notes.push(`SDK rows incomplete: ${messageOf(error)}`);
    }
  }

  const limits = `LOG_LEVEL=error; per-token and per-action limits raised to 100000000/min (${Object.keys(HIGH_LIMITS_ENV).join(", ")}), so the limiter runs on every request but never refuses`;
  printComparison(`Tool server (MCP), ${connections} connections, one bearer token per connection — ours: ${limits}`, tools, [
    RAW,
    SDK,
    OURS_PG,
    ...(referenceName ? [referenceName] : []),
  ]);
  printEmbeddedRatio(tools, MCP_SCENARIOS.map(mcpName), OURS_PGLITE, OURS_PG);
  for (const note of notes) console.log(`note: ${note}`);
  if (tools.some((m) => m.loadCpuPct > 90))
    console.log("note: loadgen CPU near or above 100 % means the generator was likely the bottleneck there; that req/s is a lower bound for the server.");

  // Where the time goes, from the Server-Timing header of every answer of the stages pass (src/kit/stage-timer.ts).
  const stageNames = [...new Set(staged.flatMap((m) => Object.keys(m.result.stages ?? {})))];
  printTable(
    `Server-side stages of our MCP answers (a separate pass with SERVER_TIMING=1, ${connections} connections), mean ms per answer (auth: bearer check; checks: limits, visibility, validation; search, snippets: search_docs; tool: the rest of the tool; audit: waiting for the audit row's group commit; rpc: the rest of JSON-RPC)`,
    ["scenario", "target", ...stageNames, "sum", "client p50 ms"],
    staged.map((m) => {
      const st = m.result.stages ?? {};
      return [
        m.scenario,
        m.target,
        ...stageNames.map((n) => (st[n] === undefined ? "—" : fixed(st[n], 3))),
        fixed(
          Object.values(st).reduce((a, b) => a + b, 0),
          3,
        ),
        fixed(m.result.p50Ms, 2),
      ];
    }),
  );
  console.log(
    "note: under load most of a request's time is queueing (for the CPU, the event loop and the database pool), which these stages include where it happens; the difference to the client's latency is the time before the handler ran and after it answered.",
  );

  printTable(
    `Bearer verification: authenticated MCP ping vs unauthenticated GET /healthz on the same server, ${connections} connections`,
    ["target", "healthz req/s", "ping req/s", "ping/healthz", "healthz p50 ms", "ping p50 ms", "healthz p99 ms", "ping p99 ms", "extra µs/req"],
    bearer.map((b) => [
      b.target,
      fixed(b.healthz.rps, 0),
      fixed(b.ping.rps, 0),
      `${fixed(b.ping.rps / b.healthz.rps, 2)}×`,
      fixed(b.healthz.p50Ms, 2),
      fixed(b.ping.p50Ms, 2),
      fixed(b.healthz.p99Ms, 2),
      fixed(b.ping.p99Ms, 2),
      fixed(1e6 / b.ping.rps - 1e6 / b.healthz.rps, 1),
    ]),
  );
  console.log(
    "note: extra µs/req = 1/ping req/s − 1/healthz req/s: server time a ping adds (bearer check, JSON-RPC, limiter), when the server is the bottleneck.",
  );

  printTable(
    `OAuth token endpoint, grant_type=refresh_token: ${connections} independent grants refreshed in parallel, each request with its chain's newest refresh token`,
    ["target", "req/s", "p50 ms", "p99 ms", "errors", "loadgen CPU %", "RSS after MiB"],
    refresh.map((m) => [
      m.target,
      fixed(m.result.rps, 0),
      fixed(m.result.p50Ms, 2),
      fixed(m.result.p99Ms, 2),
      String(m.result.errors),
      fixed(m.loadCpuPct, 0),
      fixed(m.rssAfterMiB, 1),
    ]),
  );
  return { tools, refresh, referenceName };
}

/**
 * The tool server's capacity target (bench/README.md "Targets": ping at ≥ 25 % of raw Bun.serve),
 * then its other comparisons for information: tools/list against the SDK, tools/call against the
 * earlier revision, and the closed-loop p99s at the tool-server concurrency, which depend on
 * throughput (latency ≈ connections ÷ req/s) and so are no targets. The light-load and open-loop
 * targets are printed by bench/figures.ts.
 */
export function printTargets({ tools, refresh, referenceName }: ToolServerRun, connections: number): void {
  const find = (scenario: string, target: string) => tools.find((m) => m.scenario === scenario && m.target === target)?.result;
  const ourTarget = tools.some((m) => m.target === OURS_PG) ? OURS_PG : OURS_PGLITE;
  const on = ourTarget === OURS_PG ? "PostgreSQL" : "PGlite (PostgreSQL skipped: the targets are defined on PostgreSQL)";
  const verdict = (met: boolean | undefined) => (met === undefined ? "not measured" : met ? "target met" : "target NOT met");
  const info: string[] = [];

  const ping = find(mcpName("ping"), ourTarget);
  const rawPing = find(mcpName("ping"), RAW);
  const pingRatio = ping && rawPing ? ping.rps / rawPing.rps : undefined;
  const capacity = `MCP ping capacity ≥ ${TARGETS.pingVsRaw * 100}% of raw Bun.serve: ${pingRatio === undefined ? "—" : `${fixed(pingRatio * 100, 0)}% (${fixed(ping?.rps, 0)} vs ${fixed(rawPing?.rps, 0)} req/s)`} — ${verdict(pingRatio === undefined ? undefined : pingRatio >= TARGETS.pingVsRaw)}`;
  const list = find(mcpName("tools/list"), ourTarget);
  const sdkList = find(mcpName("tools/list"), SDK);
  if (list && sdkList)
    info.push(`MCP tools/list: ${fixed(list.rps / sdkList.rps, 1)}× the SDK reference (${fixed(list.rps, 0)} vs ${fixed(sdkList.rps, 0)} req/s)`);
  for (const name of MCP_SCENARIOS) {
    const r = find(mcpName(name), ourTarget);
    if (r) info.push(`MCP ${name}: closed-loop p99 at ${connections} connections ${fixed(r.p99Ms, 2)} ms at ${fixed(r.rps, 0)} req/s`);
  }
  const call = find(mcpName("tools/call search_docs"), ourTarget);
  const before = referenceName ? find(mcpName("tools/call search_docs"), referenceName) : undefined;
  if (call && before)
    info.push(
      `MCP tools/call search_docs: ${fixed(call.rps / before.rps, 2)}× the throughput of ${referenceName} (${fixed(call.rps, 0)} vs ${fixed(before.rps, 0)} calls/s; p99 ${fixed(call.p99Ms, 1)} vs ${fixed(before.p99Ms, 1)} ms)`,
    );
  const chains = refresh.find((m) => m.target === ourTarget)?.result;
  const chainsBefore = referenceName ? refresh.find((m) => m.target === referenceName)?.result : undefined;
  if (chains)
    info.push(
      `OAuth refresh grant, ${connections} chains in parallel: p99 ${fixed(chains.p99Ms, 2)} ms at ${fixed(chains.rps, 0)}/s${chainsBefore ? ` (before: ${fixed(chainsBefore.p99Ms, 2)} ms at ${fixed(chainsBefore.rps, 0)}/s)` : ""}`,
    );
  console.log(`
Tool-server capacity target (ours on ${on}; a goal for people to read, never asserted — see bench/README.md)`);
  console.log(`- ${capacity}`);
  console.log(`
For information (no targets: closed-loop latency follows throughput)`);
  for (const line of info) console.log(`- ${line}`);
}
