// An agent's conversation flow page: one table of step rows and one of variable rows, and buttons
// to save or to add a row.
import { attrs, type Html, html } from "../../html/html.ts";
import { errorSummary, type FieldErrors, groupError, listTable, submit } from "../kit/index.ts";
import type { Agent } from "../../agents/service.ts";
import type { AGENT_LIMITS } from "../../agents/agent-input.ts";
import type { FlowRows } from "../agent-flow-form.ts";

export interface AgentFlowProps {
  agent: Pick<Agent, "id" | "name">;
  rows: FlowRows;
  errors: FieldErrors;
  manage: boolean;
  limits: typeof AGENT_LIMITS;
}

function flowRow(kind: "step" | "variable", text: string, i: number, removed: Set<number>, errors: FieldErrors, disabled: boolean): Html {
  const noun = kind === "step" ? "Step" : "Variable";
  const id = `f-${kind}_${i}`;
  const error = errors[`${kind}_${i}`];
  const removeState = attrs({ checked: removed.has(i), disabled });
  const remove = html`<input type="checkbox" id="f-remove_${kind}_${i}" name="remove_${kind}" value="${i}" aria-label="Remove ${kind} ${i + 1}"${removeState}>`;
  const state = attrs({ "aria-invalid": error ? "true" : null, "aria-describedby": error ? `${id}-error` : null, disabled });
  const input = html`<input id="${id}" name="${kind}" type="text" value="${text}"${state}>`;
  const cell = html`<div class="field${error ? " has-error" : ""}">${input}${groupError(id, error)}</div>`;
  return html`<tr><td><label for="${id}">${noun} ${i + 1}</label></td><td>${cell}</td><td>${text.trim() === "" ? "" : remove}</td></tr>`;
}

function flowTable(kind: "step" | "variable", rows: string[], removed: Set<number>, errors: FieldErrors, disabled: boolean): Html {
  const noun = kind === "step" ? "Step" : "Variable";
  return listTable({
    caption: `${noun}s`,
    columns: ["#", `${noun} (text or JSON)`, "Remove"],
    rows,
    row: (text, i) => flowRow(kind, text, i, removed, errors, disabled),
    empty: null,
  });
}

function intro(limits: typeof AGENT_LIMITS): Html {
  const config = html`the widget reads from its configuration (<code>flow_config</code>)`;
  const rows = html`One row each: plain text, or JSON such as <code>{"ask": "email"}</code>.`;
  const size = html`${limits.flowDepth} levels and ${limits.flowBytes / 1024} KiB in all`;
  const bounds = html`At most ${limits.flowItems} steps and ${limits.flowItems} variables, ${size}.`;
  const empty = html`Empty rows are skipped; tick Remove to drop a row when you save.`;
  return html`<p class="muted">The steps and custom variables ${config}. ${rows} ${empty} ${bounds}</p>`;
}

function buttons(manage: boolean): Html {
  if (!manage) return html`<p class="muted">You can view this flow; changing it needs the agents:manage role.</p>`;
  // Save comes first: Enter in a row submits the form with its first button.
  const addStep = submit("Add a step row", { kind: "secondary", name: "op", value: "add_step" });
  const addVariable = submit("Add a variable row", { kind: "secondary", name: "op", value: "add_variable" });
  return html`<div class="actions">${submit("Save flow", { busy: "Saving…" })}${addStep}${addVariable}</div>`;
}

export function AgentFlow(p: AgentFlowProps): Html {
  const { agent, rows, errors } = p;
  const group = (key: string) => attrs({ id: `f-${key}`, "aria-describedby": errors[key] ? `f-${key}-error` : null });
  return html`<p><a href="/dashboard/agents/${agent.id}">← ${agent.name}</a></p>
<h1>Conversation flow of ${agent.name}</h1>
${intro(p.limits)}
${errorSummary(errors)}
<form method="post" action="/dashboard/agents/${agent.id}/flow" novalidate>
${groupError("f-flow", errors.flow)}
<fieldset${group("steps")}><legend>Steps</legend>
${groupError("f-steps", errors.steps)}
${flowTable("step", rows.steps, rows.removeSteps, errors, !p.manage)}
</fieldset>
<fieldset${group("variables")}><legend>Custom variables</legend>
${groupError("f-variables", errors.variables)}
${flowTable("variable", rows.variables, rows.removeVariables, errors, !p.manage)}
</fieldset>
${buttons(p.manage)}
</form>`;
}
