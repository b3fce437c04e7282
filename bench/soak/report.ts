// The soak's numbers: per-operation and per-interval figures from the load's samples, the checks
// that come from the load itself (the request bound, server errors) and from the instances'
// usage, the printed table, and docs/reliability.md with its charts.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { timeChart, type Point } from "./charts.ts";
import type { FaultWindow } from "./faults.ts";
import type { Check } from "./invariants.ts";
import type { Sample } from "./load.ts";

export interface UsageSample {
  t: number;
  instance: string;
  rss: number;
  fds: number;
}

export interface DepthSample {
  t: number;
  kind: string;
  waiting: number;
}

const isError = (s: Sample) => !s.refusal && (s.status === 0 || s.status >= 500 || s.failedBody);

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

export function requestChecks(samples: Sample[], boundSeconds: number): Check[] {
  const over = samples.filter((s) => s.ms > boundSeconds * 1000);
  const longest = samples.reduce((m, s) => Math.max(m, s.ms), 0);
  const five = samples.filter((s) => s.status === 500).length;
  return [
    {
      name: `no request open longer than ${boundSeconds} s`,
      held: over.length === 0,
      detail: `longest ${(longest / 1000).toFixed(2)} s; ${over.length} over the bound${over.length ? ` (${[...new Set(over.map((s) => s.op))].join(", ")})` : ""}`,
    },
    {
      name: "no 500 answers",
      held: five === 0,
      detail: `${five} answered 500; ${samples.filter((s) => s.refusal).length} refused with 503 and Retry-After (counted as correct)`,
    },
  ];
}

/** Each instance's usage after the load against its baseline: 20 s after its latest start, under load. */
export function usageChecks(usage: UsageSample[], starts: Map<string, number>, final: Map<string, { rss: number; fds: number }>): Check[] {
  const lines: string[] = [];
  let held = true;
  for (const [name, end] of final) {
    const since = (starts.get(name) ?? 0) + 20_000;
    const base = usage.find((u) => u.instance === name && u.t >= since);
    if (!base) {
      lines.push(`${name}: no baseline`);
      held = false;
      continue;
    }
    const ok = end.rss <= base.rss * 1.5 && end.fds <= base.fds + 16;
    held &&= ok;
    lines.push(`${name}: RSS ${(base.rss / 2 ** 20).toFixed(0)} → ${(end.rss / 2 ** 20).toFixed(0)} MiB, fds ${base.fds} → ${end.fds}`);
  }
  return [{ name: "RSS and open handles back near baseline (RSS ≤ 1.5×, fds ≤ +16)", held, detail: lines.join("; ") }];
}

export function opTable(samples: Sample[]): string[][] {
  const ops = [...new Set(samples.map((s) => s.op))].sort();
  const row = (name: string, list: Sample[]) => {
    const ms = list.map((s) => s.ms).sort((a, b) => a - b);
    return [
      name,
      String(list.length),
      String(list.filter((s) => s.status >= 200 && s.status < 300 && !s.failedBody).length),
      String(list.filter((s) => s.refusal).length),
      String(list.filter((s) => s.status === 500).length),
      String(list.filter((s) => s.status === 0).length),
      String(list.filter((s) => isError(s) && s.status !== 500 && s.status !== 0).length),
      quantile(ms, 0.5).toFixed(1),
      quantile(ms, 0.99).toFixed(1),
      (ms[ms.length - 1] ?? 0).toFixed(0),
    ];
  };
  return [
    ["operation", "requests", "2xx", "503 + Retry-After", "500", "no answer", "other errors", "p50 ms", "p99 ms", "max ms"],
    ...ops.map((op) =>
      row(
        op,
        samples.filter((s) => s.op === op),
      ),
    ),
    row("all", samples),
  ];
}

export function printTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ")).join("\n");
}

const md = (rows: string[][]) =>
  [
    `| ${rows[0]!.join(" | ")} |`,
    `|${rows[0]!.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`,
    ...rows.slice(1).map((r) => `| ${r.join(" | ")} |`),
  ].join("\n");

export function checkRows(checks: Check[]): string[][] {
  return [["invariant", "held", "detail"], ...checks.map((c) => [c.name, c.held ? "yes" : "NO", c.detail])];
}

