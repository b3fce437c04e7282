// One agent's page: its status and actions (activate, enable, disable, its actions and flow) and the
// edit form (behaviour, look in the widget, voice and video, model with a write-only key).
import { type Agent, updateAgent } from "../agents/service.ts";
import { AGENT_LIMITS, VIDEO_DISPLAY_MODES } from "../agents/agent-input.ts";
import { VOICE_LIMITS } from "../agents/voice-config.ts";
import { overrideFor, resolveLlm } from "../agents/llm/provider.ts";
import { memberActor } from "../kit/actor.ts";
import { type DashboardContext, type FormValues, redirect, type Refused, shellPage, submitForm } from "./kit/index.ts";
import { errorsFromService, patchFrom, valuesOf } from "./agent-form.ts";
import { AgentEdit } from "./views/agent-edit.ts";

export async function editPage(ctx: DashboardContext, agent: Agent, form?: Refused): Promise<Response> {
  const v = form?.values ?? valuesOf(agent);
  const e = form?.errors ?? {};
  const manage = ctx.can("agents:manage");
  const answering = resolveLlm(ctx.deps, await overrideFor(ctx.deps, ctx.orgId, agent));
  const body = AgentEdit({
    agent,
    values: v,
    errors: e,
    manage,
    answering,
    videoOptions: videoOptions(agent),
    limits: AGENT_LIMITS,
    voiceLimits: VOICE_LIMITS,
  });
  return shellPage(ctx, { title: agent.name, active: "agents", body, status: form ? 400 : 200 });
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
