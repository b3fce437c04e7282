// `npm run bench -- report`: docs/performance.md and its SVG charts (docs/performance/*.svg) from
// the latest run's stored results (bench/figures.ts RESULTS_FILE). Charts are vega-lite specs
// compiled to vega and rendered to SVG in this process (no browser, no canvas). Every figure is
// printed next to what it is read against, measured in the same run, with the machine named.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { type BenchResults, type HotPath, LIGHT_P99_TARGET_MS, OPEN_LOOP_FACTOR, OPEN_LOOP_SHARE, RESULTS_FILE, targetsOf } from "./figures.ts";
import { fixed } from "./report.ts";
import { ROOT } from "./runner.ts";

const DOC = join(ROOT, "docs", "performance.md");
const CHARTS = join(ROOT, "docs", "performance");

async function svgOf(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  return `${svg}\n`;
}

const WIDTH = 520;
// Paths differ by orders of magnitude (a ping and a chat turn), so the axis is logarithmic and each
// figure is a dot on its path's line rather than a bar from zero.
const dots = (title: string, values: object[], xTitle: string, ticks: object[] = []): TopLevelSpec => ({
  $schema: "https://vega.github.io/schema/vega-lite/v6.json",
  title,
  width: WIDTH,
  background: "white",
  layer: [
    {
      data: { values },
      mark: { type: "point", filled: true, size: 90, opacity: 0.9 },
      encoding: {
        y: { field: "path", type: "nominal", title: null, sort: null, axis: { labelLimit: 320 } },
        x: { field: "value", type: "quantitative", title: xTitle, scale: { type: "log" } },
        color: { field: "figure", type: "nominal", sort: null, title: null, legend: { orient: "bottom", direction: "vertical", labelLimit: 400 } },
        shape: { field: "figure", type: "nominal", sort: null, title: null },
      },
    },
    ...(ticks.length > 0
      ? [
          {
            data: { values: ticks },
            mark: { type: "tick" as const, color: "#d62728", thickness: 2, size: 18 },
            encoding: {
              y: { field: "path", type: "nominal" as const, sort: null },
              x: { field: "value", type: "quantitative" as const, scale: { type: "log" as const } },
            },
          },
        ]
      : []),
  ],
});

function charts(rows: HotPath[]): Record<string, TopLevelSpec> {
  const light = rows.flatMap((h) => [
    { path: h.path, figure: "p50 ms", value: h.light.p50Ms },
    { path: h.path, figure: "p99 ms", value: h.light.p99Ms },
  ]);
  const lightTargets = rows.flatMap((h) => (LIGHT_P99_TARGET_MS[h.path] === undefined ? [] : [{ path: h.path, value: LIGHT_P99_TARGET_MS[h.path] }]));
  const capacity = rows.flatMap((h) => [
    { path: h.path, figure: "ours req/s", value: h.capacity.rps },
    ...(h.raw ? [{ path: h.path, figure: "raw Bun.serve req/s", value: h.raw.rps }] : []),
  ]);
  const open = rows.flatMap((h) => [
    { path: h.path, figure: "light-load p99 ms", value: h.light.p99Ms },
    { path: h.path, figure: `open-loop p99 ms at ${OPEN_LOOP_SHARE * 100}% capacity`, value: h.open.p99Ms },
  ]);
  const openLimits = rows.map((h) => ({ path: h.path, value: OPEN_LOOP_FACTOR * h.light.p99Ms }));
  return {
    "light-load": dots("Light load: 1 connection (red tick: p99 target)", light, "ms", lightTargets),
    capacity: dots("Capacity: req/s at saturation, ours next to raw Bun.serve", capacity, "req/s"),
    "open-loop": dots(`Open loop at ${OPEN_LOOP_SHARE * 100}% of capacity (red tick: ${OPEN_LOOP_FACTOR}× light-load p99)`, open, "ms", openLimits),
  };
}