function series(samples: Sample[], seconds: number, step: number) {
  const buckets = Array.from({ length: Math.ceil(seconds / step) }, () => [] as Sample[]);
  for (const s of samples) {
    const i = Math.floor(s.at / 1000 / step);
    if (i >= 0 && i < buckets.length) buckets[i]!.push(s);
  }
  const out = { throughput: [] as Point[], latency: [] as Point[], errors: [] as Point[] };
  buckets.forEach((list, i) => {
    const t = (i + 0.5) * step;
    const ms = list.map((s) => s.ms).sort((a, b) => a - b);
    out.throughput.push({ t, value: list.length / step, series: "requests/s" });
    out.latency.push({ t, value: list.length ? quantile(ms, 0.5) : null, series: "p50" }, { t, value: list.length ? quantile(ms, 0.99) : null, series: "p99" });
    out.errors.push(
      { t, value: list.filter(isError).length / step, series: "errors/s" },
      { t, value: list.filter((s) => s.refusal).length / step, series: "503 + Retry-After/s" },
    );
  });
  return out;
}

export interface ReportInput {
  seconds: number;
  samples: Sample[];
  depth: DepthSample[];
  windows: FaultWindow[];
  checks: Check[];
  machine: string;
  date: string;
  notes: string[];
}

export async function writeReport(root: string, r: ReportInput): Promise<void> {
  const step = r.seconds >= 300 ? 5 : 2;
  const s = series(r.samples, r.seconds, step);
  const dir = join(root, "docs/reliability");
  mkdirSync(dir, { recursive: true });
  const charts: [string, string][] = [
    ["throughput.svg", await timeChart("Throughput (answered requests per second)", "requests/s", s.throughput, r.windows, r.seconds)],
    ["latency.svg", await timeChart("Latency p50 and p99 per interval (log scale)", "ms", s.latency, r.windows, r.seconds, true)],
    ["errors.svg", await timeChart("Errors and 503 refusals per second", "per second", s.errors, r.windows, r.seconds)],
    [
      "outbox.svg",
      await timeChart(
        "Outbox depth (svc_outbox_waiting from GET /metrics)",
        "rows",
        r.depth.map((d) => ({ t: d.t / 1000, value: d.waiting, series: d.kind })),
        r.windows,
        r.seconds,
      ),
    ],
  ];
  for (const [name, svg] of charts) writeFileSync(join(dir, name), svg);
  const faults = [
    ["#", "fault", "from s", "to s"],
    ...r.windows.map((w, i) => [String(i + 1), w.name, (w.start / 1000).toFixed(1), (w.end / 1000).toFixed(1)]),
  ];
  const held = r.checks.every((c) => c.held);
  // A "Findings" section written by hand after a run (what failed and why) is kept when the page is written again.
  const page = join(root, "docs/reliability.md");
  const findings = existsSync(page) ? (/\n## Findings\n[\s\S]*?(?=\n## |$)/.exec(readFileSync(page, "utf8"))?.[0] ?? "") : "";
  const doc = `# Reliability: the soak

\`npm run soak\` runs three server instances on one PostgreSQL with a loopback SMTP server and two webhook receivers, puts mixed load on them for \`SOAK_SECONDS\`, injects faults on a schedule, then checks what must hold. This page is written by the run (${r.date}, ${r.seconds} s of load, on ${r.machine}), all but its "Findings" section, which is written by hand after reading the run. How the soak works and what each check means: [bench/soak/README.md](../bench/soak/README.md).

**Result: ${held ? "every invariant held." : "not every invariant held — see the rows marked NO."}**
${findings}

## Invariants

${md(checkRows(r.checks))}

## Faults injected

${md(faults)}

## Requests

${md(opTable(r.samples))}

"503 + Retry-After" are correct refusals (the service saying the database is away and when to come back), not errors. "No answer" is a connection refused or cut (an instance killed under a request). Durations are measured in the load generator, from sending the request to reading the whole answer (the whole stream for \`chat_stream\`).

## Over time

Shaded bands are the fault windows, numbered as in the table above; intervals of ${step} s.

![Throughput](reliability/throughput.svg)

![Latency](reliability/latency.svg)

![Errors](reliability/errors.svg)

![Outbox depth](reliability/outbox.svg)

${r.notes.length ? `## Notes\n\n${r.notes.map((n) => `- ${n}`).join("\n")}\n` : ""}`;
  writeFileSync(page, doc);
}
