// What an agent may be (README "Agents API"): the bounds of every field, the input a create or an
// update takes, and the checks beyond the route schemas (which bound types and lengths) that
// createAgent and updateAgent in service.ts run before they write.
import type { ErrorDetail } from "../errors.ts";
import { checkFreeForm } from "../http/free-form.ts";
import type { RoutingRule } from "../db/schema/index.ts";
import { LLM_LIMITS, type LlmOverrideInput } from "./llm-settings.ts";
import { checkText } from "./text-field.ts";
import { checkVoiceConfig } from "./voice-config.ts";

export const AGENT_LIMITS = {
  agentsPerOrg: 50,
  name: 100,
  instructions: 20_000,
  skills: 20,
  skill: 64,
  routingRules: 50,
  keywords: 20,
  keyword: 100,
  intent: 64,
  team: 64,
  liveHelpLabel: 60,
  videoDisplayMode: 32,
  /** avatar_config (the widget's look: image, colours…). */
  configBytes: 8 * 1024,
  configDepth: 5,
  /** flow_config: steps and custom variables. */
  flowBytes: 32 * 1024, // under the 64 KiB body limit of /api/*, so the bound is reachable and tested
  flowDepth: 8,
  flowItems: 100,
  ...LLM_LIMITS,
} as const;

/**
 * Video display modes the dashboard offers (`inline`, the default: inside the chat panel; `pip`:
 * a floating picture-in-picture window; `fullscreen`). The API accepts any token of the same
 * pattern (validate below), so a front end with modes of its own can store them; the dashboard
 * keeps such a value as it is.
 */
export const VIDEO_DISPLAY_MODES = ["inline", "pip", "fullscreen"] as const;

export interface AgentInput {
  name: string;
  instructions?: string;
  skills?: string[];
  routing_rules?: RoutingRule[];
  avatar_config?: Record<string, unknown>;
  voice_config?: Record<string, unknown>;
  flow_config?: { steps: unknown[]; custom_variables: unknown[] };
  live_help_label?: string;
  video_display_mode?: string;
  status?: "inactive" | "disabled";
  /** null removes the override. */
  llm?: LlmOverrideInput | null;
}

export type AgentPatch = Partial<AgentInput>;

// The org-wide model setting, named here too for the dashboard's settings page, which imports it
// from this module.

// --- validation beyond the route schemas (which bound types and lengths) ---------------------

function freeForm(problems: ErrorDetail[], path: string, value: unknown, maxDepth: number, maxBytes: number) {
  if (value === undefined) return;
  const problem = checkFreeForm(value, { maxDepth, maxBytes });
  if (problem) problems.push({ path, message: problem });
}

export function validateAgentInput(input: AgentPatch): ErrorDetail[] {
  const L = AGENT_LIMITS;
  const problems: ErrorDetail[] = [];
  checkText(problems, "/name", input.name, 1, L.name);
  checkText(problems, "/instructions", input.instructions, 0, L.instructions, { multiline: true });
  if (input.skills) {
    if (input.skills.length > L.skills) problems.push({ path: "/skills", message: `at most ${L.skills} skills` });
    input.skills.forEach((s, i) => checkText(problems, `/skills/${i}`, s, 1, L.skill));
    if (new Set(input.skills).size !== input.skills.length) problems.push({ path: "/skills", message: "must not repeat a skill" });
  }
  if (input.routing_rules) {
    if (input.routing_rules.length > L.routingRules) problems.push({ path: "/routing_rules", message: `at most ${L.routingRules} rules` });
    input.routing_rules.forEach((rule, i) => {
      const at = `/routing_rules/${i}`;
      const keywords = rule.match.keywords ?? [];
      if (keywords.length === 0 && rule.match.intent === undefined) problems.push({ path: `${at}/match`, message: "needs keywords or an intent" });
      if (keywords.length > L.keywords) problems.push({ path: `${at}/match/keywords`, message: `at most ${L.keywords} keywords` });
      keywords.forEach((k, j) => checkText(problems, `${at}/match/keywords/${j}`, k, 1, L.keyword));
      checkText(problems, `${at}/match/intent`, rule.match.intent, 1, L.intent);
      checkText(problems, `${at}/team`, rule.team, 1, L.team);
    });
  }
  freeForm(problems, "/avatar_config", input.avatar_config, L.configDepth, L.configBytes);
  checkVoiceConfig(problems, "/voice_config", input.voice_config);
  if (input.flow_config) {
    if (input.flow_config.steps.length > L.flowItems) problems.push({ path: "/flow_config/steps", message: `at most ${L.flowItems} steps` });
    if (input.flow_config.custom_variables.length > L.flowItems)
      problems.push({ path: "/flow_config/custom_variables", message: `at most ${L.flowItems} variables` });
    freeForm(problems, "/flow_config", input.flow_config, L.flowDepth, L.flowBytes);
  }
  checkText(problems, "/live_help_label", input.live_help_label, 1, L.liveHelpLabel);
  if (input.video_display_mode !== undefined && !/^[a-z][a-z0-9_-]{0,31}$/.test(input.video_display_mode))
    problems.push({ path: "/video_display_mode", message: `must be 1 to ${L.videoDisplayMode} lower-case letters, digits, - or _` });
  return problems;
}
