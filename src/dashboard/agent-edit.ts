// One agent's page: its status and actions (activate, enable, disable, its actions and flow) and the
// edit form (behaviour, look in the widget, voice and video, model with a write-only key).
import { type Agent, updateAgent } from "../agents/service.ts";
import { AGENT_LIMITS, VIDEO_DISPLAY_MODES } from "../agents/agent-input.ts";
import { overrideFor, type ResolvedLlm, resolveLlm } from "../agents/llm/provider.ts";
import { attrs, html } from "../html/html.ts";
import { memberActor } from "../kit/actor.ts";
import {
  actionButton,
  type DashboardContext,
  errorSummary,
  field,
  type FormValues,
  redirect,
  type Refused,
  select,
  shellPage,
  submit,
  submitForm,
  textarea,
} from "./kit/index.ts";
import { statusBadge, statusNote } from "./agent-badges.ts";
import { errorsFromService, patchFrom, valuesOf } from "./agent-form.ts";
import { voiceFields } from "./agent-voice.ts";

const L = AGENT_LIMITS;

export async function editPage(ctx: DashboardContext, agent: Agent, form?: Refused): Promise<Response> {
  const v = form?.values ?? valuesOf(agent);
  const e = form?.errors ?? {};
  const manage = ctx.can("agents:manage");
  const keySet = agent.llmOverride?.api_key != null;
  const answering = resolveLlm(ctx.deps, await overrideFor(ctx.deps, ctx.orgId, agent));
  const body = html`<p><a href="/dashboard/agents">← Agents</a></p>
<h1>${agent.name} ${statusBadge(agent.status)}</h1>
${statusNote(agent)}
<div class="actions">${manage && agent.status !== "active" ? actionButton(`/dashboard/agents/${agent.id}/activate`, "Make this the active agent", { busy: "Activating…" }) : ""}<a class="button secondary" href="/dashboard/agents/${agent.id}/actions">Actions this agent may use</a><a class="button secondary" href="/dashboard/agents/${agent.id}/flow">Conversation flow</a>${
    manage
      ? agent.status === "disabled"
        ? actionButton(`/dashboard/agents/${agent.id}/enable`, "Enable", {
            confirm: `Enable “${agent.name}”? It can answer again when a widget names it, and take handoffs; it does not become the active agent.`,
          })
        : html`<a class="button secondary" href="/dashboard/agents/${agent.id}/disable">Disable…</a>`
      : ""
  }</div>
${errorSummary(e)}
<form method="post" action="/dashboard/agents/${agent.id}" novalidate>
<fieldset${attrs({ disabled: !manage })}><legend>Behaviour</legend>
${field({ name: "name", label: "Name", value: v.name, error: e.name, required: true, maxLength: L.name })}
${textarea({ name: "instructions", label: "Instructions", value: v.instructions, error: e.instructions, rows: 8, hint: `Up to ${L.instructions} characters.` })}
${field({ name: "skills", label: "Skills", value: v.skills, error: e.skills, hint: "Comma-separated, e.g. billing, shipping. Handoffs go to people with these skills." })}
${textarea({ name: "routing_rules", label: "Routing rules", value: v.routing_rules, error: e.routing_rules, rows: 4, hint: "One rule a line: keywords or intent:name, an arrow, the team; “handoff” at the end hands over to a person. Example: refund, invoice -> Billing handoff" })}
</fieldset>
<fieldset${attrs({ disabled: !manage })}><legend>Look in the widget</legend>
<div class="grid2">
${field({ name: "look_title", label: "Title", value: v.look_title, error: e.look_title, maxLength: 60 })}
${field({ name: "live_help_label", label: "Live-help label", value: v.live_help_label, error: e.live_help_label, maxLength: L.liveHelpLabel, hint: "The “talk to a person” button." })}
</div>
${textarea({ name: "look_greeting", label: "Greeting", value: v.look_greeting, error: e.look_greeting, rows: 2 })}
<div class="grid2">
${field({ name: "look_primary_color", label: "Primary colour", value: v.look_primary_color, error: e.look_primary_color, placeholder: "Default blue", hint: "#rrggbb: the launcher, header and buttons. Empty: the widget's own blue." })}
${field({ name: "look_text_color", label: "Text colour", value: v.look_text_color, error: e.look_text_color, placeholder: "Automatic", hint: "#rrggbb, for text on the primary colour. Empty: black or white, whichever reads better on it." })}
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
</fieldset>
<fieldset${attrs({ disabled: !manage })}><legend>Voice and video</legend>
${select({ name: "video_display_mode", label: "Video display mode", value: v.video_display_mode ?? "inline", error: e.video_display_mode, options: videoOptions(agent), hint: "Where a video call shows in the widget." })}
${voiceFields(v, e)}
</fieldset>
<fieldset${attrs({ disabled: !manage })}><legend>Model</legend>
${modelNote(answering)}
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
${field({ name: "llm_api_key", label: "API key", type: "password", value: "", error: e.llm_api_key, hint: keySet ? "A key is stored (never shown). Leave blank to keep it." : "Write-only: it is stored encrypted and never shown again." })}
${keySet ? html`<div class="check"><input type="checkbox" id="f-llm_clear_key" name="llm_clear_key"><label for="f-llm_clear_key">Remove the stored key</label></div>` : ""}
</fieldset>
${manage ? html`<div class="actions">${submit("Save changes", { busy: "Saving…" })}</div>` : html`<p class="muted">You can view this agent; changing it needs the agents:manage role.</p>`}
</form>`;
  return shellPage(ctx, { title: agent.name, active: "agents", body, status: form ? 400 : 200 });
}

