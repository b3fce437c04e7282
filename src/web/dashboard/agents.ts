// Dashboard: agents (issue #14). List, create, edit (instructions, skills, routing rules, the
// widget's look and live-help label, the LLM override with a write-only key), activate, and the
// per-agent action toggles with connector, custom and destructive actions flagged. Every change
// goes through src/agents/service.ts and src/tools/toggles.ts, as /api/agents does.
import { Elysia, t } from "elysia";
import { memberActor } from "../../activity/actor.ts";
import type { ProviderKind } from "../../agents/llm/types.ts";
import { activateAgent, type Agent, AGENT_LIMITS, type AgentPatch, createAgent, listAgents, readAgent, updateAgent } from "../../agents/service.ts";
import type { RoutingRule } from "../../db/schema/index.ts";
import type { Deps } from "../../deps.ts";
import { AppError } from "../../errors.ts";
import { listAgentActions, setAgentActions } from "../../tools/toggles.ts";
import { Html, html } from "../html.ts";
import { actionButton, type DashboardContext, errorSummary, field, type FieldErrors, formList, formValues, type FormValues, pageNumber, pageOf, pager, redirect, select, shellPage, submit, textarea, when, withMember, formBody, IdParams } from "./shell.ts";

const L = AGENT_LIMITS;

function statusBadge(status: string): Html {
  const cls = status === "active" ? "ok" : status === "disabled" ? "danger" : "";
  return html`<span class="badge ${cls}">${status}</span>`;
}

// ---- routing rules as text: one rule per line --------------------------------------------------

/** `billing, invoice -> Billing` · `intent:refund -> Billing handoff` (the dashboard's notation). */
export function rulesToText(rules: readonly RoutingRule[]): string {
  return rules
    .map((r) => {
      const match = [...(r.match.keywords ?? []), ...(r.match.intent ? [`intent:${r.match.intent}`] : [])].join(", ");
      return `${match} -> ${r.team}${r.action === "handoff" ? " handoff" : ""}`;
    })
    .join("\n");
}

export function parseRules(text: string): { rules: RoutingRule[]; error?: string } {
  const rules: RoutingRule[] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === "") continue;
    const arrow = line.indexOf("->");
    if (arrow < 0) return { rules, error: `Line ${i + 1}: write "keywords -> team" (an arrow between them).` };
    let target = line.slice(arrow + 2).trim();
    let action: "handoff" | undefined;
    if (/\shandoff$/i.test(target)) {
      action = "handoff";
      target = target.replace(/\shandoff$/i, "").trim();
    }
    if (!target) return { rules, error: `Line ${i + 1}: name the team after the arrow.` };
    const keywords: string[] = [];
    let intent: string | undefined;
    for (const part of line.slice(0, arrow).split(",").map((p) => p.trim()).filter(Boolean)) {
      if (part.toLowerCase().startsWith("intent:")) intent = part.slice(7).trim();
      else keywords.push(part);
    }
    if (keywords.length === 0 && !intent) return { rules, error: `Line ${i + 1}: give keywords or intent:name before the arrow.` };
    rules.push({ match: { ...(keywords.length ? { keywords } : {}), ...(intent ? { intent } : {}) }, team: target, ...(action ? { action } : {}) });
  }
  return { rules };
}

// ---- the form ↔ the service's input -------------------------------------------------------------

const LOOK = ["title", "greeting", "primary_color", "text_color", "image_url", "position"] as const;

function valuesOf(agent: Agent): FormValues {
  const look = (agent.avatarConfig ?? {}) as Record<string, unknown>;
  const v: FormValues = {
    name: agent.name,
    instructions: agent.instructions,
    skills: agent.skills.join(", "),
    routing_rules: rulesToText(agent.routingRules),
    live_help_label: agent.liveHelpLabel,
    llm_provider: agent.llmOverride?.provider ?? "",
    llm_model: agent.llmOverride?.model ?? "",
    llm_base_url: agent.llmOverride?.base_url ?? "",
  };
  for (const key of LOOK) v[`look_${key}`] = typeof look[key] === "string" ? (look[key] as string) : "";
  return v;
}

