// The customer's rating on a ticket's page (README "CSAT"), and why the chat handed it over.
import { type Html, html } from "../../html/html.ts";

const REASONS: Record<string, string> = {
  live_help: "the customer asked for a person",
  routing_rule: "a routing rule",
  low_confidence: "low confidence",
  frustration: "frustration",
};

export function ticketCsat(t: { csatScore: number | null; csatComment: string | null; csatAt: Date | null; handoffReason: string | null }): Html {
  const handoff = t.handoffReason ? html`<span class="muted">Handed over by the chat: ${REASONS[t.handoffReason] ?? t.handoffReason}.</span> ` : "";
  let rating: Html | "" = "";
  if (t.csatScore !== null) {
    const tone = t.csatScore >= 4 ? "ok" : t.csatScore <= 2 ? "danger" : "warn";
    rating = html`<span class="badge ${tone}">rated ${String(t.csatScore)}/5</span>${t.csatComment ? html` <q>${t.csatComment}</q>` : ""}`;
  }
  return handoff || rating ? html`<p>${handoff}${rating}</p>` : html``;
}
