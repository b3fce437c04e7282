// The four headline figures of the last 7 days beside the 7 before (the Reports page and the
// overview show them), and how the report's figures are written (rates, durations, averages).
import { type Html, html } from "../../html/html.ts";
import type { Headline } from "../../reports/report.ts";

export const pct = (v: number | null) => (v === null ? "—" : `${(v * 100).toFixed(1)}%`);
export const avg = (v: number | null) => (v === null ? "—" : v.toFixed(2));

export function duration(ms: number | null): string {
  if (ms === null) return "—";
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.round(s / 60)} min`;
  if (s < 86400) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86400).toFixed(1)} d`;
}

const HEADLINE_LABELS: Record<Headline["name"], [string, (v: number | null) => string]> = {
  conversations: ["Conversations", (v) => (v === null ? "—" : String(v))],
  ai_resolution_rate: ["AI resolution rate", pct],
  first_response_median_ms: ["Median first response", duration],
  csat_satisfied_rate: ["CSAT (4 or 5)", pct],
};

function change(h: Headline): string {
  if (h.current === null || h.previous === null) return "no figure to compare";
  const d = h.current - h.previous;
  const shown =
    h.name === "conversations"
      ? String(Math.abs(d))
      : h.name === "first_response_median_ms"
        ? duration(Math.abs(d))
        : `${(Math.abs(d) * 100).toFixed(1)} points`;
  return d === 0 ? "no change" : `${d > 0 ? "up" : "down"} ${shown} on the 7 days before`;
}

/**
 * Why a young rate is low (docs/decisions.md "Reports: what each figure counts"): an answer is an
 * assumed resolution only once 24 quiet hours have passed, so the newest conversations count as
 * unresolved until then; said next to the figure wherever it is shown.
 */
const AI_RATE_NOTE = "An answer counts as an assumed resolution once 24 hours pass without a reply, so the most recent day’s rate is low until then.";

function card(h: Headline): Html {
  const [label, format] = HEADLINE_LABELS[h.name];
  const note = h.name === "ai_resolution_rate";
  const noted = note ? html` aria-describedby="ai-rate-note"` : "";
  return html`<div class="panel"><dt>${label}</dt><dd${noted}><strong>${format(h.current)}</strong> <span class="muted">${change(h)}</span>\
${note ? html`<p class="hint" id="ai-rate-note">${AI_RATE_NOTE}</p>` : ""}</dd></div>`;
}

/** The four headline figures of the last 7 days. */
export function headlineCards(list: Headline[]): Html {
  return html`<dl class="cards headlines">${list.map(card)}</dl>`;
}