/** The patch a submitted edit form asks for, or the field errors that stop it. */
function patchFrom(v: FormValues, current: Agent | null): { patch: AgentPatch; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const name = (v.name ?? "").trim();
  if (!name) errors.name = "Give the agent a name.";
  else if (name.length > L.name) errors.name = `At most ${L.name} characters.`;
  const patch: AgentPatch = { name };
  if (v.instructions !== undefined) {
    if (v.instructions.length > L.instructions) errors.instructions = `At most ${L.instructions} characters (this has ${v.instructions.length}).`;
    patch.instructions = v.instructions;
  }
  if (v.skills !== undefined) {
    const skills = v.skills.split(",").map((s) => s.trim()).filter(Boolean);
    if (skills.length > L.skills) errors.skills = `At most ${L.skills} skills.`;
    else if (skills.some((s) => s.length > L.skill)) errors.skills = `Each skill is at most ${L.skill} characters.`;
    else if (new Set(skills).size !== skills.length) errors.skills = "A skill is listed twice.";
    patch.skills = skills;
  }
  if (v.routing_rules !== undefined) {
    const parsed = parseRules(v.routing_rules);
    if (parsed.error) errors.routing_rules = parsed.error;
    patch.routing_rules = parsed.rules;
  }
  if (v.live_help_label !== undefined) {
    const label = v.live_help_label.trim();
    if (!label) errors.live_help_label = "Give the button a label, e.g. “Talk to a person”.";
    else if (label.length > L.liveHelpLabel) errors.live_help_label = `At most ${L.liveHelpLabel} characters.`;
    patch.live_help_label = label;
  }
  if (v.look_title !== undefined) {
    const look: Record<string, unknown> = { ...((current?.avatarConfig ?? {}) as Record<string, unknown>) };
    for (const key of LOOK) {
      const value = (v[`look_${key}`] ?? "").trim();
      if (value === "") delete look[key];
      else look[key] = value;
    }
    const color = /^#[0-9a-fA-F]{6}$/;
    if (look.title !== undefined && String(look.title).length > 60) errors.look_title = "At most 60 characters.";
    if (look.greeting !== undefined && String(look.greeting).length > 500) errors.look_greeting = "At most 500 characters.";
    if (look.primary_color !== undefined && !color.test(String(look.primary_color))) errors.look_primary_color = "A colour as #rrggbb.";
    if (look.text_color !== undefined && !color.test(String(look.text_color))) errors.look_text_color = "A colour as #rrggbb.";
    if (look.image_url !== undefined && (!/^https:\/\//.test(String(look.image_url)) || String(look.image_url).length > 2048)) errors.look_image_url = "An https:// address (at most 2048 characters).";
    if (look.position !== undefined && !["right", "left"].includes(String(look.position))) errors.look_position = "Right or left.";
    patch.avatar_config = look;
  }
  if (v.llm_provider !== undefined) {
    const provider = v.llm_provider;
    if (provider === "") patch.llm = null;
    else if (provider === "builtin" || provider === "openai" || provider === "anthropic") {
      const key = v.llm_api_key ?? "";
      const model = (v.llm_model ?? "").trim();
      const base = (v.llm_base_url ?? "").trim();
      if (model.length > L.model) errors.llm_model = `At most ${L.model} characters.`;
      if (base.length > L.baseUrl) errors.llm_base_url = `At most ${L.baseUrl} characters.`;
      if (key.length > L.apiKey) errors.llm_api_key = `At most ${L.apiKey} characters.`;
      patch.llm = { provider: provider as ProviderKind, model: model || null, base_url: base || null, ...(v.llm_clear_key === "on" ? { api_key: null } : key ? { api_key: key } : {}) };
    } else errors.llm_provider = "Choose a provider.";
  }
  return { patch, errors };
}

/** A service's validation details as field errors (`/routing_rules/2/team` → routing_rules). */
function errorsFromService(error: AppError): FieldErrors {
  const out: FieldErrors = {};
  for (const d of error.details ?? []) {
    const [first, second] = d.path.split("/").filter(Boolean);
    const name = first === "llm" ? `llm_${second ?? "provider"}` : first === "avatar_config" ? `look_${second ?? "title"}` : (first ?? "name");
    out[name] ??= `${d.message.charAt(0).toUpperCase()}${d.message.slice(1)}.`;
  }
  if (Object.keys(out).length === 0) out.name = error.message;
  return out;
}

// ---- pages --------------------------------------------------------------------------------------

async function listPage(ctx: DashboardContext, query: Record<string, string | undefined>, form?: { values: FormValues; errors: FieldErrors }): Promise<Response> {
  const all = await listAgents(ctx.deps, ctx.orgId);
  const page = pageOf(all, pageNumber(query.page));
  const manage = ctx.can("agents:manage");
  const body = html`<h1>Agents</h1>
<p class="muted">The active agent answers the widget, chat and campaigns. ${all.length} of at most ${L.agentsPerOrg} agents.</p>
<table>
<caption class="sr-only">Agents</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Skills</th><th scope="col">Updated</th>${manage ? html`<th scope="col"><span class="sr-only">Actions</span></th>` : ""}</tr></thead>
<tbody>${page.items.map(
    (a) => html`<tr><td><a href="/dashboard/agents/${a.id}">${a.name}</a></td><td>${statusBadge(a.status)}</td><td>${a.skills.join(", ") || "—"}</td><td>${when(a.updatedAt)}</td>${
      manage ? html`<td>${a.status === "active" ? "" : actionButton(`/dashboard/agents/${a.id}/activate`, "Activate", { busy: "Activating…" })}</td>` : ""
    }</tr>`,
  )}${all.length === 0 ? html`<tr><td colspan="5">No agents yet.</td></tr>` : ""}</tbody>
</table>
${pager("/dashboard/agents", query, page.page, page.hasMore)}
${manage ? createForm(form?.values ?? {}, form?.errors ?? {}) : ""}`;
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

async function editPage(ctx: DashboardContext, agent: Agent, form?: { values: FormValues; errors: FieldErrors }): Promise<Response> {
  const v = form?.values ?? valuesOf(agent);
  const e = form?.errors ?? {};
  const manage = ctx.can("agents:manage");
  const keySet = agent.llmOverride?.api_key != null;
  const body = html`<p><a href="/dashboard/agents">← Agents</a></p>
<h1>${agent.name} ${statusBadge(agent.status)}</h1>
<div class="actions">${manage && agent.status !== "active" ? actionButton(`/dashboard/agents/${agent.id}/activate`, "Make this the active agent", { busy: "Activating…" }) : ""}<a class="button secondary" href="/dashboard/agents/${agent.id}/actions">Actions this agent may use</a></div>
${errorSummary(e)}
<form method="post" action="/dashboard/agents/${agent.id}" novalidate>
<fieldset${manage ? "" : new Html(" disabled")}><legend>Behaviour</legend>
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: L.name })}
${textarea({ name: "instructions", label: "Instructions", value: v.instructions, error: e.instructions, rows: 8, hint: `Up to ${L.instructions} characters.` })}
${field({ name: "skills", label: "Skills", value: v.skills, error: e.skills, hint: "Comma-separated, e.g. billing, shipping. Handoffs go to people with these skills." })}
${textarea({ name: "routing_rules", label: "Routing rules", value: v.routing_rules, error: e.routing_rules, rows: 4, hint: "One rule a line: keywords or intent:name, an arrow, the team; “handoff” at the end hands over to a person. Example: refund, invoice -> Billing handoff" })}
</fieldset>
<fieldset${manage ? "" : new Html(" disabled")}><legend>Look in the widget</legend>
<div class="grid2">
${field({ name: "look_title", label: "Title", value: v.look_title, error: e.look_title, maxLength: 60 })}
${field({ name: "live_help_label", label: "Live-help label", value: v.live_help_label, error: e.live_help_label, maxLength: L.liveHelpLabel, hint: "The “talk to a person” button." })}
</div>
${textarea({ name: "look_greeting", label: "Greeting", value: v.look_greeting, error: e.look_greeting, rows: 2 })}
<div class="grid2">
${field({ name: "look_primary_color", label: "Primary colour", value: v.look_primary_color, error: e.look_primary_color, placeholder: "#2f5bea", hint: "#rrggbb" })}
${field({ name: "look_text_color", label: "Text colour", value: v.look_text_color, error: e.look_text_color, placeholder: "#ffffff", hint: "#rrggbb, on the primary colour" })}
${field({ name: "look_image_url", label: "Avatar image", type: "url", value: v.look_image_url, error: e.look_image_url, hint: "An https:// address." })}
${select({ name: "look_position", label: "Bubble position", value: v.look_position ?? "", error: e.look_position, options: [{ value: "", label: "Default (right)" }, { value: "right", label: "Right" }, { value: "left", label: "Left" }] })}
</div>
</fieldset>
<fieldset${manage ? "" : new Html(" disabled")}><legend>Model</legend>
${select({ name: "llm_provider", label: "Provider", value: v.llm_provider ?? "", error: e.llm_provider, options: [{ value: "", label: "The organisation's default" }, { value: "builtin", label: "Built-in (answers from the knowledge base, no key)" }, { value: "openai", label: "OpenAI-compatible" }, { value: "anthropic", label: "Anthropic" }] })}
<div class="grid2">
${field({ name: "llm_model", label: "Model", value: v.llm_model, error: e.llm_model })}
${field({ name: "llm_base_url", label: "Base URL", type: "url", value: v.llm_base_url, error: e.llm_base_url, hint: "Optional; https." })}
</div>
${field({ name: "llm_api_key", label: "API key", type: "password", value: "", error: e.llm_api_key, hint: keySet ? "A key is stored (never shown). Leave blank to keep it." : "Write-only: it is stored encrypted and never shown again." })}
${keySet ? html`<div class="check"><input type="checkbox" id="f-llm_clear_key" name="llm_clear_key"><label for="f-llm_clear_key">Remove the stored key</label></div>` : ""}
</fieldset>
${manage ? html`<div class="actions">${submit("Save changes", { busy: "Saving…" })}</div>` : html`<p class="muted">You can view this agent; changing it needs the agents:manage role.</p>`}
</form>`;
  return shellPage(ctx, { title: agent.name, active: "agents", body, status: form ? 400 : 200 });
}

const ACTIONS_PAGE = 50;

async function actionsPage(ctx: DashboardContext, agent: Agent, query: Record<string, string | undefined>): Promise<Response> {
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
${select({ name: "source", label: "Source", value: filter, options: [{ value: "", label: "All sources" }, { value: "builtin", label: "Built-in" }, { value: "connector", label: "Connectors" }, { value: "custom", label: "Custom actions" }] })}
<button type="submit" class="secondary">Filter</button>
</form>
<form method="post" action="/dashboard/agents/${agent.id}/actions">
<table>
<caption class="sr-only">Actions</caption>
<thead><tr><th scope="col">On</th><th scope="col">Action</th><th scope="col">Source</th></tr></thead>
<tbody>${page.items.map(
    (a, i) => html`<tr><td><input type="hidden" name="shown" value="${a.id}"><input type="checkbox" id="act-${i}" name="enabled" value="${a.id}"${a.enabled ? new Html(" checked") : ""}${manage ? "" : new Html(" disabled")} aria-describedby="act-${i}-d"></td><td><label for="act-${i}"><code>${a.name}</code></label><div class="hint" id="act-${i}-d">${a.description.length > 200 ? `${a.description.slice(0, 200).replace(/\s+\S*$/, "")}…` : a.description}</div></td><td>${flag(a)}</td></tr>`,
  )}${page.items.length === 0 ? html`<tr><td colspan="3">No actions${filter ? " from this source" : ""}.</td></tr>` : ""}</tbody>
</table>
${manage && page.items.length > 0 ? html`<div class="actions">${submit("Save toggles", { busy: "Saving…" })}</div>` : ""}
</form>
${pager(`/dashboard/agents/${agent.id}/actions`, query, page.page, page.hasMore)}`;
  return shellPage(ctx, { title: `Actions · ${agent.name}`, active: "agents", body });
}

// ---- routes -------------------------------------------------------------------------------------

const Page = t.Object({ page: t.Optional(t.String({ maxLength: 10 })), source: t.Optional(t.String({ maxLength: 20 })) });
/** Form bodies: every field a bounded string (the page reports what is wrong with each). */
const FormBody = formBody({ text: 40_000, item: 300, items: 2000 });

export function agentPages(deps: Deps) {
  return new Elysia({ name: "dashboard-agents" })
    .get("/dashboard/agents", ({ request, query }) => withMember(deps, request, "agents:view", (ctx) => listPage(ctx, query)), { query: Page })
    .post(
      "/dashboard/agents",
      ({ request, body }) =>
        withMember(deps, request, "agents:manage", async (ctx) => {
          const values = formValues(body);
          const name = (values.name ?? "").trim();
          const errors: FieldErrors = {};
          if (!name) errors.name = "Give the agent a name.";
          else if (name.length > L.name) errors.name = `At most ${L.name} characters.`;
          if ((values.instructions ?? "").length > L.instructions) errors.instructions = `At most ${L.instructions} characters.`;
          if (Object.keys(errors).length > 0) return listPage(ctx, {}, { values, errors });
          try {
            const agent = await createAgent(deps, ctx.orgId, memberActor(ctx.principal.member.id), { name, instructions: values.instructions ?? "" });
            return redirect(deps, `/dashboard/agents/${agent.id}`, `Agent “${agent.name}” created.`);
          } catch (error) {
            if (error instanceof AppError && error.status === 400) return listPage(ctx, {}, { values, errors: errorsFromService(error) });
            if (error instanceof AppError && error.status === 409) return listPage(ctx, {}, { values, errors: { name: error.message } });
            throw error;
          }
        }),
      { body: FormBody },
    )
    .get("/dashboard/agents/:id", ({ request, params }) => withMember(deps, request, "agents:view", async (ctx) => editPage(ctx, await readAgent(deps, ctx.orgId, params.id))), { params: IdParams })
    .post(
      "/dashboard/agents/:id",
      ({ request, params, body }) =>
        withMember(deps, request, "agents:manage", async (ctx) => {
          const agent = await readAgent(deps, ctx.orgId, params.id);
          const values = formValues(body);
          const { patch, errors } = patchFrom(values, agent);
          if (Object.keys(errors).length > 0) return editPage(ctx, agent, { values, errors });
          try {
            const updated = await updateAgent(deps, ctx.orgId, memberActor(ctx.principal.member.id), agent.id, patch);
            return redirect(deps, `/dashboard/agents/${updated.id}`, "Changes saved.");
          } catch (error) {
            if (error instanceof AppError && error.status === 400) return editPage(ctx, agent, { values, errors: errorsFromService(error) });
            throw error;
          }
        }),
      { params: IdParams, body: FormBody },
    )
    .post(
      "/dashboard/agents/:id/activate",
      ({ request, params }) =>
        withMember(deps, request, "agents:manage", async (ctx) => {
          const agent = await activateAgent(deps, ctx.orgId, memberActor(ctx.principal.member.id), params.id);
          return redirect(deps, `/dashboard/agents/${agent.id}`, `“${agent.name}” is now the active agent.`);
        }),
      { params: IdParams },
    )
    .get(
      "/dashboard/agents/:id/actions",
      ({ request, params, query }) => withMember(deps, request, "agents:view", async (ctx) => actionsPage(ctx, await readAgent(deps, ctx.orgId, params.id), query)),
      { params: IdParams, query: Page },
    )
    .post(
      "/dashboard/agents/:id/actions",
      ({ request, params, body }) =>
        withMember(deps, request, "agents:manage", async (ctx) => {
          const agent = await readAgent(deps, ctx.orgId, params.id);
          // Only the actions shown on the submitted page change: an unchecked box is "off", an
          // action on another page is left as it is.
          const shown = new Set(formList(body, "shown"));
          const on = new Set(formList(body, "enabled").filter((id) => shown.has(id)));
          const current = new Map((await listAgentActions(deps, ctx.orgId, agent.id)).map((a) => [a.id, a.enabled]));
          const enable = [...on].filter((id) => current.get(id) === false);
          const disable = [...shown].filter((id) => !on.has(id) && current.get(id) === true);
          await setAgentActions(deps, ctx.orgId, memberActor(ctx.principal.member.id), agent.id, { enable, disable });
          const changed = enable.length + disable.length;
          return redirect(deps, `/dashboard/agents/${agent.id}/actions`, changed === 0 ? "Nothing changed." : `${changed} action${changed === 1 ? "" : "s"} switched.`);
        }),
      { params: IdParams, body: FormBody },
    );
}
