// One agent's page: its status and actions (activate, enable, disable, its actions and flow) and the
// edit form (behaviour, look in the widget, voice and video, model with a write-only key).
import { attrs, type Html, html } from "../../html/html.ts";
import { actionButton, errorSummary, field, type FieldErrors, type FormValues, select, submit, textarea } from "../kit/index.ts";
import { statusBadge, statusNote } from "./agent-status.ts";
import { VoiceFields } from "./agent-voice.ts";
import type { Agent } from "../../agents/service.ts";
import type { AGENT_LIMITS } from "../../agents/agent-input.ts";
import type { ResolvedLlm } from "../../agents/llm/provider.ts";
import type { VOICE_LIMITS } from "../../agents/voice-config.ts";

export interface AgentEditProps {
  agent: Agent;
  values: FormValues;
  errors: FieldErrors;
  manage: boolean;
  /** Which model answers the agent's conversations now. */
  answering: ResolvedLlm;
  /** The video display modes offered. */
  videoOptions: { value: string; label: string }[];
  limits: typeof AGENT_LIMITS;
  voiceLimits: typeof VOICE_LIMITS;
}

const PROVIDER_NAMES: Record<string, string> = {
  builtin: "the built-in provider (answers from the knowledge base)",
  openai: "OpenAI-compatible",
  anthropic: "Anthropic",
};

/** Which model answers this agent's conversations now, and why: its own setting, the org's, or the operator's default. */
function modelNote(answering: ResolvedLlm): Html {
  const model = answering.model ? html`, model <code>${answering.model}</code>` : "";
  const what = html`<strong>${PROVIDER_NAMES[answering.provider] ?? answering.provider}${model}</strong>`;
  const operator = html`the operator's default (<code>LLM_PROVIDER</code> on the server)`;
  const why =
    answering.source === "agent"
      ? html`set on this agent (it is pinned; choose “The organisation's default” to follow the organisation).`
      : answering.source === "org"
        ? html`the organisation's model, set in <a href="/dashboard/settings">Settings</a>; this agent follows it.`
        : html`${operator}; this agent follows it, as the organisation sets no model of its own.`;
  return html`<p class="hint" id="llm-answering">Answering now: ${what} — ${why}</p>`;
}

/** The buttons above the form: activate, the agent's actions and flow, enable or disable. */
function agentActions(agent: Agent, manage: boolean): Html {
  const base = `/dashboard/agents/${agent.id}`;
  const activate = manage && agent.status !== "active" ? actionButton(`${base}/activate`, "Make this the active agent", { busy: "Activating…" }) : "";
  const actions = html`<a class="button secondary" href="${base}/actions">Actions this agent may use</a>`;
  const links = html`${actions}<a class="button secondary" href="${base}/flow">Conversation flow</a>`;
  const toggle = !manage
    ? ""
    : agent.status === "disabled"
      ? actionButton(`${base}/enable`, "Enable", {
          confirm: `Enable “${agent.name}”? It can answer again when a widget names it, and take handoffs; it does not become the active agent.`,
        })
      : html`<a class="button secondary" href="${base}/disable">Disable…</a>`;
  return html`<div class="actions">${activate}${links}${toggle}</div>`;
}

const RULES_HINT =
  "One rule a line: keywords or intent:name, an arrow, the team; “handoff” at the end hands over to a person. " + "Example: refund, invoice -> Billing handoff";

function behaviour(p: AgentEditProps): Html {
  const { values: v, errors: e, limits: L } = p;
  return html`<fieldset${attrs({ disabled: !p.manage })}><legend>Behaviour</legend>
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: L.name })}
${textarea({ name: "instructions", label: "Instructions", value: v.instructions, error: e.instructions, rows: 8, hint: `Up to ${L.instructions} characters.` })}
${field({
  name: "skills",
  label: "Skills",
  value: v.skills,
  error: e.skills,
  hint: "Comma-separated, e.g. billing, shipping. Handoffs go to people with these skills.",
})}
${textarea({
  name: "routing_rules",
  label: "Routing rules",
  value: v.routing_rules,
  error: e.routing_rules,
  rows: 4,
  hint: RULES_HINT,
})}
</fieldset>`;
}

