// The agents list (with activate buttons) and the form that creates an agent.
import { createAgent, listAgents } from "../agents/service.ts";
import { AGENT_LIMITS } from "../agents/agent-input.ts";
import { memberActor } from "../kit/actor.ts";
import { type DashboardContext, type FieldErrors, type FormValues, pageNumber, pageOf, redirect, type Refused, shellPage, submitForm } from "./kit/index.ts";
import { AgentList } from "./views/agent-list.ts";
import { errorsFromService } from "./agent-form.ts";

const L = AGENT_LIMITS;

export async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, form?: Refused): Promise<Response> {
  const all = await listAgents(ctx.deps, ctx.orgId);
  const page = pageOf(all, pageNumber(query.page));
  const manage = ctx.can("agents:manage");
  const body = AgentList({ all, page, query, manage, limits: L, values: form?.values ?? {}, errors: form?.errors ?? {} });
  // A refused form answers 400, whatever the service said (a name taken included).
  return shellPage(ctx, { title: "Agents", active: "agents", body, status: form ? 400 : 200 });
}

export function create(ctx: DashboardContext, values: FormValues): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => {
      const name = (v.name ?? "").trim();
      const errors: FieldErrors = {};
      if (!name) errors.name = "Give the agent a name.";
      else if (name.length > L.name) errors.name = `At most ${L.name} characters.`;
      if ((v.instructions ?? "").length > L.instructions) errors.instructions = `At most ${L.instructions} characters.`;
      return { input: { name, instructions: v.instructions ?? "" }, errors };
    },
    call: (input) => createAgent(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), input),
    done: (agent) => redirect(ctx.deps, `/dashboard/agents/${agent.id}`, `Agent “${agent.name}” created.`),
    render: (refused) => listPage(ctx, {}, refused),
    refused: (error) => (error.status === 400 ? errorsFromService(error) : error.status === 409 ? { name: error.message } : null),
  });
}
