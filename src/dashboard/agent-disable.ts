// Disabling an agent goes through the kit's confirmation page, which says what it stops (for the
// active agent: the widget, chat and tool calls, until another is activated); enabling does not
// need one (it makes the agent inactive, not active).
import { type Agent, updateAgent } from "../agents/service.ts";
import { memberActor } from "../kit/actor.ts";
import { confirmPage, type DashboardContext, type FormValues, redirect } from "./kit/index.ts";
import { DisableConsequences } from "./views/agent-disable.ts";

export function disablePage(ctx: DashboardContext, agent: Agent): Response {
  return confirmPage(ctx, {
    title: `Disable ${agent.name}`,
    heading: `Disable ${agent.name}?`,
    active: "agents",
    back: { href: `/dashboard/agents/${agent.id}`, label: agent.name },
    summary: "What disabling does",
    body: DisableConsequences({ agent }),
    action: `/dashboard/agents/${agent.id}/disable`,
    word: "yes",
    button: `Disable ${agent.name}`,
    busy: "Disabling…",
  });
}

/** Only the confirmation page's form disables; any other post gets that page. */
export async function disable(ctx: DashboardContext, agent: Agent, values: FormValues): Promise<Response> {
  if (values.confirm !== "yes") return disablePage(ctx, agent);
  const updated = await updateAgent(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), agent.id, { status: "disabled" });
  const flash =
    agent.status === "active"
      ? {
          kind: "error" as const,
          text: `“${updated.name}” is disabled. The organisation has no active agent now: the widget answers that none is available until you activate one.`,
        }
      : `“${updated.name}” is disabled.`;
  return redirect(ctx.deps, `/dashboard/agents/${updated.id}`, flash);
}

export async function enable(ctx: DashboardContext, agent: Agent): Promise<Response> {
  if (agent.status !== "disabled") return redirect(ctx.deps, `/dashboard/agents/${agent.id}`, `“${agent.name}” is not disabled.`);
  const updated = await updateAgent(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), agent.id, { status: "inactive" });
  return redirect(
    ctx.deps,
    `/dashboard/agents/${updated.id}`,
    `“${updated.name}” is enabled (inactive): make it the active agent to have it answer the widget.`,
  );
}
