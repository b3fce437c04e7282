// Which of the organisation's actions an agent may call: a filtered, paged table of toggles, with
// connector, custom and destructive actions flagged.
import { attrs, type Html, html } from "../../html/html.ts";
import { listTable, pager, select, submit } from "../kit/index.ts";
import type { Agent } from "../../agents/service.ts";
import type { listAgentActions } from "../../tools/toggles.ts";

type Action = Awaited<ReturnType<typeof listAgentActions>>[number];

export interface AgentActionsProps {
  agent: Pick<Agent, "id" | "name">;
  /** The source shown ("" for all). */
  filter: string;
  page: { items: readonly Action[]; page: number; hasMore: boolean };
  query: Record<string, string | undefined>;
  manage: boolean;
}

/** Where an action comes from, and whether it is destructive, as badges. */
function flag(a: Action): Html {
  const source =
    a.source.kind === "connector"
      ? html`<span class="badge accent">connector: ${a.source.label}</span>`
      : a.source.kind === "custom"
        ? html`<span class="badge warn">custom action</span>`
        : html`<span class="badge">${a.source.label}</span>`;
  return html`${source}${a.destructive ? html`<span class="badge danger">destructive</span>` : ""}`;
}

function actionRow(a: Action, i: number, manage: boolean): Html {
  const state = attrs({ checked: a.enabled, disabled: !manage });
  const toggle = html`<input type="checkbox" id="act-${i}" name="enabled" value="${a.id}"${state} aria-describedby="act-${i}-d">`;
  const description = a.description.length > 200 ? `${a.description.slice(0, 200).replace(/\s+\S*$/, "")}…` : a.description;
  const name = html`<label for="act-${i}"><code>${a.name}</code></label><div class="hint" id="act-${i}-d">${description}</div>`;
  return html`<tr><td><input type="hidden" name="shown" value="${a.id}">${toggle}</td><td>${name}</td><td>${flag(a)}</td></tr>`;
}

export function AgentActions(p: AgentActionsProps): Html {
  const { agent, page } = p;
  const reach = html`Connector and custom actions reach other systems; destructive ones change or delete data there.`;
  const save = p.manage && page.items.length > 0 ? html`<div class="actions">${submit("Save toggles", { busy: "Saving…" })}</div>` : "";
  return html`<p><a href="/dashboard/agents/${agent.id}">← ${agent.name}</a></p>
<h1>Actions for ${agent.name}</h1>
<p class="muted">Which of the organisation's actions this agent may call. ${reach}</p>
<form method="get" action="/dashboard/agents/${agent.id}/actions" class="toolbar">
${select({
  name: "source",
  label: "Source",
  value: p.filter,
  options: [
    { value: "", label: "All sources" },
    { value: "builtin", label: "Built-in" },
    { value: "connector", label: "Connectors" },
    { value: "custom", label: "Custom actions" },
  ],
})}
<button type="submit" class="secondary">Filter</button>
</form>
<form method="post" action="/dashboard/agents/${agent.id}/actions">
${listTable({
  caption: "Actions",
  columns: ["On", "Action", "Source"],
  rows: page.items,
  row: (a, i) => actionRow(a, i, p.manage),
  empty: `No actions${p.filter ? " from this source" : ""}.`,
})}
${save}
</form>
${pager(`/dashboard/agents/${agent.id}/actions`, p.query, page.page, page.hasMore)}`;
}
