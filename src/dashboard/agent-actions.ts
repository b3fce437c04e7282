// Which of the organisation's actions an agent may call: a filtered, paged table of toggles, with
// connector, custom and destructive actions flagged, through src/tools/toggles.ts.
import type { Agent } from "../agents/service.ts";
import { attrs, html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import { listAgentActions, setAgentActions } from "../tools/toggles.ts";
import { type DashboardContext, formList, listTable, pageNumber, pageOf, pager, redirect, select, shellPage, submit } from "./kit/index.ts";

const ACTIONS_PAGE = 50;

export async function actionsPage(ctx: DashboardContext, agent: Agent, query: Record<string, string | undefined>): Promise<Response> {
  const actions = await listAgentActions(ctx.deps, ctx.orgId, agent.id);
  const filter = query.source ?? "";
  const shown = filter ? actions.filter((a) => a.source.kind === filter) : actions;
  const page = pageOf(shown, pageNumber(query.page), ACTIONS_PAGE);
  const manage = ctx.can("agents:manage");
  const flag = (a: (typeof actions)[number]) =>
    html`${a.source.kind === "connector" ? html`<span class="badge accent">connector: ${a.source.label}</span>` : a.source.kind === "custom" ? html`<span class="badge warn">custom action</span>` : html`<span class="badge">${a.source.label}</span>`}${a.destructive ? html`<span class="badge danger">destructive</span>` : ""}`;
  const body = html`<p><a href="/dashboard/agents/${agent.id}">← ${agent.name}</a></p>
<h1>Actions for ${agent.name}</h1>
<p class="muted">Which of the organisation's actions this agent may call. Connector and custom actions reach other systems; destructive ones change or delete data there.</p>
<form method="get" action="/dashboard/agents/${agent.id}/actions" class="toolbar">
${select({
  name: "source",
  label: "Source",
  value: filter,
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
  row: (a, i) =>
    html`<tr><td><input type="hidden" name="shown" value="${a.id}"><input type="checkbox" id="act-${i}" name="enabled" value="${a.id}"${attrs({ checked: a.enabled, disabled: !manage })} aria-describedby="act-${i}-d"></td><td><label for="act-${i}"><code>${a.name}</code></label><div class="hint" id="act-${i}-d">${a.description.length > 200 ? `${a.description.slice(0, 200).replace(/\s+\S*$/, "")}…` : a.description}</div></td><td>${flag(a)}</td></tr>`,
  empty: `No actions${filter ? " from this source" : ""}.`,
})}
${manage && page.items.length > 0 ? html`<div class="actions">${submit("Save toggles", { busy: "Saving…" })}</div>` : ""}
</form>
${pager(`/dashboard/agents/${agent.id}/actions`, query, page.page, page.hasMore)}`;
  return shellPage(ctx, { title: `Actions · ${agent.name}`, active: "agents", body });
}

/**
 * Only the actions shown on the submitted page change: an unchecked box is "off", an action on
 * another page is left as it is.
 */
export async function saveToggles(ctx: DashboardContext, agent: Agent, body: unknown): Promise<Response> {
  const shown = new Set(formList(body, "shown"));
  const on = new Set(formList(body, "enabled").filter((id) => shown.has(id)));
  const current = new Map((await listAgentActions(ctx.deps, ctx.orgId, agent.id)).map((a) => [a.id, a.enabled]));
  const enable = [...on].filter((id) => current.get(id) === false);
  const disable = [...shown].filter((id) => !on.has(id) && current.get(id) === true);
  await setAgentActions(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), agent.id, { enable, disable });
  const changed = enable.length + disable.length;
  return redirect(
    ctx.deps,
    `/dashboard/agents/${agent.id}/actions`,
    changed === 0 ? "Nothing changed." : `${changed} action${changed === 1 ? "" : "s"} switched.`,
  );
}