const met = (ok: boolean | undefined) => (ok === undefined ? "—" : ok ? "met" : "**not met**");
const table = (header: string[], rows: string[][]) =>
  [`| ${header.join(" | ")} |`, `| ${header.map((_, i) => (i === 0 ? "---" : "---:")).join(" | ")} |`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");

function markdown(r: BenchResults, rows: HotPath[]): string {
  const m = r.machine;
  const lightRows = rows.map((h) => {
    const t = targetsOf(h);
    return [
      `\`${h.path}\``,
      fixed(h.light.p50Ms, 2),
      fixed(h.light.p99Ms, 2),
      String(h.light.requests),
      t.light ? `< ${t.light.limit}` : "—",
      met(t.light?.met),
    ];
  });
  const capacityRows = rows.map((h) => [
    `\`${h.path}\``,
    fixed(h.capacity.rps, 0),
    String(h.capacity.connections),
    h.raw ? `${fixed(h.raw.rps, 0)} (\`${h.raw.scenario}\`)` : "—",
    h.raw ? `${fixed(h.capacity.rps / h.raw.rps, 2)}×` : "—",
    fixed(h.capacity.p99Ms, 1),
  ]);
  const openRows = rows.map((h) => {
    const t = targetsOf(h);
    return [
      `\`${h.path}\``,
      String(h.open.offeredRps),
      fixed(h.open.achievedRps, 0),
      fixed(h.open.p50Ms, 2),
      fixed(h.open.p99Ms, 2),
      fixed(h.light.p99Ms, 2),
      `< ${fixed(t.open.limit, 2)}`,
      met(t.open.met),
      String(h.open.errors),
      fixed(h.open.scheduleLagMs, 1),
    ];
  });
  return `# Performance

Generated by \`npm run bench -- report\` from the run of ${r.at} (\`${r.command}\`,
${r.warmupS} s warm-up before each measurement). What each figure means and how it is measured:
[bench/README.md](../bench/README.md) ("Targets"). Targets are read on ${r.database}, never asserted.

**Machine**: ${m.cpu}, ${m.cpus} CPUs, ${fixed(m.memoryGiB, 1)} GiB memory, ${m.os}, Bun ${m.bun}.
The server, PostgreSQL and the load generator share these CPUs over loopback.

**Noise**: the 1-minute load average was ${fixed(m.loadAverage, 1)} on ${m.cpus} CPUs when the run started.
${
  m.loadAverage > m.cpus
    ? "The machine was busy with other work during the run, so every figure here is noisy: capacities are\nlow, and latencies, above all p99s, include time spent waiting for a CPU.\n"
    : ""
}Compare the rows of one run with each other, not with another machine; run it again before
trusting a difference.

Every hot path gets three figures:

- **Light load**: one connection, one request at a time (a closed loop): what a single client waits.
- **Capacity**: req/s at saturation (a closed loop at the connections shown), next to raw
  \`Bun.serve\` answering the same request with a fixed body, measured in the same run.
- **Open loop**: requests sent on a fixed schedule at ${OPEN_LOOP_SHARE * 100}% of the measured capacity, whether
  or not answers come back, each latency measured from its scheduled send time (so a stall is
  counted, not hidden), read against ${OPEN_LOOP_FACTOR}× the light-load p99 of the same path.

## Light load

![Light load](performance/light-load.svg)

${table(["path", "p50 ms", "p99 ms", "requests", "p99 target ms", "target"], lightRows)}

Targets: \`tools/call\` p99 < 3 ms, chat stream first byte p99 < 5 ms, every other MCP method p99 < 1 ms.

## Capacity

![Capacity](performance/capacity.svg)

${table(["path", "ours req/s", "connections", "raw Bun.serve req/s (request)", "ours ÷ raw", "closed-loop p99 ms (information)"], capacityRows)}

Raw \`Bun.serve\` serves only the MCP \`ping\`, so every MCP method of ours is put next to it. The
chat stream's capacity counts whole streams. The closed-loop p99 at saturation is a consequence
of throughput (latency ≈ connections ÷ req/s) and is shown for information only.

## Open loop at ${OPEN_LOOP_SHARE * 100}% of capacity

![Open loop](performance/open-loop.svg)

${table(["path", "offered req/s", "answered req/s", "p50 ms", "p99 ms", "light-load p99 ms", `target (${OPEN_LOOP_FACTOR}×)`, "target", "errors", "max send lag ms"], openRows)}

*max send lag*: how far the generator's sends fell behind their schedule at worst; the latency is
measured from the schedule, so a late send is counted as the server's time, never dropped.
`;
}

/** The line that opens the hand-written part of the document (right under its heading). */
const HAND_WRITTEN = "Hand-written (not generated by `npm run bench -- report`";

/**
 * The document's hand-written part, from the heading just above HAND_WRITTEN to the end, or ""
 * when there is none: `report` rewrites only what comes before it and keeps this as it is.
 */
export function handWrittenPart(existing: string): string {
  const at = existing.indexOf(`\n${HAND_WRITTEN}`);
  if (at < 0) return "";
  const heading = existing.lastIndexOf("\n## ", at);
  return heading < 0 ? "" : existing.slice(heading + 1);
}

export async function writeReport(): Promise<void> {
  if (!existsSync(RESULTS_FILE)) {
    process.stderr.write(`bench: no results at ${RESULTS_FILE}: run \`npm run bench -- tool-server chat\` (or more) first\n`);
    process.exit(1);
  }
  const results = JSON.parse(readFileSync(RESULTS_FILE, "utf8")) as BenchResults;
  const rows = results.hotPaths.filter((h) => h.target === results.database);
  mkdirSync(CHARTS, { recursive: true });
  for (const [name, spec] of Object.entries(charts(rows))) writeFileSync(join(CHARTS, `${name}.svg`), await svgOf(spec));
  const kept = existsSync(DOC) ? handWrittenPart(readFileSync(DOC, "utf8")) : "";
  writeFileSync(DOC, kept ? `${markdown(results, rows).trimEnd()}\n\n${kept}` : markdown(results, rows));
  console.log(`wrote ${DOC} and ${Object.keys(charts(rows)).length} charts in ${CHARTS}`);
}
