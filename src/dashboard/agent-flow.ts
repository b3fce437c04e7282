// An agent's conversation flow page: one table of step rows and one of variable rows, buttons to
// add a row, and the post that saves the rows as flow_config through the service.
import { type Agent, updateAgent } from "../agents/service.ts";
import { AGENT_LIMITS } from "../agents/agent-input.ts";
import { attrs, type Html, html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import {
  type DashboardContext,
  errorSummary,
  type FieldErrors,
  formValues,
  groupError,
  listTable,
  redirect,
  shellPage,
  submit,
  submitForm,
} from "./kit/index.ts";
import { errorsFromService } from "./agent-form.ts";
import { flowFrom, type FlowRows, flowRowsFrom, flowRowsOf } from "./agent-flow-rows.ts";

const L = AGENT_LIMITS;

function flowTable(kind: "step" | "variable", rows: string[], removed: Set<number>, errors: FieldErrors, disabled: boolean): Html {
  const noun = kind === "step" ? "Step" : "Variable";
  return listTable({
    caption: `${noun}s`,
    columns: ["#", `${noun} (text or JSON)`, "Remove"],
    rows,
    row: (text, i) => {
      const id = `f-${kind}_${i}`;
      const error = errors[`${kind}_${i}`];
      const remove = html`<input type="checkbox" id="f-remove_${kind}_${i}" name="remove_${kind}" value="${i}" aria-label="Remove ${kind} ${i + 1}"${attrs({ checked: removed.has(i), disabled })}>`;
      return html`<tr><td><label for="${id}">${noun} ${i + 1}</label></td><td><div class="field${error ? " has-error" : ""}"><input id="${id}" name="${kind}" type="text" value="${text}"${attrs({ "aria-invalid": error ? "true" : null, "aria-describedby": error ? `${id}-error` : null, disabled })}>${groupError(id, error)}</div></td><td>${text.trim() === "" ? "" : remove}</td></tr>`;
    },
    empty: null,
  });
}

async function flowPage(ctx: DashboardContext, agent: Agent, rows: FlowRows, errors: FieldErrors = {}, status = 200): Promise<Response> {
  const manage = ctx.can("agents:manage");
  const group = (key: string) => attrs({ id: `f-${key}`, "aria-describedby": errors[key] ? `f-${key}-error` : null });
  const body = html`<p><a href="/dashboard/agents/${agent.id}">← ${agent.name}</a></p>
<h1>Conversation flow of ${agent.name}</h1>
<p class="muted">The steps and custom variables the widget reads from its configuration (<code>flow_config</code>). One row each: plain text, or JSON such as <code>{"ask": "email"}</code>. Empty rows are skipped; tick Remove to drop a row when you save. At most ${L.flowItems} steps and ${L.flowItems} variables, ${L.flowDepth} levels and ${L.flowBytes / 1024} KiB in all.</p>
${errorSummary(errors)}
<form method="post" action="/dashboard/agents/${agent.id}/flow" novalidate>
${groupError("f-flow", errors.flow)}
<fieldset${group("steps")}><legend>Steps</legend>
${groupError("f-steps", errors.steps)}
${flowTable("step", rows.steps, rows.removeSteps, errors, !manage)}
</fieldset>
<fieldset${group("variables")}><legend>Custom variables</legend>
${groupError("f-variables", errors.variables)}
${flowTable("variable", rows.variables, rows.removeVariables, errors, !manage)}
</fieldset>
${
  manage
    ? // Save comes first: Enter in a row submits the form with its first button.
      html`<div class="actions">${submit("Save flow", { busy: "Saving…" })}${submit("Add a step row", { kind: "secondary", name: "op", value: "add_step" })}${submit("Add a variable row", { kind: "secondary", name: "op", value: "add_variable" })}</div>`
    : html`<p class="muted">You can view this flow; changing it needs the agents:manage role.</p>`
}
</form>`;
  return shellPage(ctx, { title: `Flow · ${agent.name}`, active: "agents", body, status });
}

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
        `Flow saved: ${flow.steps.length} step${flow.steps.length === 1 ? "" : "s"}, ${flow.custom_variables.length} variable${flow.custom_variables.length === 1 ? "" : "s"}.`,
      ),
    render: ({ errors }) => flowPage(ctx, agent, rows, errors, 400),
    refused: (error) => (error.status === 400 ? errorsFromService(error) : null),
  });
}
