// An agent's edit form and the service's input: the form's values for an agent, the patch a
// submitted form asks for (or the errors next to its fields, checked with the API's limits), and a
// service's validation details as field errors.
import type { ProviderKind } from "../agents/llm/types.ts";
import { type Agent } from "../agents/service.ts";
import { AGENT_LIMITS, type AgentPatch, VIDEO_DISPLAY_MODES } from "../agents/agent-input.ts";
import type { AppError } from "../errors.ts";
import { detailErrors, type FieldErrors, type FormValues } from "./kit/index.ts";
import { parseRules, rulesToText } from "./agent-rules.ts";
import { voiceFrom, voiceValues } from "./agent-voice.ts";

const L = AGENT_LIMITS;

const LOOK = ["title", "greeting", "primary_color", "text_color", "image_url", "position"] as const;

export function valuesOf(agent: Agent): FormValues {
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
    ...voiceValues(agent),
  };
  for (const key of LOOK) v[`look_${key}`] = typeof look[key] === "string" ? (look[key] as string) : "";
  return v;
}

/** The patch a submitted edit form asks for, or the field errors that stop it. */
export function patchFrom(v: FormValues, current: Agent | null): { input: AgentPatch; errors: FieldErrors } {
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
    const skills = v.skills
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
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
    if (look.image_url !== undefined && (!/^https:\/\//.test(String(look.image_url)) || String(look.image_url).length > 2048))
      errors.look_image_url = "An https:// address (at most 2048 characters).";
    if (look.position !== undefined && !["right", "left"].includes(String(look.position))) errors.look_position = "Right or left.";
    patch.avatar_config = look;
  }
  if (v.video_display_mode !== undefined) {
    // The offered modes, or the value the agent already has (set through the API).
    const mode = v.video_display_mode;
    if (!(VIDEO_DISPLAY_MODES as readonly string[]).includes(mode) && mode !== current?.videoDisplayMode) errors.video_display_mode = "Choose a display mode.";
    else patch.video_display_mode = mode;
  }
  const voice = voiceFrom(v, errors);
  if (voice !== undefined) patch.voice_config = voice;
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
      patch.llm = {
        provider: provider as ProviderKind,
        model: model || null,
        base_url: base || null,
        ...(v.llm_clear_key === "on" ? { api_key: null } : key ? { api_key: key } : {}),
      };
    } else errors.llm_provider = "Choose a provider.";
  }
  return { input: patch, errors };
}

/** A service's validation details as field errors (`/routing_rules/2/team` → routing_rules). */
export function errorsFromService(error: AppError): FieldErrors {
  const key = ([first, second]: string[]) =>
    first === "llm"
      ? `llm_${second ?? "provider"}`
      : first === "avatar_config"
        ? `look_${second ?? "title"}`
        : first === "voice_config"
          ? `voice_${second ?? "enabled"}`
          : first === "flow_config"
            ? second === "steps"
              ? "steps"
              : second === "custom_variables"
                ? "variables"
                : "flow"
            : (first ?? "name");
  return detailErrors(error, key, "name");
}
