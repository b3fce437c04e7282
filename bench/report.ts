// How benchmark results are printed: aligned tables, comparisons against reference targets, and
// percentiles of samples. Figures only; nothing here is asserted.
import { type LoadResult, percentile } from "./load.ts";

export const fixed = (value: number | null | undefined, digits: number) => (typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "—");

/** Prints aligned columns. `align` has one letter per column, l or r; the default is text first, numbers after. */
export function printTable(title: string, header: string[], rows: string[][], align = `l${"r".repeat(header.length - 1)}`): void {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (align[i] === "l" ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  console.log(`\n${title}\n${line(header)}\n${widths.map((w) => "-".repeat(w)).join("  ")}`);
  for (const row of rows) console.log(line(row));
}

export interface Measurement {
  scenario: string;
  target: string;
  result: LoadResult;
  /** CPU the load generator used over its whole run, in % of one core (can pass 100: Bun's fetch has its own thread). */
  loadCpuPct: number;
  rssAfterMiB?: number;
}

/** One row per scenario × target, with req/s relative to each reference target's for the same scenario. */
export function printComparison(title: string, measurements: Measurement[], references: string[]): void {
  const rows = measurements.map((m) => {
    const ratios = references.map((reference) => {
      const ref = measurements.find((r) => r.scenario === m.scenario && r.target === reference);
      return ref && ref.result.rps > 0 ? `${fixed(m.result.rps / ref.result.rps, 2)}×` : "—";
    });
    return [
      m.scenario,
      m.target,
      fixed(m.result.rps, 0),
      fixed(m.result.p50Ms, 2),
      fixed(m.result.p99Ms, 2),
      String(m.result.errors),
      ...ratios,
      fixed(m.loadCpuPct, 0),
      fixed(m.rssAfterMiB, 1),
    ];
  });
  printTable(
    title,
    ["scenario", "target", "req/s", "p50 ms", "p99 ms", "errors", ...references.map((r) => `vs ${r}`), "loadgen CPU %", "RSS after MiB"],
    rows,
    `ll${"r".repeat(6 + references.length)}`,
  );
}

export const stats = (samples: number[]) => {
  const sorted = Float64Array.from(samples).sort();
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), n: sorted.length };
};

/** The embedded database against PostgreSQL (bench/README.md "Targets"): PGlite's req/s ÷ PostgreSQL's, same scenario, same run. */
export const EMBEDDED_VS_POSTGRES = 0.5;

/** One line per scenario: PGlite's req/s over PostgreSQL's, and whether it reaches EMBEDDED_VS_POSTGRES. */
export function printEmbeddedRatio(measurements: Measurement[], scenarios: string[], pglite: string, postgres: string): void {
  const lines = scenarios.flatMap((scenario) => {
    const embedded = measurements.find((m) => m.scenario === scenario && m.target === pglite)?.result;
    const server = measurements.find((m) => m.scenario === scenario && m.target === postgres)?.result;
    if (!embedded || !server || server.rps <= 0) return [];
    const ratio = embedded.rps / server.rps;
    const verdict = ratio >= EMBEDDED_VS_POSTGRES ? "target met" : "target NOT met";
    return [
      `- ${scenario}: ${fixed(embedded.rps, 0)} vs ${fixed(server.rps, 0)} req/s = ${fixed(ratio, 2)}× (p99 ${fixed(embedded.p99Ms, 1)} vs ${fixed(server.p99Ms, 1)} ms) — ${verdict}`,
    ];
  });
  if (lines.length === 0) return;
  console.log(`\nEmbedded database (PGlite, on its worker thread) ÷ PostgreSQL, same run, req/s ≥ ${EMBEDDED_VS_POSTGRES}× (a goal to read, never asserted)`);
  for (const line of lines) console.log(line);
}
