// `npm run bench`: local, loopback-only benchmarks of svc-agents. See bench/README.md for what
// each figure means. One file per scenario (bench/scenarios/), the shared runner (bench/runner.ts:
// options, child processes, servers, load) and the report (bench/report.ts). Everything runs as
// child processes of this script, each killed when the run ends, fails or is interrupted.
//
// Order: startup first, because it leaves a migrated PGlite DATA_DIR (and a migrated PostgreSQL
// database) behind that later servers reopen (saving a second first initialisation, several
// seconds); throughput second; the tool server (MCP), bearer cost and OAuth refresh third
// (bench/mcp.ts prepares them over HTTP); connectors last. The targets are printed at the very end.
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { messageOf } from "../src/errors.ts";
import { type BenchContext, cleanUp, cleanups, freshPostgresDatabase, options } from "./runner.ts";
import { connectors } from "./scenarios/connectors.ts";
import { startup } from "./scenarios/startup.ts";
import { throughput } from "./scenarios/throughput.ts";
import { printTargets, toolServer, type ToolServerRun } from "./scenarios/tool-server.ts";
import { sdk } from "./scenarios/sdk.ts";
import { chat } from "./scenarios/chat.ts";
import { machine, printHotPaths } from "./figures.ts";
import { writeReport } from "./report-doc.ts";
import { embedded } from "./scenarios/embedded.ts";
import { conversations } from "./scenarios/conversations.ts";
import { voice } from "./scenarios/voice.ts";
import { quality } from "./scenarios/quality.ts";
import { reports } from "./scenarios/reports.ts";
import { helpCentre } from "./scenarios/helpcentre.ts";

const SCENARIOS = {
  startup: "startup time and idle memory",
  throughput: "GET /healthz throughput, ours next to raw Bun.serve",
  "tool-server": "MCP ping, tools/list, tools/call; bearer cost; OAuth refresh",
  connectors: "connector discovery and tools/call, ours next to the SDK client",
  sdk: "widget SDK: events (batch of 50) and users/identify, ours next to raw Bun.serve",
  chat: "chat with the builtin provider: /api/sdk/chat req/s and p99, /chat/stream time to first byte, next to raw Bun.serve",
  embedded: "the embedded database next to PostgreSQL, rounds alternating: tools/call search_docs and chat req/s",
  conversations: "live conversation: BENCH_STREAMS open event streams (RSS growth), reply-to-arrival p50/p99 (PostgreSQL: across two instances)",
  voice: "voice: end of speech to first audio byte p50/p99 with loopback speech servers (BENCH_SPEECH_DELAY_MS), and our added latency",
  quality: "answer quality on the doc2dial development part (docs/quality.md), next to plain BM25; chat latency over 5,000 pages",
  reports: "the reports API and page over BENCH_REPORT_CONVERSATIONS (100,000) generated conversations: p50/p99 on PostgreSQL and PGlite",
  "help-centre": "the public help centre at light load: an article page, a search page and the widget's search next to GET /healthz, p50/p99",
} as const;
type ScenarioName = keyof typeof SCENARIOS;

const USAGE = `usage: npm run bench [-- <scenario>...]
       npm run bench -- report    (docs/performance.md and its charts from the latest run)

Scenarios (all of them, in this order, when none is named):
${Object.entries(SCENARIOS)
  .map(([name, what]) => `  ${name.padEnd(12)} ${what}`)
  .join("\n")}

Environment: BENCH_DURATION (s, default 5), BENCH_WARMUP (s, 1), BENCH_CONNECTIONS (32),
BENCH_CONNECTOR_RUNS (30), BENCH_IDLE (s, 3), BENCH_STREAMS (1000), BENCH_CONVERSATIONS (50),
BENCH_DATABASE_URL (PostgreSQL admin URL, or none).
See bench/README.md.`;

function chosen(argv: string[]): ScenarioName[] {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.log(USAGE);
    process.exit(0);
  }
  const unknown = argv.filter((a) => !Object.hasOwn(SCENARIOS, a));
  if (unknown.length > 0) {
    process.stderr.write(`bench: unknown scenario ${unknown.map((a) => JSON.stringify(a)).join(", ")}\n\n${USAGE}\n`);
    process.exit(2);
  }
  return argv.length > 0 ? (Object.keys(SCENARIOS) as ScenarioName[]).filter((s) => argv.includes(s)) : (Object.keys(SCENARIOS) as ScenarioName[]);
}

async function main(names: ScenarioName[]): Promise<void> {
  const began = performance.now();
  const started = machine();
  console.log(
    `svc-agents benchmarks (${names.join(", ")}) — bun ${Bun.version}, ${cpus().length} CPUs; ` +
      `${options.connections} connections (tool server, bearer and refresh rows: ${options.toolConnections}; connector calls: ${options.connectorConnections}), ` +
      `${options.warmupS} s warm-up + ${options.durationS} s per measurement, ${options.idleS} s idle before RSS`,
  );
  const work = mkdtempSync(join(tmpdir(), "svc-bench-"));
  cleanups.push(() => rmSync(work, { recursive: true, force: true }));
  const pg = await freshPostgresDatabase(options.databaseUrl);
  const secretKey = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
  const context: BenchContext = { work, dataDir: join(work, "data"), pg: "url" in pg ? { url: pg.url, secretKey } : pg };

  let tools: ToolServerRun | undefined;
  try {
    for (const name of names) {
      if (name === "startup") await startup(context);
      if (name === "throughput") await throughput(context);
      if (name === "tool-server") tools = await toolServer(context);
      if (name === "connectors") await connectors(context);
      if (name === "sdk") await sdk(context);
      if (name === "chat") await chat(context);
      if (name === "embedded") await embedded(context);
      if (name === "conversations") await conversations(context);
      if (name === "voice") await voice(context);
      if (name === "quality") await quality(context);
      if (name === "reports") await reports(context);
      if (name === "help-centre") await helpCentre(context);
    }
  } finally {
    if (tools) printTargets(tools, options.toolConnections); // last, also when a later scenario failed
    const database = "url" in context.pg ? "ours, PostgreSQL" : "ours, PGlite";
    const env = Object.entries(process.env)
      .filter(([k]) => k.startsWith("BENCH_") && k !== "BENCH_DATABASE_URL")
      .map(([k, v]) => `${k}=${v} `)
      .join("");
    printHotPaths(database, started, `${env}npm run bench -- ${names.join(" ")}`, options.durationS, options.warmupS);
  }
  console.log(`\ndone in ${((performance.now() - began) / 1000).toFixed(0)} s`);
}

if (process.argv[2] === "report") {
  await writeReport();
  process.exit(0);
}
const names = chosen(process.argv.slice(2));
let exitCode = 0;
try {
  await main(names);
} catch (error) {
  process.stderr.write(`bench: ${messageOf(error)}\n`);
  exitCode = 1;
} finally {
  await cleanUp();
}
process.exit(exitCode);
