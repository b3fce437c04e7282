// The agents list (with activate buttons) and the form that creates an agent.
import { createAgent, listAgents } from "../agents/service.ts";
import { AGENT_LIMITS } from "../agents/agent-input.ts";
import { type Html, html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import {
  actionButton,
  type DashboardContext,
  errorSummary,
  field,
  type FieldErrors,
  type FormValues,
  listTable,
  pageNumber,
  pageOf,
  pager,
  redirect,
  type Refused,
  shellPage,
  submit,
  submitForm,
  textarea,
  when,
} from "./kit/index.ts";
import { statusBadge } from "./agent-badges.ts";
import { errorsFromService } from "./agent-form.ts";

const L = AGENT_LIMITS;

export async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, form?: Refused): Promise<Response> {
  const all = await listAgents(ctx.deps, ctx.orgId);
  const page = pageOf(all, pageNumber(query.page));
  const manage = ctx.can("agents:manage");
  const body = html`<h1>Agents</h1>
<p class="muted">The active agent answers the widget, chat and campaigns. ${all.length} of at most ${L.agentsPerOrg} agents. <a href="/dashboard/eval">Test your agent</a> with your customers' questions.</p>
${all.some((a) => a.status === "active") ? "" : html`<p class="error" id="no-active-agent">No agent is active: the widget cannot load its agent and chats are refused (404) until you activate one.</p>`}
${listTable({
  caption: "Agents",
  columns: ["Name", "Status", "Skills", "Updated", ...(manage ? [{ label: "Actions", hidden: true as const }] : [])],
  rows: page.items,
  row: (a) =>
    html`<tr><td><a href="/dashboard/agents/${a.id}">${a.name}</a></td><td>${statusBadge(a.status)}</td><td>${a.skills.join(", ") || "—"}</td><td>${when(a.updatedAt)}</td>${manage ? html`<td>${a.status === "active" ? "" : actionButton(`/dashboard/agents/${a.id}/activate`, "Activate", { busy: "Activating…" })}</td>` : ""}</tr>`,
  empty: all.length === 0 ? "No agents yet." : null,
})}
${pager("/dashboard/agents", query, page.page, page.hasMore)}
${manage ? createForm(form?.values ?? {}, form?.errors ?? {}) : ""}`;
  // A refused form answers 400, whatever the service said (a name taken included).
  return shellPage(ctx, { title: "Agents", active: "agents", body, status: form ? 400 : 200 });
}

function createForm(values: FormValues, errors: FieldErrors): Html {
  return html`<section class="panel" aria-labelledby="new-agent"><h2 id="new-agent">New agent</h2>
${errorSummary(errors)}
<form method="post" action="/dashboard/agents" novalidate>
${field({ name: "name", label: "Name", value: values.name, error: errors.name, required: true, maxLength: L.name })}
${textarea({ name: "instructions", label: "Instructions", value: values.instructions, error: errors.instructions, hint: "How the agent should answer: tone, what it may promise, when to hand over.", rows: 5 })}
<div class="actions">${submit("Create agent", { busy: "Creating…" })}</div>
</form></section>`;
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
