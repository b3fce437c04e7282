// Which of the organisation's actions an agent may call: a filtered, paged table of toggles, with
// connector, custom and destructive actions flagged, through src/tools/toggles.ts.
import type { Agent } from "../agents/service.ts";
import { memberActor } from "../kit/actor.ts";
import { listAgentActions, setAgentActions } from "../tools/toggles.ts";
import { type DashboardContext, formList, pageNumber, pageOf, redirect, shellPage } from "./kit/index.ts";
import { AgentActions } from "./views/agent-actions.ts";

const ACTIONS_PAGE = 50;

export async function actionsPage(ctx: DashboardContext, agent: Agent, query: Record<string, string | undefined>): Promise<Response> {
  const actions = await listAgentActions(ctx.deps, ctx.orgId, agent.id);
  const filter = query.source ?? "";
  const shown = filter ? actions.filter((a) => a.source.kind === filter) : actions;
  const page = pageOf(shown, pageNumber(query.page), ACTIONS_PAGE);
  const body = AgentActions({ agent, filter, page, query, manage: ctx.can("agents:manage") });
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
