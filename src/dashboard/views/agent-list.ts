// The agents list (with activate buttons) and the form that creates an agent.
import { type Html, html } from "../../html/html.ts";
import { actionButton, errorSummary, field, type FieldErrors, type FormValues, listTable, pager, submit, textarea, when } from "../kit/index.ts";
import { statusBadge } from "./agent-status.ts";
import type { Agent } from "../../agents/service.ts";
import type { AGENT_LIMITS } from "../../agents/agent-input.ts";

export interface AgentListProps {
  /** Every agent of the org (the count and whether one is active). */
  all: readonly Agent[];
  /** The page shown. */
  page: { items: readonly Agent[]; page: number; hasMore: boolean };
  query: Record<string, string | undefined>;
  manage: boolean;
  limits: typeof AGENT_LIMITS;
  /** The create form's values and errors (after a refused post). */
  values: FormValues;
  errors: FieldErrors;
}

function agentRow(a: Agent, manage: boolean): Html {
  const activate = a.status === "active" ? "" : actionButton(`/dashboard/agents/${a.id}/activate`, "Activate", { busy: "Activating…" });
  const name = html`<td><a href="/dashboard/agents/${a.id}">${a.name}</a></td>`;
  const skills = html`<td>${a.skills.join(", ") || "—"}</td>`;
  return html`<tr>${name}<td>${statusBadge(a.status)}</td>${skills}<td>${when(a.updatedAt)}</td>${manage ? html`<td>${activate}</td>` : ""}</tr>`;
}

function createForm(p: AgentListProps): Html {
  const { values, errors } = p;
  return html`<section class="panel" aria-labelledby="new-agent"><h2 id="new-agent">New agent</h2>
${errorSummary(errors)}
<form method="post" action="/dashboard/agents" novalidate>
${field({ name: "name", label: "Name", value: values.name, error: errors.name, required: true, maxLength: p.limits.name })}
${textarea({
  name: "instructions",
  label: "Instructions",
  value: values.instructions,
  error: errors.instructions,
  hint: "How the agent should answer: tone, what it may promise, when to hand over.",
  rows: 5,
})}
<div class="actions">${submit("Create agent", { busy: "Creating…" })}</div>
</form></section>`;
}

export function AgentList(p: AgentListProps): Html {
  const count = html`${p.all.length} of at most ${p.limits.agentsPerOrg} agents.`;
  const testLink = html`<a href="/dashboard/eval">Test your agent</a>`;
  const refused = html`the widget cannot load its agent and chats are refused (404) until you activate one.`;
  const noActive = html`<p class="error" id="no-active-agent">No agent is active: ${refused}</p>`;
  return html`<h1>Agents</h1>
<p class="muted">The active agent answers the widget, chat and campaigns. ${count} ${testLink} with your customers' questions.</p>
${p.all.some((a) => a.status === "active") ? "" : noActive}
${listTable({
  caption: "Agents",
  columns: ["Name", "Status", "Skills", "Updated", ...(p.manage ? [{ label: "Actions", hidden: true as const }] : [])],
  rows: p.page.items,
  row: (a) => agentRow(a, p.manage),
  empty: p.all.length === 0 ? "No agents yet." : null,
})}
${pager("/dashboard/agents", p.query, p.page.page, p.page.hasMore)}
${p.manage ? createForm(p) : ""}`;
}