function look(p: AgentEditProps): Html {
  const { values: v, errors: e, limits: L } = p;
  return html`<fieldset${attrs({ disabled: !p.manage })}><legend>Look in the widget</legend>
<div class="grid2">
${field({ name: "look_title", label: "Title", value: v.look_title, error: e.look_title, maxLength: 60 })}
${field({
  name: "live_help_label",
  label: "Live-help label",
  value: v.live_help_label,
  error: e.live_help_label,
  maxLength: L.liveHelpLabel,
  hint: "The “talk to a person” button.",
})}
</div>
${textarea({ name: "look_greeting", label: "Greeting", value: v.look_greeting, error: e.look_greeting, rows: 2 })}
<div class="grid2">
${field({
  name: "look_primary_color",
  label: "Primary colour",
  value: v.look_primary_color,
  error: e.look_primary_color,
  placeholder: "Default blue",
  hint: "#rrggbb: the launcher, header and buttons. Empty: the widget's own blue.",
})}
${field({
  name: "look_text_color",
  label: "Text colour",
  value: v.look_text_color,
  error: e.look_text_color,
  placeholder: "Automatic",
  hint: "#rrggbb, for text on the primary colour. Empty: black or white, whichever reads better on it.",
})}
${field({ name: "look_image_url", label: "Avatar image", type: "url", value: v.look_image_url, error: e.look_image_url, hint: "An https:// address." })}
${select({
  name: "look_position",
  label: "Bubble position",
  value: v.look_position ?? "",
  error: e.look_position,
  options: [
    { value: "", label: "Default (right)" },
    { value: "right", label: "Right" },
    { value: "left", label: "Left" },
  ],
})}
</div>
</fieldset>`;
}

function voiceAndVideo(p: AgentEditProps): Html {
  const { values: v, errors: e } = p;
  return html`<fieldset${attrs({ disabled: !p.manage })}><legend>Voice and video</legend>
${select({
  name: "video_display_mode",
  label: "Video display mode",
  value: v.video_display_mode ?? "inline",
  error: e.video_display_mode,
  options: p.videoOptions,
  hint: "Where a video call shows in the widget.",
})}
${VoiceFields({ values: v, errors: e, limits: p.voiceLimits })}
</fieldset>`;
}

function model(p: AgentEditProps): Html {
  const { values: v, errors: e } = p;
  const keySet = p.agent.llmOverride?.api_key != null;
  const clearBox = html`<input type="checkbox" id="f-llm_clear_key" name="llm_clear_key">`;
  const clearKey = html`<div class="check">${clearBox}<label for="f-llm_clear_key">Remove the stored key</label></div>`;
  return html`<fieldset${attrs({ disabled: !p.manage })}><legend>Model</legend>
${modelNote(p.answering)}
${select({
  name: "llm_provider",
  label: "Provider",
  value: v.llm_provider ?? "",
  error: e.llm_provider,
  options: [
    { value: "", label: "The organisation's default" },
    { value: "builtin", label: "Built-in (answers from the knowledge base, no key)" },
    { value: "openai", label: "OpenAI-compatible" },
    { value: "anthropic", label: "Anthropic" },
  ],
})}
<div class="grid2">
${field({ name: "llm_model", label: "Model", value: v.llm_model, error: e.llm_model })}
${field({ name: "llm_base_url", label: "Base URL", type: "url", value: v.llm_base_url, error: e.llm_base_url, hint: "Optional; https." })}
</div>
${field({
  name: "llm_api_key",
  label: "API key",
  type: "password",
  value: "",
  error: e.llm_api_key,
  hint: keySet ? "A key is stored (never shown). Leave blank to keep it." : "Write-only: it is stored encrypted and never shown again.",
})}
${keySet ? clearKey : ""}
</fieldset>`;
}

export function AgentEdit(p: AgentEditProps): Html {
  const agent = p.agent;
  const save = p.manage
    ? html`<div class="actions">${submit("Save changes", { busy: "Saving…" })}</div>`
    : html`<p class="muted">You can view this agent; changing it needs the agents:manage role.</p>`;
  return html`<p><a href="/dashboard/agents">← Agents</a></p>
<h1>${agent.name} ${statusBadge(agent.status)}</h1>
${statusNote(agent)}
${agentActions(agent, p.manage)}
${errorSummary(p.errors)}
<form method="post" action="/dashboard/agents/${agent.id}" novalidate>
${behaviour(p)}
${look(p)}
${voiceAndVideo(p)}
${model(p)}
${save}
</form>`;
}
