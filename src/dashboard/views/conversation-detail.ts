// One conversation: who the customer is, whether they are on the site now, who has the
// conversation (the join button), and the transcript with each answer's actions, routing, sources
// and confidence.
import type { readConversation } from "../../conversations/dashboard.ts";
import { type Html, html } from "../../html/html.ts";
import { submit } from "../kit/fields.ts";
import { when } from "../kit/table.ts";
import { PresenceLine } from "./presence-line.ts";

type Conversation = Awaited<ReturnType<typeof readConversation>>;
type Message = Conversation["messages"][number];

export interface ConversationDetailProps {
  conversation: Conversation;
  /** Who the customer is: linked when known, else a word. */
  customerId: string | null;
  who: string;
  /** The conversation's ticket when it waits for a person, and whether a person has it. */
  waiting: { number: number; personHas: boolean } | null;
  /** inbox:manage: may join the conversation. */
  manage: boolean;
  orgId: string;
  /** How many of the latest messages the page shows at most. */
  messagesMax: number;
}

function confidenceBadge(value: number | null): Html {
  if (value === null) return html``;
  const pct = Math.round(value * 100);
  return html`<span class="badge ${pct < 40 ? "danger" : pct < 70 ? "warn" : "ok"}">confidence ${pct}%</span>`;
}

function actionText(action: unknown): string {
  if (action && typeof action === "object") {
    const a = action as Record<string, unknown>;
    const name = typeof a.name === "string" ? a.name : typeof a.type === "string" ? a.type : typeof a.tool === "string" ? a.tool : "action";
    const status = typeof a.status === "string" ? ` (${a.status})` : typeof a.ok === "boolean" ? (a.ok ? " (ok)" : " (failed)") : "";
    return `${name}${status}`;
  }
  return String(action);
}

const JOIN_HOW = html`the customer sees that you joined, and you reply from the ticket it opens, live both ways.`;
const JOIN_BACK = html`Resolve the ticket to hand the conversation back to the AI.`;
const JOIN_TEXT = html`Join it to answer the customer yourself: the AI stops answering, ${JOIN_HOW} ${JOIN_BACK}`;

/** Who has the conversation: the ticket a person holds (linked), else the join button (inbox:manage). */
function TakeOver({ conversation, waiting, manage }: ConversationDetailProps): Html {
  if (waiting?.personHas) {
    const ticket = html`<a href="/dashboard/inbox/${waiting.number}">ticket #${waiting.number}</a>`;
    const quiet = html`the AI stays quiet until ${ticket} is resolved or closed.`;
    return html`<p class="panel">A person has this conversation: ${quiet} Reply there; the customer sees it live.</p>`;
  }
  if (!manage) return html`<p class="muted">The AI agent answers this conversation. Joining it needs the inbox:manage role.</p>`;
  const waits = waiting ? html` (<a href="/dashboard/inbox/${waiting.number}">ticket #${waiting.number}</a> waits for a person)` : "";
  const join = submit("Join conversation", { busy: "Joining…" });
  const form = html`<form method="post" action="/dashboard/conversations/${conversation.id}/join"><input type="hidden" name="go" value="1">${join}</form>`;
  return html`<div class="panel"><p>The AI agent answers this conversation${waits}. ${JOIN_TEXT}</p>
${form}</div>`;
}

const speaker = (m: Message) => (m.role === "customer" ? "Customer" : m.role === "agent" ? "AI agent" : `Reported (${m.reported_speaker ?? "earlier"})`);

function sourceItem(s: Message["sources"][number]): Html {
  return html`<li>${s.url && /^https?:\/\//.test(s.url) ? html`<a href="${s.url}" rel="noopener noreferrer">${s.title}</a>` : s.title}</li>`;
}

function MessagePanel(m: Message): Html {
  const who = speaker(m);
  const failed = m.status !== "complete" && m.role === "agent" ? html`<span class="badge danger">${m.status}</span>` : "";
  const badge = html`<span class="badge${m.role === "agent" ? " accent" : ""}">${who}</span>`;
  const head = html`${badge} <span class="muted">${when(m.created_at)}</span> ${confidenceBadge(m.confidence)}${failed}`;
  const actions = m.actions.length ? html`<p><strong>Actions:</strong> ${m.actions.map((a) => html`<span class="badge">${actionText(a)}</span>`)}</p>` : "";
  const ticket = m.routing?.ticket_id ? html` · <a href="/dashboard/inbox/${m.routing.ticket_id}">ticket</a>` : "";
  const routing = m.routing ? html`<p><strong>Routing:</strong> ${m.routing.action}${ticket}</p>` : "";
  const sources = m.sources.length ? html`<p><strong>Sources:</strong></p><ul>${m.sources.map(sourceItem)}</ul>` : "";
  return html`<article class="panel" aria-label="${who} at ${when(m.created_at)}"><p>${head}</p>
<pre>${m.text}</pre>
${m.error ? html`<p class="error">${m.error}</p>` : ""}
${actions}
${routing}
${sources}
</article>`;
}

export function ConversationDetail(p: ConversationDetailProps): Html {
  const c = p.conversation;
  const customer = p.customerId ? html`<a href="/dashboard/customers/${p.customerId}">${p.who}</a>` : p.who;
  const routed = c.routed ? html` · <span class="badge warn">routed</span>` : "";
  const ticket = c.ticket_id ? html` · <a href="/dashboard/inbox/${c.ticket_id}">Its ticket</a>` : "";
  const latest = c.message_count > c.messages.length ? html`<p class="muted">Showing the latest ${p.messagesMax} messages.</p>` : "";
  return html`<p><a href="/dashboard/conversations">← Conversations</a></p>
<h1>Conversation of ${when(c.created_at)}</h1>
<p class="muted">Customer: ${customer} · ${c.message_count} messages · mode ${c.mode}${routed}${ticket}</p>
${PresenceLine({ url: `/api/conversations/${c.id}/presence`, orgId: p.orgId })}
${TakeOver(p)}
${latest}
<h2>Transcript</h2>
${c.messages.length === 0 ? html`<p>No messages.</p>` : ""}
${c.messages.map(MessagePanel)}`;
}
