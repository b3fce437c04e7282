// An agent's conversation flow page: one table of step rows and one of variable rows, buttons to
// add a row, and the post that saves the rows as flow_config through the service.
import { type Agent, updateAgent } from "../agents/service.ts";
import { AGENT_LIMITS } from "../agents/agent-input.ts";
import { memberActor } from "../kit/actor.ts";
import { type DashboardContext, type FieldErrors, formValues, redirect, shellPage, submitForm } from "./kit/index.ts";
import { errorsFromService } from "./agent-form.ts";
import { AgentFlow } from "./views/agent-flow.ts";
import { flowFrom, type FlowRows, flowRowsFrom, flowRowsOf } from "./agent-flow-form.ts";

const L = AGENT_LIMITS;

async function flowPage(ctx: DashboardContext, agent: Agent, rows: FlowRows, errors: FieldErrors = {}, status = 200): Promise<Response> {
  const body = AgentFlow({ agent, rows, errors, manage: ctx.can("agents:manage"), limits: L });
  return shellPage(ctx, { title: `Flow · ${agent.name}`, active: "agents", body, status });
}

/** "1 step", "3 steps". */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`;

export function showFlow(ctx: DashboardContext, agent: Agent): Promise<Response> {
  return flowPage(ctx, agent, flowRowsOf(agent));
}

/** Adding a row saves nothing: the page comes back with what was typed and one more row. */
export function saveFlow(ctx: DashboardContext, agent: Agent, body: unknown): Promise<Response> {
  const rows = flowRowsFrom(body);
  const values = formValues(body);
  if (values.op === "add_step" || values.op === "add_variable") {
    (values.op === "add_step" ? rows.steps : rows.variables).push("");
    return flowPage(ctx, agent, rows);
  }
  return submitForm({
    values,
    validate: () => flowFrom(rows),
    call: async (flow) => {
      await updateAgent(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), agent.id, { flow_config: flow });
      return flow;
    },
    done: (flow) =>
      redirect(
        ctx.deps,
        `/dashboard/agents/${agent.id}/flow`,
        `Flow saved: ${count(flow.steps.length, "step")}, ${count(flow.custom_variables.length, "variable")}.`,
      ),
    render: ({ errors }) => flowPage(ctx, agent, rows, errors, 400),
    refused: (error) => (error.status === 400 ? errorsFromService(error) : null),
  });
}
