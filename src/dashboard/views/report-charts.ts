// Server-rendered SVG bar charts of the Reports page, drawn with the html kit (docs/decisions.md
// "Reports: charts as plain SVG"): bars in currentColor, so they follow the page's light or dark
// text colour; each chart is an image with a label. The hand-off reasons' numbers follow in a table;
// the hours' chart is described in a sentence (its busiest hours) and its 24 numbers are folded in a
// details element under it (docs/decisions.md "Reports: hours in the viewer's time zone").
import { type Html, html } from "../../html/html.ts";
import { listTable } from "../kit/table.ts";

export interface Bar {
  label: string;
  value: number;
}

/** Vertical bars (e.g. the 24 hours of the day), with every `tick`-th label under the axis. */
export function columnChart(o: { title: string; bars: Bar[]; tick?: number; describedBy?: string }): Html {
  const width = 720;
  const height = 200;
  const top = 10;
  const bottom = 24;
  const max = Math.max(1, ...o.bars.map((b) => b.value));
  const slot = width / Math.max(1, o.bars.length);
  const tick = o.tick ?? 1;
  const plot = height - top - bottom;
  const described = o.describedBy ? html` aria-describedby="${o.describedBy}"` : "";
  return html`<svg class="chart" viewBox="0 0 ${String(width)} ${String(height)}" role="img" aria-label="${o.title}"${described} \
focusable="false" preserveAspectRatio="xMidYMid meet">
<line x1="0" y1="${String(height - bottom)}" x2="${String(width)}" y2="${String(height - bottom)}" stroke="currentColor" stroke-opacity="0.5"/>
${o.bars.map((b, i) => {
  const h = Math.round((b.value / max) * plot);
  const x = Math.round(i * slot + slot * 0.15);
  const barWidth = Math.max(1, Math.round(slot * 0.7));
  return html`<rect x="${String(x)}" y="${String(height - bottom - h)}" width="${String(barWidth)}" height="${String(h)}" \
fill="currentColor" fill-opacity="0.75"><title>${b.label}: ${String(b.value)}</title></rect>${
    i % tick === 0
      ? html`<text x="${String(Math.max(20, Math.round(i * slot + slot / 2)))}" y="${String(height - 6)}" \
text-anchor="middle" font-size="12" fill="currentColor">${b.label}</text>`
      : ""
  }`;
})}
</svg>`;
}

/** Horizontal bars with their labels and values (e.g. the hand-off reasons). */
export function barChart(o: { title: string; bars: Bar[] }): Html {
  const width = 720;
  const row = 30;
  const labelWidth = 200;
  const height = row * o.bars.length + 8;
  const max = Math.max(1, ...o.bars.map((b) => b.value));
  const room = width - labelWidth - 60;
  return html`<svg class="chart" viewBox="0 0 ${String(width)} ${String(height)}" role="img" aria-label="${o.title}" focusable="false">
${o.bars.map((b, i) => {
  const y = i * row + 4;
  const w = Math.round((b.value / max) * room);
  return html`<text x="${String(labelWidth - 8)}" y="${String(y + 18)}" text-anchor="end" font-size="14" fill="currentColor">${b.label}</text>\
<rect x="${String(labelWidth)}" y="${String(y + 4)}" width="${String(Math.max(w, 1))}" height="${String(row - 10)}" fill="currentColor" fill-opacity="0.75"/>\
<text x="${String(labelWidth + w + 6)}" y="${String(y + 18)}" font-size="14" fill="currentColor">${String(b.value)}</text>`;
})}
</svg>`;
}

/** The numbers of a chart as a table (the chart's text alternative). */
export function chartTable(caption: string, head: [string, string], bars: Bar[]): Html {
  return listTable({
    caption,
    columns: head,
    rows: bars,
    row: (b) => html`<tr><th scope="row">${b.label}</th><td>${String(b.value)}</td></tr>`,
    empty: "No data in this period.",
  });
}

/** The busiest bars in words ("Busiest: 10:00 (4 conversations)."), for a chart's description. */
export function busiest(bars: Bar[], unit: [string, string]): string {
  const top = Math.max(0, ...bars.map((b) => b.value));
  if (top === 0) return `No ${unit[1]} in this period.`;
  const at = bars.filter((b) => b.value === top).map((b) => b.label);
  const shown = at.length > 3 ? `${at.slice(0, 3).join(", ")} and ${at.length - 3} more` : at.join(at.length === 2 ? " and " : ", ");
  return `Busiest: ${shown} (${top} ${top === 1 ? unit[0] : unit[1]}${at.length > 1 ? " each" : ""}).`;
}

/** A chart's numbers as a table folded under it: there for anyone who wants them, not a second chart. */
export function foldedNumbers(summary: string, caption: string, head: [string, string], bars: Bar[]): Html {
  return html`<details><summary>${summary}</summary>${chartTable(caption, head, bars)}</details>`;
}