const PROVIDER_NAMES: Record<string, string> = {
  builtin: "the built-in provider (answers from the knowledge base)",
  openai: "OpenAI-compatible",
  anthropic: "Anthropic",
};

/** Which model answers this agent's conversations now, and why: its own setting, the org's, or the operator's default. */
function modelNote(answering: ResolvedLlm) {
  const what = html`<strong>${PROVIDER_NAMES[answering.provider] ?? answering.provider}${answering.model ? html`, model <code>${answering.model}</code>` : ""}</strong>`;
  const why =
    answering.source === "agent"
      ? html`set on this agent (it is pinned; choose “The organisation's default” to follow the organisation).`
      : answering.source === "org"
        ? html`the organisation's model, set in <a href="/dashboard/settings">Settings</a>; this agent follows it.`
        : html`the operator's default (<code>LLM_PROVIDER</code> on the server); this agent follows it, as the organisation sets no model of its own.`;
  return html`<p class="hint" id="llm-answering">Answering now: ${what} — ${why}</p>`;
}

const VIDEO_LABELS: Record<string, string> = {
  inline: "Inline, in the chat panel (default)",
  pip: "Picture-in-picture, a floating window",
  fullscreen: "Full screen",
};

/** The modes offered, and the agent's own if it was set to another through the API (kept as it is). */
function videoOptions(agent: Agent): { value: string; label: string }[] {
  const options = VIDEO_DISPLAY_MODES.map((m) => ({ value: m as string, label: VIDEO_LABELS[m] ?? m }));
  if (!(VIDEO_DISPLAY_MODES as readonly string[]).includes(agent.videoDisplayMode))
    options.push({ value: agent.videoDisplayMode, label: `${agent.videoDisplayMode} (set through the API)` });
  return options;
}

export function save(ctx: DashboardContext, agent: Agent, values: FormValues): Promise<Response> {
  return submitForm({
    values,
    validate: (v) => patchFrom(v, agent),
    call: (patch) => updateAgent(ctx.deps, ctx.orgId, memberActor(ctx.principal.member.id), agent.id, patch),
    done: (updated) => redirect(ctx.deps, `/dashboard/agents/${updated.id}`, "Changes saved."),
    render: (refused) => editPage(ctx, agent, refused),
    refused: (error) => (error.status === 400 ? errorsFromService(error) : null),
  });
}
