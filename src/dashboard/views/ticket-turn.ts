// One turn of a ticket's thread: who (the customer, the AI marked as such, people by name, internal
// notes set apart), when, the text — keeping its line breaks in the page's own font (styles.ts
// `.turn-text`) — the AI's sources, and, for a message that came by email, its sender and original.
import { type Html, html } from "../../html/html.ts";
import { when } from "../kit/table.ts";

export type Kind = "customer" | "ai" | "person" | "note";
interface Source {
  title: string;
  url: string | null;
}
export interface Turn {
  id: string;
  at: string;
  kind: Kind;
  who: string;
  text: string;
  sources: Source[];
  verified?: boolean;
}
const LABEL: Record<Kind, string> = { customer: "Customer", ai: "AI agent", person: "Team", note: "Internal note" };

export interface TurnProps {
  turn: Turn;
  /** The customer's label (who a customer turn is by). */
  customer: string;
  /** A message that came by email: its sender and its original (views/ticket-email.ts). */
  email?: { sender: Html | ""; original: Html | "" };
  /** Stands for the turn's text when given (a translated message with its original: views/ticket-translation.ts). */
  body?: Html;
}

function sourceLink(s: Source, i: number): Html {
  return html`${i > 0 ? ", " : ""}${s.url ? html`<a href="${s.url}" rel="noopener noreferrer">${s.title}</a>` : s.title}`;
}

export function TicketTurn({ turn, customer, email = { sender: "", original: "" }, body }: TurnProps): Html {
  const who = turn.kind === "customer" ? customer : turn.who === LABEL.ai ? "" : turn.who;
  const label = html`<span class="badge${turn.kind === "note" ? " warn" : turn.kind === "ai" ? " accent" : ""}">${LABEL[turn.kind]}</span>`;
  const aside =
    turn.kind === "note" ? html` <span class="muted">not visible to the customer</span>` : turn.verified ? html` <span class="badge ok">verified</span>` : "";
  const sources = turn.sources.length > 0 ? html`<p class="muted small">Sources: ${turn.sources.map(sourceLink)}</p>` : "";
  const head = html`<p class="turn-head">${label}${who ? html` <strong>${who}</strong>` : ""}${aside} <span class="muted">${when(turn.at)}</span></p>`;
  const text = body ?? html`<div class="turn-text">${turn.text}</div>`;
  const aria = who ? `${LABEL[turn.kind]} by ${who}` : LABEL[turn.kind];
  return html`<article class="turn turn-${turn.kind}" aria-label="${aria}">${head}${email.sender}${text}${sources}${email.original}</article>`;
}
