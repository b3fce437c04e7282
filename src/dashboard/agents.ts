// Dashboard: agents (issue #14). List, create, edit (instructions, skills, routing rules, the
// widget's look and live-help label, voice settings and video display mode, the LLM override with
// a write-only key), the conversation flow (steps and custom variables, one row each), activate,
// disable (after a confirmation page) and enable, and the per-agent action toggles with connector,
// custom and destructive actions flagged. Every change goes through src/agents/service.ts and
// src/tools/toggles.ts, as /api/agents does, so the page and the API share every limit.
import { Elysia, t } from "elysia";
import { memberActor } from "../kit/actor.ts";
import type { ProviderKind } from "../agents/llm/types.ts";
import { activateAgent, type Agent, AGENT_LIMITS, type AgentPatch, createAgent, listAgents, readAgent, updateAgent, VIDEO_DISPLAY_MODES } from "../agents/service.ts";
import type { RoutingRule } from "../db/schema/index.ts";
import type { Deps } from "../deps.ts";
import { AppError } from "../errors.ts";
import { listAgentActions, setAgentActions } from "../tools/toggles.ts";
import { Html, html } from "../html/html.ts";
import { actionButton, type DashboardContext, errorSummary, field, type FieldErrors, formList, formValues, type FormValues, jsonField, pageNumber, pageOf, pager, redirect, select, shellPage, submit, textarea, when, withMember, formBody, IdParams } from "./kit/index.ts";

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
    video_display_mode: agent.videoDisplayMode,
    voice_config: Object.keys(agent.voiceConfig ?? {}).length > 0 ? JSON.stringify(agent.voiceConfig, null, 2) : "",
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
  if (v.video_display_mode !== undefined) {
    // The offered modes, or the value the agent already has (set through the API).
    const mode = v.video_display_mode;
    if (!(VIDEO_DISPLAY_MODES as readonly string[]).includes(mode) && mode !== current?.videoDisplayMode) errors.video_display_mode = "Choose a display mode.";
    else patch.video_display_mode = mode;
  }
  if (v.voice_config !== undefined) {
    const raw = v.voice_config.trim();
    if (raw === "") patch.voice_config = {};
    else {
      const parsed = jsonField(raw);
      if ("error" in parsed) errors.voice_config = `Voice settings: ${parsed.error}`;
      else if (!parsed.value || typeof parsed.value !== "object" || Array.isArray(parsed.value)) errors.voice_config = 'A JSON object, e.g. {"voice": "alloy"}; empty for none.';
      else patch.voice_config = parsed.value as Record<string, unknown>;
    }
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
    const name =
      first === "llm" ? `llm_${second ?? "provider"}`
      : first === "avatar_config" ? `look_${second ?? "title"}`
      : first === "flow_config" ? (second === "steps" ? "steps" : second === "custom_variables" ? "variables" : "flow")
      : (first ?? "name");
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
${all.some((a) => a.status === "active") ? "" : html`<p class="error" id="no-active-agent">No agent is active: the widget cannot load its agent and chats are refused (404) until you activate one.</p>`}
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
${statusNote(agent)}
<div class="actions">${manage && agent.status !== "active" ? actionButton(`/dashboard/agents/${agent.id}/activate`, "Make this the active agent", { busy: "Activating…" }) : ""}<a class="button secondary" href="/dashboard/agents/${agent.id}/actions">Actions this agent may use</a><a class="button secondary" href="/dashboard/agents/${agent.id}/flow">Conversation flow</a>${
    manage
      ? agent.status === "disabled"
        ? actionButton(`/dashboard/agents/${agent.id}/enable`, "Enable", { confirm: `Enable “${agent.name}”? It can answer again when a widget names it, and take handoffs; it does not become the active agent.` })
        : html`<a class="button secondary" href="/dashboard/agents/${agent.id}/disable">Disable…</a>`
      : ""
  }</div>
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
<fieldset${manage ? "" : new Html(" disabled")}><legend>Voice and video</legend>
${select({ name: "video_display_mode", label: "Video display mode", value: v.video_display_mode ?? "inline", error: e.video_display_mode, options: videoOptions(agent), hint: "Where a video call shows in the widget." })}
${textarea({ name: "voice_config", label: "Voice settings (JSON)", value: v.voice_config, error: e.voice_config, rows: 4, hint: `A JSON object your voice front end reads, e.g. {"voice": "alloy", "language": "en-GB"}; empty for none. At most ${L.configDepth} levels and ${L.configBytes / 1024} KiB.` })}
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

const VIDEO_LABELS: Record<string, string> = { inline: "Inline, in the chat panel (default)", pip: "Picture-in-picture, a floating window", fullscreen: "Full screen" };

/** The modes offered, and the agent's own if it was set to another through the API (kept as it is). */
function videoOptions(agent: Agent): { value: string; label: string }[] {
  const options = VIDEO_DISPLAY_MODES.map((m) => ({ value: m as string, label: VIDEO_LABELS[m] ?? m }));
  if (!(VIDEO_DISPLAY_MODES as readonly string[]).includes(agent.videoDisplayMode)) options.push({ value: agent.videoDisplayMode, label: `${agent.videoDisplayMode} (set through the API)` });
  return options;
}

/** What the agent's status means for the widget, said where an admin looks. */
function statusNote(agent: Agent): Html {
  if (agent.status === "active") return html`<p class="muted">This is the active agent: it answers the widget and chat, and tools act as it.</p>`;
  if (agent.status === "disabled")
    return html`<p class="muted">Disabled: it answers nothing, not even when a widget names it with <code>agent_id</code>, and takes no handoffs. Enable it to use it again.</p>`;
  return html`<p class="muted">Inactive: it answers only when a widget names it with <code>agent_id</code>, or when a routing rule hands a conversation over to it.</p>`;
}

// ---- conversation flow: one row a step or variable ------------------------------------------------

/**
 * A step or custom variable as the text of its row. Plain text stands for a string; anything else
 * is its JSON. A string that would read as JSON (or has spaces at its ends) is shown quoted, so
 * every value comes back from its row unchanged (parseFlowItem).
 */
export function flowItemText(value: unknown): string {
  if (typeof value === "string" && value !== "" && value === value.trim() && !/^[{["]/.test(value)) {
    try {
      JSON.parse(value);
    } catch {
      return value;
    }
  }
  return JSON.stringify(value);
}

/** A row's text as a value: JSON when it reads as JSON, else the text; a row starting like JSON must be JSON. Blank rows are skipped. */
export function parseFlowItem(text: string): { blank: true } | { value: unknown } | { error: string } {
  const t = text.trim();
  if (t === "") return { blank: true };
  if (/^[{["]/.test(t)) {
    const parsed = jsonField(t);
    return "error" in parsed ? { error: `${parsed.error} Write plain text, or JSON such as {"ask": "email"}.` } : parsed;
  }
  try {
    return { value: JSON.parse(t) as unknown }; // a number, true, false or null
  } catch {
    return { value: t };
  }
}

interface FlowRows {
  steps: string[];
  variables: string[];
  removeSteps: Set<number>;
  removeVariables: Set<number>;
}

function flowRowsOf(agent: Agent): FlowRows {
  return {
    steps: [...(agent.flowConfig.steps ?? []).map(flowItemText), ""],
    variables: [...(agent.flowConfig.custom_variables ?? []).map(flowItemText), ""],
    removeSteps: new Set(),
    removeVariables: new Set(),
  };
}

function indexes(values: string[]): Set<number> {
  return new Set(values.map(Number).filter((n) => Number.isInteger(n) && n >= 0));
}

function flowRowsFrom(body: unknown): FlowRows {
  return { steps: formList(body, "step"), variables: formList(body, "variable"), removeSteps: indexes(formList(body, "remove_step")), removeVariables: indexes(formList(body, "remove_variable")) };
}

/** The rows as the flow to save, or the field errors of the rows that do not read. */
function flowFrom(rows: FlowRows): { flow: { steps: unknown[]; custom_variables: unknown[] }; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const collect = (texts: string[], removed: Set<number>, key: string, noun: string) => {
    const out: unknown[] = [];
    texts.forEach((text, i) => {
      if (removed.has(i)) return;
      const item = parseFlowItem(text);
      if ("error" in item) errors[`${key}_${i}`] = `${noun} ${i + 1}: ${item.error}`;
      else if ("value" in item) out.push(item.value);
    });
    return out;
  };
  const steps = collect(rows.steps, rows.removeSteps, "step", "Step");
  const custom_variables = collect(rows.variables, rows.removeVariables, "variable", "Variable");
  return { flow: { steps, custom_variables }, errors };
}

function flowTable(kind: "step" | "variable", rows: string[], removed: Set<number>, errors: FieldErrors, disabled: boolean): Html {
  const noun = kind === "step" ? "Step" : "Variable";
  const off = disabled ? new Html(" disabled") : "";
  return html`<table><caption class="sr-only">${noun}s</caption>
<thead><tr><th scope="col">#</th><th scope="col">${noun} (text or JSON)</th><th scope="col">Remove</th></tr></thead>
<tbody>${rows.map((text, i) => {
    const id = `f-${kind}_${i}`;
    const error = errors[`${kind}_${i}`];
    return html`<tr><td><label for="${id}">${noun} ${i + 1}</label></td><td><div class="field${error ? " has-error" : ""}"><input id="${id}" name="${kind}" type="text" value="${text}"${error ? new Html(` aria-invalid="true" aria-describedby="${id}-error"`) : ""}${off}>${error ? html`<p class="field-error" id="${id}-error">${error}</p>` : ""}</div></td><td>${
      text.trim() === "" ? "" : html`<input type="checkbox" id="f-remove_${kind}_${i}" name="remove_${kind}" value="${i}" aria-label="Remove ${kind} ${i + 1}"${removed.has(i) ? new Html(" checked") : ""}${off}>`
    }</td></tr>`;
  })}</tbody></table>`;
}

async function flowPage(ctx: DashboardContext, agent: Agent, rows: FlowRows, errors: FieldErrors = {}, status = 200): Promise<Response> {
  const manage = ctx.can("agents:manage");
  const listError = (key: string) => (errors[key] ? html`<p class="field-error" id="f-${key}-error">${errors[key]}</p>` : "");
  const body = html`<p><a href="/dashboard/agents/${agent.id}">← ${agent.name}</a></p>
<h1>Conversation flow of ${agent.name}</h1>
<p class="muted">The steps and custom variables the widget reads from its configuration (<code>flow_config</code>). One row each: plain text, or JSON such as <code>{"ask": "email"}</code>. Empty rows are skipped; tick Remove to drop a row when you save. At most ${L.flowItems} steps and ${L.flowItems} variables, ${L.flowDepth} levels and ${L.flowBytes / 1024} KiB in all.</p>
${errorSummary(errors)}
<form method="post" action="/dashboard/agents/${agent.id}/flow" novalidate>
${listError("flow")}
<fieldset id="f-steps"${errors.steps ? new Html(' aria-describedby="f-steps-error"') : ""}><legend>Steps</legend>
${listError("steps")}
${flowTable("step", rows.steps, rows.removeSteps, errors, !manage)}
</fieldset>
<fieldset id="f-variables"${errors.variables ? new Html(' aria-describedby="f-variables-error"') : ""}><legend>Custom variables</legend>
${listError("variables")}
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

// ---- disable: a confirmation page, which works without the script --------------------------------

function disablePage(ctx: DashboardContext, agent: Agent): Response {
  const consequence =
    agent.status === "active"
      ? html`<p><strong>This is the active agent.</strong> Until you activate another agent, the organisation has none: the widget cannot load its agent (<code>/api/sdk/config</code> answers 404 <code>no_active_agent</code>), chat messages are refused with 404 “This organisation has no active agent.”, and tool calls over MCP are refused (-32002, the agent is disabled).</p>`
      : html`<p>It stops answering chats that name it with <code>agent_id</code> (404) and takes no more handoffs.</p>`;
  const body = html`<p><a href="/dashboard/agents/${agent.id}">← ${agent.name}</a></p>
<h1>Disable ${agent.name}?</h1>
${consequence}
<p>Its settings, flow and action toggles are kept; enable it again at any time.</p>
<form method="post" action="/dashboard/agents/${agent.id}/disable"><input type="hidden" name="confirm" value="yes"><div class="actions">${submit(`Disable ${agent.name}`, { kind: "danger", busy: "Disabling…" })}<a class="button secondary" href="/dashboard/agents/${agent.id}">Cancel</a></div></form>`;
  return shellPage(ctx, { title: `Disable ${agent.name}`, active: "agents", body });
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
/** The flow form: one field a row, each up to the whole flow's size, a few more rows than the limit allows (the service says what is too many). */
const FlowBody = formBody({ text: L.flowBytes + 1024, item: L.flowBytes + 1024, items: 4 * (L.flowItems + 10) });

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
    .get("/dashboard/agents/:id/flow", ({ request, params }) => withMember(deps, request, "agents:view", async (ctx) => { const agent = await readAgent(deps, ctx.orgId, params.id); return flowPage(ctx, agent, flowRowsOf(agent)); }), { params: IdParams })
    .post(
      "/dashboard/agents/:id/flow",
      ({ request, params, body }) =>
        withMember(deps, request, "agents:manage", async (ctx) => {
          const agent = await readAgent(deps, ctx.orgId, params.id);
          const rows = flowRowsFrom(body);
          // Adding a row saves nothing: the page comes back with what was typed and one more row.
          const op = formValues(body).op;
          if (op === "add_step" || op === "add_variable") {
            (op === "add_step" ? rows.steps : rows.variables).push("");
            return flowPage(ctx, agent, rows);
          }
          const { flow, errors } = flowFrom(rows);
          if (Object.keys(errors).length > 0) return flowPage(ctx, agent, rows, errors, 400);
          try {
            await updateAgent(deps, ctx.orgId, memberActor(ctx.principal.member.id), agent.id, { flow_config: flow });
            return redirect(deps, `/dashboard/agents/${agent.id}/flow`, `Flow saved: ${flow.steps.length} step${flow.steps.length === 1 ? "" : "s"}, ${flow.custom_variables.length} variable${flow.custom_variables.length === 1 ? "" : "s"}.`);
          } catch (error) {
            if (error instanceof AppError && error.status === 400) return flowPage(ctx, agent, rows, errorsFromService(error), 400);
            throw error;
          }
        }),
      { params: IdParams, body: FlowBody },
    )
    .get("/dashboard/agents/:id/disable", ({ request, params }) => withMember(deps, request, "agents:manage", async (ctx) => disablePage(ctx, await readAgent(deps, ctx.orgId, params.id))), { params: IdParams })
    .post(
      "/dashboard/agents/:id/disable",
      ({ request, params, body }) =>
        withMember(deps, request, "agents:manage", async (ctx) => {
          const agent = await readAgent(deps, ctx.orgId, params.id);
          // Only the confirmation page's form disables; any other post gets that page.
          if (formValues(body).confirm !== "yes") return disablePage(ctx, agent);
          const updated = await updateAgent(deps, ctx.orgId, memberActor(ctx.principal.member.id), agent.id, { status: "disabled" });
          const flash =
            agent.status === "active"
              ? { kind: "error" as const, text: `“${updated.name}” is disabled. The organisation has no active agent now: the widget answers that none is available until you activate one.` }
              : `“${updated.name}” is disabled.`;
          return redirect(deps, `/dashboard/agents/${updated.id}`, flash);
        }),
      { params: IdParams, body: FormBody },
    )
    .post(
      "/dashboard/agents/:id/enable",
      ({ request, params }) =>
        withMember(deps, request, "agents:manage", async (ctx) => {
          const agent = await readAgent(deps, ctx.orgId, params.id);
          if (agent.status !== "disabled") return redirect(deps, `/dashboard/agents/${agent.id}`, `“${agent.name}” is not disabled.`);
          const updated = await updateAgent(deps, ctx.orgId, memberActor(ctx.principal.member.id), agent.id, { status: "inactive" });
          return redirect(deps, `/dashboard/agents/${updated.id}`, `“${updated.name}” is enabled (inactive): make it the active agent to have it answer the widget.`);
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
