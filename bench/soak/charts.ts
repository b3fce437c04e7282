// The soak's charts: Vega-Lite specifications compiled and rendered to SVG in this process by Vega
// (no browser), each a time series with the fault windows shaded and numbered.
import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { FaultWindow } from "./faults.ts";

export interface Point {
  t: number;
  value: number | null;
  series: string;
}

export async function timeChart(title: string, yTitle: string, points: Point[], windows: FaultWindow[], seconds: number, log = false): Promise<string> {
  const faults = windows.map((w, i) => ({ start: w.start / 1000, end: Math.max(w.end / 1000, w.start / 1000 + 1), label: String(i + 1) }));
  const x = { field: "t", type: "quantitative", title: "seconds since the load began", scale: { domain: [0, seconds] } } as const;
  const spec = {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    width: 720,
    height: 220,
    layer: [
      {
        data: { values: faults },
        mark: { type: "rect", color: "#d62728", opacity: 0.13 },
        encoding: { x: { field: "start", type: "quantitative", scale: { domain: [0, seconds] } }, x2: { field: "end" } },
      },
      {
        data: { values: faults },
        mark: { type: "text", dy: -4, baseline: "bottom", color: "#d62728", fontWeight: "bold" },
        encoding: { x: { field: "start", type: "quantitative" }, y: { value: 12 }, text: { field: "label" } },
      },
      {
        data: { values: points.filter((p) => p.value !== null && (!log || p.value > 0)) },
        mark: { type: "line", interpolate: "linear", strokeWidth: 1.5, point: false },
        encoding: {
          x,
          y: { field: "value", type: "quantitative", title: yTitle, ...(log ? { scale: { type: "log" } } : {}) },
          color: { field: "series", type: "nominal", title: null, legend: { orient: "top" } },
        },
      },
    ],
    config: { font: "sans-serif", view: { stroke: "#ccc" } },
  } as unknown as TopLevelSpec;
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: "none" });
  const svg = await view.toSVG();
  view.finalize();
  return svg;
}
